"""``huesenv logs``: import external answer tables, convert logs to Parquet, check a log."""

from __future__ import annotations

import argparse
from collections import Counter

from huesenv.logs.answers import import_answers
from huesenv.logs.io import LogWriter, load_logs, read_records, write_parquet


def register(subparsers) -> None:
    parser = subparsers.add_parser("logs", help="episode logs: import answer tables, convert, check")
    sub = parser.add_subparsers(dest="logs_command", metavar="ACTION")
    sub.required = True

    imp = sub.add_parser(
        "import-answers", help="turn a Palabra,Answer1..AnswerN table into a sampled agent's log"
    )
    imp.add_argument("csv", help="answer table (one row per word)")
    imp.add_argument("--agent", required=True, help="agent id to record, e.g. 'vlm:InternVL3.5-8B'")
    imp.add_argument("-o", "--output", required=True, help="log to append to (.jsonl) or write (.parquet)")
    imp.add_argument("--run-id", default=None, help="run id (default: import:<file stem>)")
    imp.set_defaults(func=_import)

    conv = sub.add_parser("to-parquet", help="convert JSON Lines logs to one Parquet table")
    conv.add_argument("logs", nargs="+")
    conv.add_argument("-o", "--output", required=True)
    conv.set_defaults(func=_to_parquet)

    check = sub.add_parser("check", help="validate logs and count records per kind and agent")
    check.add_argument("logs", nargs="+")
    check.set_defaults(func=_check)


def _import(args: argparse.Namespace) -> int:
    records = import_answers(args.csv, args.agent, run_id=args.run_id)
    if str(args.output).endswith(".parquet"):
        write_parquet(records, args.output)
    else:
        with LogWriter(args.output) as writer:
            writer.append(records)
    n_invalid = sum(len(r.extra.get("invalid_answers", [])) for r in records)
    n_answers = sum(len(r.cells or []) for r in records)
    print(
        f"{args.output}: {len(records)} words, {n_answers} answers, {n_invalid} invalid answers ({args.agent})"
    )
    return 0


def _to_parquet(args: argparse.Namespace) -> int:
    records = load_logs(args.logs)
    write_parquet(records, args.output)
    print(f"{args.output}: {len(records)} records")
    return 0


def _check(args: argparse.Namespace) -> int:
    for path in args.logs:
        result = read_records(path)
        counts = Counter((r.kind, r.agent_id) for r in result.records)
        print(
            f"{path}: {len(result.records)} records"
            + (f", torn line {result.torn_line} ignored" if result.torn_line else "")
        )
        for (kind, agent), n in sorted(counts.items()):
            print(f"  {kind:12s} {agent}: {n}")
    return 0
