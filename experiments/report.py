"""The run report: Markdown (plots next to it in ``plots/``) and a self-contained HTML (plots inlined).

Why both: Markdown reads well in a terminal, a pull request or W&B; the HTML
file is the one to mail around, as it embeds its images and needs no folder.
Tables are written as CSV too (``tables/``) for anyone who wants the numbers.
"""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import yaml

from huesenv.envs.rendering.renderer import BoardRenderer
from huesenv.render.playback import views_from_records
from huesenv.secrets import mask_text


@dataclass
class ReportData:
    """Everything a report shows; built by the CLI, also handed to W&B."""

    title: str
    config_yaml: str
    summary: list[str]
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)  # name -> table (ordered as shown)
    captions: dict[str, str] = field(default_factory=dict)
    plots: dict[str, Path] = field(default_factory=dict)  # name -> png path
    boards: dict[str, Path] = field(default_factory=dict)  # caption -> png path
    methods: str = ""  # how intervals and tests were computed (printed under "Methods")
    humans: dict[str, Any] = field(default_factory=dict)  # HumanReference.as_dict()
    metadata: dict[str, Any] = field(default_factory=dict)  # versions, commit, config hash
    hidden: tuple[str, ...] = ("seat_games",)  # tables written to tables/ but not shown in the documents


