"""The run report: Markdown (plots next to it in ``plots/``) and a self-contained HTML (plots inlined).

Why both: Markdown reads well in a terminal, a pull request or W&B; the HTML
file is the one to mail around, as it embeds its images and needs no folder.
Tables are written as CSV too (``tables/``) for anyone who wants the numbers.
Every table file carries the human reference in its ``human_reference`` column
(and ``self_scored`` on the rows of a replayed human scored against its own
cohort), and every section names it under its heading
(:mod:`huesenv.humans.reference`).
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import huesenv.reports as reports
from huesenv.envs.rendering.renderer import BoardRenderer
from huesenv.humans import names_check
from huesenv.humans.reference import REFERENCE_COLUMN, SELF_SCORED_COLUMN, HumanReference
from huesenv.naming_corpus import xkcd_corpus
from huesenv.render.playback import views_from_records
from huesenv.reports import (
    TALL_ROWS,
    anchor,
    display_table,
    html_head,
    html_table,
    img_tag,
    markdown_contents,
    markdown_table,
    write_parquet,
)
from huesenv.secrets import mask_text
from huesenv.validation import load_yaml

__all__ = ["ReportData", "markdown_table", "write_html", "write_markdown", "write_parquet", "write_report"]


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
    banner: str = ""  # one warning the reader must see first (e.g. most words could not be scored)
    details: list[tuple[str, str]] = field(default_factory=list)  # (summary, long text) folded away
    reference_check: pd.DataFrame | None = None  # the reference against real naming data (names_check)
    reference_check_note: str = ""


NAMES_CHECK_TITLE = "The reference against real naming data"
NAMES_CHECK_SHOWN = ["word", "corpus_names", "delta_e_mean", "delta_e_mode", "delta_e_chance", "nearest_cell"]


def add_reference_check(data: ReportData, humans: Any) -> None:
    """Beside the reference's description: its colour-name words checked against the XKCD colour survey."""
    corpus = xkcd_corpus()
    table = names_check.check_names(humans, corpus)
    data.reference_check = table[[*NAMES_CHECK_SHOWN, "nearest_passes_xy", "nearest_passes_lab"]]
    data.reference_check_note = names_check.summary_line(table, f"the XKCD colour survey ({corpus.label})")


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
    "displays_tests": "Display robustness (the main paper's Appendix B)",
    "displays_effects": "Display robustness: per display",
    "displays_verdicts": "Display robustness: word-level verdicts per display",
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
    "win_rate": "Win rate (share of its seat-games won)",
    "team_win_rate": "Team win rate (share of games any of its seats won)",
    "mean_diff": "Point difference per game (agent − opponent)",
    "se_diff": "SE difference (points)",
    "win_share": "Pairings won (share)",
    "p_value": "p (Wilcoxon)",
    "p_adjusted": "p (BH-adjusted)",
    "architecture_family": "Architecture",
    "data_family": "Training data",
    "n_words": "Words (n)",
    "n_agents": "Agents (n)",
    "n_scored": "Words scored (n)",
    "mahalanobis_fail_rate": "Mahalanobis top-1 fail rate (share of words)",
    "mahalanobis_fail_err": "SE Mahalanobis",
    "mahalanobis_lab_fail_rate": "Mahalanobis top-1 fail rate in CIELAB (share of words; lightness-aware)",
    "mahalanobis_lab_d2": "Mahalanobis d² (CIELAB)",
    "mahalanobis_lab_outlier": "Mahalanobis outlier (CIELAB)",
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
    "vs_reference": "Points vs reference players (per shared game)",
    "corpus_names": "Corpus name (source)",
    "delta_e_mean": "ΔE2000 to the cohort's mean answer",
    "delta_e_mode": "ΔE2000 to its modal cell",
    "delta_e_chance": "ΔE2000 chance (random cell to mean)",
    "nearest_cell": "Cell nearest the corpus colour",
    "nearest_passes_xy": "Nearest cell passes (Mahalanobis xy)",
    "nearest_passes_lab": "Nearest cell passes (Mahalanobis CIELAB)",
}


