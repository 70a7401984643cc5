"""Emergent-lexicon metrics on synthetic lexicons with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from huesenv.board import N_CELLS
from huesenv.experiments.rl.lexicon import (
    adjusted_rand_index,
    best_relabelling_fail_rate,
    fail_matrix,
    human_naming_map,
    lexicon_metrics,
    normalised_mutual_information,
    permutation_null,
)
from huesenv.humans import load_humans
from huesenv.vocabulary import word_texts


@pytest.fixture(scope="module")
def humans():
    return load_humans()


def test_partition_scores_ignore_label_names():
    a = np.repeat(np.arange(4), 10)
    renamed = (a + 2) % 4
    assert adjusted_rand_index(a, renamed) == pytest.approx(1.0)
    assert normalised_mutual_information(a, renamed) == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    noise = rng.integers(4, size=4000)
    other = rng.integers(4, size=4000)
    assert abs(adjusted_rand_index(noise, other)) < 0.02
    assert normalised_mutual_information(noise, other) < 0.02
    assert normalised_mutual_information(a, np.zeros_like(a)) == 0.0


def test_fail_matrix_and_nulls():
    fails = np.array([[False, True, True], [True, False, True], [True, True, False]])
    top1 = np.array([0, 1, 2])
    assert fails[np.arange(3), top1].mean() == 0.0
    assert best_relabelling_fail_rate(fails, top1[[2, 0, 1]]) == 0.0  # a renaming recovers it
    null = permutation_null(fails, top1, np.random.default_rng(0), n=300)
    assert 0.5 < null.mean() < 0.8  # 1 - E[fixed points]/3 = 2/3


def test_human_modes_as_a_lexicon_are_human_like_and_shuffled_ones_are_not(humans):
    vocab = word_texts()
    naming = human_naming_map(humans, vocab)
    modes = np.array([humans.mode_cell(w) for w in vocab])
    probs = np.full((len(vocab), N_CELLS), 1e-6)
    probs[np.arange(len(vocab)), modes] = 1.0
    probs /= probs.sum(1, keepdims=True)
    good, tables = lexicon_metrics(naming, probs, vocab, humans, n_permutations=100)
    assert good["nmi_human_naming"] == pytest.approx(1.0)
    assert good["mahalanobis_fail_rate"] <= 0.1
    assert good["null_fail_rate_mean"] > 0.4 and good["p_value_below_null"] < 0.05
    assert good["colour_match_rate"] > 0.8
    assert set(tables["regions"]["region"]) <= {
        "Brown",
        "Red",
        "Orange",
        "Yellow",
        "Green",
        "Blue",
        "Purple",
        "Pink",
    }
    shuffled = probs[np.random.default_rng(1).permutation(len(vocab))]
    bad, _ = lexicon_metrics(naming, shuffled, vocab, humans, n_permutations=100)
    assert bad["mahalanobis_fail_rate"] > 0.4
    assert bad["best_relabelling_fail_rate"] <= 0.1  # the geometry is still human: only the names moved
    one_word = np.zeros(N_CELLS, dtype=np.int64)
    flat, _ = lexicon_metrics(one_word, probs, vocab, humans, n_permutations=10)
    assert flat["words_used"] == 1 and flat["effective_words"] == pytest.approx(1.0)
    assert flat["nmi_macro_colour"] == 0.0


def test_fail_matrix_matches_the_metrics_package(humans):
    from huesenv.board import load_board
    from huesenv.metrics import mahalanobis_top1

    word = word_texts()[0]
    fails = fail_matrix(humans, [word])
    xy = load_board().xy
    for cell in (0, 100, humans.mode_cell(word)):
        assert fails[0, cell] == mahalanobis_top1(xy[cell], humans.xy(word)).outlier


def test_ari_and_nmi_match_their_definitions_on_a_worked_example():
    """scikit-learn computes them; pin the definitions on a hand-checkable contingency table."""
    a = [0, 0, 0, 1, 1, 1]
    b = [0, 0, 1, 1, 2, 2]
    # contingency [[2,1,0],[0,1,2]]: sum C = 1+0+0+0+0+1 = 2; rows C(3,2)*2 = 6; cols C(2,2)*3 = 3; total C(6,2) = 15
    expected = 6 * 3 / 15
    assert adjusted_rand_index(a, b) == pytest.approx((2 - expected) / ((6 + 3) / 2 - expected))
    p = np.array([[2, 1, 0], [0, 1, 2]]) / 6
    pa, pb = p.sum(1), p.sum(0)
    nz = p > 0
    mi = (p[nz] * np.log(p[nz] / np.outer(pa, pb)[nz])).sum()
    h = lambda q: -(q[q > 0] * np.log(q[q > 0])).sum()  # noqa: E731
    assert normalised_mutual_information(a, b) == pytest.approx(mi / ((h(pa) + h(pb)) / 2))
    assert normalised_mutual_information([1, 1, 1], [1, 1, 1]) == 0.0  # constant: no information (documented)
