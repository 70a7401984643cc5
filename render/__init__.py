"""Rendering: the board renderer behind ``render_mode``, log playback, and a person playing in a window.

``RenderView`` (plain data, no pygame) is importable without the ``render`` extra;
the pygame-backed names are imported lazily on first use.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # keep CLI output clean

from huesenv.lazy import lazy_exports
from huesenv.render.layout import HEIGHT, SHAPE, SIZE, WIDTH, cell_at, cell_center, cell_rect, frame_rect
from huesenv.render.view import RenderView

_LAZY = {
    "BoardRenderer": "huesenv.render.renderer",
    "RENDER_FPS": "huesenv.render.renderer",
    "cone_colour": "huesenv.render.renderer",
    "views_from_records": "huesenv.render.playback",
    "GameViewBuilder": "huesenv.render.playback",
    "export_frames": "huesenv.render.playback",
    "run_replay": "huesenv.render.playback",
    "ReplayController": "huesenv.render.playback",
    "HumanAgent": "huesenv.render.human_play",
    "HumanInput": "huesenv.render.human_play",
    "play_human_game": "huesenv.render.human_play",
}

__all__ = [
    "HEIGHT",
    "RenderView",
    "SHAPE",
    "SIZE",
    "WIDTH",
    "cell_at",
    "cell_center",
    "cell_rect",
    "frame_rect",
    *_LAZY,
]

__getattr__ = lazy_exports(__name__, _LAZY)
