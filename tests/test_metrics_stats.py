"""Mahalanobis and Hotelling against direct numpy/scipy computations, incl. singular human covariances."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps
from scipy.spatial.distance import mahalanobis as scipy_mahalanobis

from huesenv.board import cells_to_xy, parse_coord
from huesenv.metrics import hotelling_cloud, mahalanobis_top1
from huesenv.stats import (
    chi2_threshold,
    default_variance_floor,
    floor_covariance,
    hotelling_two_sample,
    loo_mahalanobis_d2,
    loo_mahalanobis_d2_naive,
    mahalanobis_d2,
)

HUMANS = np.array([[0.30, 0.40], [0.32, 0.41], [0.31, 0.45], [0.28, 0.39], [0.35, 0.44], [0.29, 0.43]])
TINY = 1e-12  # a floor far below these points' variances: the raw sample covariance is used


def test_floor_value_and_untouched_spread():
    assert default_variance_floor() == pytest.approx(2.06e-5, rel=0.02)
    cov = np.cov(HUMANS, rowvar=False)
    assert np.allclose(floor_covariance(cov), cov)  # eigenvalues above the floor stay as they are
    assert np.allclose(floor_covariance(np.zeros((2, 2)), 0.5), 0.5 * np.eye(2))


def test_mahalanobis_matches_scipy():
    point = np.array([0.40, 0.30])
    cov = np.cov(HUMANS, rowvar=False)
    expected = scipy_mahalanobis(point, HUMANS.mean(axis=0), np.linalg.inv(cov)) ** 2
    assert mahalanobis_d2(point, HUMANS.mean(axis=0), cov, floor=TINY)[0] == pytest.approx(expected, rel=1e-9)
    result = mahalanobis_top1(point, HUMANS, alpha=0.05, floor=TINY)
    assert result.d2 == pytest.approx(expected, rel=1e-9)
    assert result.threshold == pytest.approx(sps.chi2.ppf(0.95, 2)) == pytest.approx(5.991, abs=1e-3)
    assert result.outlier == (expected > 5.991)
    inside = mahalanobis_top1(HUMANS.mean(axis=0), HUMANS, floor=TINY)
    assert inside.d2 == pytest.approx(0.0, abs=1e-12) and not inside.outlier


def test_chi2_threshold_is_scipy():
    for alpha in (0.01, 0.05, 0.1):
        assert chi2_threshold(alpha) == pytest.approx(sps.chi2.ppf(1 - alpha, 2))
    with pytest.raises(ValueError):
        chi2_threshold(1.5)


def test_singular_human_covariance_all_on_one_cell():
    """Every human chose the same cell: the covariance is 0, floored to f·I, so D² = |d|²/f."""
    human = cells_to_xy([parse_coord("I4")] * 12)
    point = cells_to_xy([parse_coord("I5")])[0]
    f = default_variance_floor()
    expected = float(np.sum((point - human[0]) ** 2) / f)
    result = mahalanobis_top1(point, human)
    assert np.isfinite(result.d2) and result.d2 == pytest.approx(expected, rel=1e-9)
    assert not result.outlier  # a neighbouring cell of a unanimous answer is within the floor's spread
    assert mahalanobis_top1(cells_to_xy([parse_coord("K10")])[0], human).outlier  # a distant one is not
    assert mahalanobis_top1(human[0], human).d2 == pytest.approx(0.0, abs=1e-9)


def test_singular_human_covariance_on_a_line():
    """Answers on two cells: rank-1 covariance s·vvᵀ; floored it is s·vvᵀ + f·wwᵀ with w ⟂ v."""
    a, b = cells_to_xy([parse_coord("I4"), parse_coord("I10")])
    human = np.array([a] * 5 + [b] * 5)
    f = default_variance_floor()
    v = (b - a) / np.linalg.norm(b - a)
    w = np.array([-v[1], v[0]])
    s = np.var(human @ v, ddof=1)
    assert s > f
    cov_expected = s * np.outer(v, v) + f * np.outer(w, w)
    point = human.mean(axis=0) + 0.01 * v + 0.002 * w
    d = point - human.mean(axis=0)
    expected = d @ np.linalg.inv(cov_expected) @ d
    assert np.linalg.matrix_rank(np.cov(human, rowvar=False)) == 1
    assert mahalanobis_top1(point, human).d2 == pytest.approx(expected, rel=1e-9)
    assert (0.01**2 / s + 0.002**2 / f) == pytest.approx(expected, rel=1e-9)


def _direct_hotelling(a, b, floor=None):
    n1, n2, p = len(a), len(b), 2
    s1 = np.cov(a, rowvar=False, ddof=1) if n1 > 1 else np.zeros((2, 2))
    s2 = np.cov(b, rowvar=False, ddof=1)
    pooled = ((n1 - 1) * s1 + (n2 - 1) * s2) / (n1 + n2 - 2)
    if floor is not None:  # raise each eigenvalue to the floor
        vals, vecs = np.linalg.eigh(pooled)
        pooled = vecs @ np.diag(np.maximum(vals, floor)) @ vecs.T
    d = a.mean(axis=0) - b.mean(axis=0)
    t2 = n1 * n2 / (n1 + n2) * d @ np.linalg.solve(pooled, d)
    f = (n1 + n2 - p - 1) / (p * (n1 + n2 - 2)) * t2
    return t2, sps.f.sf(f, p, n1 + n2 - p - 1)


def test_hotelling_matches_direct_formula():
    agent = np.array([[0.36, 0.35], [0.38, 0.36], [0.35, 0.33], [0.37, 0.37], [0.40, 0.34]])
    t2, p = _direct_hotelling(agent, HUMANS)
    result = hotelling_two_sample(agent, HUMANS, floor=TINY)
    assert result.t2 == pytest.approx(t2, rel=1e-9) and result.p_value == pytest.approx(p, rel=1e-9)
    assert (result.df1, result.df2) == (2, len(agent) + len(HUMANS) - 3)
    cloud = hotelling_cloud(agent, HUMANS, alpha=0.05, floor=TINY)
    assert cloud.fail == (p < 0.05)
    same = hotelling_cloud(HUMANS, HUMANS, floor=TINY)
    assert same.t2 == pytest.approx(0.0, abs=1e-12) and same.p_value == pytest.approx(1.0) and not same.fail


def test_hotelling_k_larger_than_distinct_cells():
    """Top-5 asked, but the agent repeats one cell (or gave 3): agent covariance 0, floor keeps it finite."""
    human = cells_to_xy([parse_coord(c) for c in ["I4", "I5", "J4", "J5", "I4", "H4", "I3", "I4"]])
    f = default_variance_floor()
    repeated = cells_to_xy([parse_coord("K10")] * 5)
    t2, p = _direct_hotelling(repeated, human, floor=f)
    result = hotelling_cloud(repeated, human)
    assert (
        np.isfinite(result.t2)
        and result.t2 == pytest.approx(t2, rel=1e-9)
        and result.p_value == pytest.approx(p, rel=1e-6)
    )
    assert result.fail
    three = cells_to_xy([parse_coord(c) for c in ["I4", "I5", "J4"]])
    t2, p = _direct_hotelling(three, human, floor=f)
    result = hotelling_cloud(three, human)
    assert (
        result.n_agent == 3
        and result.t2 == pytest.approx(t2, rel=1e-9)
        and result.p_value == pytest.approx(p, rel=1e-6)
    )
    single = hotelling_cloud(cells_to_xy([parse_coord("I4")]), human)  # k = 1 still defined (n1 + n2 > 3)
    assert np.isfinite(single.p_value)


def test_hotelling_both_samples_unanimous():
    a = cells_to_xy([parse_coord("A1")] * 5)
    b = cells_to_xy([parse_coord("A2")] * 7)
    f = default_variance_floor()
    d = a[0] - b[0]
    expected = 5 * 7 / 12 * d @ d / f
    assert hotelling_cloud(a, b).t2 == pytest.approx(expected, rel=1e-9)


def test_hotelling_too_few_points():
    with pytest.raises(ValueError, match="n1 \\+ n2 > p \\+ 1"):
        hotelling_two_sample(np.zeros((1, 2)), np.zeros((2, 2)))


def test_loo_closed_form_matches_refits():
    rng = np.random.default_rng(0)
    pts = rng.normal([0.3, 0.4], 0.02, size=(25, 2))
    pts[:5] = pts[0]  # some repeated answers
    assert np.allclose(loo_mahalanobis_d2(pts), loo_mahalanobis_d2_naive(pts), rtol=1e-8)


def test_when_the_floor_binds_on_the_packaged_cohort():
    """The stats docstring's claim: only GOLD (all its LOO fits), POND (1) and COOKIE MONSTER (3) reach the floor."""
    from huesenv.humans import load_humans
    from huesenv.humans.consistency import word_consistency

    humans = load_humans()
    floor = default_variance_floor()
    floored = {}
    for word in humans.words:
        x = humans.xy(word)
        n, u = len(x), x - x.mean(axis=0)
        loo = (u.T @ u - (n / (n - 1)) * np.einsum("ni,nj->nij", u, u)) / (n - 2)
        k = int((np.linalg.eigvalsh(loo)[:, 0] < floor).sum())
        if k:
            floored[word] = k
        else:  # never reaching the floor: identical to the unfloored computation
            assert word_consistency(x) == word_consistency(x, floor=TINY), word
    assert floored == {"GOLD": 42, "POND": 1, "COOKIE MONSTER": 3}
    gold = humans.xy("GOLD")
    assert len(gold) == 42 and np.linalg.eigvalsh(np.cov(gold, rowvar=False))[0] < floor
    assert word_consistency(gold) == pytest.approx(39 / 42) and word_consistency(
        gold, floor=TINY
    ) == pytest.approx(38 / 42)


def test_loo_batched_equals_one_set_at_a_time():
    rng = np.random.default_rng(4)
    sets = rng.normal(0.3, 0.02, size=(5, 12, 2))
    sets[2] = sets[2, :1]  # a degenerate set (all on one point): floored like the unbatched call
    batched = loo_mahalanobis_d2(sets)
    assert batched.shape == (5, 12)
    for i in range(5):
        np.testing.assert_allclose(batched[i], loo_mahalanobis_d2(sets[i]), rtol=1e-12, atol=1e-12)
