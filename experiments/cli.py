"""``huesenv tournament`` (the main job) and ``huesenv wordlevel`` (the paper's word-level sweep).

``huesenv tournament`` with no arguments plays the bundled ``default`` config;
``huesenv wordlevel paper_clip_sweep`` runs the 162-checkpoint sweep.  Any
config value can be overridden (``--set games=10 --set agents.random.kwargs.seed=3``);
the common ones have flags.  Rerunning the same command resumes the run.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from huesenv.experiments.config import bundled_configs, load_config
from huesenv.experiments.experiment import run_experiment


def _add_common(p: argparse.ArgumentParser, default_config: str) -> None:
    p.add_argument(
        "config",
        nargs="?",
        default=default_config,
        help=f"YAML config file or bundled config name (default: {default_config})",
    )
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config value, dotted keys (repeatable), e.g. --set games=10",
    )
    p.add_argument("--games", type=int, help="games per lineup (= --set games=N)")
    p.add_argument("--seed", type=int, help="base seed (= --set seed=N)")
    p.add_argument("--name", help="run name: the folder under --output (= --set name=...)")
    p.add_argument("--output", help="folder for run folders (default runs/)")
    p.add_argument("--backend", choices=("inprocess", "ray"), help="where units run (default in-process)")
    p.add_argument("--ray-address", help="address of an existing Ray cluster (default: start a local one)")
    p.add_argument("--num-cpus", type=int, help="CPUs of a local Ray started here")
    p.add_argument(
        "--wandb",
        nargs="?",
        const="auto",
        choices=("auto", "online", "offline", "disabled"),
        help="W&B tracking; bare --wandb = online with an API key configured, else offline "
        "(default: the config's wandb.mode, 'disabled' in the bundled configs)",
    )
    p.add_argument(
        "--weights-dir", help="folder of local checkpoint files <model>-<tag>.safetensors|.bin|.pt"
    )
    p.add_argument(
        "--fresh", action="store_true", help="start over instead of resuming (old logs kept as *.old)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--list-configs", action="store_true", help="list the bundled configs and exit")


def register(subparsers: Any) -> None:
    t = subparsers.add_parser(
        "tournament",
        help="play a tournament against replayed humans and write a report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_common(t, "default")
    t.add_argument("--no-wordlevel", action="store_true", help="skip the word-level evaluation")
    t.set_defaults(func=_run_tournament)
    w = subparsers.add_parser(
        "wordlevel",
        help="the paper's word-level evaluation (e.g. the 162 CLIP checkpoints)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_common(w, "paper_clip_sweep")
    w.set_defaults(func=_run_wordlevel)


def _overrides(args: argparse.Namespace) -> list[str]:
    out = list(args.overrides)
    for flag, key in (
        ("games", "games"),
        ("seed", "seed"),
        ("name", "name"),
        ("output", "output"),
        ("backend", "backend.name"),
        ("ray_address", "backend.address"),
        ("num_cpus", "backend.num_cpus"),
        ("weights_dir", "weights.dir"),
    ):
        value = getattr(args, flag, None)
        if value is not None:
            out.append(f"{key}={value}")
    if getattr(args, "no_wordlevel", False):
        out.append("wordlevel.enabled=false")
    return out


def _run(args: argparse.Namespace, extra: list[str]) -> int:

    from rich.console import Console

    console = Console(stderr=False, width=None if sys.stdout.isatty() else 110)
    if args.list_configs:
        for name in bundled_configs():
            console.print(name)
        return 0
    config = load_config(args.config, _overrides(args) + extra)
    console.print(
        f"[bold]huesenv[/] experiment [cyan]{config.name}[/] (config {config.source}); "
        f"run folder {config.run_dir()}"
    )

    try:
        result = run_experiment(
            config, fresh=args.fresh, progress=not args.no_progress, wandb_mode=args.wandb
        )
    except KeyboardInterrupt:
        console.print(
            f"interrupted: every finished unit is in {config.run_dir()}; rerun the same command to resume"
        )
        return 130
    _summary(console, result)
    return 0


def _summary(console: Any, result: Any) -> None:
    from rich.table import Table

    for message in result.messages:
        console.print(message)
    board = result.tables.get("leaderboard")
    if board is not None and not board.empty:
        table = Table(title="Leaderboard (points per game)")
        for col in ("rank", "agent", "seat_games", "mean ± SE", "cue giver", "guesser", "win rate"):
            table.add_column(col)
        for row in board.itertuples(index=False):
            table.add_row(
                str(row.rank),
                str(row.agent),
                str(row.seat_games),
                f"{row.mean_points:.2f} ± {row.se_points:.2f}",
                f"{row.mean_cue_giver:.2f}",
                f"{row.mean_guesser:.2f}",
                f"{row.win_rate:.2f}",
            )
        console.print(table)
    words = result.tables.get("wordlevel_agents")
    if words is not None and not words.empty:
        console.print(f"word-level results for {len(words)} agent(s) in the report")
    console.print(f"done in {result.elapsed_s:.1f} s")
    for kind, path in result.reports.items():
        console.print(f"{kind}: {path}")
    if result.wandb_dir:
        console.print(f"W&B run files: {result.wandb_dir}")
    console.print(f"run folder: [bold]{result.run_dir}[/]")


def _run_tournament(args: argparse.Namespace) -> int:
    return _run(args, [])


def _run_wordlevel(args: argparse.Namespace) -> int:
    return _run(args, ["tournament.enabled=false"])
