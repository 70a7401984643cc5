"""``huesenv metrics LOG... [--humans PATH] [--alpha A] [--top-k K] -o/--out DIR``."""

from __future__ import annotations

import argparse
from pathlib import Path

from huesenv.commands.common import add_humans, add_out, existing_file, probability, top_k_int
from huesenv.humans import load_humans
from huesenv.logs import load_logs
from huesenv.metrics.report import print_report, write_metrics


def register(subparsers) -> None:
    parser = subparsers.add_parser("metrics", help="score word_query logs against the human baseline")
    parser.add_argument("logs", nargs="+", help="logs (.jsonl or .parquet)")
    add_humans(parser)
    parser.add_argument("--alpha", type=probability, default=0.05, help="significance level (default 0.05)")
    parser.add_argument(
        "--top-k", type=top_k_int, default=5, help="cells of a ranking compared with Hotelling (default 5)"
    )
    add_out(parser, required=True, metavar="DIR", help="output folder for CSVs and plots")
    parser.add_argument("--no-plots", action="store_true", help="write the CSVs only")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    if not 0 < args.alpha < 1:
        raise ValueError(f"--alpha: expected a number in (0, 1), got {args.alpha}")
    if args.top_k < 1:
        raise ValueError(f"--top-k: expected a positive integer, got {args.top_k}")
    for path in args.logs:
        existing_file(path, "LOG")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise ValueError(f"--out {args.out}: is a file, expected a folder for the CSVs and plots")
    records = load_logs(args.logs)  # a bad log fails before the human cohort is loaded
    if not any(r.kind == "word_query" for r in records):
        raise ValueError(
            f"{', '.join(args.logs)}: no word_query records to score (expected a word-level log)"
        )
    humans = load_humans(args.humans)
    report = write_metrics(
        records, humans, args.out, alpha=args.alpha, top_k=args.top_k, plots=not args.no_plots
    )
    print_report(report)
    return 0
