"""Draws a :class:`~huesenv.envs.rendering.view.RenderView` with pygame: the frame behind ``render_mode``.

``BoardRenderer.frame(view)`` returns an ``(480, 1024, 3)`` uint8 array (the
geometry is documented in :mod:`huesenv.envs.rendering.layout`); ``show(view)`` puts the
same picture in a pygame window.  Drawing happens on an off-screen
``pygame.Surface``, so ``frame`` never opens a window and works with
``SDL_VIDEODRIVER=dummy`` (no display is initialised at all).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.envs.rendering.renderer``.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

import numpy as np

from huesenv.board import N_CELLS, Board, format_coord, load_board
from huesenv.envs.rendering.layout import (
    BOARD_H,
    BOARD_W,
    BOARD_X,
    BOARD_Y,
    CELL,
    HEIGHT,
    PANEL_X,
    SHAPE,
    SIZE,
    STATUS_Y,
    WIDTH,
    cell_at,
    cell_center,
    cell_rect,
    frame_rect,
    ring_rect,
)
from huesenv.envs.rendering.view import RenderView
from huesenv.envs.rendering.window import Window

RENDER_FPS = 4

# matplotlib tab10, as 0-255 sRGB (written out so the renderer does not import matplotlib)
CONE_COLOURS: tuple[tuple[int, int, int], ...] = (
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
)
CONE_SHAPES: tuple[str, ...] = (
    "circle",
    "square",
    "triangle",
    "diamond",
    "triangle_down",
    "pentagon",
    "hexagon",
    "star",
    "plus",
    "octagon",
)
BACKGROUND = (30, 30, 34)
TEXT = (232, 232, 232)
DIM_TEXT = (160, 160, 168)
MESSAGE = (255, 140, 120)
GAIN = (120, 220, 120)
HIGHLIGHT = (70, 70, 84)
FRAME_INNER = (255, 255, 255)
FRAME_OUTER = (0, 0, 0)
OUTLINE = (0, 0, 0)

PHASE_NAMES = {
    "pick_target": "choosing the target",
    "cue_1": "cue 1",
    "guess_1": "first cones",
    "cue_2": "cue 2",
    "guess_2": "second cones",
    "reveal": "reveal",
    "done": "game over",
}


def cone_colour(seat: int) -> tuple[int, int, int]:
    """The fill colour of a seat's cones (cycles after 10 seats)."""
    return CONE_COLOURS[seat % len(CONE_COLOURS)]


def cone_shape(seat: int) -> str:
    return CONE_SHAPES[seat % len(CONE_SHAPES)]


def _shape_points(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]] | None:
    """Polygon of a marker centred on (cx, cy) with radius r; None means a circle."""

    def regular(n: int, start: float) -> list[tuple[float, float]]:
        return [
            (cx + r * math.cos(start + 2 * math.pi * k / n), cy + r * math.sin(start + 2 * math.pi * k / n))
            for k in range(n)
        ]

    if shape == "circle":
        return None
    if shape == "square":
        return regular(4, math.pi / 4)
    if shape == "triangle":
        return regular(3, -math.pi / 2)
    if shape == "triangle_down":
        return regular(3, math.pi / 2)
    if shape == "diamond":
        return regular(4, 0.0)
    if shape == "pentagon":
        return regular(5, -math.pi / 2)
    if shape == "hexagon":
        return regular(6, 0.0)
    if shape == "octagon":
        return regular(8, math.pi / 8)
    if shape == "star":
        pts = []
        for k in range(10):
            rr = r if k % 2 == 0 else r * 0.48
            a = -math.pi / 2 + math.pi * k / 5
            pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
        return pts
    if shape == "plus":
        a, b = r * 0.38, r
        return [
            (cx - a, cy - b),
            (cx + a, cy - b),
            (cx + a, cy - a),
            (cx + b, cy - a),
            (cx + b, cy + a),
            (cx + a, cy + a),
            (cx + a, cy + b),
            (cx - a, cy + b),
            (cx - a, cy + a),
            (cx - b, cy + a),
            (cx - b, cy - a),
            (cx - a, cy - a),
        ]
    raise ValueError(f"unknown cone shape {shape!r}: expected one of {CONE_SHAPES}")


