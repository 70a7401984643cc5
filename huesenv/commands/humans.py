"""``huesenv humans summary|reconstruct``: per-word Human Consistency, and regenerating the reconstructed cohort."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from huesenv.commands.common import add_humans, add_out, add_seed, display_path, probability, writable_target
from huesenv.humans import consistency_by_category, consistency_table, load_humans, names_check
from huesenv.humans.consistency import MIN_ANSWERS
from huesenv.humans.reconstruct import DEFAULT_SEED, reconstruct_cohort, write_export
from huesenv.humans.reference import HumanReference
from huesenv.naming_corpus import load_naming_corpus
from huesenv.reports import csv_safe
from huesenv.trust import read_user_text
from huesenv.validation import terminal_safe

RECONSTRUCTION_NOTICE = (
    "RECONSTRUCTION: these answers were generated from the paper's published summary "
    "statistics (Table 6 modal cells and consistencies); they are NOT human data. "
    "Use --humans PATH with a real export for people's answers."
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "humans",
        help="human baseline: per-word Human Consistency, reconstructed cohort",
        description="Summarise a human-response export (default: the packaged reconstructed "
        "cohort, which is not human data) or regenerate the reconstruction.",
    )
    hsub = p.add_subparsers(dest="humans_command", metavar="ACTION")
    hsub.required = True

    s = hsub.add_parser(
        "summary",
        help="one row per word: n, modal cell, LOO Human Consistency",
        description="One row per word of a human-response export: its answers, modal cell and leave-one-out "
        "(LOO) Human Consistency, the share of answers inside the others' χ²₂ ellipse (`huesenv help LOO`). "
        "Default: the packaged reconstructed cohort, which is not people.",
    )
    add_humans(s, help="export (.csv, .csv.gz, .parquet); default: the packaged reconstructed cohort")
    s.add_argument(
        "--format", choices=("table", "csv"), default="table", help="rich table (default) or CSV on stdout"
    )
    s.add_argument(
        "--alpha", type=probability, default=0.05, help="outlier level of the χ²₂ test (default 0.05)"
    )
    s.add_argument(
        "--calibrated",
        action="store_true",
        help="use the small-n calibrated LOO threshold (exact α at every n) instead of the paper's χ²₂ one",
    )
    s.add_argument("--include-cvd", action="store_true", help="keep colour-vision-deficient participants")
    s.add_argument(
        "--cvd",
        metavar="PATH",
        help="list of the participants with a colour-vision deficiency (one userId a line, or a CSV with "
        "a userId column), for exports without a colorBlind column such as the authors' app export",
    )
    s.add_argument("--language", action="append", help="keep only this language (repeatable)")
    s.add_argument("--gender", action="append", help="keep only this gender (repeatable)")
    s.add_argument("--age-range", action="append", help="keep only this age bracket, e.g. 20-29 (repeatable)")
    s.add_argument(
        "--skip-bad-rows", action="store_true", help="skip invalid rows (listed) instead of failing"
    )
    s.add_argument("--vocabulary", metavar="PATH|any", help="accept a custom vocabulary file, or 'any' word")
    s.set_defaults(func=run_summary)

    c = hsub.add_parser(
        "check-names",
        help="the cohort against a naming corpus: ΔE2000 per colour-name word, Mahalanobis pass",
        description="Check the human reference against real naming data (default: the XKCD colour survey): "
        "per cue word the corpus names, the ΔE2000 from the corpus colour to the cohort's mean and modal answer, "
        "and whether the corpus colour's nearest cell passes the cohort's Mahalanobis test (xy and CIELAB).",
    )
    add_humans(c)
    c.add_argument(
        "--corpus",
        metavar="NAME|CSV",
        help="naming corpus: xkcd (default), color-name-list, both joined by '+', or a CSV (name + hex | r,g,b | L,a,b)",
    )
    add_out(c, help="folder for names-check.json and names-check.md (default: print only)")
    c.set_defaults(func=run_check_names)

    r = hsub.add_parser(
        "reconstruct",
        help="regenerate the reconstructed cohort from a seed",
        description="Regenerate the packaged reconstructed cohort (simulated participants drawn to match the "
        "paper's Table 6 statistics, not people) from a seed, in the export format the humans loader reads.",
    )
    add_seed(r, default=None, help="random seed (default: the packaged cohort's seed)")
    add_out(
        r,
        default="reconstructed_cohort.csv.gz",
        help="output file (.csv, .csv.gz, .parquet; default ./reconstructed_cohort.csv.gz)",
    )
    r.set_defaults(func=run_reconstruct)


def _utf8_file(path: str, flag: str) -> None:
    """A text input that is too big or not UTF-8 is named here, through the one bounded reader."""
    if Path(path).suffix.lower() != ".csv" and flag == "--humans":
        return  # .csv.gz and .parquet are binary by design
    try:
        read_user_text(path, expected="a CSV file")
    except ValueError as err:
        raise ValueError(f"{flag} {err}") from None
    except OSError:
        return  # missing or a folder: the loader names it


def _num(x: float) -> str:
    """Three decimals, or "—" where undefined (a word below the minimum number of answers)."""
    return "—" if x != x else f"{x:.3f}"


def run_summary(args: argparse.Namespace) -> int:
    if args.humans:
        _utf8_file(args.humans, "--humans")
    if args.vocabulary and args.vocabulary != "any":
        _utf8_file(args.vocabulary, "--vocabulary")
    humans = load_humans(
        args.humans,
        on_error="skip" if args.skip_bad_rows else "raise",
        exclude_cvd=not args.include_cvd,
        language=args.language,
        gender=args.gender,
        age_range=args.age_range,
        vocabulary=args.vocabulary,
        cvd=args.cvd,
    )
    if len(humans) == 0:
        filters = ", ".join(f"{k}: {v}" for k, v in humans.filtered.items()) or "none"
        raise ValueError(
            f"{display_path(humans.source)}: no answers left after the filters (rows filtered out by {filters}); "
            "check --language/--gender/--age-range against the export's values"
        )
    table = consistency_table(humans, alpha=args.alpha, calibrated=args.calibrated)
    short = table[table["n"] < MIN_ANSWERS]
    notes = []
    if humans.colour_vision_unknown:
        notes.append(
            f"colour vision unknown for {humans.colour_vision_unknown} participant(s) (no colorBlind "
            "column): none could be excluded as CVD; pass --cvd PATH to supply the list"
        )
    if len(short):
        notes.append(
            f"{len(short)} word(s) with fewer than {MIN_ANSWERS} answers have no Human Consistency and are "
            "left out of the pooled figures: "
            + ", ".join(f"{w} ({n})" for w, n in zip(short["word"], short["n"]))
        )
    notice = RECONSTRUCTION_NOTICE if humans.is_reconstruction else None
    skipped = len(humans.skipped)
    if args.format == "csv":
        if notice:
            print(f"# {notice}", file=sys.stderr)
        if skipped:
            print(f"# skipped {skipped} invalid row(s)", file=sys.stderr)
        for note in notes:
            print(f"# {note}", file=sys.stderr)
        named = HumanReference.of(humans).annotate(table)  # the reference named in the CSV, as everywhere
        sys.stdout.write(csv_safe(named).to_csv(index=False, float_format="%.4f", lineterminator="\n"))
        return 0

    console = Console()
    if not console.is_terminal:  # pipes and logs: wide enough for every column
        console = Console(width=120)
    if notice:
        console.print(f"[bold red]{notice}[/]")
    console.print(f"[bold]Human reference:[/] {HumanReference.of(humans).description}")
    title = (
        f"{display_path(humans.source)}: {len(humans)} answers, {humans.n_participants} participants, "
        f"{len(table)} words (α = {args.alpha}, {'calibrated' if args.calibrated else 'χ²₂'} threshold)"
    )
    out = Table(
        title=title, caption="implied_false_alarm: the fail rate the χ²₂ test gives normal answers at n"
    )
    numeric = ("n", "consistency", "fail_rate", "implied_false_alarm", "fail_rate_calibrated")
    for name in ("word", "category", "n", "mode_coord", "mode_category", *numeric[1:]):
        out.add_column(name, justify="right" if name in numeric else "left")
    for row in table.itertuples(index=False):
        out.add_row(
            *(terminal_safe(v, markup=True) for v in (row.word, row.category)),
            str(row.n),
            row.mode_coord,
            terminal_safe(row.mode_category, markup=True),
            _num(row.consistency),
            _num(row.fail_rate),
            _num(row.implied_false_alarm),
            _num(row.fail_rate_calibrated),
        )
    console.print(out)
    cats = Table(title="Pooled over answers")
    for name in ("category", "words", "n", "consistency", "fail_rate", "implied_false_alarm"):
        cats.add_column(name)
    for row in consistency_by_category(table).itertuples(index=False):
        cats.add_row(
            terminal_safe(row.category, markup=True),
            str(row.words),
            str(row.n),
            _num(row.consistency),
            _num(row.fail_rate),
            _num(row.implied_false_alarm),
        )
    console.print(cats)
    for note in notes:
        console.print(f"[yellow]{note}[/]")
    extras = [f"{k}: {v}" for k, v in humans.filtered.items()]
    if extras:
        console.print("filtered out rows — " + ", ".join(extras))
    if skipped:
        console.print(f"[yellow]skipped {skipped} invalid row(s):[/]")
        for row in humans.skipped.head(20).itertuples(index=False):
            console.print(f"  line {row.line}, field {row.field}: {row.reason}")
    return 0


def run_reconstruct(args: argparse.Namespace) -> int:
    out = writable_target(args.out, "--out")  # checked before the (slow) reconstruction runs
    if not str(out).endswith((".csv", ".csv.gz", ".parquet")):
        raise ValueError(f"--out {args.out}: expected a .csv, .csv.gz or .parquet file path")
    seed = DEFAULT_SEED if args.seed is None else args.seed
    result = reconstruct_cohort(seed)
    path = write_export(result.frame, args.out)
    cal = result.calibration
    within = int((cal["error"].abs() <= 0.03 + 1e-12).sum())
    print(f"wrote {path}: {len(result.frame)} answers, seed {seed}")
    print(
        f"consistency within ±0.03 of Table 6 for {within}/{len(cal)} words; "
        f"largest gap {cal['error'].abs().max():.3f} ({cal.loc[cal['error'].abs().idxmax(), 'word']})"
    )
    print(RECONSTRUCTION_NOTICE)
    return 0


def run_check_names(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else None
    if out is not None and out.exists() and not out.is_dir():
        raise ValueError(f"--out {args.out}: is a file, expected a folder")
    corpus = load_naming_corpus(args.corpus)  # bad input fails before anything is written
    humans = load_humans(args.humans)
    table = names_check.check_names(humans, corpus)
    reference = HumanReference.of(humans).label
    text = names_check.markdown(table, reference, corpus.label)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        records = table.to_dict(orient="records")
        doc = {
            "reference": reference,
            "corpus": corpus.label,
            "summary": names_check.summary_line(table, corpus.label),
        }
        (out / "names-check.json").write_text(
            json.dumps(doc | {"words": records}, indent=1) + "\n", encoding="utf-8"
        )
        (out / "names-check.md").write_text(
            f"# The reference against real naming data\n\n{text}", encoding="utf-8"
        )
    if humans.is_reconstruction:
        print(RECONSTRUCTION_NOTICE)
    print(text, end="")
    return 0
