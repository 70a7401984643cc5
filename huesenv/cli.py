"""The ``huesenv`` command line: one program, one subcommand per job.

Each subcommand lives next to the code it drives and exposes
``register(subparsers)``, which adds its parser and sets ``func`` (called with the
parsed arguments; its return value is the exit code).  :data:`COMMANDS` is the
one list of them; modules are imported only when the CLI starts, and heavy
imports (torch, pygame, flask...) happen inside ``func``, so ``--help`` is fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from huesenv import __version__

# subcommand name -> module providing register(subparsers)
COMMANDS: dict[str, str] = {
    "board": "huesenv.commands.board",
    "humans": "huesenv.humans.cli",
    "logs": "huesenv.logs.cli",
    "metrics": "huesenv.metrics.cli",
    "agents": "huesenv.agents.cli",
    "probe": "huesenv.probes.cli",
    "tournament": "huesenv.experiments.cli",
    "leaderboard": "huesenv.commands.leaderboard",
    "doctor": "huesenv.commands.doctor",
    "replay": "huesenv.render.cli",
    "play": "huesenv.play.cli",
    "collect": "huesenv.collect.cli",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="huesenv",
        description="Hues and Cues environments, agents and colour-alignment metrics.",
    )
    parser.add_argument("--version", action="version", version=f"huesenv {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in COMMANDS.values():
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name and (module == err.name or module.startswith(err.name + ".")):  # not written yet
                continue
            raise
        mod.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as err:
        print(f"huesenv {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
