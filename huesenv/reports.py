"""The one report writer: tables to Markdown, HTML, CSV and Parquet, the HTML page shell (CSS, contents).

Why one module: the run report (``huesenv.experiments.report``), the metrics job
(``huesenv.metrics.report``) and the probe reports (``huesenv.probes.report``)
each formatted and wrote tables their own way.  Here a number is formatted
once (:func:`fmt_cell`), a statistic is merged with its 95 % interval once
(:func:`display_table`), and every table file goes through :func:`write_tables`.
Depends on the core only (like :mod:`huesenv.plots`), so any layer's report can use it.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

TABLE_FORMATS = ("csv", "parquet")


def fmt_cell(value: Any) -> str:
    """A table cell: blank for None, "–" for NaN, three decimals (three significant digits when tiny)."""
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "–"
        return f"{value:.3g}" if abs(value) < 1e-3 and value != 0 else f"{value:.3f}"
    return str(value)


def markdown_table(frame: pd.DataFrame, max_rows: int = 60) -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    if frame is None or frame.empty:
        return "_(empty)_"
    shown = frame.head(max_rows)
    cols = [str(c) for c in shown.columns]
    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for row in shown.itertuples(index=False):
        cells = [fmt_cell(v).replace("|", "\\|").replace("\n", " ") for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    if len(frame) > max_rows:
        lines.append(f"\n_({len(frame) - max_rows} more rows in the CSV)_")
    return "\n".join(lines)


CI_SUFFIXES = ("_ci_low", "_ci_high")
# statistic -> its standard-error column, hidden in the documents when an interval is shown
SE_OF: dict[str, str] = {
    "mean": "se",
    "mean_points": "se_points",
    "mean_cue_giver": "se_cue_giver",
    "mean_guesser": "se_guesser",
    "mean_diff": "se_diff",
    "mahalanobis_fail_rate": "mahalanobis_fail_err",
    "hotelling_fail_rate": "hotelling_fail_err",
}


def fmt_p(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def default_label(column: str) -> str:
    """A column name as a header: ``mean_points`` -> ``Mean points``."""
    return column.replace("_", " ").capitalize()


def display_table(frame: pd.DataFrame, label: Callable[[str], str] = default_label) -> pd.DataFrame:
    """The table as shown: readable headers with units, each statistic merged with its 95 % interval
    (``3.94 [3.31, 4.60]``), standard errors left to the CSV where an interval is shown.
    ``label`` turns a column name into its header."""
    cols = [str(c) for c in frame.columns]
    has_ci = {c for c in cols if f"{c}_ci_low" in cols and f"{c}_ci_high" in cols}
    hidden = {f"{c}{s}" for c in has_ci for s in CI_SUFFIXES} | {SE_OF[c] for c in has_ci if c in SE_OF}
    out = {}
    for col in cols:
        if col in hidden:
            continue
        values = frame[col]
        if col in has_ci:
            lo, hi = frame[f"{col}_ci_low"], frame[f"{col}_ci_high"]
            out[f"{label(col)}, 95 % CI"] = [
                fmt_cell(v)
                if (isinstance(a, float) and math.isnan(a))
                else f"{fmt_cell(v)} [{fmt_cell(a)}, {fmt_cell(b)}]"
                for v, a, b in zip(values, lo, hi)
            ]
        elif col.startswith("p_"):
            out[label(col)] = [fmt_p(v) for v in values]
        else:
            out[label(col)] = [fmt_cell(v) for v in values]
    return pd.DataFrame(out)


def text_labels(frame: pd.DataFrame, label: Callable[[str], str] = default_label) -> set[str]:
    """Display labels of the columns holding text (names, words, categories), shown left-aligned."""
    out = set()
    for col in frame.columns:
        if frame[col].dtype.kind in "biufcmM":  # numbers, flags, dates
            continue
        values = frame[col].dropna()
        if len(values) and all(isinstance(v, str) for v in values):
            out.add(label(str(col)))
    return out


def html_table(frame: pd.DataFrame, label: Callable[[str], str] = default_label) -> str:
    """The display table as HTML: numbers right-aligned, text left-aligned (class ``t``)."""
    shown = display_table(frame, label)
    text_cols = text_labels(frame, label)
    text = [c in text_cols for c in shown.columns]

    def cell(tag: str, value: Any, is_text: bool) -> str:
        return f"<{tag}{' class=t' if is_text else ''}>{html.escape(str(value))}</{tag}>"

    head = "".join(cell("th", c, t) for c, t in zip(shown.columns, text))
    body = "".join(
        "<tr>" + "".join(cell("td", v, t) for v, t in zip(row, text)) + "</tr>"
        for row in shown.itertuples(index=False)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# A cell starting with one of these is a formula to a spreadsheet (OWASP "CSV injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell (and column name) a spreadsheet would run as a formula prefixed by
    ``'``, as OWASP recommends (a participant id ``-2-3``, an agent named ``=HYPERLINK(...)``); numbers
    stay numbers.  :func:`csv_unquote` takes the ``'`` off again when huesenv reads the file back."""

    def quote(value: Any) -> Any:
        return "'" + value if isinstance(value, str) and value.startswith(FORMULA_START) else value

    out = frame.rename(columns=quote)
    for name in out.columns[
        [pd.api.types.is_object_dtype(d) or pd.api.types.is_string_dtype(d) for d in out.dtypes]
    ]:
        out[name] = out[name].map(quote)
    return out


