"""The learning-agents report section: learning curves with reference lines, the learned agent beside the others, the lexicon.

:func:`write_training_report` writes the report of ``huesenv train experiment``
(``report.md`` / ``report.html`` in the run folder, through the project's report
writer :func:`huesenv.experiments.report.write_report`); the learning curves come
from :mod:`huesenv.experiments.learning_curves`, which also serves the
tournament report's hook for ``policy:PATH`` agents.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from huesenv.experiments.learning_curves import plot_learning_curve, pyplot
from huesenv.experiments.report import ReportData, write_report
from huesenv.experiments.rl.harness import read_json
from huesenv.humans import HumanReference, load_humans


def plot_lexicon_history(history: pd.DataFrame, path: Path) -> Path:
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    ax = axes[0]
    ax.plot(history["step"], history["mahalanobis_fail_rate"], marker="o", label="emergent map")
    ax.fill_between(
        history["step"],
        history["null_fail_rate_p05"],
        history["null_fail_rate_p95"],
        alpha=0.25,
        color="grey",
        label="shuffled-label null (5-95%)",
    )
    ax.plot(history["step"], history["best_relabelling_fail_rate"], ls="--", label="best relabelling")
    ax.axhline(history["human_fail_rate"].iloc[-1], color="black", lw=1, ls=":", label="human LOO")
    ax.set_title("Mahalanobis top-1 fail rate", fontsize=9)
    ax.legend(fontsize=6)
    axes[1].plot(history["step"], history["nmi_macro_colour"], marker="o", label="NMI vs macro-colours")
    axes[1].plot(history["step"], history["nmi_human_naming"], marker="o", label="NMI vs human naming map")
    axes[1].plot(
        history["step"], history["colour_match_rate"], marker="o", label="macro-colour match (per word)"
    )
    last = history.iloc[-1]
    for key, label, ls in (
        ("nmi_macro_colour_position_kmeans", "k-means on grid position (same k)", ":"),
        ("nmi_macro_colour_colour_kmeans", "k-means on CIELAB (same k)", "--"),
    ):
        if key in history and last.get(key) == last.get(key):  # present and not NaN
            axes[1].axhline(
                float(last[key]), color="grey", ls=ls, lw=1, label=f"NMI vs macro-colours: {label}"
            )
    axes[1].set_title("agreement with people", fontsize=9)
    axes[1].legend(fontsize=6)
    axes[2].plot(history["step"], history["words_used"], marker="o", label="words used (speaker)")
    axes[2].plot(history["step"], history["effective_words"], marker="o", label="effective words 2^H")
    ax2 = axes[2].twinx()
    ax2.plot(history["step"], history["greedy_points"], color="black", lw=1, label="greedy points/cone")
    axes[2].set_title("lexicon size and success", fontsize=9)
    axes[2].legend(fontsize=6, loc="upper left")
    ax2.legend(fontsize=6, loc="lower right")
    for a in axes:
        a.set_xlabel("games")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _tournament_tables(tournament: Mapping[str, Any] | None) -> dict[str, pd.DataFrame]:
    if not tournament:
        return {}
    tables = tournament.get("tables", {})
    out = {}
    if "points_by_role" in tables:
        out["points_by_role"] = tables["points_by_role"]
    if "leaderboard" in tables:
        out["leaderboard"] = tables["leaderboard"]
    cols = [
        "agent",
        "n_words",
        "mahalanobis_fail_rate",
        "hotelling_fail_rate",
        "colour_match_rate",
        "human_fail_rate",
        "n_invalid",
    ]
    for name in ("wordlevel_agents", "guess_alignment"):
        if name in tables:
            t = tables[name]
            out[name] = t[[c for c in cols if c in t.columns]]
    return out


def _humans_block(tournament: Mapping[str, Any] | None, trainer: str) -> dict[str, Any]:
    """The human reference of the report's scored tables: the tournament's (its ``summary.json``),
    else the packaged cohort for self-play (its lexicon is scored against it), else none."""
    if tournament and tournament.get("run_dir"):
        path = Path(tournament["run_dir"]) / "summary.json"
        if path.exists():
            return dict(read_json(path, "rerun the tournament").get("humans") or {})
    if trainer == "selfplay":
        return HumanReference.of(load_humans()).as_dict()
    return {}


def write_training_report(
    run_dir: Path,
    trainer: str,
    summary: Mapping[str, Any],
    references: Mapping[str, Any],
    tournament: Mapping[str, Any] | None,
) -> Path:

    run_dir = Path(run_dir)
    plots_dir = run_dir / "plots"
    train_dir = run_dir / "train"
    lines = [
        f"trainer {summary['trainer']} on {summary['env_id']} ({summary['device']}): "
        f"{summary.get('steps', summary.get('games')):,} {'games' if 'games' in summary else 'steps'}, "
        f"wall {summary['wall_s']:.1f} s, CPU {summary['cpu_s']:.1f} s"
        + (" (stopped by the time budget)" if summary.get("stopped_by_time_budget") else ""),
        f"policy: policy:{summary['policy']}",
    ]
    lines += evaluation_lines(summary)
    tables: dict[str, pd.DataFrame] = {}
    captions: dict[str, str] = {}
    plots: dict[str, Path] = {}
    points = dict(references.get("points", {}))
    unit = references.get("unit", "")
    if points:
        ref = pd.DataFrame([{"agent": k, unit or "points": v} for k, v in points.items()])
        if "final_eval_points" in summary:
            ref = pd.concat(
                [
                    ref,
                    pd.DataFrame(
                        [{"agent": "learned (greedy)", unit or "points": summary["final_eval_points"]}]
                    ),
                ]
            )
        tables["references"] = ref
        captions["references"] = (
            f"Fixed agents in the training env ({unit}); the lines of the learning curve."
        )
    curve_path = train_dir / "curve.csv"
    if curve_path.exists():
        curve = pd.read_csv(curve_path)
        plots["learning_curve"] = plot_learning_curve(
            curve,
            points,
            plots_dir / "learning_curve.png",
            unit or ("points per cone" if trainer == "selfplay" else "points per episode"),
            f"{summary['trainer']}: points per episode vs steps",
        )
    tables.update(_tournament_tables(tournament))
    if "points_by_role" in tables:
        captions["points_by_role"] = (
            "Tournament (the base config's lineups plus the learned agent's): points per game by role."
        )
        pbr = tables["points_by_role"]
        role = "cue_giver" if trainer in ("cue-giver", "cue-giver-fast") else "guesser"  # the role it learned
        g = pbr[pbr["role"] == role].set_index("agent")["mean"]
        if "learned" in g.index:
            parts = [f"{a} {g[a]:.2f}" for a in g.index]
            lines.append(f"{role.replace('_', '-')} points per game in the tournament: " + ", ".join(parts))
    if "wordlevel_agents" in tables:
        wl = tables["wordlevel_agents"].set_index("agent")
        where = " (against the evaluation part)" if summary.get("evaluation_part") else ""
        lines.append(
            f"word-level Mahalanobis top-1 fail rate{where}: "
            + ", ".join(f"{a} {v:.2f}" for a, v in wl["mahalanobis_fail_rate"].items())
        )
        if "hotelling_fail_rate" in wl.columns:
            lines.append(
                f"word-level Hotelling top-5 fail rate{where} (learned: its 5 most probable cells): "
                + ", ".join(f"{a} {v:.2f}" for a, v in wl["hotelling_fail_rate"].items())
            )
        if "human_fail_rate" in wl.columns and len(wl):
            lines.append(
                f"people's leave-one-out fail rate on the same words{where}: {float(wl['human_fail_rate'].iloc[0]):.2f}"
            )
        captions["wordlevel_agents"] = (
            "Word level: the learned guesser beside the lookup baseline (the training part's most chosen "
            "cells per word), text-embedding zero-shot, random and replayed humans; human_fail_rate is "
            "people's leave-one-out rate on the reference."
        )
    if tournament:
        lines.append(f"tournament report: {tournament['reports'].get('markdown', '')}")
    if trainer == "selfplay":
        lex = summary.get("lexicon", {})
        tables["lexicon"] = pd.DataFrame([{"metric": k, "value": v} for k, v in lex.items()])
        captions["lexicon"] = (
            "The emergent lexicon at the end of training (experiments.rl.lexicon): usage, label-bound agreement "
            "with the human cohort (with its shuffled-label null), label-free agreement (NMI/ARI)."
        )
        hist_path = train_dir / "lexicon_history.csv"
        if hist_path.exists():
            hist = pd.read_csv(hist_path)
            tables["lexicon_history"] = hist[
                [
                    c
                    for c in (
                        "step",
                        "greedy_points",
                        "words_used",
                        "effective_words",
                        "mahalanobis_fail_rate",
                        "null_fail_rate_mean",
                        "best_relabelling_fail_rate",
                        "colour_match_rate",
                        "nmi_macro_colour",
                        "nmi_human_naming",
                    )
                    if c in hist.columns
                ]
            ]
            plots["lexicon_history"] = plot_lexicon_history(hist, plots_dir / "lexicon_history.png")
        for name in ("regions",):
            p = train_dir / f"lexicon_{name}.csv"
            if p.exists():
                tables[f"lexicon_{name}"] = pd.read_csv(p)
        if (train_dir / "lexicon.png").exists():
            plots["lexicon"] = train_dir / "lexicon.png"
        lines.append(
            f"emergent lexicon: {lex.get('words_used')} words used; per-word Mahalanobis fail rate "
            f"{lex.get('mahalanobis_fail_rate', float('nan')):.2f} vs shuffled-label null "
            f"{lex.get('null_fail_rate_mean', float('nan')):.2f} (p={lex.get('p_value_below_null', float('nan')):.2f}); "
            f"macro-colour match {lex.get('colour_match_rate', float('nan')):.2f}; "
            f"NMI with macro-colours {lex.get('nmi_macro_colour', float('nan')):.2f}"
        )
    data = ReportData(
        humans=_humans_block(tournament, trainer),
        title=f"huesenv training: {run_dir.name}",
        config_yaml=(run_dir / "config.yaml").read_text() if (run_dir / "config.yaml").exists() else "",
        summary=lines,
        tables=tables,
        captions=captions,
        plots=plots,
    )
    reports = write_report(data, run_dir)
    (run_dir / "training_summary.json").write_text(
        json.dumps(
            {"summary": dict(summary), "references": dict(references), "lines": lines}, indent=1, default=str
        )
    )
    return reports.get("markdown", run_dir / "report.md")


def evaluation_lines(summary: Mapping[str, Any]) -> list[str]:
    """The report lines naming the split a learner trained on and the part it is evaluated against."""
    parts = summary.get("evaluation_part")
    split = summary.get("split")
    if parts:
        return [
            f"human data split: {parts['label']}",
            f"trained on the training part ({parts['train']}); tournament replayed humans, word-level "
            f"reference and the training curve's eval_points use the evaluation part only: "
            f"{parts['evaluation_label']} ({parts['evaluation']})",
        ]
    if split:
        return [f"human data split: {split.get('label')}; evaluated on its evaluation part"]
    if summary.get("trainer") == "ppo_fast":
        return [
            "human data: trained on every answer (holdout=none): no evaluation part; scores are on training data"
        ]
    return []
