"""Rendering applications: log playback and frame/video export.

The frame drawing itself (``RenderView``, the layout, ``BoardRenderer``) lives in
:mod:`huesenv.envs.rendering` because the env's ``render()`` needs it; it is
re-exported here.  ``RenderView`` (plain data, no pygame) is importable without
the ``render`` extra; the pygame-backed names are imported lazily on first use.
A person playing in a window is :mod:`huesenv.play`.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # keep CLI output clean

from huesenv.envs.rendering.layout import (
    HEIGHT,
    SHAPE,
    SIZE,
    WIDTH,
    cell_at,
    cell_center,
    cell_rect,
    frame_rect,
)
from huesenv.envs.rendering.view import RenderView
from huesenv.lazy import lazy_exports

_LAZY = {
    "BoardRenderer": "huesenv.envs.rendering.renderer",
    "RENDER_FPS": "huesenv.envs.rendering.renderer",
    "cone_colour": "huesenv.envs.rendering.renderer",
    "views_from_records": "huesenv.render.playback",
    "LiveTable": "huesenv.render.playback",
    "export_frames": "huesenv.render.playback",
    "run_replay": "huesenv.render.playback",
    "ReplayController": "huesenv.render.playback",
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
