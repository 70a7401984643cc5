"""Learning curves of trained agents: the plot, and the tournament report's hook for ``policy:PATH`` agents.

Curves: points per episode against environment steps — the training batch's
mean (sampled actions) and, where logged, the greedy evaluation — with the
random, text-embedding and replayed-human agents' points in the same env as
horizontal lines (``references.json`` next to the training folder, written by
``huesenv train experiment``).  :func:`add_training_section` is called by the
tournament report: every agent whose spec is ``policy:PATH`` and whose folder
holds the ``curve.csv`` of ``huesenv train`` gets its curve in the report.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

REFERENCE_STYLE = {"random": ":", "text-embedding": "--", "human-replay": "-."}


def pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def plot_learning_curve(
    curve: pd.DataFrame, references: Mapping[str, float], path: Path, unit: str, title: str
) -> Path:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    if "points" in curve:
        ax.plot(curve["step"], curve["points"], lw=1, alpha=0.6, label="learner (training batch)")
    elif "round_points" in curve:  # the fast cue giver's curve: its points per round given (training batch)
        ax.plot(
            curve["step"], curve["round_points"], lw=1, alpha=0.6, label="learner (points per round given)"
        )
    if "eval_points" in curve and curve["eval_points"].notna().any():
        ev = curve.dropna(subset=["eval_points"])
        ax.plot(ev["step"], ev["eval_points"], lw=2, marker="o", ms=3, label="learner (greedy eval)")
    for name, value in references.items():
        ax.axhline(value, ls=REFERENCE_STYLE.get(name, "-"), color="grey", lw=1.2)
        ax.text(ax.get_xlim()[0], value, f" {name} {value:.2f}", va="bottom", fontsize=7, color="dimgrey")
    ax.set_xlabel("environment steps" + (" (games)" if "game" in unit else ""))
    ax.set_ylabel(unit or "points per episode")
    ax.set_title(title, fontsize=9)
    if ax.get_legend_handles_labels()[0]:  # a curve with nothing to plot has no legend (and no warning)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def add_training_section(data: Any, agents: Mapping[str, str], plots_dir: Path) -> None:
    """Tournament-report hook: a learning curve for each ``policy:PATH`` agent trained by ``huesenv train``."""
    for name, spec in agents.items():
        if not isinstance(spec, str) or not spec.startswith("policy:"):
            continue
        folder = Path(spec.split(":", 1)[1]).parent
        curve_path = folder / "curve.csv"
        if not curve_path.exists():
            continue
        refs_path = folder.parent / "references.json"
        refs = json.loads(refs_path.read_text()) if refs_path.exists() else {}
        plot = plot_learning_curve(
            pd.read_csv(curve_path),
            refs.get("points", {}),
            plots_dir / f"learning_curve_{name}.png",
            refs.get("unit", "points per episode"),
            f"{name}: points per episode vs steps",
        )
        data.plots[f"learning_curve_{name}"] = plot
        data.summary.append(f"{name}: learning curve from {curve_path}")