# What a reader needs before the numbers: the words the tables use and which way is better.
GLOSSARY: tuple[tuple[str, str], ...] = (
    (
        "Points per game",
        "an agent's points per game it sat in (cue giver and guesser points together); higher is better.",
    ),
    (
        "Win rate",
        "the share of the agent's seats that had the highest total of their game (ties shared): with "
        "agents of equal strength it is 1/players for everyone. Higher is better. An agent holding several "
        "seats of a game, such as the replayed humans, also has a team win rate: the share of games any of "
        "its seats won, which is not comparable with a one-seat agent's.",
    ),
    (
        "Mahalanobis top-1 fail",
        "the agent's first answer for a word lies outside the people's answers for that word: its "
        "Mahalanobis distance² in CIE xy exceeds the χ²₂ cut-off at α (the paper's 95 % ellipse). "
        "A fail rate is the share of words that fail; lower is better.",
    ),
    (
        "Hotelling top-k fail",
        "the agent's top-k answers for a word, as a cloud, have a mean that differs from the people's "
        "(two-sample Hotelling T² test at α). Lower is better.",
    ),
    (
        "Human fail rate (LOO)",
        "the same Mahalanobis test applied to each person's answer against everybody else's "
        "(leave-one-out): how often people themselves fail, the floor an agent can reach.",
    ),
    (
        "Semantic bleeding",
        "the agent's answer is in a different macro-colour (Red, Orange, …, Purple) than the people's "
        "most frequent cell: it crossed a colour category. Lower is better.",
    ),
    (
        "Uncertainty collapse",
        "the agent answered the board's neutral grey-blue cell (I18) although people chose a colour: "
        "it fell back on a default. Lower is better.",
    ),
    (
        "95 % CI",
        "the interval after a number: the range compatible with the data at 95 % confidence (methods "
        "at the end of the report).",
    ),
)

# Columns that describe rows rather than measure them: shown only when they differ between rows.
DESCRIPTIVE_COLUMNS = ("architecture_family", "data_family", "n_agents", "agent_id")

# Plot name -> what the figure shows (the alt text of its image).
ALT_TEXTS: dict[str, str] = {
    "leaderboard": "Bar chart of points per game per agent, split into guesser and cue-giver points, "
    "with 95 % intervals.",
    "head_to_head": "Heat map of the share of pairings each row agent won against each column agent.",
    "guess_alignment": "Bar chart per semantic category and agent of the Mahalanobis top-1 fail rate of "
    "first cones, with people's leave-one-out rate as black marks.",
    "wordlevel_agents": "Bar chart per semantic category and agent of the word-level Mahalanobis top-1 "
    "fail rate, with people's leave-one-out rate as black marks.",
}


def shown_table(name: str, table: pd.DataFrame, reference: Any = None) -> pd.DataFrame:
    """The table as the documents show it.

    Descriptive columns with one value in every row (the architecture of non-CLIP agents is "Other"
    everywhere) say nothing and are dropped; so is an ``agent_id`` that repeats ``agent`` on every
    row it does not mark.  With a ``reference``, the rows of agents replaying it are marked where they
    are ranked (``rank`` "ref.", the others ranked among themselves).  The nonsense table leads with
    the behaviour class and groups its 16 cells by the four kinds of input.  CSV and Parquet files
    keep every column.
    """
    out = table
    if name == "wordlevel_nonsense":
        out = _nonsense_display(out)
    marked = _reference_rows(out, reference)
    if marked.any():
        out = out.assign(
            agent=out["agent"].where(~marked, out["agent"].astype(str) + " (reference, self-scored)")
        )
        if "rank" in out:  # the agents under test ranked among themselves
            out = out.assign(rank=(~marked).cumsum().astype(object).where(~marked, "ref."))
    if len(out) > 1:
        for col in DESCRIPTIVE_COLUMNS:
            if col not in out.columns:
                continue
            values = out[col].astype(str)
            repeats = "agent" in table.columns and (marked | (values == table["agent"].astype(str))).all()
            if (col == "agent_id" and repeats) or values.nunique() == 1:
                out = out.drop(columns=[col])
    return out


def _reference_rows(table: pd.DataFrame, reference: Any) -> pd.Series:
    """Which rows are agents replaying ``reference`` (self-scored); all False without one."""
    if not isinstance(reference, HumanReference) or "agent" not in table:
        return pd.Series(False, index=table.index)
    return reference.annotate(table)[SELF_SCORED_COLUMN].astype(bool)


