"""Human Consistency: the paper's leave-one-out (LOO) agreement of people with each other.

For a word with N answers, each answer is scored against the mean and
covariance of the *other* N−1 answers in CIE xy with the squared Mahalanobis
distance; it is an outlier when that exceeds χ²₂(1 − α) (5.991 at α = 0.05, the
same test the metrics apply to a model's top-1 answer).  Consistency is the share
of answers that are not outliers and the Human Fail Rate is 1 − consistency
(paper §2.5.3).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.humans.consistency``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from huesenv.board import format_coord, load_board
from huesenv.stats import loo_false_alarm, loo_mahalanobis_d2, loo_threshold

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
    "implied_false_alarm",
    "fail_rate_calibrated",
)


def loo_outliers(
    points: np.ndarray, alpha: float = 0.05, floor: float | None = None, calibrated: bool = False
) -> np.ndarray:
    """Boolean mask of the answers (n, 2) that the LOO Mahalanobis test flags at level ``alpha``
    (χ²₂ threshold, or the small-n calibrated one with ``calibrated=True``)."""
    d2 = loo_mahalanobis_d2(points, floor)
    return d2 > loo_threshold(len(d2), alpha, calibrated)


def word_consistency(
    points: np.ndarray, alpha: float = 0.05, floor: float | None = None, calibrated: bool = False
) -> float:
    """Share of a word's answers (n, 2) in CIE xy that are not LOO outliers; NaN below 3 answers."""
    points = np.asarray(points, dtype=np.float64)
    if len(points) < MIN_ANSWERS:
        return float("nan")
    return float(1.0 - loo_outliers(points, alpha, floor, calibrated).mean())


def consistency_table(humans: HumanResponses, alpha: float = 0.05, calibrated: bool = False) -> pd.DataFrame:
    """One row per word: ``word, category, n, mode_coord, mode_category, consistency, fail_rate, n_outliers,
    implied_false_alarm, fail_rate_calibrated`` (the last two: see the module docstring).

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
            d2 = loo_mahalanobis_d2(board.xy[cells])
            flagged = int((d2 > loo_threshold(n, alpha, calibrated)).sum())
            consistency = 1.0 - flagged / n
            fail_cal = float((d2 > loo_threshold(n, alpha, True)).mean())
        else:
            flagged, consistency, fail_cal = pd.NA, float("nan"), float("nan")
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
                "implied_false_alarm": loo_false_alarm(n, alpha),
                "fail_rate_calibrated": fail_cal,
            }
        )
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    return table.astype(
        {
            "n": "int64",
            "n_outliers": "Int64",
            "consistency": "float64",
            "fail_rate": "float64",
            "implied_false_alarm": "float64",
            "fail_rate_calibrated": "float64",
        }
    )


def consistency_by_category(table: pd.DataFrame) -> pd.DataFrame:
    """Pooled consistency per semantic category and overall (last row, category ``"All"``).

    Columns ``category, words, n, consistency, fail_rate, implied_false_alarm``; pooled over
    answers (see the module docstring), words below 3 answers left out; ``implied_false_alarm``
    is the answer-weighted mean of the words' rates (what the fail rate would be on normal answers).
    """
    usable = table[table["n"] >= MIN_ANSWERS]
    rows = []
    groups = list(usable.groupby("category", sort=False)) + [("All", usable)]
    for category, group in groups:
        n = int(group["n"].sum())
        outliers = int(group["n_outliers"].sum(min_count=0))
        consistency = 1.0 - outliers / n if n else float("nan")
        fa = group["implied_false_alarm"] if "implied_false_alarm" in group else pd.Series(dtype=float)
        ok = fa.notna()
        implied = float((fa[ok] * group["n"][ok]).sum() / group["n"][ok].sum()) if ok.any() else float("nan")
        rows.append(
            {
                "category": category,
                "words": len(group),
                "n": n,
                "consistency": consistency,
                "fail_rate": 1.0 - consistency,
                "implied_false_alarm": implied,
            }
        )
    return pd.DataFrame(
        rows, columns=["category", "words", "n", "consistency", "fail_rate", "implied_false_alarm"]
    )


def overall_consistency(table: pd.DataFrame) -> float:
    """Pooled Human Consistency over every answer of every word with at least 3 answers."""
    return float(consistency_by_category(table).iloc[-1]["consistency"])
