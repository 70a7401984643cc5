"""Where things go on a rendered frame: pure geometry, no pygame, so it is cheap to test and to import.

A frame is :data:`WIDTH` × :data:`HEIGHT` = 1024 × 480 pixels (an rgb_array of
shape ``(480, 1024, 3)``).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.envs.rendering.layout``.
"""

from __future__ import annotations

from huesenv.board import N_CELLS, N_COLS, N_ROWS, check_index, neighbourhood

CELL = 24
BOARD_X = 28
BOARD_Y = 24
BOARD_W = CELL * N_COLS  # 720
BOARD_H = CELL * N_ROWS  # 384
STATUS_Y = BOARD_Y + BOARD_H + 8  # 416
PANEL_X = BOARD_X + BOARD_W + 14  # 762
WIDTH = 1024
HEIGHT = 480
SIZE = (WIDTH, HEIGHT)
SHAPE = (HEIGHT, WIDTH, 3)  # numpy shape of an rgb_array frame


def cell_rect(index: int) -> tuple[int, int, int, int]:
    """Pixel rectangle ``(x, y, w, h)`` of a cell (flat index) on the frame."""
    row, col = divmod(check_index(index), N_COLS)
    return (BOARD_X + col * CELL, BOARD_Y + row * CELL, CELL, CELL)


def cell_center(index: int) -> tuple[int, int]:
    """Centre pixel ``(x, y)`` of a cell: shows the cell's own sRGB unless a cone stands there."""
    x, y, w, h = cell_rect(index)
    return (x + w // 2, y + h // 2)


def cell_at(x: int, y: int) -> int | None:
    """Flat index of the cell under pixel ``(x, y)``, or ``None`` off the board (used for mouse clicks)."""
    col, row = (x - BOARD_X) // CELL, (y - BOARD_Y) // CELL
    if x < BOARD_X or y < BOARD_Y or not (0 <= col < N_COLS and 0 <= row < N_ROWS):
        return None
    index = int(row * N_COLS + col)
    return index if index < N_CELLS else None


def frame_rect(target: int, radius: int = 1) -> tuple[int, int, int, int]:
    """Bounding rectangle ``(x, y, w, h)`` of the 3×3 scoring frame around ``target`` (``radius=2``: the
    5×5 area whose outer ring scores 1 point), clipped at the edges."""
    cells = neighbourhood(target, radius)
    x0, y0, _, _ = cell_rect(int(cells.min()))
    x1, y1, w, h = cell_rect(int(cells.max()))
    return (x0, y0, x1 + w - x0, y1 + h - y0)


def ring_rect(target: int) -> tuple[int, int, int, int]:
    """Bounding rectangle of the 5×5 area around ``target`` (the ring outside the 3×3 frame), clipped."""
    return frame_rect(target, radius=2)
