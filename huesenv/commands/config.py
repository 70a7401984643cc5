"""``huesenv config show [CONFIG] [--set KEY=VALUE ...]``: print the resolved experiment config.

What ``huesenv tournament CONFIG --set ...`` would run, after the defaults, the
file and the overrides are merged and validated (unknown keys are errors with a
did-you-mean), with secrets masked.  ``huesenv config list`` names the bundled configs with the
command that runs each (tournament configs: ``config show``/``tournament``; training configs:
``huesenv train experiment``).
"""

from __future__ import annotations

import argparse
from typing import Any

from huesenv.commands.tournament import (
    add_config_flags,
    check_added_agents_play,
    config_name,
    config_overrides,
)
from huesenv.experiments.config import bundled_config_kind, bundled_configs, load_config


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "config",
        help="show the resolved experiment config, list the bundled ones",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="config_command", metavar="ACTION")
    sub.required = True
    show = sub.add_parser(
        "show",
        help="print the resolved config (defaults + file + --set) as YAML",
        description="Print what `huesenv tournament CONFIG --set ...` would run: the defaults, the file and "
        "the overrides merged and validated, secrets masked.",
    )
    add_config_flags(show, "default")
    show.add_argument(
        "--allow-code", action="store_true", help="resolve as 'huesenv tournament --allow-code' would"
    )
    show.set_defaults(func=_show)
    ls = sub.add_parser(
        "list",
        help="list the bundled configs",
        description="List the bundled configs and the command that runs each.",
    )
    ls.set_defaults(func=_list)


def _show(args: argparse.Namespace) -> int:
    config = load_config(config_name(args), config_overrides(args), allow_code=args.allow_code)
    check_added_agents_play(args, config)
    print(f"# {config.source}; run id {config.run_id}; run folder {config.run_dir()}")
    print(config.masked_yaml(), end="")
    return 0


def _list(args: argparse.Namespace) -> int:
    for name in bundled_configs():
        if bundled_config_kind(name) == "training":
            print(f"{name}\ttraining\thuesenv train experiment {name}")
        else:
            print(f"{name}\ttournament\thuesenv tournament {name}")
    return 0
