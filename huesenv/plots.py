"""Every figure of the project, drawn headless (matplotlib, Agg): one module, one set of helpers.

Why one module: the board, metrics, probe and tournament reports drew their
figures in four places with three copies of the same pyplot helper.  Figures
depend only on the core (board colours, category order) and take their data
as tables, so every report can use them without a layer reaching up.

* board: :func:`draw_board_grid`, :func:`plot_board_cie` (the paper's Figure 1);
* metrics: :func:`plot_family_violins` (Figure 9), :func:`plot_category_violins`
  (Figures 10/11), :func:`plot_nonsense_mosaics` (Figure 14; the title carries the
  behaviour class and the Figure 12 mode when it differs) — a group with a
  single value (or all values equal) cannot be drawn as a violin (its kernel
  density is singular); it is drawn as a short bar with dots;
* probes: :func:`plot_colour_shares` (the GCA paper's Figure 4);
* tournaments: :func:`plot_leaderboard`, :func:`plot_head_to_head`, :func:`plot_alignment`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from huesenv.board import N_COLS, N_ROWS, ROW_LETTERS, Board, load_board, parse_coord
from huesenv.colourspace import colour_science
from huesenv.stats import wilson_interval
from huesenv.vocabulary import CATEGORIES

if TYPE_CHECKING:  # pandas only for annotations: figures take the caller's tables
    import pandas as pd

ROW_LABELS = ("numbers", "stop words", "pseudowords", "random")
METRICS = (("mahalanobis", "Mahalanobis top-1 fail rate"), ("hotelling", "Hotelling T² top-k fail rate"))


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (no display needed); matplotlib loads on first use."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | Path, dpi: int = 110) -> Path:
    """Write ``fig`` to ``path`` (creating its folder) and close it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path


# -- board ----------------------------------------------------------------------------------------
def draw_board_grid(ax: Any, board: Board, highlight: dict[int, str] | None = None) -> None:
    """The 16×30 board as it looks in the game, with row letters and column numbers."""
    ax.imshow(board.rgb.reshape(N_ROWS, N_COLS, 3), interpolation="nearest")
    ax.set_xticks(range(N_COLS), [str(c + 1) for c in range(N_COLS)], fontsize=6)
    ax.set_yticks(range(N_ROWS), list(ROW_LETTERS), fontsize=6)
    ax.tick_params(length=0)
    for index, label in (highlight or {}).items():
        r, c = divmod(index, N_COLS)
        ax.add_patch(pyplot().Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, lw=1.5, ec="black"))
        ax.text(c, r, label, ha="center", va="center", fontsize=5)


def plot_board_cie(board: Board, path: Path) -> Path:
    """The paper's Figure 1: the board grid and its 480 cells on the CIE 1931 xy diagram."""
    colour_science()  # first, so that NumPy's print options survive the import
    import colour.plotting as cplot

    plt = pyplot()
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
    return save_figure(fig, path, dpi=120)


