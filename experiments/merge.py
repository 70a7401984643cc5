"""One leaderboard over several run folders (``huesenv leaderboard RUN_DIR...``).

Why from ``tables/seat_games`` and not from the runs' leaderboards: means and
intervals must be recomputed over the union of games (a mean of means would
weight a 4-game run like a 72-game one, and intervals do not combine).  Games
stay keyed by run (``run:game``), so the cluster bootstrap resamples whole games
of every run and head-to-head tests only pair agents that met in one game.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.merge``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from huesenv.experiments import analysis, report, uncertainty
from huesenv.reports import read_safe_csv
from huesenv.trust import read_user_text
from huesenv.validation import load_yaml_file


@dataclass
class RunTables:
    name: str
    path: Path
    seat_games: pd.DataFrame
    humans: dict[str, Any]
    agents: dict[str, str]  # config agent name -> spec (with kwargs) as text


def _read_table(folder: Path, name: str) -> pd.DataFrame:
    parquet, csv = folder / "tables" / f"{name}.parquet", folder / "tables" / f"{name}.csv"
    if parquet.is_file():
        return pd.read_parquet(parquet)
    if csv.is_file():
        return read_safe_csv(csv)
    raise FileNotFoundError(
        f"{folder}: no tables/{name}.parquet or .csv; rerun `huesenv tournament` with the same config there "
        "to write it (finished games are not replayed)"
    )


def load_run(path: str | Path) -> RunTables:
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such run folder")
    summary_path = folder / "summary.json"
    if not summary_path.is_file():
        raise FileNotFoundError(f"{summary_path}: missing (not a finished huesenv run folder)")
    try:
        summary = json.loads(read_user_text(summary_path, expected="a summary.json"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{summary_path}, line {err.lineno}: not valid JSON ({err.msg})") from None
    humans = summary.get("humans") or {}
    if not humans.get("key"):
        raise ValueError(
            f"{summary_path}, field humans: no human reference recorded (written by an older huesenv); "
            "rerun `huesenv tournament` with the same config there to refresh the report"
        )
    agents: dict[str, str] = {}
    config_path = folder / "config.yaml"
    if config_path.is_file():
        config = load_yaml_file(config_path) or {}
        for name, entry in (config.get("agents") or {}).items():
            entry = {"spec": entry} if isinstance(entry, str) else dict(entry or {})
            agents[str(name)] = json.dumps(
                {"spec": entry.get("spec"), "kwargs": entry.get("kwargs") or {}}, sort_keys=True
            )
    return RunTables(folder.name, folder, _read_table(folder, "seat_games"), humans, agents)


def _unique_names(runs: list[RunTables]) -> None:
    seen: dict[str, int] = {}
    for run in runs:
        seen[run.name] = seen.get(run.name, 0) + 1
    for run in runs:
        if seen[run.name] > 1:
            run.name = f"{run.path.resolve().parent.name}/{run.name}"
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"run folders given twice: {', '.join(dupes)}")


def check_humans(runs: list[RunTables], allow_mixed: bool = False) -> None:
    keys = {r.humans["key"] for r in runs}
    if len(keys) > 1 and not allow_mixed:
        detail = "; ".join(f"{r.path}: {r.humans.get('label', r.humans['key'])}" for r in runs)
        raise ValueError(
            f"the runs were scored against different human references ({detail}); "
            "their points are not comparable — pass --allow-mixed-humans to merge anyway"
        )


def merged_seat_games(runs: list[RunTables]) -> pd.DataFrame:
    """All runs' seat-games, games keyed ``run:game`` and agents renamed where their specs differ."""
    specs: dict[str, set[str]] = {}
    for run in runs:
        for name, spec in run.agents.items():
            specs.setdefault(name, set()).add(spec)
    frames = []
    for run in runs:
        f = run.seat_games.copy()
        f["run"] = run.name
        f["game"] = run.name + ":" + f["game"].astype(str)
        f["lineup"] = run.name + ":" + f["lineup"].astype(str)
        f["agent"] = [a if len(specs.get(a, ())) <= 1 else f"{a} ({run.name})" for a in f["agent"]]
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def merge_runs(
    paths: Sequence[str | Path], *, allow_mixed_humans: bool = False, seed: int = 0
) -> dict[str, Any]:
    """The merged tables: ``leaderboard`` (with intervals and the runs each agent played in),
    ``head_to_head`` (paired tests), and ``runs`` (one row per run with its human reference)."""
    if not paths:
        raise ValueError("give at least one run folder")
    runs = [load_run(p) for p in paths]
    _unique_names(runs)
    check_humans(runs, allow_mixed_humans)
    frame = merged_seat_games(runs)
    board = uncertainty.add_leaderboard_intervals(analysis.leaderboard(frame), frame, seed=seed)
    board["runs"] = [
        ", ".join(sorted(frame.loc[frame["agent"] == a, "run"].unique())) for a in board["agent"]
    ]
    h2h = uncertainty.add_head_to_head_tests(analysis.head_to_head(frame), frame, seed=seed)
    run_rows = pd.DataFrame(
        [
            {
                "run": r.name,
                "folder": str(r.path),
                "games": int(r.seat_games["game"].nunique()),
                "agents": ", ".join(sorted(r.seat_games["agent"].unique())),
                "humans": r.humans.get("label", r.humans["key"]),
            }
            for r in runs
        ]
    )
    humans = runs[0].humans if len({r.humans["key"] for r in runs}) == 1 else {"mixed": True}
    return {
        "leaderboard": board,
        "head_to_head": h2h,
        "runs": run_rows,
        "seat_games": frame,
        "humans": humans,
    }


def report_data(merged: dict[str, Any], paths: list[str]) -> report.ReportData:
    """The merged tables as a report (Markdown / HTML) with the methods and the human reference."""
    n_games = int(merged["seat_games"]["game"].nunique())
    humans = merged["humans"]
    summary = [
        f"{len(paths)} run(s), {n_games} games, {len(merged['seat_games'])} seat-games",
        "Human reference: "
        + (
            humans.get("description") or humans.get("label", "?")
            if not humans.get("mixed")
            else "MIXED — see the runs table; points are not comparable"
        ),
    ]
    return report.ReportData(
        title=f"huesenv leaderboard over {len(paths)} run(s)",
        config_yaml="\n".join(f"- {p}" for p in paths) + "\n",
        summary=summary,
        tables={k: merged[k] for k in ("leaderboard", "head_to_head", "runs")},
        captions={
            "leaderboard": "Points per game over the union of the runs' games; 95 % bootstrap intervals "
            "resample whole games of every run.",
            "head_to_head": "Pairs of agents that sat in the same game (within one run): mean point "
            "difference with a 95 % bootstrap interval and a paired Wilcoxon test over the shared games.",
            "runs": "The merged run folders and the human reference each was scored against.",
        },
        methods=uncertainty.METHODS,
        humans=humans,
    )
