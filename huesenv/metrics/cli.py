"""``huesenv metrics LOG... [--humans PATH] [--alpha A] [--top-k K] [--sampled-cloud top-k|all] --out DIR``."""

from __future__ import annotations

import argparse

from huesenv.humans import load_humans
from huesenv.metrics.report import print_report, write_metrics


def register(subparsers) -> None:
    parser = subparsers.add_parser("metrics", help="score word_query logs against the human baseline")
    parser.add_argument("logs", nargs="+", help="logs (.jsonl or .parquet)")
    parser.add_argument(
        "--humans", default=None, help="human responses (.csv/.csv.gz/.parquet); default: packaged cohort"
    )
    parser.add_argument(
        "--cvd",
        metavar="PATH",
        default=None,
        help="participants with a colour-vision deficiency (one userId a line, or a CSV with a userId column) "
        "for a --humans export without a colorBlind column",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    parser.add_argument(
        "--top-k",
        type=int,
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
    parser.add_argument("--out", required=True, help="output folder for CSVs and plots")
    parser.add_argument("--no-plots", action="store_true", help="write the CSVs only")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    if not 0 < args.alpha < 1:
        raise ValueError(f"--alpha: expected a number in (0, 1), got {args.alpha}")
    if args.top_k < 1:
        raise ValueError(f"--top-k: expected a positive integer, got {args.top_k}")
    if args.cvd and not args.humans:
        raise ValueError(
            "--cvd: expected together with --humans PATH (the packaged cohort has its own flags)"
        )
    humans = load_humans(args.humans, cvd=args.cvd)
    report = write_metrics(
        args.logs,
        humans,
        args.out,
        alpha=args.alpha,
        top_k=args.top_k,
        plots=not args.no_plots,
        sampled_cloud=args.sampled_cloud,
    )
    print_report(report)
    return 0