def versus_reference(board: pd.DataFrame, h2h: pd.DataFrame, reference: Any) -> pd.DataFrame:
    """``board`` with ``vs_reference`` (and its 95 % interval): each agent's mean per-game point difference
    to the reference players (the replayed humans) in the games both sat in, from the head-to-head table."""
    refs = set(board.loc[_reference_rows(board, reference), "agent"])
    pairs = h2h[h2h["opponent"].isin(refs)].drop_duplicates("agent").set_index("agent")
    cols = {"mean_diff": "vs_reference", "mean_diff_ci_low": "vs_reference_ci_low"}
    cols["mean_diff_ci_high"] = "vs_reference_ci_high"
    found = pairs.reindex(board["agent"])[list(cols)].rename(columns=cols).set_index(board.index)
    return pd.concat([board, found], axis=1) if refs else board


def verdict(data: ReportData) -> list[str]:
    """The report's first lines: which agent scored most, its gap to the reference players with its
    95 % interval, and what the reference is (one line)."""
    ref = reference_of(data.humans)
    board = data.tables.get("leaderboard")
    words = data.tables.get("wordlevel_agents")
    lines, players = [], ""
    if board is not None and "mean_points" in board:
        marked = _reference_rows(board, ref)
        players = " and ".join(board.loc[marked, "agent"].astype(str))
        models = board[~marked].sort_values("mean_points", ascending=False)
        if not models.empty:
            best = models.iloc[0]
            line = f"{best['agent']} scored most: {_with_ci(best, 'mean_points')} points per game"
            if players and pd.notna(best.get("vs_reference")):
                v, lo, hi = (best[f"vs_reference{s}"] for s in ("", "_ci_low", "_ci_high"))
                gap = (
                    f"{fmt(-v)} [{fmt(-hi)}, {fmt(-lo)}] fewer"
                    if v < 0
                    else f"{fmt(v)} [{fmt(lo)}, {fmt(hi)}] more"
                )
                line += f", {gap} than the reference players ({players}) in the games they shared"
            lines.append(line + ".")
    if words is not None and not words.empty and "mahalanobis_fail_rate" in words:
        models = words[~_reference_rows(words, ref)].sort_values("mahalanobis_fail_rate")
        if not models.empty:
            best = models.iloc[0]
            lines.append(
                f"Word level: {best['agent']} fails least, Mahalanobis top-1 fail rate "
                f"{_with_ci(best, 'mahalanobis_fail_rate')} (people's own, LOO: {fmt(best.get('human_fail_rate'))})."
            )
    replayed = f"; replayed by {players} (self-scored, ranked apart)" if players else ""
    lines.append(f"Reference: {ref.description}{replayed}.")
    return lines


def fmt(value: Any) -> str:
    return reports.fmt_cell(value) if value is not None else "–"


def _with_ci(row: pd.Series, col: str) -> str:
    lo, hi = row.get(f"{col}_ci_low"), row.get(f"{col}_ci_high")
    interval = f" [{fmt(lo)}, {fmt(hi)}]" if pd.notna(lo) and pd.notna(hi) else ""
    return f"{fmt(row[col])}{interval}"


NONSENSE_GROUPS = ("numbers", "stop words", "pseudowords", "random strings")


def _nonsense_display(table: pd.DataFrame) -> pd.DataFrame:
    """Behaviour first; cells and colours as four groups of four (numbers, stop words, pseudowords,
    random strings: the authors' row order), readable instead of one semicolon-joined list."""

    def grouped(text: Any) -> Any:
        if not isinstance(text, str) or ";" not in text:
            return text
        items = text.split(";")
        return " · ".join(" ".join(items[i : i + 4]) for i in range(0, len(items), 4))

    out = table.copy()
    for col in ("cells", "colours"):
        if col in out:
            out[col] = out[col].map(grouped)
    first = [c for c in ("agent", "behaviour", "mode", "row_collapse") if c in out.columns]
    return out[first + [c for c in out.columns if c not in first]]


def title_of(name: str) -> str:
    return TITLES.get(name, name.replace("_", " ").capitalize())


def label_of(column: str) -> str:
    return COLUMN_LABELS.get(column, column.replace("_", " ").capitalize())


MIXED_REFERENCES = "mixed human references (see the runs table): points are not comparable"


NO_REFERENCE = "none recorded: no table of this report is scored against human answers"


