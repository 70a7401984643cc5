"""``huesenv tournament``: play a tournament against replayed humans and write the report (the main job).

``huesenv tournament`` with no arguments plays the bundled ``default`` config.
Any config value can be overridden (``--set games=10 --set agents.random.kwargs.seed=3``);
the common ones have flags.  Rerunning the same command resumes the run.  The
flags and the run loop here are shared with ``huesenv wordlevel``
(:mod:`huesenv.commands.wordlevel`), which is the same runner without the games.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from huesenv.commands.common import add_humans, add_out, non_negative_int, positive_int, safe_name, seed_int
from huesenv.experiments.config import bundled_configs, load_config
from huesenv.experiments.experiment import run_experiment


def add_config_flags(p: argparse.ArgumentParser, default_config: str) -> None:
    """The flags that resolve a config (shared with ``huesenv wordlevel`` and ``huesenv config show``)."""
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
    p.add_argument("--games", type=non_negative_int, help="games per lineup (= --set games=N)")
    p.add_argument("--seed", type=seed_int, help="base seed (= --set seed=N)")
    p.add_argument("--name", type=safe_name, help="run name: the folder under --out (= --set name=...)")
    add_out(p, metavar="DIR", help="folder for run folders (= --set output=DIR; default runs/)")
    p.add_argument(
        "--agents",
        metavar="NAME=SPEC,...",
        help="add or replace agents (= --set agents.NAME.spec=SPEC), e.g. --agents mine=clip:ViT-B-32/openai",
    )
    add_humans(p, help="human cohort for replayed humans and the metrics (= --set humans.path=PATH)")
    p.add_argument("--backend", choices=("inprocess", "ray"), help="where units run (default in-process)")
    p.add_argument("--ray-address", help="address of an existing Ray cluster (default: start a local one)")
    p.add_argument("--num-cpus", type=positive_int, help="CPUs of a local Ray started here")
    p.add_argument(
        "--weights-dir", help="folder of local checkpoint files <model>-<tag>.safetensors|.bin|.pt"
    )


def add_experiment_flags(p: argparse.ArgumentParser, default_config: str) -> None:
    """Config flags plus the flags of a run (shared with ``huesenv wordlevel``)."""
    add_config_flags(p, default_config)
    p.add_argument(
        "--allow-code",
        action="store_true",
        help="allow tournament.agent_factory / tournament.play_fn to name any 'module:function' "
        "(runs that code; the run's config.yaml and report record it)",
    )
    p.add_argument(
        "--wandb",
        nargs="?",
        const="auto",
        choices=("auto", "online", "offline", "disabled"),
        help="W&B tracking; bare --wandb = online with an API key configured, else offline "
        "(default: the config's wandb.mode, 'disabled' in the bundled configs)",
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
    add_experiment_flags(t, "default")
    t.add_argument("--no-wordlevel", action="store_true", help="skip the word-level evaluation")
    t.set_defaults(func=_run_tournament)


def config_overrides(args: argparse.Namespace) -> list[str]:
    """The ``--set`` overrides plus those the flags stand for, in that order."""
    out = list(args.overrides)
    for flag, key in (
        ("games", "games"),
        ("seed", "seed"),
        ("name", "name"),
        ("out", "output"),
        ("humans", "humans.path"),
        ("backend", "backend.name"),
        ("ray_address", "backend.address"),
        ("num_cpus", "backend.num_cpus"),
        ("weights_dir", "weights.dir"),
    ):
        value = getattr(args, flag, None)
        if value is not None:
            out.append(f"{key}={value}")
    for i, item in enumerate(filter(None, (args.agents or "").split(",")), start=1):
        name, sep, spec = item.partition("=")
        if not sep or not name.strip() or not spec.strip():
            raise ValueError(f"--agents item {i} {item!r}: expected NAME=SPEC, e.g. mine=random")
        out.append(f"agents.{name.strip()}.spec={spec.strip()}")
    if getattr(args, "no_wordlevel", False):
        out.append("wordlevel.enabled=false")
    return out


def run_experiment_command(args: argparse.Namespace, extra: list[str]) -> int:
    console = Console(stderr=False, width=None if sys.stdout.isatty() else 110)
    if args.list_configs:
        for name in bundled_configs():
            console.print(name)
        return 0
    config = load_config(args.config, config_overrides(args) + extra, allow_code=args.allow_code)
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
    return run_experiment_command(args, [])
