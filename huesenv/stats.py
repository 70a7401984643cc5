"""The statistics behind the paper's metrics, in CIE xy: Mahalanobis, leave-one-out, Hotelling T².

**Regularisation (documented choice).**  Answers are board cells, so a word's
answers often sit on one or two cells or on a line of cells, and their sample
covariance is singular.  The paper does not say what it did.  We floor the
covariance's eigenvalues at the variance that the board's own discreteness
implies: a cell stands for a patch of chromaticities about one grid step wide,
and a uniform distribution over a width ``h`` has variance ``h²/12``.  ``h`` is the
median xy distance between grid-adjacent cells of the board (0.0157 for the
packaged board, so the floor is 2.06e-5, σ ≈ 0.0045).  It never produces NaN or
a crash, and gives a finite, interpretable distance when all answers coincide
(a point one grid step away is then ~3.5 σ away).

**When the floor binds.**  It changes a covariance only along an axis where the
answers spread less than about one grid step (variance below h²/12); a set
spread wider than that in every direction is returned unchanged.  Concentrated
sets reach it even with many answers, not only tiny or degenerate ones: in the
packaged reconstructed cohort GOLD (42 answers, 25 of them on H1 at the board's
edge) has a sample covariance whose narrow axis is 0.59 × the floor, so all 42
of its leave-one-out fits are floored and the floor decides one of its
outliers (LOO consistency 0.929 with the floor, 0.905 without; Table 6: 0.94).
POND and COOKIE MONSTER have 1 and 3 floored leave-one-out fits with no outlier
decision changed; the other 97 words never reach the floor
(``tests/test_metrics_stats.py`` checks these facts).

**The χ²₂ test on leave-one-out fits is liberal on small n.**  A held-out
answer x of a word with n answers is compared with the mean and unbiased
covariance of the other m = n − 1; for normal answers its squared distance
follows the predictive law d² · m(m − p) / (p(m + 1)(m − 1)) ~ F(p, m − p)
(p = 2), heavier-tailed than χ²₂.  So the paper's threshold χ²₂(0.95) = 5.991
flags a perfectly normal word's answers at :func:`loo_false_alarm` (9.6 % at
n = 20, 7.1 % at n = 40, 5.8 % at n = 90), not 5 %, and a Human Fail Rate partly
reflects each word's answer count.  :func:`loo_threshold` gives both thresholds:
the paper's χ² one (default) and the calibrated F one, at which the exact
false-alarm rate is α for every n (an option: ``calibrated=True``).

Chi-square and F quantiles come from :mod:`scipy.stats`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from huesenv.board import N_COLS, N_ROWS, load_board


def scipy_stats() -> Any:
    """``scipy.stats``, imported on first use: it takes ~1.2 s of CPU, a third of the CLI's start (every
    command module imports this one), for the commands that compute no statistic."""
    from scipy import stats

    return stats


@lru_cache(maxsize=2)
def default_variance_floor(space: str = "xy") -> float:
    """h²/12 with h the median distance between grid-adjacent cells of the packaged board, in ``xy`` or ``lab``."""
    board = load_board()
    pts = {"xy": board.xy, "lab": board.lab}[space].reshape(N_ROWS, N_COLS, -1)
    steps = np.concatenate(
        [
            np.linalg.norm(np.diff(pts, axis=0), axis=-1).ravel(),
            np.linalg.norm(np.diff(pts, axis=1), axis=-1).ravel(),
        ]
    )
    h = float(np.median(steps))
    return h * h / 12.0


def floor_covariance(cov: np.ndarray, floor: float | None = None) -> np.ndarray:
    """Covariance matrices (…, p, p) with eigenvalues raised to at least ``floor`` (vectorised)."""
    floor = default_variance_floor() if floor is None else float(floor)
    cov = np.asarray(cov, dtype=np.float64)
    sym = 0.5 * (cov + np.swapaxes(cov, -1, -2))
    vals, vecs = np.linalg.eigh(sym)
    vals = np.maximum(np.nan_to_num(vals, nan=floor), floor)
    return (vecs * vals[..., None, :]) @ np.swapaxes(vecs, -1, -2)


def sample_covariance(points: np.ndarray) -> np.ndarray:
    """Unbiased sample covariance (n−1); zeros for fewer than two points."""
    points = np.asarray(points, dtype=np.float64)
    if len(points) < 2:
        return np.zeros((points.shape[1], points.shape[1]))
    return np.cov(points, rowvar=False, ddof=1).reshape(points.shape[1], points.shape[1])


def mahalanobis_d2(
    points: np.ndarray, mean: np.ndarray, cov: np.ndarray, floor: float | None = None
) -> np.ndarray:
    """Squared Mahalanobis distance of each point (n, p) to ``mean`` under the floored ``cov``."""
    points = np.atleast_2d(np.asarray(points, dtype=np.float64))
    diff = points - np.asarray(mean, dtype=np.float64)
    inv = np.linalg.inv(floor_covariance(cov, floor))
    return np.einsum("ni,ij,nj->n", diff, inv, diff)


def chi2_threshold(alpha: float = 0.05, dof: int = 2) -> float:
    """The outlier threshold χ²_dof(1 − α) (5.991 for α = 0.05 in 2-D)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return _chi2_ppf(float(alpha), int(dof))


@lru_cache(maxsize=64)
def _chi2_ppf(alpha: float, dof: int) -> float:
    """Cached: scipy's ppf costs ~0.3 ms, called once per word in the leave-one-out loops."""
    return float(scipy_stats().chi2.ppf(1.0 - alpha, dof))


LOO_DIM = 2  # CIE xy


