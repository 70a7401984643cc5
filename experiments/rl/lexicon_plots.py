"""Figures of an emergent lexicon: its naming map and word clouds on the board, next to the humans'.

* Top row: the board; the emergent **speaker map** (every cell painted with the
  mean colour of all cells the speaker names with the same word, word borders in
  white); the **human naming map** drawn the same way
  (:func:`~huesenv.experiments.rl.lexicon.human_naming_map`).
* Bottom row: for the most used emergent words, the listener's cloud (the
  cells holding 80 % of its probability, black squares; its top cell a filled
  star) and the humans' answers to the same word (white dots, area ∝ count).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.board import N_COLS, N_ROWS, load_board
from huesenv.experiments.rl.lexicon import human_naming_map


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def mean_colour_map(labels: np.ndarray, rgb: np.ndarray) -> np.ndarray:
    """``(16, 30, 3)`` image: each cell in the mean colour (0-1) of the cells sharing its label."""
    out = np.zeros((len(labels), 3))
    for lab in np.unique(labels):
        sel = labels == lab
        out[sel] = rgb[sel].mean(axis=0)
    return (out / 255.0).reshape(N_ROWS, N_COLS, 3)


def _borders(ax, labels: np.ndarray, colour: str = "white") -> None:
    grid = np.asarray(labels).reshape(N_ROWS, N_COLS)
    for r in range(N_ROWS):
        for c in range(N_COLS):
            if c + 1 < N_COLS and grid[r, c] != grid[r, c + 1]:
                ax.plot([c + 0.5, c + 0.5], [r - 0.5, r + 0.5], color=colour, lw=0.8)
            if r + 1 < N_ROWS and grid[r, c] != grid[r + 1, c]:
                ax.plot([c - 0.5, c + 0.5], [r + 0.5, r + 0.5], color=colour, lw=0.8)


def _clean(ax, title: str) -> None:
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, fontsize=8)


def cloud_cells(probs: np.ndarray, mass: float = 0.8) -> np.ndarray:
    """The fewest cells holding ``mass`` of a distribution over cells."""
    order = np.argsort(-probs, kind="stable")
    k = int(np.searchsorted(np.cumsum(probs[order]), mass) + 1)
    return order[:k]


def plot_lexicon(
    speaker: np.ndarray,
    listener_probs: np.ndarray,
    vocabulary: Sequence[str],
    humans: Any,
    path: str | Path,
    n_words: int = 6,
    title: str = "",
) -> Path:

    plt = _pyplot()
    board = load_board()
    rgb = np.asarray(board.rgb, dtype=np.float64)
    speaker = np.asarray(speaker)
    human_vocab = [w for w in vocabulary if w in set(humans.words)]
    naming = human_naming_map(humans, human_vocab)
    counts = np.bincount(speaker, minlength=len(vocabulary))
    top_words = [int(i) for i in np.argsort(-counts, kind="stable")[:n_words] if counts[i] > 0]
    cols = max(3, len(top_words))
    fig, axes = plt.subplots(2, cols, figsize=(3.2 * cols, 4.6), squeeze=False)
    axes[0, 0].imshow(rgb.reshape(N_ROWS, N_COLS, 3) / 255.0, interpolation="nearest")
    _clean(axes[0, 0], "board")
    axes[0, 1].imshow(mean_colour_map(speaker, rgb), interpolation="nearest")
    _borders(axes[0, 1], speaker)
    _clean(axes[0, 1], f"emergent speaker map ({int((counts > 0).sum())} words)")
    axes[0, 2].imshow(mean_colour_map(naming, rgb), interpolation="nearest")
    _borders(axes[0, 2], naming)
    _clean(axes[0, 2], f"human naming map ({len(np.unique(naming))} words)")
    for ax in axes[0, 3:]:
        ax.axis("off")
    faded = 0.35 * rgb.reshape(N_ROWS, N_COLS, 3) / 255.0 + 0.65 * 0.5
    for ax, wi in zip(axes[1], top_words):
        word = vocabulary[wi]
        ax.imshow(faded, interpolation="nearest")
        cloud = cloud_cells(np.asarray(listener_probs[wi], dtype=np.float64))
        r, c = np.divmod(cloud, N_COLS)
        ax.scatter(c, r, marker="s", s=14, facecolors="none", edgecolors="black", linewidths=0.7)
        r0, c0 = divmod(int(cloud[0]), N_COLS)
        ax.scatter([c0], [r0], marker="*", s=60, color="black")
        label = f"{word} ({counts[wi]} cells)"
        if word in set(humans.words):
            cells = humans.cells(word)
            uniq, n = np.unique(cells, return_counts=True)
            hr, hc = np.divmod(uniq, N_COLS)
            ax.scatter(hc, hr, s=6 * n, color="white", edgecolors="black", linewidths=0.3, alpha=0.9)
        else:
            label += " — no human answers"
        _clean(ax, label)
    for ax in axes[1, len(top_words) :]:
        ax.axis("off")
    fig.suptitle(
        title or "Emergent lexicon vs people: black squares = listener cloud, white dots = human answers",
        fontsize=9,
    )
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
