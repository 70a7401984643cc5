"""``huesenv metrics LOG... [--humans PATH] [--alpha A] [--top-k K] [--sampled-cloud top-k|all] -o/--out DIR``."""

from __future__ import annotations

import argparse
from pathlib import Path

from huesenv.commands.common import add_humans, add_out, existing_files, probability, top_k_int
from huesenv.humans import load_humans
from huesenv.logs import load_logs
from huesenv.metrics.report import print_report, write_metrics


def register(subparsers) -> None:
    parser = subparsers.add_parser("metrics", help="score word_query logs against the human baseline")
    parser.add_argument("logs", nargs="+", help="logs (.jsonl or .parquet)")
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
    records = load_logs(args.logs)  # a bad log fails before the human cohort is loaded
    if not any(r.kind == "word_query" for r in records):
        raise ValueError(
            f"{', '.join(args.logs)}: no word_query records to score (expected a word-level log)"
        )
    longest = max((len(r.cells or []) for r in records if r.kind == "word_query" and r.scores), default=None)
    if longest is not None and longest < args.top_k:
        print(
            f"note: --top-k {args.top_k}, but the logs' rankings hold at most {longest} cells: "
            f"their Hotelling clouds use those {longest}"
        )
    humans = load_humans(args.humans, cvd=args.cvd)
    report = write_metrics(
        records,
        humans,
        args.out,
        alpha=args.alpha,
        top_k=args.top_k,
        plots=not args.no_plots,
        sampled_cloud=args.sampled_cloud,
    )
    print_report(report)
    return 0