# -- metrics --------------------------------------------------------------------------------------
def _violins(
    ax: Any, groups: list[np.ndarray], positions: list[float], width: float = 0.7, color: str = "#7a9cc6"
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
    plt = pyplot()
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
    return save_figure(fig, path)


def plot_category_violins(
    word_df: pd.DataFrame,
    path: str | Path,
    by: str = "architecture_family",
    *,
    human_fail_rate: Callable[[pd.DataFrame], float],
) -> Path:
    """Figures 10/11: per category, one violin per family of per-agent fail rates; the human rate dashed.

    ``human_fail_rate`` computes a category's rate from its rows of ``word_df``
    (:func:`huesenv.metrics.pooled_human_fail_rate`; passed in so that figures
    depend on the core only).
    """
    plt = pyplot()
    per_agent = (
        word_df.assign(
            m=word_df["mahalanobis_outlier"].astype("Float64").astype(float),
            h=word_df["hotelling_fail"].astype("Float64").astype(float),
        )
        .groupby(["category", by, "agent"])[["m", "h"]]
        .mean()
        .reset_index()
    )
    categories = [c for c in CATEGORIES if c in set(per_agent["category"])]
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
        handles: list[Any] = [Line2D([], [], ls="--", color="crimson", label="Human fail rate")]
        for fi, family in enumerate(families):
            groups, positions = [], []
            for ci, category in enumerate(categories):
                sel = per_agent[(per_agent["category"] == category) & (per_agent[by] == family)]
                groups.append(sel[col].to_numpy(dtype=float))
                positions.append(ci - 0.4 + width * (fi + 0.5))
            _violins(ax, groups, positions, width=width * 0.9, color=palette(fi % 10))
            handles.append(Patch(facecolor=palette(fi % 10), alpha=0.6, label=family))
        for ci, category in enumerate(categories):
            human = human_fail_rate(word_df[word_df["category"] == category])
            ax.hlines(human, ci - 0.45, ci + 0.45, linestyles="--", colors="crimson", lw=1.2)
        ax.set_xticks(range(len(categories)), categories)
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel(label)
        ax.legend(handles=handles, fontsize=7, ncol=min(len(families) + 1, 4), loc="best")
    axes[0][0].set_title(f"Fail rates per semantic category by {by.replace('_', ' ')}")
    fig.tight_layout()
    return save_figure(fig, path)


def plot_nonsense_mosaics(nonsense_df: pd.DataFrame, path: str | Path, columns: int = 6) -> Path:
    """Figure 14: a 4 × 4 mosaic of top-1 colours per agent (white = no valid answer)."""
    plt = pyplot()
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
    return save_figure(fig, path)


# -- probes ---------------------------------------------------------------------------------------
def plot_colour_shares(shares: pd.DataFrame, path: Path) -> Path:
    """Share of "colour" answers against τ, one line per (agent, condition) — the paper's Figure 4."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for (agent, cond), g in shares.groupby(["agent_id", "condition"]):
        g = g.sort_values("tau")
        ax.plot(g["tau"], g["share_colour"], marker="o", label=f"{agent} · {cond}")
    ax.set_xlabel("τ (% of eligible pixels coloured)")
    ax.set_ylabel('share of "colour" answers')
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, path, dpi=120)


# -- tournaments ----------------------------------------------------------------------------------
def plot_leaderboard(board: pd.DataFrame, path: Path) -> Path:
    """Mean points per game, split into cue-giver and guesser points, with the 95 % bootstrap interval
    over games when the board has one (``mean_points_ci_low/high``), else ± SE."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.6 * max(len(board), 2) + 1.2))
    y = np.arange(len(board))[::-1]
    ax.barh(y, board["mean_guesser"], color="#4C72B0", label="as guesser")
    ax.barh(y, board["mean_cue_giver"], left=board["mean_guesser"], color="#DD8452", label="as cue giver")
    if "mean_points_ci_low" in board:
        lo = (board["mean_points"] - board["mean_points_ci_low"]).fillna(0).clip(lower=0)
        hi = (board["mean_points_ci_high"] - board["mean_points"]).fillna(0).clip(lower=0)
        xerr, what = np.vstack([lo, hi]), "mean, 95 % bootstrap CI"
    else:
        xerr, what = board["se_points"].fillna(0), "mean ± standard error"
    ax.errorbar(board["mean_points"], y, xerr=xerr, fmt="none", ecolor="black", capsize=3)
    ax.set_yticks(y, board["agent"])
    ax.set_xlabel(f"points per game ({what}; higher is better)")
    ax.set_title("Leaderboard")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path, dpi=110)


def _text_colour(rgba: Any) -> str:
    """Black or white, whichever reads better on a cell of colour ``rgba`` (relative luminance)."""
    r, g, b = (float(c) for c in rgba[:3])
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 else "white"


