"""Board figures (matplotlib, colour-science plotting), drawn without a display."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from huesenv.board import N_COLS, N_ROWS, ROW_LETTERS, Board
from huesenv.categories import MACRO_COLOURS


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def draw_board_grid(ax, board: Board, highlight: dict[int, str] | None = None) -> None:
    """The 16×30 board as it looks in the game, with row letters and column numbers."""
    ax.imshow(board.rgb.reshape(N_ROWS, N_COLS, 3), interpolation="nearest")
    ax.set_xticks(range(N_COLS), [str(c + 1) for c in range(N_COLS)], fontsize=6)
    ax.set_yticks(range(N_ROWS), list(ROW_LETTERS), fontsize=6)
    ax.tick_params(length=0)
    for index, label in (highlight or {}).items():
        r, c = divmod(index, N_COLS)
        ax.add_patch(_pyplot().Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, lw=1.5, ec="black"))
        ax.text(c, r, label, ha="center", va="center", fontsize=5)


def plot_board_cie(board: Board, path: Path) -> Path:
    """The paper's Figure 1: the board grid and its 480 cells on the CIE 1931 xy diagram."""
    import colour.plotting as cplot

    plt = _pyplot()
    fig = plt.figure(figsize=(14, 6.5))
    ax_grid = fig.add_subplot(1, 2, 1)
    draw_board_grid(ax_grid, board)
    ax_grid.set_title("Hues and Cues board (480 cells)")
    ax_cie = fig.add_subplot(1, 2, 2)
    cplot.plot_chromaticity_diagram_CIE1931(axes=ax_cie, show=False, title="Board cells in CIE 1931 xy")
    ax_cie.scatter(
        board.xy[:, 0],
        board.xy[:, 1],
        c=board.rgb / 255.0,
        s=14,
        edgecolors="black",
        linewidths=0.3,
        zorder=5,
    )
    ax_cie.set_xlim(-0.05, 0.8)
    ax_cie.set_ylim(-0.05, 0.9)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_categories(board: Board, path: Path) -> Path:
    """The board next to its macro-colour map (each cell painted in its category's focal colour)."""
    focal = {
        "Brown": "#7b4a22",
        "Red": "#d01c1f",
        "Orange": "#f58a1f",
        "Yellow": "#f5d90a",
        "Green": "#2e9e3e",
        "Blue": "#2166c4",
        "Purple": "#7e3fa0",
        "Pink": "#f28cc0",
    }
    import matplotlib.colors as mcolors

    plt = _pyplot()
    cat_rgb = np.array([mcolors.to_rgb(focal[c]) for c in board.categories])
    fig, axes = plt.subplots(1, 2, figsize=(14, 4))
    draw_board_grid(axes[0], board)
    axes[1].imshow(cat_rgb.reshape(N_ROWS, N_COLS, 3), interpolation="nearest")
    axes[1].set_title("macro-colour categories: " + ", ".join(MACRO_COLOURS), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)
