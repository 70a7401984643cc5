"""``huesenv collect serve|export``: run the collection web app, export what it stored.

Every bad option ends with one line naming it and what was expected, and exit
status 2; nothing is created for a refused configuration.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
from pathlib import Path
from typing import NoReturn

from huesenv.collect.export import export as run_export
from huesenv.collect.i18n import UI_LANGUAGES
from huesenv.collect.security import parse_rate
from huesenv.collect.tasks.gca import attention_slots
from huesenv.commands.common import add_out, bounded_int
from huesenv.vocabulary import read_vocabulary_file

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _host(text: str) -> str:
    if text == "localhost":
        return text
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an IP address to listen on (e.g. 127.0.0.1 or 0.0.0.0), got {text!r}"
        ) from None


def _rate(text: str):
    try:
        return parse_rate(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


class _OneLineParser(argparse.ArgumentParser):
    """Bad options end with one line (the option and what was expected) and exit status 2, no usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "collect",
        help="human data collection web app (word→cell, GCA, tessellation) and exports",
        description="Run the data collection web app, or export its SQLite database.",
    )
    csub = p.add_subparsers(dest="collect_command", metavar="ACTION", parser_class=_OneLineParser)
    csub.required = True

    s = csub.add_parser("serve", help="start the web app (loopback only unless --host says otherwise)")
    s.add_argument(
        "--host",
        type=_host,
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    s.add_argument(
        "--port", type=bounded_int(1, 65535, "a TCP port"), default=5000, help="port (default 5000)"
    )
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
    s.add_argument(
        "--words-per-participant",
        type=bounded_int(1, 1000, "a whole number of words"),
        default=15,
        metavar="K",
    )
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
        "--gca-trials",
        type=bounded_int(1, 1000, "a whole number of trials"),
        default=90,
        metavar="N",
        help="GCA trials per participant (paper: 90)",
    )
    s.add_argument(
        "--gca-attention",
        default="5,25,45,65,85",
        metavar="LIST",
        help="1-based item numbers of the attention checks (paper: 5,25,45,65,85)",
    )
    s.add_argument("--gca-introspection", choices=("first", "last", "alternate"), default="alternate")
    s.add_argument(
        "--gca-prerender",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="render every GCA stimulus in the background at start-up (default on; images are otherwise "
        "rendered when first shown)",
    )
    s.add_argument(
        "--seed",
        type=bounded_int(0, 2**63 - 1, "a non-negative whole number"),
        default=None,
        help="assignment seed (default: the one stored in the database)",
    )
    s.add_argument(
        "--information",
        metavar="FILE",
        help="information/consent text shown before onboarding (plain text, blank lines between paragraphs); "
        "'{lang}' in the name is replaced by en / es for each interface language",
    )
    s.add_argument(
        "--age-policy",
        choices=("adult", "guardian"),
        default="adult",
        help="adult (default): adults only; guardian: minors with a parent's or guardian's consent",
    )
    s.add_argument("--adult-age", type=bounded_int(16, 21, "an age"), default=18, help="default 18")
    s.add_argument(
        "--completion-code", metavar="CODE", help="completion code shown at the end (e.g. Prolific's)"
    )
    s.add_argument(
        "--completion-url",
        metavar="URL",
        help="https address the finished participant is sent back to; '{code}' is replaced by the code, "
        "e.g. https://app.prolific.com/submissions/complete?cc={code}",
    )
    s.add_argument(
        "--start-limit",
        type=_rate,
        default=(30, 600.0),
        metavar="N/SECONDS",
        help="at most N new participants per client address per SECONDS (default 30/600; 'off' for none; "
        "raise it for a lab whose computers share one address)",
    )
    s.add_argument(
        "--secure-cookies",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="mark the session cookie Secure (HTTPS only). Default: on, except when --host is a loopback "
        "address and no --trust-proxy is given (plain http on this machine)",
    )
    s.add_argument(
        "--trust-proxy",
        type=bounded_int(0, 5, "a number of reverse proxies"),
        default=0,
        metavar="N",
        help="believe X-Forwarded-For/-Proto from N reverse proxies in front (default 0)",
    )
    s.add_argument(
        "--secret-key-file",
        metavar="PATH",
        help="session-signing key file, mode 0600, created if missing (default: DB path + .key; "
        "$HUESENV_COLLECT_SECRET_KEY overrides)",
    )
    s.set_defaults(func=serve)

    e = csub.add_parser(
        "export", help="write a task's data: words in the human-baseline format, others as CSV"
    )
    e.add_argument("--db", required=True, metavar="PATH")
    add_out(e, required=True, metavar="FILE", help=".csv, .csv.gz or .parquet")
    e.add_argument(
        "--task",
        choices=("words", "gca", "tessellation", "tessellation-raw", "participants"),
        default="words",
        help="participants: one row per participant with consent and study-platform ids",
    )
    e.add_argument(
        "--finished-only", action="store_true", help="words: only participants who answered every word"
    )
    e.set_defaults(func=export)


def _int_list(text: str, flag: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"{flag} {text!r}: expected comma-separated whole numbers") from None
    if any(v < 1 or v > 2000 for v in values):
        raise ValueError(f"{flag} {text!r}: expected item numbers from 1 to 2000")
    return values


