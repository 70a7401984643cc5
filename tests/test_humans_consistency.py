"""Human Consistency: closed-form LOO against the naive refit, degenerate answer sets, aggregation."""

import numpy as np
import pandas as pd
import pytest

from huesenv.board import load_board, parse_coord
from huesenv.humans import (
    consistency_by_category,
    consistency_table,
    load_humans,
    loo_outliers,
    word_consistency,
)
from huesenv.stats import chi2_threshold, loo_mahalanobis_d2, loo_mahalanobis_d2_naive

XY = load_board().xy


def _cells(*coords):
    return np.array([parse_coord(c) for c in coords])


@pytest.mark.parametrize("n", [3, 4, 10, 47, 200])
def test_closed_form_matches_naive_refit_on_random_answers(n):
    rng = np.random.default_rng(n)
    points = XY[rng.integers(0, 480, size=n)]
    fast, slow = loo_mahalanobis_d2(points), loo_mahalanobis_d2_naive(points)
    np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-9)


def test_closed_form_matches_naive_on_a_tight_cluster_with_outliers():
    rng = np.random.default_rng(7)
    centre = parse_coord("I18")
    cells = np.concatenate(
        [np.full(30, centre), centre + rng.integers(-2, 3, size=15), rng.integers(0, 480, 5)]
    )
    points = XY[np.clip(cells, 0, 479)]
    fast, slow = loo_mahalanobis_d2(points), loo_mahalanobis_d2_naive(points)
    np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-9)
    assert loo_outliers(points).any()


DEGENERATE = {
    "one cell": _cells(*["P10"] * 25),
    "two cells": _cells(*(["A13"] * 12 + ["A14"] * 9)),
    "two cells, one answer apart": _cells(*(["E6"] * 20 + ["K20"])),
    "collinear row": _cells("H3", "H4", "H5", "H6", "H7", "H8", "H5", "H5"),
    "collinear column": _cells("B9", "C9", "D9", "E9", "B9"),
    "three answers": _cells("A1", "A1", "A2"),
    "three identical": _cells("I18", "I18", "I18"),
}


@pytest.mark.parametrize("name", list(DEGENERATE))
def test_degenerate_sets_are_finite_and_match_the_naive_refit(name):
    points = XY[DEGENERATE[name]]
    fast, slow = loo_mahalanobis_d2(points), loo_mahalanobis_d2_naive(points)
    assert np.all(np.isfinite(fast)), fast
    np.testing.assert_allclose(fast, slow, rtol=1e-9, atol=1e-9)
    c = word_consistency(points)
    assert 0.0 <= c <= 1.0 and not np.isnan(c)


def test_all_answers_on_one_cell_are_fully_consistent():
    assert word_consistency(XY[DEGENERATE["one cell"]]) == 1.0


def test_lone_far_answer_is_flagged():
    points = XY[DEGENERATE["two cells, one answer apart"]]
    flags = loo_outliers(points)
    assert flags[-1] and not flags[:-1].any()
    assert word_consistency(points) == pytest.approx(20 / 21)


def test_fewer_than_three_answers_give_nan_not_a_crash():
    assert np.isnan(word_consistency(XY[_cells("A1", "A2")]))
    assert np.isnan(word_consistency(np.empty((0, 2))))


def test_alpha_changes_the_threshold():
    rng = np.random.default_rng(3)
    points = XY[rng.integers(0, 480, size=60)]
    d2 = loo_mahalanobis_d2(points)
    assert word_consistency(points, alpha=0.05) == pytest.approx(np.mean(d2 <= chi2_threshold(0.05)))
    assert word_consistency(points, alpha=0.5) <= word_consistency(points, alpha=0.01)


def _export(tmp_path, rows):
    header = "userId,timestamp,clueCategory,clueId,word,coordinate,language,gender,ageRange,colorBlind\n"
    body = "".join(
        f"u{i},2025-01-01T00:00:00Z,,,{w},{c},es,male,20-29,false\n" for i, (w, c) in enumerate(rows)
    )
    path = tmp_path / "small.csv"
    path.write_text(header + body)
    return path


