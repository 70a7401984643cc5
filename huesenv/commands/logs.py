"""``huesenv logs``: import external answer tables, convert logs to Parquet, check a log, show the schema."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from huesenv.commands.common import (
    add_out,
    add_seed,
    existing_file,
    existing_files,
    jsonl_target,
    safe_name,
    writable_target,
)
from huesenv.logs.answers import write_answers
from huesenv.logs.io import PartialBlock, load_logs, read_records, write_parquet
from huesenv.logs.schema import describe_fields
from huesenv.validation import terminal_safe


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "logs",
        help="episode logs: import answer tables, convert, check, schema",
        description="Episode logs (JSON Lines or Parquet, one record per game step, word query or probe "
        "trial): import another tool's answer table, convert to Parquet, validate, list the schema.",
    )
    sub = parser.add_subparsers(dest="logs_command", metavar="ACTION")
    sub.required = True

    imp = sub.add_parser(
        "import-answers",
        help="turn a Palabra,Answer1..AnswerN table into a sampled agent's log",
        description="Turn a table of sampled answers (a Palabra column, then Answer1..AnswerN cells per "
        "word) into one agent's word-task log, so the metrics score it like any agent's.",
    )
    imp.add_argument("csv", help="answer table (one row per word)")
    imp.add_argument(
        "--agent",
        dest="agent",
        required=True,
        help="agent id to record, e.g. 'vlm:InternVL3.5-8B'",
    )
    add_out(
        imp,
        required=True,
        help="log to append to (.jsonl; a rerun adds nothing twice) or to write (.parquet)",
    )
    imp.add_argument("--run-id", type=safe_name, default=None, help="run id (default: import:<file stem>)")
    add_seed(imp, default=None, help="seed to record (the sampling seed of the source, if known)")
    imp.set_defaults(func=_import)

    conv = sub.add_parser(
        "to-parquet",
        help="convert JSON Lines logs to one Parquet table",
        description="Convert JSON Lines logs into one Parquet table (a row per record, extra fields as columns).",
    )
    conv.add_argument("logs", nargs="+", metavar="LOG", help="JSON Lines logs to convert (one table)")
    add_out(conv, required=True, help="the Parquet file to write")
    conv.set_defaults(func=_to_parquet)

    check = sub.add_parser(
        "check",
        help="validate logs and count records per kind and agent",
        description="Validate logs against the record schema (`huesenv logs schema`) and count records per "
        "kind and agent; a bad record is named by file and line.",
    )
    check.add_argument("logs", nargs="+", metavar="LOG", help="JSON Lines or Parquet logs to check")
    check.set_defaults(func=_check)

    schema = sub.add_parser(
        "schema",
        help="print every declared field of every record kind",
        description="Print every declared field of every log record kind with its type and description.",
    )
    schema.set_defaults(func=_schema)


def _import(args: argparse.Namespace) -> int:
    existing_file(args.csv, "CSV")
    if not str(args.out).lower().endswith(".parquet"):
        jsonl_target(args.out, "--out")  # .jsonl to append to, or .parquet to write
    writable_target(args.out, "--out")
    if not args.agent.strip():
        raise ValueError("--agent: expected a non-empty agent id")
    if not args.agent.isprintable():
        raise ValueError(f"--agent {args.agent!r}: expected an agent id without control characters")
    summary = write_answers(args.csv, args.out, args.agent, run_id=args.run_id, seed=args.seed)
    skipped = f"; {summary.skipped} rows already in the log, not added again" if summary.skipped else ""
    print(
        f"{args.out}: {summary.words} words, {summary.answers} answers, {summary.invalid} invalid answers "
        f"({args.agent}){skipped}"
    )
    return 0


def _to_parquet(args: argparse.Namespace) -> int:
    out = writable_target(args.out, "--out")
    if out.suffix != ".parquet":
        raise ValueError(f"--out {args.out}: expected a .parquet file path")
    for path in existing_files(args.logs, "LOG"):
        if path.resolve() == out.resolve():
            raise ValueError(f"--out {args.out}: is one of the input logs; give another path")
    interrupted: list[tuple[Path, PartialBlock]] = []
    records = load_logs(args.logs, complete_blocks=True, interrupted=interrupted)
    _report_interrupted(interrupted)
    if not records:  # an empty table would look like a successful conversion of nothing
        raise ValueError(
            f"{', '.join(map(str, args.logs))}: no records; expected logs with at least one record"
        )
    write_parquet(records, out)
    print(f"{args.out}: {len(records)} records")
    return 0


def _check(args: argparse.Namespace) -> int:
    for path in args.logs:
        existing_file(path, "LOG")
        torn = None if str(path).endswith(".parquet") else read_records(path).torn_line
        interrupted: list[tuple[Path, PartialBlock]] = []
        records = load_logs(path, complete_blocks=True, interrupted=interrupted)
        counts = Counter((r.kind, r.agent_id) for r in records)
        dropped = sum(block.found for _path, block in interrupted)
        print(
            f"{path}: {len(records)} records"
            + (f", torn line {torn} ignored" if torn else "")
            + (
                f", {len(interrupted)} interrupted block(s) of {dropped} records dropped"
                if interrupted
                else ""
            )
        )
        for _path, block in interrupted:
            print(f"  interrupted: {terminal_safe(block.describe())}")
        for (kind, agent), n in sorted(counts.items()):
            print(f"  {kind:12s} {terminal_safe(agent)}: {n}")
    return 0


def _report_interrupted(interrupted: list[tuple[Path, PartialBlock]]) -> None:
    """One line per unit block an interrupted run cut short (left out of the output)."""
    for path, block in interrupted:
        print(f"{path}: interrupted block {terminal_safe(block.describe())} dropped")


def _schema(args: argparse.Namespace) -> int:
    print(describe_fields())
    return 0