def plot_head_to_head(matrix: pd.DataFrame, path: Path) -> Path:
    """Row agent's share of pairings won against the column agent."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(1.2 * max(len(matrix.columns), 2) + 2.5, 1.0 * max(len(matrix), 2) + 1.5))
    data = matrix.to_numpy(dtype=float)
    im = ax.imshow(data, cmap="RdBu", vmin=0, vmax=1)
    ax.set_xticks(range(len(matrix.columns)), matrix.columns, rotation=30, ha="right")
    ax.set_yticks(range(len(matrix.index)), matrix.index)
    for (i, j), v in np.ndenumerate(data):
        if not np.isnan(v):  # white on the dark ends of the colour map, black in its light middle
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9, color=_text_colour(im.cmap(v)))
    ax.set_title(
        "Head-to-head: share of pairings the row agent won against the column agent", wrap=True
    )  # wrapped to the figure, never cut
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    return save_figure(fig, path, dpi=110)


def plot_alignment(word_df: pd.DataFrame, path: Path, title: str) -> Path | None:
    """Per agent and semantic category: share of words whose top-1 answer is a Mahalanobis outlier."""
    if word_df is None or word_df.empty or "mahalanobis_outlier" not in word_df:
        return None
    plt = pyplot()
    grouped = (
        word_df.assign(outlier=word_df["mahalanobis_outlier"].astype(float))
        .dropna(subset=["outlier"])
        .groupby(["category", "agent"])["outlier"]
    )
    table = grouped.mean().unstack("agent")
    if table.empty:  # no word could be scored: nothing to draw
        return None
    sums, counts = grouped.sum().unstack("agent"), grouped.count().unstack("agent")
    errors = np.zeros((len(table.columns), 2, len(table.index)))
    for a, agent in enumerate(table.columns):  # Wilson 95 % intervals as asymmetric error bars
        for c, category in enumerate(table.index):
            n = counts.loc[category, agent]
            if n == n and n > 0:
                lo, hi = wilson_interval(float(sums.loc[category, agent]), int(n))
                rate = float(table.loc[category, agent])
                errors[a, :, c] = (rate - lo, hi - rate)
    fig, ax = plt.subplots(figsize=(9.5, 4))
    table.plot.bar(ax=ax, width=0.8, yerr=errors, capsize=2, error_kw={"elinewidth": 0.8})
    if "human_fail_rate" in word_df:  # the humans' own leave-one-out fail rate on the same words
        human = word_df.groupby("category")["human_fail_rate"].mean().reindex(table.index)
        ax.scatter(
            np.arange(len(human)),
            human.to_numpy(dtype=float),
            marker="_",
            s=900,
            color="black",
            zorder=3,
            label="humans (LOO)",
        )
    ax.set_ylabel("Mahalanobis top-1 fail rate (lower is better)")
    ax.set_xlabel("")
    ax.set_ylim(0, 1)
    ax.set_title(f"{title} (95 % Wilson intervals)", wrap=True)  # wrapped to the figure, never cut
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    return save_figure(fig, path, dpi=110)


def plot_naming_plane(
    frontier_complexity: np.ndarray,
    frontier_accuracy: np.ndarray,
    systems: pd.DataFrame,
    path: str | Path,
    title: str = "",
) -> Path:
    """The complexity–accuracy plane (Zaslavsky et al. 2018, Fig. 2): the IB frontier and every system
    (``systems``: columns ``system``, ``kind``, ``complexity_bits``, ``accuracy_bits``)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 5.5))
    order = np.argsort(frontier_complexity)
    ax.plot(
        np.asarray(frontier_complexity)[order],
        np.asarray(frontier_accuracy)[order],
        "k-",
        lw=1.5,
        label="IB frontier",
    )
    kinds = list(dict.fromkeys(systems["kind"]))
    cmap = plt.get_cmap("tab10")
    for i, kind in enumerate(kinds):
        part = systems[systems["kind"] == kind]
        ax.scatter(
            part["complexity_bits"], part["accuracy_bits"], s=28, color=cmap(i % 10), label=kind, zorder=3
        )
        if len(part) <= 6:
            for _, row in part.iterrows():
                ax.annotate(
                    str(row["system"]),
                    (row["complexity_bits"], row["accuracy_bits"]),
                    fontsize=7,
                    xytext=(3, -8),
                    textcoords="offset points",
                )
    ax.set_xlabel("complexity I(M;W) [bits]")
    ax.set_ylabel("accuracy I(W;U) [bits]")
    ax.set_title(title or "colour naming on the board: the information-bottleneck plane")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return save_figure(fig, path)


def plot_display_robustness(
    reference_xy: np.ndarray,
    reference_rgb: np.ndarray,
    panels: dict[str, tuple[np.ndarray, np.ndarray]],
    path: str | Path,
    title: str = "",
) -> Path:
    """The main paper's Figure 13: the sample in CIE xy and as patches, for four scenarios.

    ``panels`` maps a scenario title ("displays, unadapted", ...; four, rows first) to the conditions'
    xy ``(k, n, 2)`` and encoded sRGB in [0, 1] ``(k, n, 3)``; the reference is the calibrated board.
    """
    plt = pyplot()
    from matplotlib.collections import LineCollection

    fig, axes = plt.subplots(
        2, 4, figsize=(17, 8), layout="constrained", gridspec_kw={"width_ratios": [1, 1, 1.1, 1.1]}
    )
    for i, (name, (xy, rgb)) in enumerate(panels.items()):
        row, col = divmod(i, 2)
        ax = axes[row, col]
        segments = np.stack([np.broadcast_to(reference_xy, xy.shape), xy], axis=-2).reshape(-1, 2, 2)
        ax.add_collection(LineCollection(list(segments), colors="0.8", linewidths=0.5))
        ax.scatter(
            xy[..., 0].ravel(), xy[..., 1].ravel(), s=14, c=rgb.reshape(-1, 3), edgecolors="0.3", lw=0.3
        )
        ax.scatter(reference_xy[:, 0], reference_xy[:, 1], s=30, c="black", marker="x", label="calibrated")
        ax.set(title=name, xlabel="x", ylabel="y")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
        patch = axes[row, 2 + col]
        patch.imshow(np.concatenate([reference_rgb[None], rgb]), interpolation="nearest", aspect="auto")
        patch.set(title=f"{name} (top: calibrated)", xticks=[], yticks=[])
    fig.suptitle(title or "display robustness (the main paper's Figure 13)")
    return save_figure(fig, path)
