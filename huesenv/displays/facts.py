"""The study's recorded display facts mapped onto the bundled profiles: who played on which kind of screen.

Reads a ``huesenv collect export --task participants`` (or ``words``) table: ``userId``, ``colorGamut``
(CSS ``color-gamut``: the widest of srgb / p3 / rec2020 the screen covers) and, when present,
``devicePixelRatio``.  A browser reports ``srgb`` for any screen that covers about sRGB *or less*, so
it stands for the sRGB and the narrow laptop profiles together; ``rec2020`` is wider than any bundled
profile.  One row per participant counts (the first row of each).
"""

from __future__ import annotations

import csv
import io
import os
from typing import Any

from huesenv.displays.measurements import MAX_BYTES
from huesenv.trust import read_user_text

GAMUT_PROFILES = {
    "srgb": "srgb or narrower (srgb, laptop-45ntsc)",
    "p3": "display-p3",
    "rec2020": "wider than display-p3 (no bundled profile)",
    "none": "not reported by the browser",
}


def _dpr(value: str) -> str:
    try:
        return "high-density (>1)" if float(value) > 1 else "standard (1)"
    except ValueError:
        return "unknown"


def display_facts(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """One row per (gamut, pixel-density) class: ``gamut, profiles, pixel_density, participants``."""
    text = read_user_text(
        path, encoding="utf-8-sig", expected="a participants or words export", max_bytes=20 * MAX_BYTES
    )
    try:
        seen = _participants(io.StringIO(text, newline=""), path)
    except csv.Error as err:
        raise ValueError(f"{path}: not a UTF-8 CSV table ({err})") from None
    counts: dict[tuple[str, str], int] = {}
    for key in seen.values():
        counts[key] = counts.get(key, 0) + 1
    return [
        {"gamut": g, "profiles": GAMUT_PROFILES[g], "pixel_density": d, "participants": n}
        for (g, d), n in sorted(counts.items())
    ]


def _participants(fh: io.StringIO, path: str | os.PathLike[str]) -> dict[str, tuple[str, str]]:
    """Each participant's (gamut, pixel density), from their first row."""
    seen: dict[str, tuple[str, str]] = {}
    reader = csv.DictReader(fh)
    missing = [c for c in ("userId", "colorGamut") if c not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"{path}, line 1: missing column(s) {missing} (a participants or words export)")
    for row in reader:
        user = (row["userId"] or "").strip()
        if user and user not in seen:
            gamut = (row["colorGamut"] or "").strip().lower()
            seen[user] = (
                gamut if gamut in GAMUT_PROFILES else "none",
                _dpr(row.get("devicePixelRatio") or ""),
            )
    return seen