@dataclass(frozen=True)
class _Stated:
    """Stands in for a reference where there is none to describe (merged runs of several, or none)."""

    description: str

    def annotate(self, frame: pd.DataFrame) -> pd.DataFrame:
        return frame.assign(**{REFERENCE_COLUMN: self.description})


def reference_of(humans: Mapping[str, Any] | None) -> Any:
    """The :class:`HumanReference` of a report's ``humans`` block; a stand-in that says "mixed"
    (``{"mixed": True}``: merged runs scored against different references) or "none recorded"."""
    if humans and humans.get("sha256"):
        return HumanReference.from_dict(dict(humans))
    return _Stated(MIXED_REFERENCES if humans and humans.get("mixed") else NO_REFERENCE)


def annotate(frame: pd.DataFrame, humans: Mapping[str, Any] | None) -> pd.DataFrame:
    """``frame`` with the reference's metadata columns (for tables written outside :func:`write_tables`)."""
    return reference_of(humans).annotate(frame)


def reference_note(data: ReportData, table: pd.DataFrame | None = None) -> str:
    """The line under every section heading: the reference, and the self-scored caveat where it applies."""
    ref = reference_of(data.humans)
    if not isinstance(ref, HumanReference):
        return f"Human reference: {ref.description}."
    line = f"Human reference: {ref.description}."
    marked = _reference_rows(table, ref) if table is not None else pd.Series(dtype=bool)
    if table is not None and marked.any():  # named as the table names them
        names = ", ".join(sorted(set(table.loc[marked, "agent"].astype(str))))
        line += (
            f" Self-scored: {names} replay(s) the reference and is scored against the answers it draws "
            "from (an optimistic ceiling, not leave-one-out)."
        )
    return line


def write_tables(data: ReportData, out_dir: Path) -> dict[str, Path]:
    """Every table as CSV and as Parquet (``tables/NAME.csv``, ``tables/NAME.parquet``), reference named."""
    return reports.write_tables(data.tables, out_dir / "tables", reference=reference_of(data.humans))


def _sections(data: ReportData) -> list[tuple[str, str]]:
    """(anchor, title) of every section, in document order: the table of contents."""
    out = [("how-to-read", "How to read this report")]
    out += [(anchor(n), title_of(n)) for n in data.tables if n not in data.hidden]
    out += [(anchor(n), title_of(n)) for n in data.plots if n not in data.tables]
    if data.boards:
        out.append(("boards", "Boards"))
    out.append(("methods", "Methods and provenance"))
    out.append(("config", "Config"))
    return out


def _provenance_lines(data: ReportData) -> list[str]:
    m = data.metadata
    lines = []
    if data.humans and not data.humans.get("sha256"):
        lines.append(f"Human reference: {reference_of(data.humans).description}")
    elif data.humans:
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
    lines = [f"# {data.title}", ""]
    if data.banner:
        lines += [f"> **{data.banner}**", ""]
    lines += ["  \n".join(f"**{line}**" for line in verdict(data)), ""]  # one paragraph, a line each
    lines += [*[f"- {s}" for s in data.summary], ""]
    for head, body in data.details:  # long lists folded (GitHub and most viewers render <details>)
        lines += [f"<details><summary>{html.escape(head)}</summary>", "", body, "", "</details>", ""]
    lines += markdown_contents(_sections(data))
    lines += ["", '<a id="how-to-read"></a>', "## How to read this report", ""]
    lines += [f"- **{term}**: {text}" for term, text in GLOSSARY] + [""]
    for name, table in data.tables.items():
        if name in data.hidden:
            continue
        shown = shown_table(name, table, reference_of(data.humans))
        lines += [f'<a id="{anchor(name)}"></a>', f"## {title_of(name)}", ""]
        lines += [f"_{reference_note(data, table)}_", ""]
        if name in data.captions:
            lines += [data.captions[name], ""]
        lines += [markdown_table(display_table(shown, label_of)), ""]
        if name in data.plots:
            lines += [f"![{alt_text(name, data)}]({data.plots[name].relative_to(out_dir).as_posix()})", ""]
    for name, path in data.plots.items():
        if name not in data.tables:
            lines += [
                f'<a id="{anchor(name)}"></a>',
                f"## {title_of(name)}",
                "",
                f"![{alt_text(name, data)}]({path.relative_to(out_dir).as_posix()})",
                "",
            ]
    if data.boards:
        lines += ['<a id="boards"></a>', "## Boards", ""]
        for caption, path in data.boards.items():
            lines += [
                f"**{caption}**",
                "",
                f"![Board: {caption}]({path.relative_to(out_dir).as_posix()})",
                "",
            ]
    lines += ['<a id="methods"></a>', "## Methods and provenance", ""]
    if data.methods:
        lines += [data.methods, ""]
    lines += [f"- {s}" for s in _provenance_lines(data)] + [""]
    if data.reference_check is not None:
        lines += [f"### {NAMES_CHECK_TITLE}", "", data.reference_check_note, ""]
        lines += [markdown_table(display_table(data.reference_check, label_of)), ""]
    lines += ['<a id="config"></a>', "## Config", "", "```yaml", data.config_yaml.rstrip(), "```", ""]
    path = out_dir / filename
    path.write_text(mask_text("\n".join(lines)), encoding="utf-8")
    return path


