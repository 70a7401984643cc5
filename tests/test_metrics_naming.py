"""The information-bottleneck analysis of colour naming (huesenv.metrics.naming).

Cases with known answers (a one-word system, singletons, deterministic
partitions, the β limits, a frontier that only rises), the cache treated as
data, and a second implementation written here from the definitions (joint
tables and entropies; a plain IB solver from random starts) to compare against.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import entropy

from huesenv.board import load_board
from huesenv.metrics import naming as ib

N_SMALL = 48


@pytest.fixture(scope="module")
def small() -> ib.IBModel:
    """48 board cells spread over the board (every 10th cell), their own universe: fast to anneal."""
    lab = load_board().lab[::10][:N_SMALL]
    return ib.ib_model(lab, sigma2=64.0)


@pytest.fixture(scope="module")
def small_frontier(small) -> ib.Frontier:
    return ib.frontier(small, ib.default_betas(60, 2.0**10), cache_dir=False)


# -- a second implementation, from the definitions ------------------------------------------------------------------
def ref_bits(model: ib.IBModel, q: np.ndarray) -> tuple[float, float]:
    """I(M;W) and I(W;U) from the full joint p(m, w, u) = p(m) q(w|m) m(u), via H(X) + H(Y) - H(X, Y)."""
    joint = model.need[:, None, None] * q[:, :, None] * model.meanings[:, None, :]  # (M, W, U)
    pmw, pwu = joint.sum(2), joint.sum(0)

    def mi(table: np.ndarray) -> float:
        h = lambda p: entropy(p.ravel(), base=2)  # noqa: E731
        return h(table.sum(1)) + h(table.sum(0)) - h(table)

    return mi(pmw), mi(pwu)


def ref_ib_solve(model: ib.IBModel, beta: float, k: int, seed: int, iters: int = 150) -> float:
    """The IB self-consistent equations written again (per word, KL term by term), from a random soft start."""
    rng = np.random.default_rng(seed)
    q = rng.dirichlet(np.ones(k), size=model.n_meanings)
    m = model.meanings
    for _ in range(iters):
        pw = model.need @ q
        mhat = np.stack([(model.need * q[:, j]) @ m / max(pw[j], 1e-300) for j in range(k)])
        ratio = np.log(np.maximum(m[:, None, :], 1e-300)) - np.log(np.maximum(mhat[None, :, :], 1e-300))
        kl = (m[:, None, :] * ratio).sum(-1)  # (M, k) nats
        logits = np.log(np.maximum(pw, 1e-300))[None, :] - beta * kl
        logits -= logits.max(1, keepdims=True)
        q = np.exp(logits)
        q /= q.sum(1, keepdims=True)
    c, a = ref_bits(model, q)
    return c - beta * a


def partition(n: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    labels = np.concatenate([np.arange(k), rng.integers(0, k, size=n - k)])
    return rng.permutation(labels)


# -- known answers --------------------------------------------------------------------------------------------------
def test_one_word_system_costs_nothing_and_says_nothing(small):
    q = np.ones((small.n_meanings, 1))
    assert ib.complexity(small, q) == pytest.approx(0.0, abs=1e-12)
    assert ib.accuracy(small, q) == pytest.approx(0.0, abs=1e-12)


def test_singletons_cost_h_m_and_reach_i_mu(small):
    q = np.eye(small.n_meanings)
    assert ib.complexity(small, q) == pytest.approx(np.log2(small.n_meanings), rel=1e-12)
    assert ib.complexity(small, q) == pytest.approx(small.h_m, rel=1e-12)
    c, a = ref_bits(small, q)
    assert ib.accuracy(small, q) == pytest.approx(a, rel=1e-9)
    assert small.i_mu == pytest.approx(a, rel=1e-9)


def test_singletons_under_a_skewed_need_cost_its_entropy():
    lab = load_board().lab[::12][:30]
    need = np.arange(1, 31, dtype=float)
    model = ib.ib_model(lab, need=need)
    assert ib.complexity(model, np.eye(30)) == pytest.approx(entropy(need, base=2), rel=1e-12)


@pytest.mark.parametrize("k", [2, 3, 7, 16])
def test_deterministic_partition_complexity_is_the_entropy_of_its_parts(small, k):
    labels = partition(small.n_meanings, k, seed=k)
    q, words = ib.encoder_from_labels(labels)
    assert len(words) == k
    sizes = np.bincount(labels, minlength=k)
    assert ib.complexity(small, q) == pytest.approx(entropy(sizes, base=2), rel=1e-12)
    c, a = ref_bits(small, q)
    assert ib.complexity(small, q) == pytest.approx(c, rel=1e-9)
    assert ib.accuracy(small, q) == pytest.approx(a, rel=1e-9)
    assert 0 < ib.accuracy(small, q) < small.i_mu


def test_soft_encoders_match_the_second_implementation(small):
    rng = np.random.default_rng(3)
    for k in (2, 5, 11):
        q = rng.dirichlet(np.full(k, 0.3), size=small.n_meanings)
        c, a = ref_bits(small, q)
        assert ib.complexity(small, q) == pytest.approx(c, rel=1e-9, abs=1e-12)
        assert ib.accuracy(small, q) == pytest.approx(a, rel=1e-9, abs=1e-12)
        assert ib.accuracy(small, q) <= ib.complexity(small, q) + 1e-12  # data processing inequality


def test_relabelling_and_duplicating_words_changes_nothing(small):
    labels = partition(small.n_meanings, 5, seed=1)
    q, _ = ib.encoder_from_labels(labels)
    perm = q[:, [3, 1, 4, 0, 2]]
    split = np.concatenate([q[:, :1] * 0.25, q[:, :1] * 0.75, q[:, 1:]], axis=1)  # one word said two ways
    for other in (perm, split):
        assert ib.complexity(small, other) == pytest.approx(ib.complexity(small, q), rel=1e-12)
        assert ib.accuracy(small, other) == pytest.approx(ib.accuracy(small, q), rel=1e-12)
    assert ib.merge_words(small, split).shape[1] == 5


def test_gnid_known_values(small):
    q, _ = ib.encoder_from_labels(partition(small.n_meanings, 6, seed=2))
    assert ib.gnid(small, q, q) == pytest.approx(0.0, abs=1e-12)
    assert ib.gnid(small, q, q[:, ::-1]) == pytest.approx(0.0, abs=1e-12)  # names do not matter
    assert ib.gnid(small, q, np.ones((small.n_meanings, 1))) == pytest.approx(1.0)
    other, _ = ib.encoder_from_labels(partition(small.n_meanings, 6, seed=9))
    # against the same quantity from contingency tables (I(W1;W2) of deterministic systems)
    joint = small.need[:, None, None] * q[:, :, None] * other[:, None, :]
    t = joint.sum(0)
    mi = entropy(t.sum(1), base=2) + entropy(t.sum(0), base=2) - entropy(t.ravel(), base=2)
    h = max(entropy(t.sum(1), base=2), entropy(t.sum(0), base=2))
    assert ib.gnid(small, q, other) == pytest.approx(1 - mi / h, rel=1e-9)


# -- the frontier ---------------------------------------------------------------------------------------------------
def test_beta_limits(small, small_frontier):
    f = small_frontier
    # β → large: the identity encoder, every meaning its own word
    assert f.complexity[0] == pytest.approx(small.h_m, abs=1e-3)
    assert f.accuracy[0] == pytest.approx(small.i_mu, abs=1e-3)
    # β = 1: nothing is worth saying (F = I(M;W) - I(W;U) ≥ 0, 0 for one word)
    assert f.betas[-1] == pytest.approx(1.0)
    assert f.complexity[-1] == pytest.approx(0.0, abs=1e-3)
    assert f.encoders[-1].shape[1] == 1


def test_frontier_is_monotone_and_bounds_every_system(small, small_frontier):
    f = small_frontier
    # β descending → complexity and accuracy descending (the curve only rises with complexity)
    assert (np.diff(f.complexity) <= 1e-6).all()
    assert (np.diff(f.accuracy) <= 1e-6).all()
    # every point of the frontier satisfies accuracy ≤ complexity and ≤ I(M;U)
    assert (f.accuracy <= f.complexity + 1e-9).all() and (f.accuracy <= small.i_mu + 1e-9).all()
    rng = np.random.default_rng(0)
    for k in (2, 4, 8, 16):
        q, _ = ib.encoder_from_labels(partition(small.n_meanings, k, seed=int(rng.integers(1000))))
        eff = ib.efficiency(small, q, f)
        assert eff.accuracy_bits <= eff.frontier_accuracy_bits + 1e-3
        assert eff.efficiency_loss > 0.01  # random partitions of colour space are inefficient
        assert 0 < eff.gnid <= 1


def test_frontier_systems_are_efficient(small, small_frontier):
    """Encoders of one annealing run, scored against a frontier annealed on another β grid: near zero
    loss (against their own frontier the loss would be zero by construction)."""
    f = small_frontier
    other = ib.frontier(small, ib.default_betas(47, 2.0**9), cache_dir=False)
    for i in (5, 20, 40):
        eff = ib.efficiency(small, f.encoders[i], other)
        assert eff.efficiency_loss == pytest.approx(0.0, abs=0.02)
        assert eff.gnid < 0.1


def test_frontier_beats_an_independent_solver(small, small_frontier):
    """F*_β of the annealed frontier is no worse than a plain IB solver from random starts."""
    for beta, k in ((1.5, 4), (4.0, 8), (16.0, 16)):
        best = min(ref_ib_solve(small, beta, k, seed) for seed in range(3))
        assert small_frontier.optimal_objective(beta)[0] <= best + 1e-3


def test_kmeans_in_cielab_is_closer_to_the_frontier_than_scattered_words(small, small_frontier):
    from scipy.cluster.vq import kmeans2

    lab = load_board().lab[::10][:N_SMALL]
    _, labels = kmeans2(np.asarray(lab, float), 6, seed=0, minit="++")
    eff_k = ib.efficiency(small, ib.encoder_from_labels(labels)[0], small_frontier)
    eff_r = ib.efficiency(small, ib.encoder_from_labels(partition(N_SMALL, 6, seed=5))[0], small_frontier)
    assert eff_k.efficiency_loss < eff_r.efficiency_loss


# -- cache as data --------------------------------------------------------------------------------------------------
def test_disk_cache_round_trip_and_bad_files_are_recomputed(tmp_path, small):
    betas = ib.default_betas(12, 64.0)
    ib._MEMORY.clear()
    first = ib.frontier(small, betas, cache_dir=tmp_path)
    files = list(tmp_path.glob("frontier-*.npz"))
    assert len(files) == 1
    ib._MEMORY.clear()
    again = ib.frontier(small, betas, cache_dir=tmp_path)
    np.testing.assert_allclose(again.accuracy, first.accuracy)
    # another σ² is another key
    other = ib.ib_model(load_board().lab[::10][:N_SMALL], sigma2=100.0)
    ib.frontier(other, betas, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("frontier-*.npz"))) == 2
    # a tampered file: validated, warned about, recomputed, rewritten
    with np.load(files[0]) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["columns"] = arrays["columns"] * 2
    with open(files[0], "wb") as fh:
        np.savez(fh, **arrays)
    ib._MEMORY.clear()
    with pytest.warns(UserWarning, match="encoder 0"):
        fixed = ib.frontier(small, betas, cache_dir=tmp_path)
    np.testing.assert_allclose(fixed.accuracy, first.accuracy)
    files[0].write_bytes(b"not a zip")
    ib._MEMORY.clear()
    with pytest.warns(UserWarning, match="not a readable npz"):
        ib.frontier(small, betas, cache_dir=tmp_path)
    ib._MEMORY.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ib.frontier(small, betas, cache_dir=tmp_path)  # rewritten: loads cleanly


def test_cache_with_pickled_objects_is_refused(tmp_path, small):
    path = tmp_path / "x.npz"
    np.savez(path, key=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match="not a readable npz|expected arrays"):
        ib.load_cached_frontier(path, "k", small.n_meanings)


# -- inputs ---------------------------------------------------------------------------------------------------------
def test_bad_inputs_are_named(small):
    with pytest.raises(ValueError, match="sigma2"):
        ib.ib_model(load_board().lab[:5], sigma2=0)
    with pytest.raises(ValueError, match="need"):
        ib.ib_model(load_board().lab[:5], need=np.ones(4))
    with pytest.raises(ValueError, match="row 0 sums"):
        ib.check_encoder(small, np.zeros((small.n_meanings, 2)))
    with pytest.raises(ValueError, match="shape"):
        ib.check_encoder(small, np.ones((3, 1)))
    assert ib.need_from_counts(np.array([0, 1, 3]), smoothing=1.0) == pytest.approx([1 / 7, 2 / 7, 4 / 7])


def test_full_board_model():
    model = ib.ib_model()
    assert model.n_meanings == 480
    assert model.h_m == pytest.approx(np.log2(480))
    np.testing.assert_allclose(model.meanings.sum(1), 1.0)
    q, _ = ib.encoder_from_labels(load_board().categories)
    c, a = ib.complexity(model, q), ib.accuracy(model, q)
    assert 2.0 < c < 3.0 and 1.5 < a < c  # the hand computation: 2.78 / 2.23 bits
