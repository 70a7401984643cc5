"""Fonts for text drawn into probe images: matplotlib's bundled DejaVu TTFs through PIL.

Why: matplotlib is a core dependency and ships DejaVu, so stimuli render the
same on every machine without depending on system fonts.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

FONT_FILES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf", "mono": "DejaVuSansMono-Bold.ttf"}


def font_path(style: str = "bold") -> str:
    """Absolute path of a bundled DejaVu TTF (``regular``, ``bold`` or ``mono``)."""
    import matplotlib

    if style not in FONT_FILES:
        raise ValueError(f"font style: {style!r} is not one of {sorted(FONT_FILES)}")
    path = os.path.join(matplotlib.get_data_path(), "fonts", "ttf", FONT_FILES[style])
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: matplotlib's bundled DejaVu font is missing")
    return path


@lru_cache(maxsize=64)
def load_font(size: int, style: str = "bold") -> Any:  # a PIL ImageFont.FreeTypeFont
    """A PIL ``FreeTypeFont`` of the given pixel size (cached)."""
    from PIL import ImageFont

    return ImageFont.truetype(font_path(style), size=int(size))


__all__ = ["FONT_FILES", "font_path", "load_font"]
