"""``huesenv tournament``: play a tournament against replayed humans and write the report (the main job).

``huesenv tournament`` with no arguments plays the bundled ``default`` config.
Any config value can be overridden (``--set games=10 --set agents.random.kwargs.seed=3``);
the common ones have flags.  Rerunning the same command resumes the run.  The
flags and the run loop here are shared with ``huesenv wordlevel``
(:mod:`huesenv.commands.wordlevel`), which is the same runner without the games.

Run folders: ``<out>/<name>``.  When that folder already holds a different
experiment (another seed, other agents...) and no ``--name`` was given, the run
goes to ``<out>/<name>-<fingerprint>`` instead (printed), so variants never
collide; with an explicit ``--name`` the conflict is an error.

``--agents`` takes either ``NAME=SPEC`` items (add or replace agents of the
config) or plain agent specs, ``huesenv tournament --agents a,b,c``: an agent
sweep that plays each against the replayed humans in its own run folder
(``<name>-<agent>``) and writes one leaderboard over them with intervals to
``<out>/<name>-sweep/``; rerunning resumes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.table import Table

from huesenv.agents.registry import kinds_with
from huesenv.commands.common import (
    add_humans,
    add_out,
    add_overrides,
    add_progress,
    device_name,
    existing_dir,
    non_negative_int,
    positive_int,
    progress_enabled,
    safe_name,
    seed_int,
)
from huesenv.experiments.config import bundled_configs, load_config
from huesenv.experiments.evaluation import ALLOW_KEY, learned_spec, mark_trained_on, training_labels
from huesenv.experiments.experiment import run_experiment
from huesenv.experiments.merge import merge_runs, report_data
from huesenv.experiments.report import (
    ReportData,
    annotate,
    reference_note,
    reference_of,
    shown_table,
    verdict,
    write_html,
    write_markdown,
    write_parquet,
)
from huesenv.experiments.runner import conflicting_fields
from huesenv.experiments.sweep import parse_agents, sweep_configs, sweep_dir
from huesenv.reports import csv_safe, read_safe_csv
from huesenv.trust import read_user_text
from huesenv.validation import terminal_safe


def add_config_flags(p: argparse.ArgumentParser, default_config: str, games: bool = True) -> None:
    """The flags that resolve a config (shared with ``huesenv wordlevel`` and ``huesenv config show``);
    ``games=False`` (the word level plays none) leaves out ``--games`` and the agent sweep."""
    p.add_argument(
        "config",
        nargs="?",
        default=None,
        help=f"YAML config file or bundled config name (default: {default_config})",
    )
    p.set_defaults(default_config=default_config)
    add_overrides(p, help="override a config value, dotted keys (repeatable), e.g. --set games=10")
    if games:
        p.add_argument("--games", type=non_negative_int, help="games per lineup (= --set games=N)")
    p.add_argument("--seed", type=seed_int, help="base seed (= --set seed=N)")
    p.add_argument("--name", type=safe_name, help="run name: the folder under --out (= --set name=...)")
    add_out(p, metavar="DIR", help="folder for run folders (= --set output=DIR; default runs/)")
    sweep = (
        "; plain specs are an agent sweep: each against the replayed humans in its own run, then one "
        "merged leaderboard, e.g. --agents random,text-embedding"
    )
    p.add_argument(
        "--agents",
        metavar="NAME=SPEC,... | A,B,..." if games else "NAME=SPEC,...",
        help="NAME=SPEC items add or replace agents (= --set agents.NAME.spec=SPEC; an added agent must "
        "be named by a lineup or wordlevel.agents), e.g. --agents mine=clip:ViT-B-32/openai"
        + (sweep if games else ""),
    )
    p.add_argument(
        "--device",
        type=device_name,
        help="torch device of the agent kinds that take one ("
        + ", ".join(kinds_with("takes_device"))
        + "): auto | cpu | cuda[:n] (= --set device=...)",
    )
    add_humans(p, help="human cohort for replayed humans and the metrics (= --set humans.path=PATH)")
    p.add_argument("--backend", choices=("inprocess", "ray"), help="where units run (default in-process)")
    p.add_argument("--ray-address", help="address of an existing Ray cluster (default: start a local one)")
    p.add_argument("--num-cpus", type=positive_int, help="CPUs of a local Ray started here")
    p.add_argument(
        "--weights-dir",
        type=existing_dir,
        help="folder of local checkpoint files <model>-<tag>.safetensors|.bin|.pt",
    )


def add_experiment_flags(p: argparse.ArgumentParser, default_config: str, games: bool = True) -> None:
    """Config flags plus the flags of a run (shared with ``huesenv wordlevel``)."""
    add_config_flags(p, default_config, games)
    p.add_argument(
        "--allow-code",
        action="store_true",
        help="allow tournament.agent_factory / tournament.play_fn to name any 'module:function' "
        "(runs that code; the run's config.yaml and report record it)",
    )
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
        "--fresh", action="store_true", help="start over instead of resuming (old logs kept as *.old)"
    )
    add_progress(p)
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


def config_name(args: argparse.Namespace) -> str:
    """The CONFIG argument, or the command's bundled default when none was given."""
    return str(args.config if args.config is not None else args.default_config)


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
        ("device", "device"),
    ):
        value = getattr(args, flag, None)
        if value is not None:
            for text in args.overrides:  # --games 2 --set games=3: which one was meant is a guess
                if text.partition("=")[0].strip() == key:
                    raise ValueError(
                        f"--{flag.replace('_', '-')} {value} and --set {text}: the same setting twice; "
                        "expected one of them"
                    )
            out.append(f"{key}={value}")
    for i, item in enumerate(
        filter(None, ("" if sweep_specs(args) else args.agents or "").split(",")), start=1
    ):
        name, sep, spec = item.partition("=")
        if not sep or not name.strip() or not spec.strip():
            raise ValueError(f"--agents item {i} {item!r}: expected NAME=SPEC, e.g. mine=random")
        out.append(f"agents.{name.strip()}.spec={spec.strip()}")
    if getattr(args, "no_wordlevel", False):
        out.append("wordlevel.enabled=false")
    return out


