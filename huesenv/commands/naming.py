"""``huesenv metrics naming [--systems SPEC ...] [--sigma2 S] [--need uniform|cohort] -o DIR``.

The information-bottleneck analysis of colour naming (Zaslavsky et al. 2018) of every system named by
``--systems`` (see :mod:`huesenv.experiments.naming` for the specs), side by side: ``DIR/naming.csv``
(one row per system), ``DIR/naming_frontier.csv`` (the IB curve) and ``DIR/naming.png`` (the
complexity–accuracy plane).  ``huesenv metrics-naming`` is the same command, an alias
(``cli.SUBCOMMAND_ALIASES``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from huesenv.commands.common import add_device, add_humans, add_out, add_seed, bounded_int, positive_float
from huesenv.experiments import naming as systems_mod
from huesenv.humans import HumanReference, load_humans
from huesenv.metrics import naming as ib
from huesenv.plots import plot_naming_plane
from huesenv.reports import csv_safe

DEFAULT_SYSTEMS = ("macro", "cohort", "cohort-colour-terms", "kmeans:8")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "metrics-naming",
        prog="huesenv metrics naming",
        help="alias of `huesenv metrics naming`: information-bottleneck efficiency of colour-naming systems",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--systems",
        nargs="+",
        default=list(DEFAULT_SYSTEMS),
        metavar="SPEC",
        help="macro | cohort | cohort-colour-terms | kmeans:K | kmeans (one per other system's size) | "
        "lexicon:RUN_DIR_OR_CSV | consensus:CSV | text-embedding[:MODEL] | clip:MODEL "
        f"(default: {' '.join(DEFAULT_SYSTEMS)})",
    )
    parser.add_argument(
        "--sigma2",
        type=positive_float,
        default=64.0,
        help="meaning variance in CIELAB: how far a colour's meaning spreads (default 64; `huesenv help --sigma2`)",
    )
    parser.add_argument(
        "--need",
        choices=("uniform", "cohort"),
        default="uniform",
        help="need distribution: how often each cell must be named (`huesenv help --need`)",
    )
    parser.add_argument(
        "--betas",
        type=bounded_int(2, 2000, "--betas"),
        default=None,
        help="points of the annealing grid over the trade-off β (default: the metrics module's; "
        "`huesenv help --betas`)",
    )
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the frontier cache")
    add_humans(parser)
    add_seed(parser)
    add_device(parser)
    add_out(parser, required=True, metavar="DIR", help="output folder (naming.csv, naming.png)")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {args.out}: is a file, expected a folder")
    humans = load_humans(args.humans)
    agent_kwargs = {"device": args.device} if args.device else {}
    specs = list(dict.fromkeys(args.systems))
    built = [
        systems_mod.build_system(s, humans=humans, seed=args.seed, **agent_kwargs)
        for s in specs
        if s != "kmeans"
    ]
    if "kmeans" in specs:  # k-means baselines of the same sizes as the other systems
        sizes = sorted({len(s.words) for s in built if s.kind != "kmeans"} or {8})
        built += [systems_mod.kmeans_system(k, seed=args.seed) for k in sizes]
    betas = None if args.betas is None else ib.default_betas(args.betas)
    table, front, model = systems_mod.analyse(
        built,
        sigma2=args.sigma2,
        need=args.need,
        humans=humans,
        betas=betas,
        cache_dir=False if args.no_cache else None,
    )
    reference = HumanReference.of(humans).description  # the cohort lexicon and the need come from it
    table = table.assign(human_reference=reference)
    out.mkdir(parents=True, exist_ok=True)
    csv_safe(table).to_csv(out / "naming.csv", index=False)
    pd.DataFrame(
        {"beta": front.betas, "complexity_bits": front.complexity, "accuracy_bits": front.accuracy}
    ).to_csv(out / "naming_frontier.csv", index=False)
    plot_naming_plane(
        front.complexity,
        front.accuracy,
        table,
        out / "naming.png",
        title=f"colour naming on the board (σ² = {model.sigma2:g}, need {model.need_name})\n"
        f"human reference: {reference}",
    )
    print(f"Human reference: {reference}")
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(
            table[["system", "words", "complexity_bits", "accuracy_bits", "efficiency_loss", "gnid"]].round(3)
        )
    print(f"wrote {out / 'naming.csv'}, {out / 'naming_frontier.csv'}, {out / 'naming.png'}")
    return 0
