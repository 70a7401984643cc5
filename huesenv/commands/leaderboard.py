"""``huesenv leaderboard RUN_DIR...``: one leaderboard, with 95 % intervals and paired tests, over run folders.

Output: Markdown on stdout by default; ``-o OUT.md``, ``-o OUT.html`` or
``-o OUT.csv`` writes that format; ``-o FOLDER`` writes ``leaderboard.md``,
``leaderboard.html``, ``leaderboard.csv`` / ``.parquet`` and the head-to-head and
runs tables there.  Runs scored against different human references are refused
unless ``--allow-mixed-humans``; self-scored rows (``huesenv help self-scored``) are marked.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from huesenv.experiments.merge import merge_runs, report_data
from huesenv.experiments.report import annotate, markdown_table, write_html, write_markdown, write_parquet
from huesenv.reports import csv_safe


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "leaderboard",
        help="merge run folders into one leaderboard with confidence intervals",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run folders written by `huesenv tournament`")
    p.add_argument(
        "-o",
        "--out",
        metavar="OUT",
        help="OUT.md, OUT.html, OUT.csv, or a folder for all of them (default: Markdown on stdout)",
    )
    p.add_argument(
        "--allow-mixed-humans",
        action="store_true",
        help="merge runs scored against different human references (they are listed per run)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap resampling (default 0)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    merged = merge_runs(args.runs, allow_mixed_humans=args.allow_mixed_humans, seed=args.seed)
    data = report_data(merged, list(args.runs))
    if args.out is None:
        with tempfile.TemporaryDirectory() as tmp:
            sys.stdout.write(write_markdown(data, Path(tmp), "leaderboard.md").read_text(encoding="utf-8"))
        return 0
    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix in (".md", ".html", ".csv"):
        out.parent.mkdir(parents=True, exist_ok=True)
        if suffix == ".md":
            write_markdown(data, out.parent, out.name)
        elif suffix == ".html":
            write_html(data, out.parent, out.name)
        else:
            csv_safe(annotate(merged["leaderboard"], merged["humans"])).to_csv(out, index=False)
        print(f"wrote {out}")
        return 0
    if suffix:
        raise ValueError(f"-o {out}: unsupported format {suffix!r}; expected .md, .html, .csv or a folder")
    if out.exists() and not out.is_dir():
        raise ValueError(f"-o {out}: exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    for name in ("leaderboard", "head_to_head", "runs"):
        table = annotate(merged[name], merged["humans"])  # the human reference named in every file
        csv_safe(table).to_csv(out / f"{name}.csv", index=False)
        write_parquet(table, out / f"{name}.parquet")
    write_markdown(data, out, "leaderboard.md")
    write_html(data, out, "leaderboard.html")
    print(markdown_table(merged["leaderboard"][["rank", "agent", "games", "mean_points"]]))
    print(f"wrote {out}/leaderboard.md, leaderboard.html, leaderboard.csv (+ head_to_head, runs)")
    return 0
