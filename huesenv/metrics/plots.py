"""The paper's metric figures, drawn headless (matplotlib, Agg).

* :func:`plot_family_violins` — Figure 9: per-agent fail rates (Mahalanobis
  top-1 left, Hotelling top-k right) by architecture family (top) and data
  family (bottom), the Human Fail Rate as a dashed line.
* :func:`plot_category_violins` — Figures 10/11: per semantic category, one
  violin per family; the category's Human Fail Rate dashed.
* :func:`plot_nonsense_mosaics` — Figure 14: each agent's 16 top-1 cells as a
  4 × 4 mosaic in the board's colours, rows = numbers, stop words,
  pseudowords, random strings; the title carries the behaviour class (and the
  Figure 12 mode when it differs: ``high_entropy / selective_collapse``).

A group with a single value (or all values equal) cannot be drawn as a violin
(its kernel density is singular); it is drawn as a short bar with dots.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from huesenv.board import load_board, parse_coord
from huesenv.metrics.aggregate import pooled_human_fail_rate
from huesenv.vocabulary import CATEGORIES

ROW_LABELS = ("numbers", "stop words", "pseudowords", "random")
METRICS = (("mahalanobis", "Mahalanobis top-1 fail rate"), ("hotelling", "Hotelling T² top-k fail rate"))


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _violins(
    ax, groups: list[np.ndarray], positions: list[float], width: float = 0.7, color: str = "#7a9cc6"
) -> None:
    for values, pos in zip(groups, positions):
        values = values[~np.isnan(values)]
        if len(values) == 0:
            continue
        if len(values) > 1 and np.ptp(values) > 0:
            parts = ax.violinplot(
                [values], positions=[pos], widths=width, showmedians=True, showextrema=False
            )
            for body in parts["bodies"]:
                body.set_facecolor(color)
                body.set_alpha(0.6)
            parts["cmedians"].set_color("black")
        else:
            ax.hlines(values[0], pos - width / 4, pos + width / 4, color="black", lw=1.5)
        jitter = np.linspace(-width / 8, width / 8, len(values)) if len(values) > 1 else np.zeros(1)
        ax.scatter(pos + jitter, values, s=8, color="black", zorder=3)


def plot_family_violins(agent_df: pd.DataFrame, path: str | Path, human_fail_rate: float) -> Path:
    """Figure 9: fail-rate violins by architecture and data family, human fail rate dashed."""
    plt = _pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(13, 8), squeeze=False)
    for r, by in enumerate(("architecture_family", "data_family")):
        families = sorted(agent_df[by].unique())
        for c, (metric, label) in enumerate(METRICS):
            ax = axes[r][c]
            groups = [
                agent_df.loc[agent_df[by] == f, f"{metric}_fail_rate"].to_numpy(dtype=float) for f in families
            ]
            _violins(ax, groups, list(range(len(families))))
            ax.axhline(
                human_fail_rate,
                ls="--",
                color="crimson",
                lw=1.2,
                label=f"Human fail rate {human_fail_rate:.3f}",
            )
            ax.set_xticks(
                range(len(families)), [f"{f}\n(n={len(g)})" for f, g in zip(families, groups)], fontsize=7
            )
            ax.set_ylim(-0.02, 1.02)
            ax.set_ylabel(label)
            ax.set_title(f"{label} by {by.replace('_', ' ')}", fontsize=9)
            ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return _save(fig, path)


def plot_category_violins(word_df: pd.DataFrame, path: str | Path, by: str = "architecture_family") -> Path:
    """Figures 10/11: per category, one violin per family of per-agent fail rates; pooled human rate dashed."""
    plt = _pyplot()
    per_agent = (
        word_df.assign(
            m=word_df["mahalanobis_outlier"].astype("Float64").astype(float),
            h=word_df["hotelling_fail"].astype("Float64").astype(float),
        )
        .groupby(["category", by, "agent"])[["m", "h"]]
        .mean()
        .reset_index()
    )
    categories = [c for c in _category_order() if c in set(per_agent["category"])]
    families = sorted(per_agent[by].unique())
    width = 0.8 / max(len(families), 1)
    palette = plt.get_cmap("tab10")
    fig, axes = plt.subplots(
        2, 1, figsize=(max(10, 1.6 * len(categories) * max(1, len(families) / 3)), 8), squeeze=False
    )
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    for r, (col, label) in enumerate((("m", METRICS[0][1]), ("h", METRICS[1][1]))):
        ax = axes[r][0]
        handles = [Line2D([], [], ls="--", color="crimson", label="Human fail rate")]
        for fi, family in enumerate(families):
            groups, positions = [], []
            for ci, category in enumerate(categories):
                sel = per_agent[(per_agent["category"] == category) & (per_agent[by] == family)]
                groups.append(sel[col].to_numpy(dtype=float))
                positions.append(ci - 0.4 + width * (fi + 0.5))
            _violins(ax, groups, positions, width=width * 0.9, color=palette(fi % 10))
            handles.append(Patch(facecolor=palette(fi % 10), alpha=0.6, label=family))
        for ci, category in enumerate(categories):
            human = pooled_human_fail_rate(word_df[word_df["category"] == category])
            ax.hlines(human, ci - 0.45, ci + 0.45, linestyles="--", colors="crimson", lw=1.2)
        ax.set_xticks(range(len(categories)), categories)
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel(label)
        ax.legend(handles=handles, fontsize=7, ncol=min(len(families) + 1, 4), loc="best")
    axes[0][0].set_title(f"Fail rates per semantic category by {by.replace('_', ' ')}")
    fig.tight_layout()
    return _save(fig, path)


def plot_nonsense_mosaics(nonsense_df: pd.DataFrame, path: str | Path, columns: int = 6) -> Path:
    """Figure 14: a 4 × 4 mosaic of top-1 colours per agent (white = no valid answer)."""
    plt = _pyplot()
    board = load_board()
    n = max(len(nonsense_df), 1)
    cols = min(columns, n)
    rows = int(np.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(2.3 * cols, 2.6 * rows), squeeze=False)
    for ax in axes.ravel():
        ax.axis("off")
    for i, row in enumerate(nonsense_df.itertuples(index=False)):
        ax = axes.ravel()[i]
        image = np.ones((4, 4, 3))
        labels = row.cells.split(";")
        for j, coord in enumerate(labels):
            if coord != "-":
                image[j // 4, j % 4] = board.rgb[parse_coord(coord)] / 255.0
        ax.imshow(image, interpolation="nearest")
        for j, coord in enumerate(labels):
            ax.text(
                j % 4,
                j // 4,
                coord,
                ha="center",
                va="center",
                fontsize=6,
                color="white" if coord != "-" and image[j // 4, j % 4].mean() < 0.5 else "black",
            )
        ax.axis("on")
        ax.set_xticks([])
        ax.set_yticks(range(4), ROW_LABELS, fontsize=5)
        ax.tick_params(length=0)
        name = row.agent if len(row.agent) <= 40 else "…" + row.agent[-39:]
        label = row.behaviour
        if (
            getattr(row, "mode", row.behaviour) != row.behaviour
        ):  # Figure 12 (d): shown beside Table 5's class
            label = f"{row.behaviour} / {row.mode}"
        ax.set_title(f"#{i + 1} {name}\n{label} ({row.row_collapse.replace(';', '/')})", fontsize=6)
    fig.tight_layout()
    return _save(fig, path)


def _category_order() -> tuple[str, ...]:
    return CATEGORIES


def _save(fig, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    _pyplot().close(fig)
    return path