def _ensure_pygame() -> Any:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as err:  # pragma: no cover - depends on the install
        raise ImportError("rendering needs pygame: pip install 'huesenv[render]'") from err
    if not pygame.font.get_init():
        pygame.font.init()
    return pygame


class BoardRenderer:
    """Renders views of the board.  One instance per env; reuse it across frames (the board is cached).

    Geometry helpers (:meth:`cell_rect`, :meth:`cell_center`, :meth:`cell_at`,
    :meth:`frame_rect`) give the pixel positions documented in
    :mod:`huesenv.envs.rendering.layout`.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "rgb_array"], "render_fps": RENDER_FPS}
    size: tuple[int, int] = SIZE  # (width, height) in pixels
    shape: tuple[int, int, int] = SHAPE  # numpy shape of frame()

    cell_rect = staticmethod(cell_rect)
    cell_center = staticmethod(cell_center)
    cell_at = staticmethod(cell_at)
    frame_rect = staticmethod(frame_rect)

    def __init__(self, board: Board | None = None, *, title: str = "Hues and Cues") -> None:
        self.board = board if board is not None else load_board()
        self.title = title
        self._pg = _ensure_pygame()
        self._fonts: dict[int, Any] = {}
        self._base: Any = None
        self._window: Any = None

    # -- public API -------------------------------------------------------------
    def surface(self, view: RenderView) -> Any:
        """Draw ``view`` on a new off-screen ``pygame.Surface`` of :attr:`size`."""
        pg = self._pg
        _check_view(view)
        surf = pg.Surface(SIZE, depth=32)
        surf.blit(self._board_surface(), (0, 0))
        if view.card:
            for cell in view.card:
                self._outline_cell(surf, cell, thick=False)
        if view.hover is not None and view.hover not in view.cones:
            self._outline_hover(surf, view.hover)
        if view.target is not None:
            if view.phase in ("reveal", "done"):
                self._draw_ring(surf, view.target)
                self._draw_frame(surf, view.target)
            self._outline_cell(surf, view.target, thick=True)
        for cell, seat in sorted(view.cones.items()):
            self._draw_cone(surf, cell_center(cell), seat, radius=CELL * 0.4)
            cue = view.cone_cues.get(cell)
            if cue is not None:
                self._cone_number(surf, cell, cue)
        if view.final:
            self._draw_standings(surf, view)
        self._draw_panel(surf, view)
        self._draw_status(surf, view)
        return surf

    def frame(self, view: RenderView) -> np.ndarray:
        """The rgb_array frame: ``(480, 1024, 3)`` uint8, no window involved."""
        surf = self.surface(view)
        data = self._pg.image.tobytes(surf, "RGB")
        return np.frombuffer(data, dtype=np.uint8).reshape(SHAPE).copy()

    def show(self, view: RenderView) -> None:
        """Draw ``view`` in a pygame window (opened on first use)."""
        if self._window is None:
            self._window = Window(SIZE, self.title)
        self._window.present(self.surface(view))
        self._window.pump()

    @property
    def window(self) -> Any:
        return self._window

    def close(self) -> None:
        """Close the window if one was opened (frames keep working afterwards)."""
        if self._window is not None:
            self._window.close()
            self._window = None

    # -- drawing ------------------------------------------------------------------
    def _font(self, size: int) -> Any:
        if size not in self._fonts:
            self._fonts[size] = self._pg.font.Font(None, size)
        return self._fonts[size]

    def _text(
        self,
        surf: Any,
        text: str,
        pos: tuple[int, int],
        *,
        size: int = 20,
        colour: tuple[int, int, int] = TEXT,
        anchor: str = "topleft",
        max_width: int | None = None,
    ) -> Any:
        font = self._font(size)
        if max_width is not None and font.size(text)[0] > max_width:
            while text and font.size(text + "...")[0] > max_width:
                text = text[:-1]
            text += "..."
        img = font.render(text, True, colour)
        rect = img.get_rect(**{anchor: pos})
        surf.blit(img, rect)
        return rect

    def _board_surface(self) -> Any:
        """Cells and coordinate labels: identical in every frame, so drawn once."""
        if self._base is not None:
            return self._base
        pg = self._pg
        base = pg.Surface(SIZE, depth=32)
        base.fill(BACKGROUND)
        rgb = self.board.rgb
        for i in range(N_CELLS):
            base.fill(tuple(int(v) for v in rgb[i]), pg.Rect(cell_rect(i)))
        for col in range(BOARD_W // CELL):
            x, y, w, _ = cell_rect(col)
            self._text(
                base, str(col + 1), (x + w // 2, BOARD_Y - 3), size=16, colour=DIM_TEXT, anchor="midbottom"
            )
        for row in range(BOARD_H // CELL):
            x, y, _, h = cell_rect(row * (BOARD_W // CELL))
            self._text(
                base,
                format_coord(row * (BOARD_W // CELL))[0],
                (BOARD_X - 8, y + h // 2),
                size=18,
                colour=DIM_TEXT,
                anchor="midright",
            )
        self._base = base
        return base

    def _draw_cone(self, surf: Any, centre: tuple[float, float], seat: int, radius: float) -> None:
        pg = self._pg
        cx, cy = centre
        pts = _shape_points(cone_shape(seat), cx, cy, radius)
        if pts is None:
            pg.draw.circle(surf, OUTLINE, (cx, cy), radius + 1.5)
            pg.draw.circle(surf, cone_colour(seat), (cx, cy), radius - 0.5)
        else:
            pg.draw.polygon(surf, cone_colour(seat), pts)
            pg.draw.polygon(surf, OUTLINE, pts, width=2)
            # the outline can cover the very centre of thin shapes: keep the fill visible there
            pg.draw.rect(surf, cone_colour(seat), pg.Rect(int(cx) - 1, int(cy) - 1, 3, 3))

    def _outline_cell(self, surf: Any, cell: int, *, thick: bool) -> None:
        pg = self._pg
        rect = pg.Rect(cell_rect(cell))
        if thick:
            pg.draw.rect(surf, FRAME_OUTER, rect, 3)
            pg.draw.rect(surf, FRAME_INNER, rect.inflate(-6, -6), 2)
        else:  # a card cell: visible on any colour, yet leaving the middle of the cell to be seen
            pg.draw.rect(surf, FRAME_OUTER, rect, 2)
            pg.draw.rect(surf, FRAME_INNER, rect.inflate(-4, -4), 2)

    def _outline_hover(self, surf: Any, cell: int) -> None:
        """The cell a click would choose: a white outline just outside it, black around that."""
        pg = self._pg
        rect = pg.Rect(cell_rect(cell))
        pg.draw.rect(surf, FRAME_OUTER, rect.inflate(6, 6), 2)
        pg.draw.rect(surf, FRAME_INNER, rect.inflate(2, 2), 2)

    def _cone_number(self, surf: Any, cell: int, cue: int) -> None:
        """The cue a cone answered (1 or 2), small in the cell's corner, white on a black chip."""
        pg = self._pg
        x, y, w, h = cell_rect(cell)
        chip = pg.Rect(x + w - 10, y + h - 11, 10, 11)
        pg.draw.rect(surf, OUTLINE, chip)
        self._text(surf, str(cue), chip.center, size=14, colour=(255, 255, 255), anchor="center")

    def _draw_frame(self, surf: Any, target: int) -> None:
        pg = self._pg
        rect = pg.Rect(frame_rect(target))
        pg.draw.rect(surf, FRAME_OUTER, rect.inflate(4, 4), 2)
        pg.draw.rect(surf, FRAME_INNER, rect, 2)

    def _draw_ring(self, surf: Any, target: int) -> None:
        """Dashed outline of the 5×5 area: white dashes on a black line, so it shows on any colour."""
        pg = self._pg
        rect = pg.Rect(ring_rect(target))
        pg.draw.rect(surf, FRAME_OUTER, rect, 2)
        x0, y0, x1, y1 = rect.left + 1, rect.top + 1, rect.right - 2, rect.bottom - 2
        dash = 6
        for x in range(x0, x1, 2 * dash):
            pg.draw.line(surf, FRAME_INNER, (x, y0), (min(x + dash, x1), y0))
            pg.draw.line(surf, FRAME_INNER, (x, y1), (min(x + dash, x1), y1))
        for y in range(y0, y1, 2 * dash):
            pg.draw.line(surf, FRAME_INNER, (x0, y), (x0, min(y + dash, y1)))
            pg.draw.line(surf, FRAME_INNER, (x1, y), (x1, min(y + dash, y1)))

    def _draw_standings(self, surf: Any, view: RenderView) -> None:
        """The final standings in a box over the board (ties share a rank)."""
        pg = self._pg
        labels = _labels(view)
        order = sorted(range(len(labels)), key=lambda k: (-view.scores[k], k))
        row_h = 26
        w = 460
        h = 56 + row_h * len(order)
        box = pg.Rect(
            BOARD_X + (BOARD_W - w) // 2, BOARD_Y + max((BOARD_H - h) // 2, 4), w, min(h, BOARD_H - 8)
        )
        pg.draw.rect(surf, BACKGROUND, box)
        pg.draw.rect(surf, TEXT, box, 2)
        self._text(surf, "Final standings", (box.centerx, box.top + 10), size=28, anchor="midtop")
        y = box.top + 44
        rank = 0
        for pos, seat in enumerate(order):
            if pos == 0 or view.scores[seat] != view.scores[order[pos - 1]]:
                rank = pos + 1
            if y + row_h > box.bottom:
                break
            self._text(surf, f"{rank}.", (box.left + 34, y + 3), size=22, anchor="topright")
            self._draw_cone(surf, (box.left + 52, y + row_h // 2), seat, radius=9)
            self._text(surf, labels[seat], (box.left + 70, y + 3), size=22, max_width=w - 140)
            self._text(surf, str(view.scores[seat]), (box.right - 16, y + 3), size=24, anchor="topright")
            y += row_h

    def _draw_panel(self, surf: Any, view: RenderView) -> None:
        pg = self._pg
        x, y, w = PANEL_X, BOARD_Y - 4, WIDTH - PANEL_X - 8
        labels = _labels(view)
        phase = PHASE_NAMES.get(view.phase, view.phase)
        # RenderView.round is 0-based like the env's state; people count rounds from 1
        self._text(
            surf, f"Round {view.round + 1}" + (f"  -  {phase}" if phase else ""), (x, y), size=22, max_width=w
        )
        y += 24
        if view.cue_giver is not None:
            self._text(surf, "Cue giver: " + labels[view.cue_giver], (x, y), size=18, max_width=w)
            y += 19
        if view.current is not None and view.phase not in ("reveal", "done"):
            self._text(surf, "Turn: " + labels[view.current], (x, y), size=18, max_width=w)
            y += 19
        y += 6
        self._text(surf, "Cues", (x, y), size=20, colour=DIM_TEXT)
        y += 20
        if view.cues:
            for k, cue in enumerate(view.cues, start=1):
                self._text(surf, f"{k}. {cue}", (x + 6, y), size=22, max_width=w - 6)
                y += 21
        else:
            self._text(surf, "(none yet)", (x + 6, y), size=18, colour=DIM_TEXT)
            y += 19
        if view.target is not None:
            y += 4
            self._text(surf, f"Target: {format_coord(view.target)}", (x, y), size=20)
            y += 20
        y += 8
        self._text(surf, "Players", (x, y), size=20, colour=DIM_TEXT)
        self._text(surf, "score", (x + w, y), size=18, colour=DIM_TEXT, anchor="topright")
        y += 20
        row_h = 22
        for seat, label in enumerate(labels):
            if y + row_h > HEIGHT - 4:
                break
            if seat == view.current and view.phase not in ("reveal", "done"):
                pg.draw.rect(surf, HIGHLIGHT, pg.Rect(x - 4, y - 1, w + 6, row_h))
            self._draw_cone(surf, (x + 9, y + row_h // 2), seat, radius=8)
            score = str(view.scores[seat]) if seat < len(view.scores) else ""
            gain = view.gains[seat] if seat < len(view.gains) else None
            room = w - 64 - (28 if view.gains else 0)  # name and marker; score (and +N) right-aligned
            if seat == view.cue_giver:  # the marker always shows; the name gives way
                marker = " (cue)"
                room -= self._font(18).size(marker)[0]
                rect = self._name(surf, label, (x + 24, y + 3), room)
                self._text(surf, marker, (rect.right, y + 3), size=18, colour=DIM_TEXT)
            else:
                self._name(surf, label, (x + 24, y + 3), room)
            right = x + w
            if gain is not None:
                self._text(surf, f"+{gain}", (right, y + 3), size=20, colour=GAIN, anchor="topright")
                right -= 30
            self._text(surf, score, (right, y + 3), size=20, anchor="topright")
            y += row_h

    def _name(self, surf: Any, label: str, pos: tuple[int, int], room: int) -> Any:
        """A player's name in ``room`` pixels: smaller type before any cut, and a cut in the middle
        (``text-embedding:all-M…L6-v2``) so both the agent kind and the model's tail stay readable."""
        for size in (18, 15):
            if self._font(size).size(label)[0] <= room:
                return self._text(surf, label, pos, size=size)
        font = self._font(15)
        keep = len(label)
        while keep > 4 and font.size(_middle_cut(label, keep))[0] > room:
            keep -= 1
        return self._text(surf, _middle_cut(label, keep), pos, size=15, max_width=room)

    def _draw_status(self, surf: Any, view: RenderView) -> None:
        if view.message:
            self._text(surf, view.message, (BOARD_X, STATUS_Y), size=22, colour=MESSAGE, max_width=BOARD_W)
        if view.prompt:
            self._text(surf, view.prompt, (BOARD_X, STATUS_Y + 26), size=22, colour=TEXT, max_width=BOARD_W)


def _middle_cut(text: str, keep: int) -> str:
    """``text`` shortened to about ``keep`` characters with "…" in the middle, cut where a part of the
    name ends (``text-…-MiniLM-L6-v2``, never ``text-embeddi…``; unchanged when it fits)."""
    if len(text) <= keep:
        return text
    head = text[: (keep + 1) // 2]
    tail = text[len(text) - (keep - len(head)) :]
    return (_PART_END.sub("", head) or head) + "…" + (_PART_START.sub("", tail) or tail)


_PART_END, _PART_START = re.compile(r"[^:/\- ]+$"), re.compile(r"^[^:/\- ]+")


_SEAT_LABEL = re.compile(r"^player_(\d+) \((.+)\)$")


def short_label(label: str) -> str:
    """``"player_2 (human-replay)"`` -> ``"#2 human-replay"``: the seat's cone already says which seat,
    so the panel spends its width on the agent's name."""
    match = _SEAT_LABEL.match(label)
    return f"#{match.group(1)} {match.group(2)}" if match else label


def _labels(view: RenderView) -> tuple[str, ...]:
    if view.labels and len(view.labels) == len(view.players):
        return tuple(short_label(s) for s in view.labels)
    return tuple(view.players)


def _check_view(view: RenderView) -> None:
    """Reject views that would draw a wrong picture (the renderer is the last place to notice)."""
    n = len(view.players)
    for cell, seat in view.cones.items():
        if not 0 <= int(cell) < N_CELLS:
            raise ValueError(f"RenderView.cones: cell {cell!r} is off the board: expected 0-{N_CELLS - 1}")
        if not 0 <= int(seat) < n:
            raise ValueError(f"RenderView.cones: seat {seat!r} at cell {cell} is not a seat 0-{n - 1}")
    for name in ("cue_giver", "current"):
        seat = getattr(view, name)
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"RenderView.{name}: seat {seat!r} is not a seat 0-{n - 1}")
    for name in ("target",):
        cell = getattr(view, name)
        if cell is not None and not 0 <= cell < N_CELLS:
            raise ValueError(f"RenderView.{name}: cell {cell!r} is off the board: expected 0-{N_CELLS - 1}")
    for cell in view.card:
        if not 0 <= cell < N_CELLS:
            raise ValueError(f"RenderView.card: cell {cell!r} is off the board: expected 0-{N_CELLS - 1}")