def check_added_agents_play(args: argparse.Namespace, config: Any) -> None:
    """Each ``--agents NAME=SPEC`` must be played by an enabled stage (a lineup or the word level):
    adding an agent that no lineup or ``wordlevel.agents`` names would run the experiment without it."""
    if sweep_specs(args):
        return
    d = config.data
    used: set[str] = set()
    if d["tournament"].get("enabled") is True:
        used.update(name for lineup in d["lineups"] for name in lineup)
    if d["wordlevel"].get("enabled") is True:
        listed = d["wordlevel"].get("agents")
        used.update(d["agents"] if listed is None else listed)
    for item in filter(None, (getattr(args, "agents", None) or "").split(",")):
        name = item.partition("=")[0].strip()
        if name and name not in used:
            raise ValueError(
                f"--agents {item!r}: agent {name!r} is in no lineup and not in wordlevel.agents, so it "
                f"would not play; expected a name the config plays (one of {sorted(used)}) or add it, e.g. "
                f"--set lineups.0.0={name} or --set wordlevel.agents='[{name}]'"
            )


def sweep_specs(args: argparse.Namespace) -> list[str]:
    """The agent specs of a sweep (``--agents a,b,c`` without ``=``), else an empty list."""
    raw = getattr(args, "agents", None)
    text = raw or ""
    items = [i for i in text.split(",") if i.strip()]
    if raw is not None and not items:
        raise ValueError(
            f"--agents {raw!r}: expected NAME=SPEC items or agent specs, e.g. random,text-embedding"
        )
    if not items or all("=" in i for i in items):
        return []
    if any("=" in i for i in items):
        raise ValueError(
            f"--agents {text!r}: either NAME=SPEC items (add agents to the config) or plain agent specs "
            "(a sweep, one run per agent), not both"
        )
    return parse_agents(text)


def run_experiment_command(args: argparse.Namespace, extra: list[str]) -> int:
    console = Console(stderr=False, width=None if sys.stdout.isatty() else 110)
    if args.list_configs:
        if args.config is not None:
            raise ValueError(
                f"--list-configs lists the bundled configs; it takes no CONFIG (got {args.config!r})"
            )
        for name in bundled_configs("tournament"):  # the training ones run with `huesenv train experiment`
            console.print(name)
        return 0
    args.config = config_name(args)
    overrides = config_overrides(args) + extra
    config = load_config(args.config, overrides, allow_code=args.allow_code)
    check_added_agents_play(args, config)
    specs = sweep_specs(args)
    if specs:
        if "tournament.enabled=false" in extra:
            raise ValueError("--agents a,b,...: an agent sweep plays tournaments; use `huesenv tournament`")
        return _sweep(args, console, config, specs)
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
    config = load_config(
        args.config, overrides + [f"name={config.name}-{config.fingerprint()}"], allow_code=args.allow_code
    )
    console.print(
        f"{taken} holds another experiment (differs in {', '.join(diff)}); this one goes to "
        f"{config.run_dir()} (choose with --name, or start over there with --fresh)"
    )
    return config


def _one(args: argparse.Namespace, console: Any, config: Any) -> int:
    console.print(
        f"[bold]huesenv {args.command}[/] [cyan]{config.name}[/] ({config.source}); run folder {config.run_dir()}"
    )

    try:
        result = run_experiment(
            config, fresh=args.fresh, progress=progress_enabled(args), wandb_mode=args.wandb
        )
    except KeyboardInterrupt:
        console.print(
            f"interrupted: every finished unit is in {config.run_dir()}; rerun the same command to resume"
        )
        return 130
    _summary(console, result)
    return 0


