"""``write_metrics``: the whole ``huesenv metrics`` job — tables to CSV, figures to PNG, a terminal summary."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

import huesenv.plots as P
from huesenv.humans.reference import HumanReference
from huesenv.logs.io import load_logs
from huesenv.logs.schema import LogRecord
from huesenv.metrics.aggregate import (
    agent_level,
    category_level,
    family_level,
    human_fail_table,
    pooled_human_fail_rate,
    skipped_words,
    word_level,
    word_summary,
)
from huesenv.metrics.collect import SampledCloud
from huesenv.metrics.nonsense import nonsense_table
from huesenv.reports import write_tables
from huesenv.validation import terminal_safe


@dataclass
class MetricsReport:
    """The tables written by :func:`write_metrics` and the paths of everything it wrote.

    ``human_fail_rate`` is the Human Fail Rate of the scored words pooled over
    their answers (:func:`huesenv.metrics.aggregate.pooled_human_fail_rate`);
    ``skipped`` lists the words left unscored for lack of human answers
    (:func:`huesenv.metrics.aggregate.skipped_words`).
    """

    word: pd.DataFrame
    agent: pd.DataFrame
    category: pd.DataFrame
    nonsense: pd.DataFrame
    human_fail_rate: float
    paths: dict[str, Path] = field(default_factory=dict)
    skipped: pd.DataFrame = field(default_factory=pd.DataFrame)
    reference: HumanReference | None = None  # named in every file and in the terminal output


def write_metrics(
    logs: Sequence[str | os.PathLike] | Sequence[LogRecord],
    humans,
    out_dir: str | os.PathLike,
    alpha: float = 0.05,
    top_k: int = 5,
    plots: bool = True,
    human_table: pd.DataFrame | None = None,
    sampled_cloud: SampledCloud = "top-k",
    reference: HumanReference | None = None,
) -> MetricsReport:
    """Score logs (paths or records) against a human reference; write CSVs (and plots) into ``out_dir``.

    ``top_k`` / ``sampled_cloud``: the Hotelling cloud (see :func:`huesenv.metrics.aggregate.word_level`).
    ``reference`` names the humans in every CSV (``human_reference`` and ``self_scored`` columns,
    :mod:`huesenv.humans.reference`); default: :meth:`HumanReference.of` the ``humans`` given
    (pass one built with :meth:`~HumanReference.part_of` to name an evaluation part).
    """
    reference = reference if reference is not None else HumanReference.of(humans)
    given = list(logs)
    records = (
        [r for r in given if isinstance(r, LogRecord)]
        if given and isinstance(given[0], LogRecord)
        else load_logs([r for r in given if not isinstance(r, LogRecord)])
    )
    table = human_fail_table(humans, alpha) if human_table is None else human_table
    words = word_level(
        records, humans, alpha=alpha, top_k=top_k, human_table=table, sampled_cloud=sampled_cloud
    )
    skipped = skipped_words(words)
    agents = agent_level(words)
    categories = pd.DataFrame()
    if len(words):
        categories = pd.concat(
            [
                category_level(words, by=b).rename(columns={b: "group"}).assign(grouping=b)
                for b in ("architecture_family", "data_family", "agent")
            ],
            ignore_index=True,
        )
    nonsense = nonsense_table(records)
    human_rate = (
        pooled_human_fail_rate(words) if len(words) else float("nan")
    )  # pooled over answers, as humans summary
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = {
        "word_level": words,
        "agent_level": agents,
        "category_level": categories,
        "nonsense": nonsense,
        "skipped_words": skipped,
    }
    if len(words):
        tables["word_summary"] = word_summary(words)
    paths: dict[str, Path] = write_tables(tables, out, formats=("csv",), reference=reference)
    if len(agents):
        families = {
            f"family_level_{by}": family_level(agents, by) for by in ("architecture_family", "data_family")
        }
        write_tables(families, out, formats=("csv",), reference=reference)
    if plots:
        if len(agents):
            paths["fig_families"] = P.plot_family_violins(
                agents, out / "fail_rates_by_family.png", human_rate
            )
            paths["fig_categories_arch"] = P.plot_category_violins(
                words,
                out / "fail_rates_by_category_architecture.png",
                human_fail_rate=pooled_human_fail_rate,
            )
            paths["fig_categories_data"] = P.plot_category_violins(
                words,
                out / "fail_rates_by_category_data.png",
                by="data_family",
                human_fail_rate=pooled_human_fail_rate,
            )
        if len(nonsense):
            paths["fig_nonsense"] = P.plot_nonsense_mosaics(nonsense, out / "nonsense_mosaics.png")
    return MetricsReport(words, agents, categories, nonsense, human_rate, paths, skipped, reference)


def _num(x: float) -> str:
    """Three decimals, or "—" where the number is undefined (NaN): a table cell should not read "nan"."""
    try:
        return "—" if x is None or math.isnan(float(x)) else f"{float(x):.3f}"
    except (TypeError, ValueError):
        return "—"


def _pm(value: float, err: float) -> str:
    """``value ± err``; the error shows "—" when undefined (e.g. one agent in a family has no spread)."""
    return f"{_num(value)} ± {_num(err)}"


def _safe(value: object) -> str:
    return terminal_safe(value, markup=True)


def print_report(report: MetricsReport, console=None) -> None:
    """Rich tables: per agent (with the Human Fail Rate alongside), per category, nonsense classes."""

    from rich.console import Console
    from rich.table import Table

    console = console or (Console() if sys.stdout.isatty() else Console(width=160))
    ref = report.reference
    ids = report.agent["agent_id"] if "agent_id" in report.agent else report.agent.get("agent", [])
    self_scored = set(ref.self_scored(ids)) if ref is not None else set()
    if ref is not None:
        console.print(f"[bold]Human reference:[/] {ref.description}")
    t = Table(
        title=f"Alignment per agent (Human Fail Rate pooled over answers, same words: {_num(report.human_fail_rate)})"
    )
    for col in (
        "agent",
        "words",
        "Mahalanobis fail",
        "Hotelling fail",
        "Human fail (pooled)",
        "bleeding",
        "collapse",
        "invalid",
    ):
        t.add_column(col, justify="left" if col == "agent" else "right")
    for r in report.agent.itertuples(index=False):
        t.add_row(
            _safe(r.agent)
            + (" (self-scored)" if str(getattr(r, "agent_id", r.agent)) in self_scored else ""),
            str(r.n_words),
            _pm(r.mahalanobis_fail_rate, r.mahalanobis_fail_err),
            _pm(r.hotelling_fail_rate, r.hotelling_fail_err),
            _num(r.human_fail_rate),
            _num(r.semantic_bleeding_rate),
            _num(r.uncertainty_collapse_rate),
            f"{r.n_invalid}/{r.n_answers + r.n_invalid}",
        )
    console.print(t)
    note = ref.self_scored_note(self_scored) if ref is not None else None
    if note:
        console.print(f"[yellow]{note}[/yellow]")
    if len(report.skipped):
        console.print(
            f"[yellow]{len(report.skipped)} word(s) not scored (fewer than "
            f"{int(report.skipped['min_human_answers'].iloc[0])} human answers): "
            + ", ".join(f"{_safe(r.word)} ({r.n_human})" for r in report.skipped.itertuples(index=False))
            + "[/yellow]"
        )
    if len(report.category):
        c = Table(title="Per semantic category (grouped by architecture family)")
        for col in ("category", "family", "agents", "Human fail (pooled)", "Mahalanobis", "Hotelling"):
            c.add_column(col)
        sel = report.category[report.category["grouping"] == "architecture_family"]
        for r in sel.itertuples(index=False):
            c.add_row(
                _safe(r.category),
                _safe(r.group),
                str(r.n_agents),
                _num(r.human_fail_rate),
                _pm(r.mahalanobis_fail_mean, r.mahalanobis_fail_err),
                _pm(r.hotelling_fail_mean, r.hotelling_fail_err),
            )
        console.print(c)
    if len(report.nonsense):
        n = Table(title="Nonsense baseline")
        for col in ("agent", "row collapse", "behaviour (Table 5)", "mode (Fig. 12)", "selective rows"):
            n.add_column(col)
        for r in report.nonsense.itertuples(index=False):
            n.add_row(
                _safe(r.agent),
                r.row_collapse.replace(";", " / "),
                r.behaviour,
                r.mode,
                r.selective_rows.replace(";", ", "),
            )
        console.print(n)
    for name, path in report.paths.items():
        console.print(f"[dim]{name}: {path}[/dim]")
