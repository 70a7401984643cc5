"""``huesenv tournament`` (the main job) and ``huesenv wordlevel`` (the paper's word-level sweep).

``huesenv tournament`` with no arguments plays the bundled ``default`` config;
``huesenv wordlevel paper_clip_sweep`` runs the 162-checkpoint sweep.  Any
config value can be overridden (``--set games=10 --set agents.random.kwargs.seed=3``);
the common ones have flags.  Rerunning the same command resumes the run.

Run folders: ``<output>/<name>``.  When that folder already holds a different
experiment (another seed, other agents...) and no ``--name`` was given, the run
goes to ``<output>/<name>-<fingerprint>`` instead (printed), so variants never
collide; with an explicit ``--name`` the conflict is an error.

``huesenv tournament --agents a,b,c`` plays each agent against the replayed
humans in its own run folder (``<name>-<agent>``), then writes one leaderboard
over them with intervals to ``<output>/<name>-sweep/``; rerunning resumes.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from huesenv.experiments.config import bundled_configs, load_config
from huesenv.experiments.experiment import run_experiment
from huesenv.experiments.merge import merge_runs, report_data
from huesenv.experiments.report import write_html, write_markdown, write_parquet
from huesenv.experiments.runner import conflicting_fields
from huesenv.experiments.sweep import parse_agents, sweep_configs, sweep_dir


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
        const="offline",
        choices=("auto", "online", "offline", "disabled"),
        help="W&B tracking; bare --wandb = offline (the `wandb sync` command is printed); auto = online "
        "when an API key is configured (default: $WANDB_MODE, else the config's wandb.mode, 'disabled' "
        "in the bundled configs); $WANDB_PROJECT / $WANDB_ENTITY override the config",
    )
    p.add_argument(
        "--device",
        help="torch device of the model agents (clip, vlm, text-embedding): auto | cpu | cuda[:n] "
        "(= --set device=...)",
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
    t.add_argument(
        "--agents",
        metavar="A,B,...",
        help="agent sweep: each agent spec (or agent name of the config) against the replayed humans, "
        "one run folder each, then one merged leaderboard",
    )
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
        ("device", "device"),
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
    overrides = _overrides(args) + extra
    config = load_config(args.config, overrides)
    if getattr(args, "agents", None):
        return _sweep(args, console, config)
    explicit = args.name is not None or any(o.split("=", 1)[0].strip() == "name" for o in overrides)
    if not explicit and not args.fresh:
        config = _free_name(console, args, config, overrides)
    return _one(args, console, config)


def _free_name(console: Any, args: argparse.Namespace, config: Any, overrides: list[str]) -> Any:
    """The config itself, or a copy named ``<name>-<fingerprint>`` when its folder holds another experiment."""

    diff = conflicting_fields(config)
    if not diff:
        return config
    taken = config.run_dir()
    config = load_config(args.config, overrides + [f"name={config.name}-{config.fingerprint()}"])
    console.print(
        f"{taken} holds another experiment (differs in {', '.join(diff)}); this one goes to "
        f"{config.run_dir()} (choose with --name, or start over there with --fresh)"
    )
    return config


def _one(args: argparse.Namespace, console: Any, config: Any) -> int:
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


def _sweep(args: argparse.Namespace, console: Any, base: Any) -> int:
    """Each agent of ``--agents`` in its own resumable run, then one merged leaderboard."""

    if args.name is not None:
        raise ValueError("--agents names its run folders <config name>-<agent>; --name does not apply")
    configs = sweep_configs(base, parse_agents(args.agents))
    for config in configs:
        code = _one(args, console, config)
        if code:
            return code
    runs = [str(c.run_dir()) for c in configs]
    merged = merge_runs(runs, seed=int(base["seed"]))
    out = sweep_dir(base)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("leaderboard", "head_to_head", "runs"):
        merged[name].to_csv(out / f"{name}.csv", index=False)
        write_parquet(merged[name], out / f"{name}.parquet")
    data = report_data(merged, runs)
    write_markdown(data, out, "leaderboard.md")
    write_html(data, out, "leaderboard.html")
    _board_table(console, merged["leaderboard"], f"Sweep leaderboard over {len(runs)} runs")
    console.print(f"merged leaderboard: [bold]{out}/leaderboard.html[/] (and .md, .csv)")
    return 0


def _board_table(console: Any, board: Any, title: str) -> None:
    from rich.table import Table

    table = Table(title=title)
    for col in ("rank", "agent", "games", "points per game [95 % CI]", "cue giver", "guesser", "win rate"):
        table.add_column(col)
    for row in board.itertuples(index=False):
        ci = (
            f" [{row.mean_points_ci_low:.2f}, {row.mean_points_ci_high:.2f}]"
            if row.mean_points_ci_low == row.mean_points_ci_low
            else ""
        )
        table.add_row(
            str(row.rank),
            str(row.agent),
            str(row.games),
            f"{row.mean_points:.2f}{ci}",
            f"{row.mean_cue_giver:.2f}",
            f"{row.mean_guesser:.2f}",
            f"{row.win_rate:.2f}",
        )
    console.print(table)


def _summary(console: Any, result: Any) -> None:
    for message in result.messages:
        console.print(message)
    board = result.tables.get("leaderboard")
    if board is not None and not board.empty:
        _board_table(console, board, "Leaderboard (points per game)")
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
