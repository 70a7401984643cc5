"""The human reference checked against real naming data: where a survey puts a word's colour vs the cohort.

Why: the packaged cohort is a reconstruction from the paper's summary
statistics; a naming corpus (:mod:`huesenv.naming_corpus`, the XKCD survey by
default) is independent real data for the cue words that are colour names.
Per word the corpus names (exact tier; several entries: their mean Lab), it
gives the ΔE2000 (colour-science) from the corpus colour to the cohort's mean
answer (mean of the answers' CIELAB) and to its modal cell, the chance level
(mean ΔE2000 from every board cell to the cohort's mean answer), and whether
the board cell nearest the corpus colour passes the cohort's Mahalanobis test
(the paper's xy one, and the CIELAB variant beside it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from huesenv.board import format_coord, load_board
from huesenv.colourspace import delta_e2000
from huesenv.naming_corpus import NamingCorpus
from huesenv.stats import chi2_threshold, default_variance_floor, mahalanobis_d2, sample_covariance

COLUMNS = [
    "word",
    "category",
    "corpus_names",
    "n_answers",
    "delta_e_mean",
    "delta_e_mode",
    "delta_e_chance",
    "mode_cell",
    "nearest_cell",
    "nearest_delta_e",
    "nearest_d2_xy",
    "nearest_passes_xy",
    "nearest_passes_lab",
]


def _passes(
    point: np.ndarray, answers: np.ndarray, alpha: float, floor: float | None = None
) -> tuple[float, bool]:
    d2 = float(mahalanobis_d2(point, answers.mean(axis=0), sample_covariance(answers), floor)[0])
    return d2, d2 <= chi2_threshold(alpha, dof=answers.shape[1])


def check_names(humans: Any, corpus: NamingCorpus, alpha: float = 0.05) -> pd.DataFrame:
    """One row per cohort word the corpus names (see the module docstring), in the cohort's word order."""
    board = load_board()
    hits = corpus.matching(humans.words, "exact")
    rows = []
    for word in humans.words:
        entries = hits.get(word)
        cells = np.asarray(humans.cells(word), dtype=int)
        if not entries or len(cells) < 2:
            continue
        lab = np.mean([e.lab for e in entries], axis=0)
        mean_lab, mode = board.lab[cells].mean(axis=0), int(humans.mode_cell(word))
        nearest_de = delta_e2000(lab[None, :], board.lab)
        nearest = int(np.argmin(nearest_de))
        d2, ok_xy = _passes(board.xy[[nearest]], board.xy[cells], alpha)
        _, ok_lab = _passes(board.lab[[nearest]], board.lab[cells], alpha, default_variance_floor("lab"))
        rows.append(
            {
                "word": word,
                "category": humans.category(word),
                "corpus_names": "; ".join(f"{e.name} ({e.source})" for e in entries),
                "n_answers": len(cells),
                "delta_e_mean": float(delta_e2000(lab, mean_lab)),
                "delta_e_mode": float(delta_e2000(lab, board.lab[mode])),
                "delta_e_chance": float(delta_e2000(board.lab, mean_lab[None, :]).mean()),
                "mode_cell": format_coord(mode),
                "nearest_cell": format_coord(nearest),
                "nearest_delta_e": float(nearest_de[nearest]),
                "nearest_d2_xy": d2,
                "nearest_passes_xy": ok_xy,
                "nearest_passes_lab": ok_lab,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def summary_line(table: pd.DataFrame, corpus_label: str) -> str:
    """One sentence: medians and pass counts over the overlapping words."""
    if table.empty:
        return f"No cue word of the reference is a name in {corpus_label}."
    n = len(table)
    return (
        f"{n} cue words are names in {corpus_label}: the corpus colour lies a median ΔE2000 "
        f"{table['delta_e_mean'].median():.1f} from the cohort's mean answer and "
        f"{table['delta_e_mode'].median():.1f} from its modal cell (chance: {table['delta_e_chance'].median():.1f}); "
        f"its nearest cell passes the cohort's Mahalanobis test on {int(table['nearest_passes_xy'].sum())}/{n} "
        f"words in xy (the paper's test) and {int(table['nearest_passes_lab'].sum())}/{n} in CIELAB."
    )


def markdown(table: pd.DataFrame, reference: str, corpus_label: str) -> str:
    lines = [
        f"Human reference: {reference}. Naming corpus: {corpus_label}.",
        "",
        summary_line(table, corpus_label),
        "",
        "| word | corpus name | ΔE2000 to mean | ΔE2000 to mode | chance | nearest cell | passes (xy / CIELAB) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples(index=False):
        ok = " / ".join("yes" if v else "no" for v in (r.nearest_passes_xy, r.nearest_passes_lab))
        names = "".join(c if c.isprintable() else "?" for c in r.corpus_names).replace("|", "\\|")
        lines.append(
            f"| {r.word} | {names} | {r.delta_e_mean:.1f} | {r.delta_e_mode:.1f} | {r.delta_e_chance:.1f} "
            f"| {r.nearest_cell} | {ok} |"
        )
    return "\n".join(lines) + "\n"