def _information(pattern: str) -> dict[str, str]:
    out = {}
    for code, name in UI_LANGUAGES:
        path = Path(pattern.replace("{lang}", code))
        if not path.is_file():
            if "{lang}" in pattern and code != "en":  # that language shows the built-in placeholder: say so
                print(
                    f"note: --information {path}: no such file, so participants using the {name} interface "
                    "see the built-in placeholder information text"
                )
                continue
            raise FileNotFoundError(f"--information {path}: no such file")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise ValueError(f"--information {path}: cannot read it as UTF-8 text ({err})") from None
        if not text.strip() or len(text) > 100_000:
            raise ValueError(f"--information {path}: expected 1-100000 characters of text")
        out[code] = text
    return out


def _check_db_path(text: str) -> Path:
    path = Path(text)
    if path.is_dir():
        raise ValueError(f"--db {path}: is a folder; expected a database file")
    if not path.parent.is_dir():
        raise FileNotFoundError(f"--db {path}: folder {path.parent} does not exist")
    return path


def _attention(args: argparse.Namespace) -> tuple[int, ...]:
    """The attention-check items; ones that an explicit ``--gca-attention`` puts beyond the survey's end
    (or on the introspection question) would be dropped without a word, so they are refused."""
    positions = _int_list(args.gca_attention, "--gca-attention")
    if args.task != "gca" or args.gca_attention == "5,25,45,65,85" or args.gca_trials < 1:
        return positions  # the paper's defaults shrink with a short survey, as documented
    conditions = {"first": ["first"], "last": ["last"]}.get(args.gca_introspection, ["first", "last"])
    for condition in conditions:
        dropped = sorted(set(positions) - set(attention_slots(args.gca_trials, positions, condition)))
        if dropped:
            raise ValueError(
                f"--gca-attention {args.gca_attention!r}: item(s) {dropped} fall beyond the survey's end or on "
                f"the introspection question ({condition}) with --gca-trials {args.gca_trials}; expected items "
                f"inside the survey (at most {args.gca_trials + len(positions) + 1} items, introspection included)"
            )
    return positions


def serve(args: argparse.Namespace) -> int:
    from huesenv.collect.accesslog import PrivateRequestHandler  # werkzeug comes with Flask
    from huesenv.collect.app import CollectConfig, create_app  # Flask: an optional extra

    db_path = _check_db_path(args.db)
    vocabulary = None
    if args.vocabulary:
        if not Path(args.vocabulary).is_file():
            raise FileNotFoundError(f"--vocabulary {args.vocabulary}: no such file")
        vocabulary = read_vocabulary_file(args.vocabulary)
    loopback = args.host in LOOPBACK
    # Behind a reverse proxy the browser speaks HTTPS even when this server listens on loopback.
    secure = args.secure_cookies if args.secure_cookies is not None else not loopback or args.trust_proxy > 0
    languages = tuple(x.strip() for x in args.languages.split(",") if x.strip())
    config = CollectConfig(
        db_path=db_path,
        task=args.task,
        vocabulary=vocabulary,
        words_per_participant=args.words_per_participant,
        assignment=args.assignment,
        show_feedback=not args.no_feedback,
        languages=languages,
        gca_trials=args.gca_trials,
        gca_attention_positions=_attention(args),
        gca_introspection=args.gca_introspection,
        seed=args.seed,
        gca_prerender=args.gca_prerender,
        information=_information(args.information) if args.information else None,
        age_policy=args.age_policy,
        adult_age=args.adult_age,
        completion_code=args.completion_code,
        completion_url=args.completion_url,
        start_rate=args.start_limit,
        secure_cookies=secure,
        trust_proxy=args.trust_proxy,
        secret_key_file=args.secret_key_file,
    )
    try:
        app = create_app(config)
    except OSError as err:  # e.g. a database or key file in a folder this user cannot write
        raise ValueError(f"{err.filename or args.db}: {err.strerror or err}") from None
    app_log = logging.getLogger("huesenv.collect")  # counts and timings only, never participant data
    if not app_log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        app_log.addHandler(handler)
        app_log.setLevel(logging.INFO)
    if not loopback:
        print(
            f"warning: listening on {args.host}, reachable from other machines; this development server "
            "must sit behind an HTTPS reverse proxy (see docs/collect-deployment.md)"
        )
    if not secure:
        print("note: session cookies are not marked Secure (plain http on this machine)")
    print(
        f"huesenv collect: {args.task} task on http://{args.host}:{args.port}/ (database {args.db}); Ctrl-C stops",
        flush=True,
    )
    try:
        app.run(
            host=args.host,
            port=args.port,
            threaded=True,
            debug=False,
            use_reloader=False,
            request_handler=PrivateRequestHandler,
        )
    except OSError as err:
        raise ValueError(
            f"--host {args.host} --port {args.port}: cannot listen there ({err.strerror or err})"
        ) from None
    return 0


def export(args: argparse.Namespace) -> int:
    if Path(args.out).resolve() == Path(args.db).resolve():
        raise ValueError(f"-o {args.out}: is the database being exported; choose another file")
    try:
        n = run_export(args.db, args.out, args.task, finished_only=args.finished_only)
    except PermissionError as err:
        raise ValueError(f"{err.filename}: permission denied") from None
    except IsADirectoryError as err:
        raise ValueError(f"{err.filename}: is a folder; expected a file") from None
    print(f"wrote {n} rows to {args.out}")
    return 0
