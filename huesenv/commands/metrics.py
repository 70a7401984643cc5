"""``huesenv metrics LOG... [--humans PATH] [--alpha A] [--top-k K] [--sampled-cloud top-k|all] -o/--out DIR``.

Word-level logs (``word_query`` records) are scored as the paper scores models
(``word_level.csv``, ``agent_level.csv``, ...): Mahalanobis top-1 and the Hotelling
cloud against the reference's answers (``huesenv help TERM`` explains each).  Game logs (``game_step``
records: a tournament's ``games.jsonl``, the vector env's
``write_game_logs``) give ``game_points.csv`` (points per game by role with
95 % intervals over games) and, in ``first_cones/``, the first cones scored
as word→cell answers to cue 1 (:mod:`huesenv.experiments.game_logs`).  A
``policy:PATH`` agent of a run folder's log whose training answers overlap the
reference is refused unless ``--allow-trained-on`` (then labelled).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table

from huesenv.commands.common import add_humans, add_out, existing_files, probability, top_k_int
from huesenv.experiments.evaluation import mark_trained_on, overlap_labels, training_labels, unknown_training
from huesenv.experiments.game_logs import (
    first_cone_queries,
    game_points,
    game_records,
    learned_agents,
    refusal,
    trained_on,
)
from huesenv.humans import load_humans
from huesenv.humans.reference import HumanReference
from huesenv.logs import load_logs
from huesenv.metrics.report import print_report, write_metrics
from huesenv.reports import write_tables
from huesenv.validation import terminal_safe


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "metrics",
        help="score word-level logs against the human baseline; game logs: points by role and first cones",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("logs", nargs="+", help="logs (.jsonl or .parquet): word-level and/or game logs")
    add_humans(parser)
    parser.add_argument(
        "--cvd",
        metavar="PATH",
        default=None,
        help="participants with a colour-vision deficiency (one userId a line, or a CSV with a userId column) "
        "for a --humans export without a colorBlind column",
    )
    parser.add_argument("--alpha", type=probability, default=0.05, help="significance level (default 0.05)")
    parser.add_argument(
        "--top-k",
        type=top_k_int,
        default=5,
        help="Hotelling cloud size for every agent: a ranking's top-k cells, a sampled agent's k most "
        "frequent distinct answers (default 5, the paper's top-5)",
    )
    parser.add_argument(
        "--sampled-cloud",
        choices=("top-k", "all"),
        default="top-k",
        help="for sampled agents: the k most frequent distinct answers (default) or every sample",
    )
    add_out(parser, required=True, metavar="DIR", help="output folder for CSVs and plots")
    parser.add_argument("--no-plots", action="store_true", help="write the CSVs only")
    parser.add_argument(
        "--allow-trained-on",
        action="store_true",
        help="score a learned policy against human answers it trained on (labelled trained_on_reference)",
    )
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    if not 0 < args.alpha < 1:
        raise ValueError(f"--alpha: expected a number in (0, 1), got {args.alpha}")
    if args.top_k < 1:
        raise ValueError(f"--top-k: expected a positive integer, got {args.top_k}")
    existing_files(args.logs, "LOG")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise ValueError(f"--out {args.out}: is a file, expected a folder for the CSVs and plots")
    if args.cvd and not args.humans:
        raise ValueError(
            "--cvd: expected together with --humans PATH (the packaged cohort has its own flags)"
        )
    paths = [Path(p) for p in args.logs]
    per_file = {p: load_logs([p]) for p in paths}  # a bad log fails before the human cohort is loaded
    records = [r for recs in per_file.values() for r in recs]
    words = [r for r in records if r.kind == "word_query"]
    cut: list[str] = []
    games = game_records(per_file, cut)  # a game a killed run cut short is left out, and said
    for note in cut:
        print(note)
    if not words and not games:
        raise ValueError(
            f"{', '.join(args.logs)}: no word_query records (a word-level log) and no game_step records "
            "(a game log) to score"
        )
    longest = max((len(r.cells or []) for r in words if r.scores), default=None)
    if longest is not None and longest < args.top_k:
        print(
            f"note: --top-k {args.top_k}, but the logs' rankings hold at most {longest} cells: "
            f"their Hotelling clouds use those {longest}"
        )
    humans = load_humans(args.humans, cvd=args.cvd)
    found, notes = trained_on(per_file, humans)
    if found and not args.allow_trained_on:
        raise ValueError(refusal(found, humans, paths))
    for note in notes:
        print(note)
    for line in overlap_labels({name: (n, rec) for name, (n, rec, _) in found.items()}):
        print(line)
    learned, unchecked = learned_agents(per_file)
    for line in training_labels({n: s for n, s in learned.items() if n not in found}):
        print(line)
    unknown = (set(unknown_training(learned)) | unchecked) - set(found)
    reference: Any = TrainedOnLabel(HumanReference.of(humans), set(found), unknown)
    options = dict(
        alpha=args.alpha, top_k=args.top_k, plots=not args.no_plots, sampled_cloud=args.sampled_cloud
    )
    if words:
        print_report(write_metrics(words, humans, args.out, reference=reference, **options))
    if games:
        _game_metrics(games, humans, Path(args.out), reference, options)
    return 0


class TrainedOnLabel:
    """A human reference that also marks the agents scored on answers they trained on (``--allow-trained-on``)."""

    def __init__(self, reference: HumanReference, names: set[str], unknown: set[str] | None = None) -> None:
        self.reference, self.names, self.unknown = reference, names, set(unknown or ())

    def annotate(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The reference's columns, and ``trained_on_reference`` (``<NA>`` for training data unknown)."""
        out = self.reference.annotate(frame)
        mark_trained_on({"table": out}, self.names, self.unknown)
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self.reference, name)


def _game_metrics(games: list, humans: Any, out: Path, reference: Any, options: dict[str, Any]) -> None:
    table = reference.annotate(game_points(games))  # human_reference, self_scored, trained_on_reference
    if "agent_id" in table.columns:  # an agent playing under several ids is self-scored if any one replays
        table["self_scored"] = [
            any(reference.replays(a.strip()) for a in str(ids).split(",")) for ids in table["agent_id"]
        ]
    out.mkdir(parents=True, exist_ok=True)
    path = write_tables({"game_points": table}, out, formats=("csv",))["game_points"]
    console = Console() if sys.stdout.isatty() else Console(width=160)
    t = Table(
        title=f"Points per game by role ({table['games'].max()} game(s) at most per agent; 95 % CI over games)"
    )
    for col in ("agent", "role", "seat-games", "points per game [95 % CI]"):
        t.add_column(col, justify="left" if col in ("agent", "role") else "right")
    for r in table.itertuples(index=False):
        t.add_row(
            terminal_safe(r.agent, markup=True),
            terminal_safe(r.role, markup=True),
            str(r.n),
            _with_ci(r.mean, r.mean_ci_low, r.mean_ci_high),
        )
    console.print(t)
    console.print(f"[dim]game_points: {path}[/dim]")
    cones = first_cone_queries(games)
    if cones:
        console.print("[bold]First cones (guess_1) as word→cell answers to cue 1:[/]")
        print_report(write_metrics(cones, humans, out / "first_cones", reference=reference, **options))


def _with_ci(mean: float, low: float, high: float) -> str:
    """``mean [low, high]``; one game has no interval: ``mean [—]``."""
    if pd.isna(low) or pd.isna(high):
        return f"{mean:.2f} [—]"
    return f"{mean:.2f} [{low:.2f}, {high:.2f}]"