def csv_unquote(text: str) -> str:
    """A CSV cell as it was before :func:`csv_safe` quoted it."""
    return text[1:] if text[:1] == "'" and text[1:2] and text[1:].startswith(FORMULA_START) else text


def read_safe_csv(path: Any, **kwargs: Any) -> pd.DataFrame:
    """A CSV that :func:`csv_safe` wrote, read back with its text cells (and column names) unquoted."""
    frame = pd.read_csv(path, **kwargs)
    frame = frame.rename(columns=lambda c: csv_unquote(c) if isinstance(c, str) else c)
    for name in frame.columns[
        [pd.api.types.is_object_dtype(d) or pd.api.types.is_string_dtype(d) for d in frame.dtypes]
    ]:
        frame[name] = frame[name].map(lambda v: csv_unquote(v) if isinstance(v, str) else v)
    return frame


def write_tables(
    tables: Mapping[str, pd.DataFrame],
    folder: Path,
    formats: Iterable[str] = TABLE_FORMATS,
    reference: Any = None,
) -> dict[str, Path]:
    """Each table as ``folder/NAME.csv`` (and ``NAME.parquet`` when asked); returns name -> CSV path.

    ``reference`` (a :class:`huesenv.humans.reference.HumanReference`, or anything
    with its ``annotate(frame)``) names the human reference in every file: its
    ``human_reference`` metadata column (and ``self_scored`` where rows are agents).
    """
    formats = tuple(formats)
    unknown = set(formats) - set(TABLE_FORMATS)
    if unknown:
        raise ValueError(f"formats: {sorted(unknown)} not among {TABLE_FORMATS}")
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, table in tables.items():
        if reference is not None:
            table = reference.annotate(table)
        paths[name] = folder / f"{name}.csv"
        if "csv" in formats:
            csv_safe(table).to_csv(paths[name], index=False)
        if "parquet" in formats:
            write_parquet(table, folder / f"{name}.parquet")
    return paths


def write_parquet(table: pd.DataFrame, path: Path) -> Path:
    """Parquet with pyarrow; object columns that mix types (e.g. ints and text) are stored as text."""
    try:
        table.to_parquet(path, index=False, engine="pyarrow")
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
        clean = table.copy()
        for col in clean.columns:
            if clean[col].dtype == object:
                clean[col] = clean[col].map(lambda v: None if v is None else str(v))
        clean.to_parquet(path, index=False, engine="pyarrow")
    return path