def test_table_and_pooled_aggregation(tmp_path):
    rows = [("APPLE", c) for c in ["A13"] * 6 + ["A12", "B13", "A14", "P30"]]
    rows += [("SKY", c) for c in ["K24"] * 5 + ["K25", "L24", "J24"]]
    rows += [("RAGE", "A13"), ("RAGE", "A12")]
    humans = load_humans(_export(tmp_path, rows))
    table = consistency_table(humans).set_index("word")
    assert list(table.columns) == [
        "category",
        "n",
        "mode_coord",
        "mode_category",
        "consistency",
        "fail_rate",
        "n_outliers",
        "implied_false_alarm",
        "fail_rate_calibrated",
    ]
    apple = table.loc["APPLE"]
    assert (apple["n"], apple["mode_coord"], apple["mode_category"]) == (10, "A13", "Red")
    expected = word_consistency(humans.xy("APPLE"))
    assert apple["consistency"] == pytest.approx(expected)
    assert apple["fail_rate"] == pytest.approx(1 - expected)
    assert apple["n_outliers"] >= 1  # P30 is far from the red cluster
    assert np.isnan(table.loc["RAGE", "consistency"]) and pd.isna(table.loc["RAGE", "n_outliers"])
    by_cat = consistency_by_category(table.reset_index()).set_index("category")
    pooled = 1 - (table.loc["APPLE", "n_outliers"] + table.loc["SKY", "n_outliers"]) / 18
    assert by_cat.loc["All", "n"] == 18 and by_cat.loc["All", "consistency"] == pytest.approx(pooled)
    assert by_cat.loc["Food", "words"] == 1


def test_packaged_cohort_table_has_every_word():
    table = consistency_table(load_humans())
    assert len(table) == 100 and table["consistency"].notna().all()
    assert isinstance(table, pd.DataFrame) and (table["n"] >= 20).all()


@pytest.mark.parametrize("n, paper", [(20, 0.096), (40, 0.071), (90, 0.058)])
def test_loo_chi2_false_alarm_exact_matches_simulation(n, paper):
    """The χ²₂ 5 % LOO test on exactly normal answers flags more than 5 % at small n (issue 22's figures)."""
    from huesenv.stats import loo_false_alarm, loo_mahalanobis_d2, loo_threshold

    rng = np.random.default_rng(7)
    reps = 4000
    pts = rng.normal(size=(reps, n, 2)) * 0.05  # far above the covariance floor
    d2 = np.stack([loo_mahalanobis_d2(p) for p in pts])
    simulated = float((d2 > loo_threshold(n)).mean())
    exact = loo_false_alarm(n)
    se = np.sqrt(exact * (1 - exact) / (reps * n)) * 3  # answers of one word are correlated: generous
    assert abs(simulated - exact) < max(se * 3, 0.004)
    assert abs(exact - paper) < 0.003
    calibrated = float((d2 > loo_threshold(n, calibrated=True)).mean())
    assert abs(calibrated - 0.05) < max(se * 3, 0.004)
    assert loo_false_alarm(n, calibrated=True) == 0.05


def test_consistency_table_reports_implied_false_alarm_and_calibrated_option():
    from huesenv.stats import loo_false_alarm

    humans = load_humans()
    table = consistency_table(humans).set_index("word")
    for word in ("SUMMER", "GOLD"):
        assert table.loc[word, "implied_false_alarm"] == pytest.approx(loo_false_alarm(table.loc[word, "n"]))
    assert (table["fail_rate_calibrated"] <= table["fail_rate"] + 1e-12).all()
    cal = consistency_table(humans, calibrated=True).set_index("word")
    assert np.allclose(cal["fail_rate"], table["fail_rate_calibrated"])
    pooled = consistency_by_category(table.reset_index()).set_index("category")
    assert 0.05 < pooled.loc["All", "implied_false_alarm"] < pooled.loc["All", "fail_rate"]
