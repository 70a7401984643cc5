"""A plain PIL picture of the board for VLM agents: colour cells with row/column labels.

Drawn here with Pillow (a core dependency) rather than the pygame renderer, so a
VLM needs no display stack.  Layout: ``cell`` pixels per cell, row letters A–P
left, column numbers 1–30 on top (DejaVu Sans from matplotlib); illegal cells
are crossed out in black; an optional target cell is outlined in black and white.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from huesenv.board import N_COLS, N_ROWS, ROW_LETTERS, Board, load_board


@lru_cache(maxsize=4)
def _font(size: int):
    from PIL import ImageFont

    try:
        import matplotlib

        path = f"{matplotlib.get_data_path()}/fonts/ttf/DejaVuSans.ttf"
        return ImageFont.truetype(path, size)
    except (ImportError, OSError):  # pragma: no cover - matplotlib is a core dependency
        return ImageFont.load_default()


def board_image(
    board: Board | None = None, *, legal: np.ndarray | None = None, target: int | None = None, cell: int = 24
):
    """The board as a PIL RGB image (``(30+1)·cell`` × ``(16+1)·cell`` pixels)."""
    from PIL import Image, ImageDraw

    board = board or load_board()
    margin = cell
    img = Image.new("RGB", (margin + N_COLS * cell, margin + N_ROWS * cell), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    font = _font(max(8, cell // 2))
    grid = board.rgb.reshape(N_ROWS, N_COLS, 3)
    pixels = np.repeat(np.repeat(grid, cell, axis=0), cell, axis=1)
    img.paste(Image.fromarray(np.ascontiguousarray(pixels)), (margin, margin))
    for c in range(N_COLS):
        draw.text(
            (margin + c * cell + cell / 2, margin / 2), str(c + 1), fill=(0, 0, 0), font=font, anchor="mm"
        )
    for r in range(N_ROWS):
        draw.text(
            (margin / 2, margin + r * cell + cell / 2), ROW_LETTERS[r], fill=(0, 0, 0), font=font, anchor="mm"
        )
    if legal is not None:
        for i in np.flatnonzero(~np.asarray(legal, bool)):
            r, c = divmod(int(i), N_COLS)
            x0, y0 = margin + c * cell, margin + r * cell
            draw.line((x0 + 3, y0 + 3, x0 + cell - 4, y0 + cell - 4), fill=(0, 0, 0), width=2)
            draw.line((x0 + 3, y0 + cell - 4, x0 + cell - 4, y0 + 3), fill=(0, 0, 0), width=2)
    if target is not None:
        r, c = divmod(int(target), N_COLS)
        x0, y0 = margin + c * cell, margin + r * cell
        draw.rectangle((x0, y0, x0 + cell - 1, y0 + cell - 1), outline=(0, 0, 0), width=3)
        draw.rectangle((x0 + 3, y0 + 3, x0 + cell - 4, y0 + cell - 4), outline=(255, 255, 255), width=1)
    return img


def to_pil(image: np.ndarray):
    from PIL import Image

    return Image.fromarray(np.ascontiguousarray(np.asarray(image, dtype=np.uint8)))