def _fmt(value: Any) -> str:
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
        cells = [_fmt(v).replace("|", "\\|").replace("\n", " ") for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    if len(frame) > max_rows:
        lines.append(f"\n_({len(frame) - max_rows} more rows in the CSV)_")
    return "\n".join(lines)


def board_image(records: Sequence[Any], path: Path, title: str = "") -> Path | None:
    """The board at the last reveal of a game, drawn by the project's renderer (needs the render extra)."""
    views = list(views_from_records(records))
    if not views:
        return None
    reveal = [v for v in views if v.phase == "reveal"]
    view = reveal[-1] if reveal else views[-1]
    try:
        renderer = BoardRenderer(title=title or "Hues and Cues")
    except ImportError:  # no pygame: the report goes without the board picture
        return None
    try:
        frame = renderer.frame(view)
    finally:
        renderer.close()
    from PIL import Image

    Image.fromarray(np.asarray(frame, dtype=np.uint8)).save(path)
    return path


# -- documents ------------------------------------------------------------------
TITLES: dict[str, str] = {
    "leaderboard": "Leaderboard",
    "lineups": "Per lineup",
    "points_by_role": "Points by role",
    "head_to_head": "Head-to-head",
    "guess_alignment": "Guess alignment (first cones)",
    "guess_alignment_words": "Guess alignment per word",
    "wordlevel_agents": "Word level: agents",
    "wordlevel_categories": "Word level: categories",
    "wordlevel_nonsense": "Word level: nonsense inputs",
    "wordlevel_words": "Word level: per word",
    "runs": "Runs",
}

# snake_case column -> header shown in the documents (CSV/Parquet keep the column names)
COLUMN_LABELS: dict[str, str] = {
    "rank": "Rank",
    "agent": "Agent",
    "agent_id": "Agent id",
    "opponent": "Opponent",
    "seat_games": "Seat-games (n)",
    "games": "Games (n)",
    "pairings": "Pairings (n)",
    "n": "Seat-games (n)",
    "lineup": "Lineup",
    "seats": "Seats (first game)",
    "role": "Role",
    "mean": "Points per game",
    "se": "SE (points)",
    "mean_points": "Points per game",
    "se_points": "SE (points)",
    "mean_cue_giver": "As cue giver (points per game)",
    "se_cue_giver": "SE cue giver (points)",
    "mean_guesser": "As guesser (points per game)",
    "se_guesser": "SE guesser (points)",
    "win_rate": "Win rate (share of games)",
    "mean_diff": "Point difference per game (agent − opponent)",
    "se_diff": "SE difference (points)",
    "win_share": "Pairings won (share)",
    "p_value": "p (Wilcoxon)",
    "p_adjusted": "p (BH-adjusted)",
    "architecture_family": "Architecture",
    "data_family": "Training data",
    "n_words": "Words (n)",
    "n_agents": "Agents (n)",
    "mahalanobis_fail_rate": "Mahalanobis top-1 fail rate (share of words)",
    "mahalanobis_fail_err": "SE Mahalanobis",
    "hotelling_fail_rate": "Hotelling top-k fail rate (share of words)",
    "hotelling_fail_err": "SE Hotelling",
    "mahalanobis_fail_mean": "Mahalanobis top-1 fail rate (share)",
    "hotelling_fail_mean": "Hotelling top-k fail rate (share)",
    "human_fail_rate": "Human fail rate (LOO, share)",
    "median_mahalanobis_d2": "Median Mahalanobis d² (xy)",
    "colour_match_rate": "Macro-colour match (share of words)",
    "semantic_bleeding_rate": "Semantic bleeding (share of words)",
    "uncertainty_collapse_rate": "Uncertainty collapse (share of words)",
    "n_answers": "Answers (n)",
    "n_invalid": "Invalid answers (n)",
    "category": "Category",
    "word": "Word",
    "top1_coord": "Top-1 cell",
    "mahalanobis_d2": "Mahalanobis d² (xy)",
    "mahalanobis_outlier": "Mahalanobis outlier",
    "hotelling_t2": "Hotelling T²",
    "hotelling_p": "Hotelling p",
    "hotelling_fail": "Hotelling fail",
    "agent_color": "Agent macro-colour",
    "human_color": "Human macro-colour",
    "human_mode_coord": "Human modal cell",
    "agent_neutral": "Neutral cell",
    "severity": "Severity",
    "n_cloud": "Cells in cloud (n)",
    "n_human": "Human answers (n)",
    "cells": "Cells (nonsense inputs)",
    "colours": "Macro-colours",
    "row_collapse": "Row collapse",
    "behaviour": "Behaviour class",
    "n_missing": "Missing (n)",
    "run": "Run",
    "humans": "Human reference",
    "runs": "Runs",
    "folder": "Folder",
    "agents": "Agents",
}

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


def title_of(name: str) -> str:
    return TITLES.get(name, name.replace("_", " ").capitalize())


def label_of(column: str) -> str:
    return COLUMN_LABELS.get(column, column.replace("_", " ").capitalize())


def _fmt_p(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def display_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as shown: readable headers with units, each statistic merged with its 95 % interval
    (``3.94 [3.31, 4.60]``), standard errors left to the CSV where an interval is shown."""
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
            out[f"{label_of(col)}, 95 % CI"] = [
                _fmt(v) if (isinstance(a, float) and math.isnan(a)) else f"{_fmt(v)} [{_fmt(a)}, {_fmt(b)}]"
                for v, a, b in zip(values, lo, hi)
            ]
        elif col.startswith("p_"):
            out[label_of(col)] = [_fmt_p(v) for v in values]
        else:
            out[label_of(col)] = [_fmt(v) for v in values]
    return pd.DataFrame(out)


def text_labels(frame: pd.DataFrame) -> set[str]:
    """Display labels of the columns holding text (names, words, categories), shown left-aligned."""
    out = set()
    for col in frame.columns:
        if frame[col].dtype.kind in "biufcmM":  # numbers, flags, dates
            continue
        values = frame[col].dropna()
        if len(values) and all(isinstance(v, str) for v in values):
            out.add(label_of(str(col)))
    return out


def html_table(frame: pd.DataFrame) -> str:
    """The display table as HTML: numbers right-aligned, text left-aligned (class ``t``)."""
    shown = display_table(frame)
    text_cols = text_labels(frame)
    text = [c in text_cols for c in shown.columns]

    def cell(tag: str, value: Any, is_text: bool) -> str:
        return f"<{tag}{' class=t' if is_text else ''}>{html.escape(str(value))}</{tag}>"

    head = "".join(cell("th", c, t) for c, t in zip(shown.columns, text))
    body = "".join(
        "<tr>" + "".join(cell("td", v, t) for v, t in zip(row, text)) + "</tr>"
        for row in shown.itertuples(index=False)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def write_tables(data: ReportData, out_dir: Path) -> dict[str, Path]:
    """Every table as CSV and as Parquet (``tables/NAME.csv``, ``tables/NAME.parquet``)."""
    folder = out_dir / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, table in data.tables.items():
        paths[name] = folder / f"{name}.csv"
        table.to_csv(paths[name], index=False)
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


def _anchor(name: str) -> str:
    return name.replace("_", "-")


def _sections(data: ReportData) -> list[tuple[str, str]]:
    """(anchor, title) of every section, in document order: the table of contents."""
    out = [("methods", "Methods and provenance")]
    out += [(_anchor(n), title_of(n)) for n in data.tables if n not in data.hidden]
    out += [(_anchor(n), title_of(n)) for n in data.plots if n not in data.tables]
    if data.boards:
        out.append(("boards", "Boards"))
    out.append(("config", "Config"))
    return out


def _provenance_lines(data: ReportData) -> list[str]:
    m = data.metadata
    lines = []
    if data.humans:
        lines.append(f"Human reference: {data.humans.get('label')} (answers sha256 {data.humans.get('key')})")
    if m:
        commit = m.get("git_commit") or "not a git checkout"
        lines.append(
            f"huesenv {m.get('huesenv_version')}, commit {commit}, config sha256 {str(m.get('config_hash'))[:16]}, "
            f"Python {m.get('python')}"
        )
        libs = m.get("libraries") or {}
        if libs:
            lines.append("Libraries: " + ", ".join(f"{k} {v}" for k, v in libs.items()))
    return lines


def write_markdown(data: ReportData, out_dir: Path, filename: str = "report.md") -> Path:
    lines = [f"# {data.title}", "", *[f"- {s}" for s in data.summary], "", "## Contents", ""]
    lines += [f"{k}. [{title}](#{anchor})" for k, (anchor, title) in enumerate(_sections(data), start=1)]
    lines += ["", '<a id="methods"></a>', "## Methods and provenance", ""]
    if data.methods:
        lines += [data.methods, ""]
    lines += [f"- {s}" for s in _provenance_lines(data)] + [""]
    for name, table in data.tables.items():
        if name in data.hidden:
            continue
        lines += [f'<a id="{_anchor(name)}"></a>', f"## {title_of(name)}", ""]
        if name in data.captions:
            lines += [data.captions[name], ""]
        lines += [markdown_table(display_table(table)), ""]
        if name in data.plots:
            lines += [f"![{name}]({data.plots[name].relative_to(out_dir).as_posix()})", ""]
    for name, path in data.plots.items():
        if name not in data.tables:
            lines += [
                f'<a id="{_anchor(name)}"></a>',
                f"## {title_of(name)}",
                "",
                f"![{name}]({path.relative_to(out_dir).as_posix()})",
                "",
            ]
    if data.boards:
        lines += ['<a id="boards"></a>', "## Boards", ""]
        for caption, path in data.boards.items():
            lines += [f"**{caption}**", "", f"![{caption}]({path.relative_to(out_dir).as_posix()})", ""]
    lines += ['<a id="config"></a>', "## Config", "", "```yaml", data.config_yaml.rstrip(), "```", ""]
    path = out_dir / filename
    path.write_text(mask_text("\n".join(lines)), encoding="utf-8")
    return path


def _img(path: Path, alt: str) -> str:
    b64 = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}">'


# Why these rules: the report must fit a 1280 px window.  Wide tables scroll inside their own box
# (never the page), headers wrap, long tables are capped in height and scroll, images shrink.
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
"""

TALL_ROWS = 25


def write_html(data: ReportData, out_dir: Path, filename: str = "report.html") -> Path:
    """One file with every table and image inline, a table of contents, and no horizontal page scroll."""
    parts = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(data.title)}</title><style>{CSS}</style></head><body>",
        f"<header><h1>{html.escape(data.title)}</h1><ul>",
        *[f"<li>{html.escape(s)}</li>" for s in data.summary],
        "</ul></header>",
        "<nav class='toc'><b>Contents</b><ol>",
        *[f"<li><a href='#{anchor}'>{html.escape(title)}</a></li>" for anchor, title in _sections(data)],
        "</ol></nav>",
        "<section id='methods'><h2>Methods and provenance</h2>",
    ]
    if data.methods:
        parts.append(f"<p>{html.escape(data.methods)}</p>")
    parts += [f"<p class='meta'>{html.escape(line)}</p>" for line in _provenance_lines(data)]
    parts.append("</section>")
    for name, table in data.tables.items():
        if name in data.hidden:
            continue
        parts.append(f"<section id='{_anchor(name)}'><h2>{html.escape(title_of(name))}</h2>")
        if name in data.captions:
            parts.append(f"<p>{html.escape(data.captions[name])}</p>")
        shown = table.head(500)
        tall = len(shown) > TALL_ROWS
        parts.append(f"<div class='table-wrap{' tall' if tall else ''}'>")
        parts.append(html_table(shown))
        parts.append("</div>")
        if len(table) > 500:
            parts.append(f"<p class='meta'>{len(table) - 500} more rows in tables/{name}.csv</p>")
        if name in data.plots:
            parts.append(_img(data.plots[name], name))
        parts.append("</section>")
    for name, path in data.plots.items():
        if name not in data.tables:
            parts += [
                f"<section id='{_anchor(name)}'><h2>{html.escape(title_of(name))}</h2>",
                _img(path, name),
                "</section>",
            ]
    if data.boards:
        parts.append("<section id='boards'><h2>Boards</h2>")
        for caption, path in data.boards.items():
            parts += [f"<p><b>{html.escape(caption)}</b></p>", _img(path, caption)]
        parts.append("</section>")
    parts += [
        "<section id='config'><h2>Config</h2><details><summary>the resolved config (YAML)</summary>",
        f"<pre>{html.escape(data.config_yaml)}</pre></details></section></body></html>",
    ]
    path = out_dir / filename
    path.write_text(mask_text("\n".join(parts)), encoding="utf-8")
    return path