def _predictive_scale(n: int, p: int = LOO_DIM) -> float:
    """The factor c with d² · c ~ F(p, m − p) for a held-out answer (m = n − 1 others)."""
    m = n - 1
    return m * (m - p) / (p * (m + 1) * (m - 1))


def loo_false_alarm(n: int, alpha: float = 0.05, calibrated: bool = False) -> float:
    """Exact share of normal answers a word with ``n`` answers flags (NaN for n < 4: no F law).

    With the paper's χ²₂ threshold (``calibrated=False``) this is the test's real
    size at that n; with the calibrated threshold it is ``alpha`` by construction.
    """
    if n < LOO_DIM + 2:
        return float("nan")
    if calibrated:
        return float(alpha)
    f = chi2_threshold(alpha, LOO_DIM) * _predictive_scale(n)
    return float(scipy_stats().f.sf(f, LOO_DIM, n - 1 - LOO_DIM))


def loo_threshold(n: int, alpha: float = 0.05, calibrated: bool = False) -> float:
    """The d² a held-out answer must exceed to be an outlier: χ²₂(1 − α) (the paper), or calibrated for n.

    The calibrated threshold is the F quantile rescaled to d² (see the module
    docstring); words with n < 4 keep the χ² threshold (no F law with m − p < 1).
    """
    if not calibrated or n < LOO_DIM + 2:
        return chi2_threshold(alpha, LOO_DIM)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return float(scipy_stats().f.ppf(1.0 - alpha, LOO_DIM, n - 1 - LOO_DIM) / _predictive_scale(n))


def loo_mahalanobis_d2(points: np.ndarray, floor: float | None = None) -> np.ndarray:
    """Each point's squared Mahalanobis distance to the mean and covariance of the *other* n−1 points.

    Closed form, O(n): the leave-one-out mean and covariance are rank-one
    downdates of the full-sample ones,
    ``m₋ᵢ = (n·m − xᵢ)/(n−1)`` and
    ``S₋ᵢ = [(n−1)·S − n/(n−1)·(xᵢ−m)(xᵢ−m)ᵀ] / (n−2)``,
    computed for all i at once as an (n, p, p) stack, floored like every other
    covariance here, and inverted in one batched call.  Needs n ≥ 3.
    ``points`` may carry leading batch axes, ``(..., n, p)`` → ``(..., n)``:
    several answer sets of the same size scored in one call.
    """
    x = np.asarray(points, dtype=np.float64)
    n = x.shape[-2]
    if n < 3:
        raise ValueError(f"leave-one-out needs at least 3 answers, got {n}")
    mean = x.mean(axis=-2, keepdims=True)
    u = x - mean
    scatter = np.swapaxes(u, -1, -2) @ u  # (n−1)·S
    loo_cov = (scatter[..., None, :, :] - (n / (n - 1)) * np.einsum("...ni,...nj->...nij", u, u)) / (n - 2)
    diff = (n / (n - 1)) * u  # xᵢ − m₋ᵢ
    inv = np.linalg.inv(floor_covariance(loo_cov, floor))
    return np.einsum("...ni,...nij,...nj->...n", diff, inv, diff)


def loo_mahalanobis_d2_naive(points: np.ndarray, floor: float | None = None) -> np.ndarray:
    """Reference implementation by n refits (for tests and benchmarks only)."""
    x = np.asarray(points, dtype=np.float64)
    out = np.empty(len(x))
    for i in range(len(x)):
        rest = np.delete(x, i, axis=0)
        out[i] = mahalanobis_d2(x[i], rest.mean(axis=0), sample_covariance(rest), floor)[0]
    return out


@dataclass(frozen=True)
class HotellingResult:
    t2: float
    f: float
    p_value: float
    df1: int
    df2: int


def hotelling_two_sample(a: np.ndarray, b: np.ndarray, floor: float | None = None) -> HotellingResult:
    """Hotelling's two-sample T² with pooled (floored) covariance; p-value from the F distribution.

    ``T² = n₁n₂/(n₁+n₂) · dᵀ S_pooled⁻¹ d``, ``F = (n₁+n₂−p−1)/(p(n₁+n₂−2)) · T²`` with
    ``F ~ F(p, n₁+n₂−p−1)`` under equal means.
    """
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    b = np.atleast_2d(np.asarray(b, dtype=np.float64))
    n1, n2, p = len(a), len(b), a.shape[1]
    if n1 + n2 - p - 1 < 1:
        raise ValueError(f"Hotelling T² needs n1 + n2 > p + 1 (got n1={n1}, n2={n2}, p={p})")
    pooled = ((n1 - 1) * sample_covariance(a) + (n2 - 1) * sample_covariance(b)) / (n1 + n2 - 2)
    d = a.mean(axis=0) - b.mean(axis=0)
    t2 = float(n1 * n2 / (n1 + n2) * d @ np.linalg.inv(floor_covariance(pooled, floor)) @ d)
    df1, df2 = p, n1 + n2 - p - 1
    f = t2 * df2 / (p * (n1 + n2 - 2))
    return HotellingResult(
        t2=t2, f=float(f), p_value=float(scipy_stats().f.sf(f, df1, df2)), df1=df1, df2=df2
    )


def wilson_interval(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of the proportion ``successes / n``.

    Why Wilson: report proportions (win rates, fail rates over a handful of words) are often 0 or 1,
    where a bootstrap or the normal approximation collapses to a zero-width interval.  ``successes``
    may be fractional (ties shared); for whole counts the result equals
    ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")`` (tested).  ``(nan, nan)`` for n = 0.
    """
    if n <= 0:
        return float("nan"), float("nan")
    if not 0 <= successes <= n:
        raise ValueError(f"wilson_interval: successes {successes!r} outside 0..n = 0..{n}")
    z = float(scipy_stats().norm.ppf(0.5 + confidence / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * float(np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high
