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

from huesenv.collect.config import MAX_INFORMATION_BYTES
from huesenv.collect.consensus import compare_maps, load_category_map, table6_labels
from huesenv.collect.db import open_readonly
from huesenv.collect.display import DISPLAY_FILTERS
from huesenv.collect.export import exclusions, pilot_since
from huesenv.collect.export import export as run_export
from huesenv.collect.i18n import UI_LANGUAGES
from huesenv.collect.security import parse_rate
from huesenv.collect.strata import consistency_by_display
from huesenv.collect.tasks.gca import ImageStore, attention_slots
from huesenv.commands.common import UsageError, add_out, bounded_int
from huesenv.reports import csv_safe
from huesenv.trust import read_user_text
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

    s = csub.add_parser(
        "serve",
        help="start the web app (loopback only unless --host says otherwise)",
        description="Serve one task's study to participants (Flask's development server; a public study sits "
        "behind HTTPS, docs/collect-deployment.md). A study shows its approved --information sheet; --pilot "
        "runs without one, its data marked as a pilot's.",
    )
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
        "--db",
        default="collect.sqlite3",
        metavar="PATH",
        help="SQLite database of the answers (default collect.sqlite3 in the current folder; created if missing)",
    )
    s.add_argument(
        "--task",
        choices=("words", "gca", "tessellation"),
        default="words",
        help="the protocol: words (word -> board cell, default), gca (graded colour attribution), "
        "tessellation (paint the board into colour categories)",
    )
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
        help="words each participant answers (default 15)",
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
    s.add_argument(
        "--gca-introspection",
        choices=("first", "last", "alternate"),
        default="alternate",
        help="when the GCA threshold question is asked: before the colour questions, after them, or "
        "alternating between participants (default)",
    )
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
        help="the approved information/consent sheet shown before onboarding (plain text, blank lines between "
        "paragraphs); '{lang}' in the name is replaced by en / es for each interface language; required "
        "unless --pilot",
    )
    s.add_argument(
        "--pilot",
        action="store_true",
        help="a trial run without an approved information sheet: participants see a placeholder, and the "
        "database and every export are marked as a pilot's",
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
        "--completion-redirect",
        type=bounded_int(0, 600, "a number of seconds"),
        default=5,
        metavar="SECONDS",
        help="send a finished participant to --completion-url after SECONDS (default 5; 0: only the button)",
    )
    s.add_argument(
        "--require-platform-id",
        action="store_true",
        help="refuse onboarding without ?PROLIFIC_PID= in the study link (one person, one place)",
    )
    s.add_argument(
        "--no-consent-code",
        metavar="CODE",
        help="code given to a person who does not consent (e.g. Prolific's)",
    )
    s.add_argument(
        "--no-consent-url",
        metavar="URL",
        help="https address where a person who does not consent returns the study; '{code}' is replaced",
    )
    s.add_argument(
        "--gca-image-cache",
        metavar="DIR",
        help="folder the GCA stimulus images are rendered into (default: DB path + .gca-images; "
        "fill it ahead of time with 'huesenv collect prerender')",
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
        "export",
        help="write a task's data: words in the human-baseline format, others as CSV",
        description="Write one task's data from a study database (opened read-only): words in the format "
        "the humans loader reads, GCA and tessellation tables, or one row per participant; finished "
        "participants only unless --include-unfinished.",
    )
    e.add_argument(
        "--db", required=True, metavar="PATH", help="the study's SQLite database (from collect serve)"
    )
    add_out(e, required=True, metavar="FILE", help=".csv, .csv.gz or .parquet")
    e.add_argument(
        "--task",
        choices=("words", "gca", "tessellation", "tessellation-raw", "participants"),
        default="words",
        help="participants: one row per participant with consent and study-platform ids",
    )
    e.add_argument(
        "--include-unfinished",
        action="store_true",
        help="answer exports: keep participants who did not finish (default: only those who finished)",
    )
    e.add_argument("--finished-only", action="store_true", help=argparse.SUPPRESS)  # the default since 0.3
    e.add_argument(
        "--display",
        choices=DISPLAY_FILTERS,
        default="all",
        help="exclude participants by their display: checked (no forced colours, screen check passed), "
        "no-forced-colors, landscape, passed (screen check); default all",
    )
    e.set_defaults(func=export)

    r = csub.add_parser(
        "prerender",
        help="render every GCA stimulus image into the image cache, with a progress bar",
        description="Render every GCA stimulus image into the cache beside the database, so that no "
        "participant waits for one.",
    )
    r.add_argument(
        "--db", required=True, metavar="PATH", help="the GCA server's database (its cache sits beside it)"
    )
    r.add_argument(
        "--gca-image-cache", metavar="DIR", help="the cache folder (default: DB path + .gca-images)"
    )
    r.set_defaults(func=prerender)

    m = csub.add_parser(
        "compare-categories",
        help="the painting task's consensus as a category map, compared with the macro-colour map",
        description="Compare the painting task's consensus map with a reference category map (the "
        "package's macro-colour map or the paper's Table 6 labels): how many cells agree, per category.",
    )
    m.add_argument(
        "--consensus", required=True, metavar="FILE", help="export --task tessellation (.csv/.parquet)"
    )
    m.add_argument(
        "--reference",
        choices=("package", "table6"),
        default="package",
        help="package: the huesenv macro-colour map (480 cells, reconstructed, not people); "
        "table6: the paper's Table 6 cell labels (111 cells)",
    )
    add_out(m, required=False, metavar="FILE", help="also write the per-category table (.csv)")
    m.set_defaults(func=compare_categories)

    h = csub.add_parser(
        "consistency",
        help="word task: Human Consistency per display stratum (forced colours, gamut, screen check)",
        description="Word task: the collected answers' Human Consistency per display stratum, to see whether "
        "forced colours, the colour gamut or a failed screen check changed people's answers.",
    )
    h.add_argument("--db", required=True, metavar="PATH", help="the word study's SQLite database")
    h.add_argument(
        "--by",
        choices=("forced-colors", "gamut", "screen-check"),
        required=True,
        help="the display fact to group participants by",
    )
    h.set_defaults(func=consistency)


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
            text = read_user_text(path, expected="the information sheet", max_bytes=MAX_INFORMATION_BYTES)
        except OSError as err:
            raise ValueError(f"--information {path}: cannot read it ({type(err).__name__})") from None
        except ValueError as err:
            raise ValueError(f"--information {err}") from None
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
        pilot=args.pilot,
        age_policy=args.age_policy,
        adult_age=args.adult_age,
        completion_code=args.completion_code,
        completion_url=args.completion_url,
        start_rate=args.start_limit,
        secure_cookies=secure,
        trust_proxy=args.trust_proxy,
        secret_key_file=args.secret_key_file,
        completion_redirect_s=args.completion_redirect,
        require_platform_id=args.require_platform_id,
        no_consent_code=args.no_consent_code,
        no_consent_url=args.no_consent_url,
        gca_image_cache=args.gca_image_cache,
    )
    if not args.information and not args.pilot:
        raise UsageError(
            "huesenv collect serve",
            "--information FILE (the approved information sheet) is required; --pilot starts a trial run "
            "without one, its data marked as a pilot's",
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
    if args.pilot:
        print(
            "pilot: no approved information sheet; participants see a placeholder and the data are marked a pilot's"
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
    who = {"include_unfinished": args.include_unfinished, "display": args.display}
    try:
        n = run_export(args.db, args.out, args.task, **who)
    except PermissionError as err:
        raise ValueError(f"{err.filename}: permission denied") from None
    except IsADirectoryError as err:
        raise ValueError(f"{err.filename}: is a folder; expected a file") from None
    note = ""
    if args.task != "participants":
        task = "tessellation" if args.task.startswith("tessellation") else args.task
        left = exclusions(args.db, task, **who)
        note = left.describe(args.include_unfinished, args.display)
    pilot = pilot_since(args.db)
    if pilot is not None:
        note = "; ".join(
            filter(None, [note, f"pilot data (--pilot since {pilot}), marked in column 'pilot'"])
        )
    print(f"wrote {n} rows to {args.out}" + (f" ({note})" if note else ""))
    return 0


def prerender(args: argparse.Namespace) -> int:
    """Render every GCA stimulus of the probes' set into the image cache (outside the database)."""
    from rich.progress import Progress

    from huesenv.collect.gca_probes import make_probes_source

    db = Path(args.db)
    conn = open_readonly(db)  # checks it is a collection database; nothing is written into it
    cache = Path(args.gca_image_cache) if args.gca_image_cache else Path(f"{db}.gca-images")
    source = make_probes_source()
    store = ImageStore(lookup=source.render_png, cache_dir=cache)
    ids = source.stimulus_ids
    try:
        with Progress() as bar:
            job = bar.add_task("GCA images", total=len(ids))
            n = store.prerender(conn, ids, progress=lambda done, total: bar.update(job, completed=done))
    finally:
        conn.close()
    print(f"rendered {n} of {len(ids)} GCA images into {cache} ({len(ids) - n} were already there)")
    return 0


def compare_categories(args: argparse.Namespace) -> int:

    consensus = load_category_map(args.consensus)
    result = compare_maps(consensus, table6_labels() if args.reference == "table6" else None)
    print(f"{consensus.n} painters; " + result.summary())
    print(result.by_category.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    if args.out:
        path = Path(args.out)
        if not path.name.lower().endswith(".csv"):
            raise ValueError(f"-o {args.out}: expected a .csv file")
        table = result.by_category.assign(reference=result.reference, cell_agreement=result.agreement)
        csv_safe(table).to_csv(path, index=False)
        print(f"wrote {path}")
    return 0


def consistency(args: argparse.Namespace) -> int:

    table = consistency_by_display(args.db, args.by)
    if table.empty:
        raise ValueError(f"--db {args.db}: no finished participant's word answers to stratify")
    print(f"Human Consistency of finished participants by {args.by} (leave-one-out, pooled; CVD excluded):")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0