def write_report(
    data: ReportData, out_dir: Path, formats: Sequence[str] = ("markdown", "html")
) -> dict[str, Path]:
    """Write the tables (CSV and Parquet), the summary (JSON) and the requested documents; return their paths."""
    out: dict[str, Path] = {}
    write_tables(data, out_dir)
    summary = out_dir / "summary.json"
    summary.write_text(
        mask_text(
            json.dumps(
                {
                    "title": data.title,
                    "summary": data.summary,
                    **data.metadata,
                    "humans": data.humans,
                    "methods": data.methods,
                    "allow_code": _allow_code(data.config_yaml),
                    "tables": {
                        k: _records(v)
                        for k, v in data.tables.items()
                        if k
                        in ("leaderboard", "lineups", "head_to_head", "wordlevel_agents", "guess_alignment")
                    },
                },
                indent=1,
                default=str,
            )
        ),
        encoding="utf-8",
    )
    out["summary"] = summary
    if "markdown" in formats:
        out["markdown"] = write_markdown(data, out_dir)
    if "html" in formats:
        out["html"] = write_html(data, out_dir)
    return out


def _allow_code(config_yaml: str) -> bool:
    config = yaml.safe_load(config_yaml)
    return bool(config.get("allow_code", False)) if isinstance(config, dict) else False


def _records(frame: pd.DataFrame) -> list[Mapping[str, Any]]:
    clean = frame.astype(object).where(frame.notna(), None)
    return clean.to_dict(orient="records")
