"""Point-wise validity: is the agent's top-1 cell inside the humans' cloud for the word?

The humans' answers to a word, in CIE xy, are modelled as a bivariate normal
(sample mean, unbiased sample covariance floored by
:func:`huesenv.stats.floor_covariance`).  The top-1 cell's squared Mahalanobis
distance D² to it is compared with χ²₂(1 − α) (5.991 at α = 0.05): above it,
the answer is an outlier.  This is the test the Human Consistency baseline
applies to each left-out human answer, so the two fail rates are comparable.

xy is blind to lightness (a dark and a pale green share a chromaticity), so
:func:`mahalanobis_lab_top1` runs the same test in CIELAB (χ²₃, the floor
:func:`huesenv.stats.default_variance_floor` in Lab units): an extra column
beside the paper's test, never a replacement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from huesenv.board import load_board
from huesenv.stats import chi2_threshold, default_variance_floor, mahalanobis_d2, sample_covariance


@dataclass(frozen=True)
class PointwiseResult:
    d2: float
    threshold: float
    outlier: bool


def mahalanobis_top1(
    point_xy: np.ndarray, human_xy: np.ndarray, alpha: float = 0.05, floor: float | None = None
) -> PointwiseResult:
    """D² of one point to the human answers (n, p), and whether it exceeds χ²_p(1 − α) (p = 2 in xy)."""
    human_xy = np.asarray(human_xy, dtype=np.float64)
    if len(human_xy) < 2:
        raise ValueError(f"need at least 2 human answers for a covariance, got {len(human_xy)}")
    d2 = float(
        mahalanobis_d2(
            np.asarray(point_xy, dtype=np.float64), human_xy.mean(axis=0), sample_covariance(human_xy), floor
        )[0]
    )
    threshold = chi2_threshold(alpha, dof=human_xy.shape[1])
    return PointwiseResult(d2=d2, threshold=threshold, outlier=bool(d2 > threshold))


def mahalanobis_lab_top1(cell: int, human_cells: np.ndarray, alpha: float = 0.05) -> PointwiseResult:
    """The lightness-aware variant: the same test on the board's CIELAB values of the cells (χ²₃)."""
    lab = load_board().lab
    return mahalanobis_top1(
        lab[[int(cell)]], lab[np.asarray(human_cells, dtype=int)], alpha, default_variance_floor("lab")
    )
