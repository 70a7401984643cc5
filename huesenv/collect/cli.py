"""``huesenv collect serve|export``: run the collection web app, export what it stored."""

from __future__ import annotations

import argparse

from huesenv.collect.export import export as run_export
from huesenv.vocabulary import read_vocabulary_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "collect",
        help="human data collection web app (word→cell, GCA, tessellation) and exports",
        description="Run the data collection web app, or export its SQLite database.",
    )
    csub = p.add_subparsers(dest="collect_command", metavar="ACTION")
    csub.required = True

    s = csub.add_parser("serve", help="start the web app (loopback only unless --host says otherwise)")
    s.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    s.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    s.add_argument(
        "--db", default="collect.sqlite3", metavar="PATH", help="SQLite database (created if missing)"
    )
    s.add_argument("--task", choices=("words", "gca", "tessellation"), default="words")
    s.add_argument(
        "--vocabulary",
        metavar="FILE",
        help="word task vocabulary: CSV with a 'word' column (optional 'category') or one word per line; "
        "default the paper's 100 words",
    )
    s.add_argument("--words-per-participant", type=int, default=15, metavar="K")
    s.add_argument(
        "--assignment",
        choices=("balanced", "uniform"),
        default="balanced",
        help="balanced: least-assigned words first, random ties (default); uniform: plain random subsets",
    )
    s.add_argument(
        "--no-feedback",
        action="store_true",
        help="do not show earlier participants' answers after each answer",
    )
    s.add_argument("--languages", default="english,spanish", help="comma-separated language choices")
    s.add_argument(
        "--gca-trials", type=int, default=90, metavar="N", help="GCA trials per participant (paper: 90)"
    )
    s.add_argument(
        "--gca-attention",
        default="5,25,45,65,85",
        metavar="LIST",
        help="1-based item numbers of the attention checks (paper: 5,25,45,65,85)",
    )
    s.add_argument("--gca-introspection", choices=("first", "last", "alternate"), default="alternate")
    s.add_argument(
        "--seed", type=int, default=None, help="assignment seed (default: the one stored in the database)"
    )
    s.set_defaults(func=serve)

    e = csub.add_parser(
        "export", help="write a task's data: words in the human-baseline format, others as CSV"
    )
    e.add_argument("--db", required=True, metavar="PATH")
    e.add_argument("-o", "--output", required=True, metavar="FILE", help=".csv, .csv.gz or .parquet")
    e.add_argument("--task", choices=("words", "gca", "tessellation", "tessellation-raw"), default="words")
    e.add_argument(
        "--finished-only", action="store_true", help="words: only participants who answered every word"
    )
    e.set_defaults(func=export)


def _int_list(text: str, flag: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"{flag} {text!r}: expected comma-separated whole numbers") from None


def serve(args: argparse.Namespace) -> int:
    from huesenv.collect.app import CollectConfig, create_app  # Flask: an optional extra

    vocabulary = None
    if args.vocabulary:
        vocabulary = read_vocabulary_file(args.vocabulary)
    config = CollectConfig(
        db_path=args.db,
        task=args.task,
        vocabulary=vocabulary,
        words_per_participant=args.words_per_participant,
        assignment=args.assignment,
        show_feedback=not args.no_feedback,
        languages=tuple(x.strip() for x in args.languages.split(",") if x.strip()),
        gca_trials=args.gca_trials,
        gca_attention_positions=_int_list(args.gca_attention, "--gca-attention"),
        gca_introspection=args.gca_introspection,
        seed=args.seed,
    )
    app = create_app(config)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: listening on {args.host}, reachable from other machines; put it behind HTTPS")
    print(
        f"huesenv collect: {args.task} task on http://{args.host}:{args.port}/ (database {args.db}); Ctrl-C stops"
    )
    app.run(host=args.host, port=args.port, threaded=True, debug=False, use_reloader=False)
    return 0


def export(args: argparse.Namespace) -> int:
    n = run_export(args.db, args.output, args.task, finished_only=args.finished_only)
    print(f"wrote {n} rows to {args.output}")
    return 0
