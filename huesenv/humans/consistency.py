"""Human Consistency: the paper's leave-one-out (LOO) agreement of people with each other.

For a word with N answers, each answer is scored against the mean and
covariance of the *other* N−1 answers in CIE xy with the squared Mahalanobis
distance; it is an outlier when that exceeds χ²₂(1 − α) (5.991 at α = 0.05, the
same test the metrics apply to a model's top-1 answer).  Consistency is the share
of answers that are not outliers and the Human Fail Rate is 1 − consistency
(paper §2.5.3).

The N leave-one-out fits are not refitted: :func:`huesenv.stats.loo_mahalanobis_d2`
computes them in closed form (rank-one downdates of the mean and covariance),
with the covariance floored at the board's discreteness variance so that
degenerate answer sets (all on one cell, on two cells, on a line of cells) give a
finite distance instead of NaN or a crash.  ``benchmarks/bench_consistency.py``
checks it against the naive refit.

Aggregation (documented choice): the paper computes the overall figure by
"repeating the LOO for all N responses across all words", i.e. *pooled over
answers*; :func:`consistency_by_category` does the same per category (each
answer counts once, so words with more answers weigh more).  A word with fewer
than 3 answers has no LOO covariance: its consistency is NaN and it is left out
of the pooled figures (its ``n`` is still reported).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from huesenv.board import format_coord, load_board
from huesenv.stats import chi2_threshold, loo_mahalanobis_d2

if TYPE_CHECKING:  # pragma: no cover
    from huesenv.humans.loader import HumanResponses

MIN_ANSWERS = 3  # the LOO covariance of N−1 points needs N−1 ≥ 2
TABLE_COLUMNS = (
    "word",
    "category",
    "n",
    "mode_coord",
    "mode_category",
    "consistency",
    "fail_rate",
    "n_outliers",
)


def loo_outliers(points: np.ndarray, alpha: float = 0.05, floor: float | None = None) -> np.ndarray:
    """Boolean mask of the answers (n, 2) that the LOO Mahalanobis test flags at level ``alpha``."""
    return loo_mahalanobis_d2(points, floor) > chi2_threshold(alpha, dof=2)


def word_consistency(points: np.ndarray, alpha: float = 0.05, floor: float | None = None) -> float:
    """Share of a word's answers (n, 2) in CIE xy that are not LOO outliers; NaN below 3 answers."""
    points = np.asarray(points, dtype=np.float64)
    if len(points) < MIN_ANSWERS:
        return float("nan")
    return float(1.0 - loo_outliers(points, alpha, floor).mean())


def consistency_table(humans: HumanResponses, alpha: float = 0.05) -> pd.DataFrame:
    """One row per word: ``word, category, n, mode_coord, mode_category, consistency, fail_rate, n_outliers``.

    ``mode_category`` is the board macro-colour (:mod:`huesenv.categories`) of the
    modal cell; ``category`` the word's semantic category.  Words with fewer than 3
    answers get NaN consistency and fail rate and a missing (``<NA>``) ``n_outliers``.
    """
    board = load_board()
    rows = []
    for word in humans.words:
        cells = humans.cells(word)
        mode = humans.mode_cell(word)
        n = len(cells)
        if n >= MIN_ANSWERS:
            flagged = int(loo_outliers(board.xy[cells], alpha).sum())
            consistency = 1.0 - flagged / n
        else:
            flagged, consistency = pd.NA, float("nan")
        rows.append(
            {
                "word": word,
                "category": humans.category(word),
                "n": n,
                "mode_coord": format_coord(mode),
                "mode_category": board.categories[mode],
                "consistency": consistency,
                "fail_rate": 1.0 - consistency,
                "n_outliers": flagged,
            }
        )
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    return table.astype(
        {"n": "int64", "n_outliers": "Int64", "consistency": "float64", "fail_rate": "float64"}
    )


def consistency_by_category(table: pd.DataFrame) -> pd.DataFrame:
    """Pooled consistency per semantic category and overall (last row, category ``"All"``).

    Columns ``category, words, n, consistency, fail_rate``; pooled over answers
    (see the module docstring), words below 3 answers left out.
    """
    usable = table[table["n"] >= MIN_ANSWERS]
    rows = []
    groups = list(usable.groupby("category", sort=False)) + [("All", usable)]
    for category, group in groups:
        n = int(group["n"].sum())
        outliers = int(group["n_outliers"].sum(min_count=0))
        consistency = 1.0 - outliers / n if n else float("nan")
        rows.append(
            {
                "category": category,
                "words": len(group),
                "n": n,
                "consistency": consistency,
                "fail_rate": 1.0 - consistency,
            }
        )
    return pd.DataFrame(rows, columns=["category", "words", "n", "consistency", "fail_rate"])


def overall_consistency(table: pd.DataFrame) -> float:
    """Pooled Human Consistency over every answer of every word with at least 3 answers."""
    return float(consistency_by_category(table).iloc[-1]["consistency"])