def _sweep(args: argparse.Namespace, console: Any, base: Any, specs: list[str]) -> int:
    """Each agent of ``--agents`` in its own resumable run, then one merged leaderboard."""
    if args.name is not None:
        raise ValueError("--agents a,b,...: a sweep names its run folders <config name>-<agent>; drop --name")
    configs = sweep_configs(base, specs)
    for config in configs:
        code = _one(args, console, config)
        if code:
            return code
    runs = [str(c.run_dir()) for c in configs]
    merged = merge_runs(runs, seed=int(base["seed"]))
    labels = _sweep_training(configs, merged)  # the runs' trained-on / unknown labels, carried over
    out = sweep_dir(base)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("leaderboard", "head_to_head", "runs"):
        table = annotate(merged[name], merged["humans"])  # the human reference named in every file
        csv_safe(table).to_csv(out / f"{name}.csv", index=False)
        write_parquet(table, out / f"{name}.parquet")
    data = report_data(merged, runs)
    data.summary[1:1] = labels
    for line in labels:
        console.print(line)
    write_markdown(data, out, "leaderboard.md")
    write_html(data, out, "leaderboard.html")
    _board_table(console, merged["leaderboard"], f"Sweep leaderboard over {len(runs)} runs")
    console.print(f"merged leaderboard: [bold]{out}/leaderboard.html[/] (and .md, .csv)")
    return 0


def _sweep_training(configs: list[Any], merged: dict[str, Any]) -> list[str]:
    """Label the merged tables as each run labelled its own (``trained_on_reference``: true for a learned agent
    scored on answers it trained on, empty for one of unknown training data); the lines saying so."""
    trained, unknown, lines = set(), set(), []
    for config in configs:
        learned = {a.name: a.spec for a in config.agents() if learned_spec(a.spec)}
        if not learned:
            continue
        folder = config.run_dir() / "tables"
        path = folder / "seat_games.parquet"
        frame = pd.read_parquet(path) if path.is_file() else read_safe_csv(folder / "seat_games.csv")
        marks = (
            frame.set_index(frame["agent"].astype(str))["trained_on_reference"]
            if "trained_on_reference" in frame.columns
            else None
        )
        for name in learned:
            mine = marks[marks.index == name] if marks is not None else None
            if mine is not None and bool(mine.isna().any()):
                unknown.add(name)
            elif mine is not None and bool(mine.fillna(False).astype(bool).any()):
                trained.add(name)
                lines.append(
                    f"TRAINED ON THE REFERENCE: {name} was scored against answers it was trained on in "
                    f"{config.run_dir()} (humans.{ALLOW_KEY}: true); its numbers are not a held-out evaluation"
                )
        lines.extend(training_labels({n: s for n, s in learned.items() if n in unknown}))
    mark_trained_on({k: merged[k] for k in ("leaderboard", "runs")}, trained, unknown)
    return lines


def _board_table(console: Any, board: Any, title: str) -> None:
    table = Table(title=title)
    for col in ("rank", "agent", "games", "points per game [95 % CI]", "cue giver", "guesser", "win rate"):
        table.add_column(col)
    for row in board.itertuples(index=False):
        ci = (
            ""
            if math.isnan(row.mean_points_ci_low)
            else f" [{row.mean_points_ci_low:.2f}, {row.mean_points_ci_high:.2f}]"
        )
        table.add_row(
            str(row.rank),
            terminal_safe(row.agent, markup=True),
            str(row.games),
            f"{row.mean_points:.2f}{ci}",
            f"{row.mean_cue_giver:.2f}",
            f"{row.mean_guesser:.2f}",
            f"{row.win_rate:.2f}",
        )
    console.print(table)


def _humans(result: Any) -> Any:
    """The run's human reference block (from its summary.json), or ``None``."""
    path = Path(result.run_dir) / "summary.json"
    return (
        json.loads(read_user_text(path, expected="a summary.json")).get("humans") if path.exists() else None
    )


def _reference_lines(humans: Any, result: Any) -> list[str]:
    """The run's human reference and the self-scored caveat (agents named as the tables name them)."""
    agents = [t[[c for c in ("agent", "agent_id") if c in t]] for t in result.tables.values() if "agent" in t]
    table = pd.concat(agents, ignore_index=True) if agents else None
    return [reference_note(ReportData("", "", [], humans=humans or {}), table)]


def _summary(console: Any, result: Any) -> None:
    for message in result.messages:
        console.print(message)
    humans = _humans(result)
    for line in _reference_lines(humans, result):
        console.print(line)
    board = result.tables.get("leaderboard")
    if board is not None and not board.empty:  # the reference players ranked apart, as in the report
        _board_table(
            console, shown_table("leaderboard", board, reference_of(humans)), "Leaderboard (points per game)"
        )
        for line in verdict(ReportData("", "", [], tables=result.tables, humans=humans or {}))[:-1]:
            console.print(line)
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