def img_tag(path: Path, alt: str) -> str:
    """A PNG inlined (base64), so the HTML file needs no folder next to it; it scales to the screen."""
    b64 = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}">'


# Why these rules: the report must fit a 1280 px window and a phone.  Wide tables scroll inside their
# own box (never the page), headers wrap, long tables are capped in height and scroll, figures scale.
CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;max-width:1180px;margin:0 auto;padding:1em 1.5em;line-height:1.45;color:#222}
h1{font-size:1.6em;margin-bottom:.3em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
nav.toc{background:#f6f7f9;border:1px solid #e1e4e8;padding:.4em 1.2em;margin:1em 0}
nav.toc ol{columns:2;margin:.3em 0}
.table-wrap{max-width:100%;overflow-x:auto;margin-bottom:1em;border:1px solid #e1e4e8}
.table-wrap.tall{max-height:30em;overflow-y:auto}
table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ddd;padding:3px 6px;text-align:right;vertical-align:top}
td.t,th.t{text-align:left}
th{background:#eef0f3;white-space:normal;min-width:4.5em;max-width:14em;position:sticky;top:0}
td{white-space:nowrap}
img{max-width:100%;height:auto;display:block;margin:.5em 0}
pre{background:#f6f6f6;padding:1em;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
.meta{color:#555;font-size:.9em;overflow-wrap:anywhere}
details summary{cursor:pointer;color:#0366d6}
.banner{background:#fff4e5;border:2px solid #e8a33d;padding:.6em 1em;margin:1em 0;font-weight:600}
dl.glossary dt{font-weight:600;margin-top:.4em}dl.glossary dd{margin:0 0 0 1.2em}
.scroll-hint{display:none;color:#555;font-size:.85em;margin:-.6em 0 1em}
@media (max-width:640px){
body{padding:.5em .7em;font-size:15px}
nav.toc ol{columns:1}
table{font-size:12px}
.scroll-hint{display:block}
}
.verdict{border-left:5px solid #2457c5;background:#f3f6fc;padding:.3em 1em;margin:1em 0;font-size:1.08em}
.verdict p{margin:.35em 0}.verdict p:first-child{font-weight:600}
"""

TALL_ROWS = 25


def anchor(name: str) -> str:
    """A section's id from its table or plot name."""
    return name.replace("_", "-")


def markdown_contents(sections: Iterable[tuple[str, str]]) -> list[str]:
    """The numbered table of contents, from ``(anchor, title)`` pairs."""
    return ["## Contents", ""] + [f"{k}. [{t}](#{a})" for k, (a, t) in enumerate(sections, start=1)]


def html_head(
    title: str,
    summary: Iterable[str],
    sections: Iterable[tuple[str, str]],
    *,
    banner: str = "",
    details: Iterable[tuple[str, str]] = (),
    lead: Iterable[str] = (),
) -> list[str]:
    """The page up to the first section: head with :data:`CSS`, title, an optional warning banner,
    the ``lead`` lines (the verdict, in a box), summary list, long lists folded into ``<details>``,
    table of contents."""
    return [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>",
        f"<header><h1>{html.escape(title)}</h1>",
        *([f"<p class='banner' role='alert'>{html.escape(banner)}</p>"] if banner else []),
        *(["<div class='verdict'>", *[f"<p>{html.escape(s)}</p>" for s in lead], "</div>"] if lead else []),
        "<ul>",
        *[f"<li>{html.escape(s)}</li>" for s in summary],
        "</ul>",
        *[
            f"<details><summary>{html.escape(head)}</summary><p class='meta'>{html.escape(body)}</p></details>"
            for head, body in details
        ],
        "</header>",
        "<nav class='toc'><b>Contents</b><ol>",
        *[f"<li><a href='#{a}'>{html.escape(t)}</a></li>" for a, t in sections],
        "</ol></nav>",
    ]
