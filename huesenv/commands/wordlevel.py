"""``huesenv wordlevel``: the paper's word-level evaluation (e.g. ``huesenv wordlevel paper_clip_sweep``).

The tournament runner with its games stage off: same config, flags and
resumable run folder as :mod:`huesenv.commands.tournament`.
"""

from __future__ import annotations

import argparse
from typing import Any

from huesenv.commands.tournament import add_experiment_flags, run_experiment_command


def register(subparsers: Any) -> None:
    w = subparsers.add_parser(
        "wordlevel",
        help="the paper's word-level evaluation (e.g. the 162 CLIP checkpoints)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_experiment_flags(w, "paper_clip_sweep", games=False)
    w.set_defaults(func=_run_wordlevel)


def _run_wordlevel(args: argparse.Namespace) -> int:
    return run_experiment_command(args, ["tournament.enabled=false"])