def alt_text(name: str, data: ReportData) -> str:
    """What a figure shows, for readers who cannot see it (never the file name)."""
    if name in ALT_TEXTS:
        return ALT_TEXTS[name]
    caption = data.captions.get(name, "")
    return f"Figure: {title_of(name)}" + (f". {caption.split('. ')[0]}" if caption else "")


def write_html(data: ReportData, out_dir: Path, filename: str = "report.html") -> Path:
    """One file with every table and image inline, a table of contents, and no horizontal page scroll."""
    parts = html_head(
        data.title,
        data.summary,
        _sections(data),
        banner=data.banner,
        details=data.details,
        lead=verdict(data),
    )
    parts.append("<section id='how-to-read'><h2>How to read this report</h2><dl class='glossary'>")
    parts += [f"<dt>{html.escape(term)}</dt><dd>{html.escape(text)}</dd>" for term, text in GLOSSARY]
    parts.append("</dl></section>")
    for name, table in data.tables.items():
        if name in data.hidden:
            continue
        parts.append(f"<section id='{anchor(name)}'><h2>{html.escape(title_of(name))}</h2>")
        parts.append(f"<p class='meta'>{html.escape(reference_note(data, table))}</p>")
        if name in data.captions:
            parts.append(f"<p>{html.escape(data.captions[name])}</p>")
        full = shown_table(name, table, reference_of(data.humans))
        shown = full.head(500)
        tall = len(shown) > TALL_ROWS
        parts.append(f"<div class='table-wrap{' tall' if tall else ''}' tabindex='0'>")
        parts.append(html_table(shown, label_of))
        parts.append("</div>")
        if len(shown.columns) > 6:
            parts.append("<p class='scroll-hint'>the table scrolls sideways →</p>")
        if len(table) > 500:
            parts.append(f"<p class='meta'>{len(table) - 500} more rows in tables/{name}.csv</p>")
        if name in data.plots:
            parts.append(img_tag(data.plots[name], alt_text(name, data)))
        parts.append("</section>")
    for name, path in data.plots.items():
        if name not in data.tables:
            parts += [
                f"<section id='{anchor(name)}'><h2>{html.escape(title_of(name))}</h2>",
                img_tag(path, alt_text(name, data)),
                "</section>",
            ]
    if data.boards:
        parts.append("<section id='boards'><h2>Boards</h2>")
        for caption, path in data.boards.items():
            parts += [f"<p><b>{html.escape(caption)}</b></p>", img_tag(path, f"Board: {caption}")]
        parts.append("</section>")
    parts.append("<section id='methods'><h2>Methods and provenance</h2>")
    if data.methods:
        parts.append(f"<p>{html.escape(data.methods)}</p>")
    parts += [f"<p class='meta'>{html.escape(line)}</p>" for line in _provenance_lines(data)]
    if data.reference_check is not None:
        parts += [f"<h3>{NAMES_CHECK_TITLE}</h3>", f"<p>{html.escape(data.reference_check_note)}</p>"]
        parts += [
            "<div class='table-wrap' tabindex='0'>",
            html_table(data.reference_check, label_of),
            "</div>",
        ]
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
    config = load_yaml(config_yaml, "config.yaml")
    return bool(config.get("allow_code", False)) if isinstance(config, dict) else False


def _records(frame: pd.DataFrame) -> list[Mapping[str, Any]]:
    clean = frame.astype(object).where(frame.notna(), None)
    return clean.to_dict(orient="records")
