"""Efficient colour naming on the board: the information bottleneck of Zaslavsky, Kemp, Regier & Tishby (PNAS 2018).

A *naming system* is an encoder ``q(w | m)``: for each meaning ``m`` a speaker
wants to convey, a distribution over the words ``w`` it uses.  Here (as in the
paper, with the board in place of the World Color Survey chart):

* **Universe.**  The board's 480 cells ``u`` in CIELAB (D65; :attr:`huesenv.board.Board.lab`,
  colour-science).
* **Meanings.**  One per cell ``c``: an isotropic Gaussian in CIELAB,
  ``m_c(u) ∝ exp(-‖x_u - x_c‖² / (2σ²))`` normalised over the board's cells,
  ``σ² = 64`` by default (the paper's value; a parameter).
* **Need.**  ``p(m)``, uniform over the cells by default; :func:`need_from_counts`
  turns the cohort's answer counts per cell into one (see there for the smoothing).
* **Complexity** ``I(M; W)`` (bits): what the lexicon costs to learn/encode.
* **Accuracy** ``I(W; U)`` (bits): how well a listener who hears ``w`` and
  reconstructs ``m̂_w(u) = Σ_m q(m | w) m(u)`` recovers the colour.
  ``I(M; U) - I(W; U) = E[KL(m ‖ m̂_w)]``, the expected distortion.
* **Frontier.**  The IB optimum ``min_q F_β[q] = I(M; W) - β I(W; U)`` for
  each ``β ≥ 1``, found by the IB method (Tishby, Pereira & Bialek's
  self-consistent iterations) with *reverse deterministic annealing* as in the
  paper: start at a large ``β`` from the identity encoder (one word per cell),
  decrease ``β`` on a geometric grid, initialise each solution with the
  previous one, and merge words whose reconstructions have become equal
  (Hellinger² below :data:`MERGE_TOL`), so clusters split off as phase
  transitions going up and collapse going down.
* **Efficiency loss** ``ε_l = (1/β_l) (F_{β_l}[q_l] - F*_{β_l})`` with
  ``β_l = argmin_β (F_β[q_l] - F*_β)`` over the grid (the paper's eq. for
  ε); and **gNID** (the generalised normalised information distance of the
  paper's SI) between ``q_l`` and the frontier encoder at ``β_l``.

Choices documented:

* ``F*_β`` is the lower envelope ``min_j (C_j - β A_j)`` over *all* frontier
  points the annealing found, not only the one computed at ``β``: annealing can
  stop in a local optimum at some ``β``, and another point of the curve then
  bounds the optimum better.  It stays an upper bound of the true optimum, so ε
  is, if anything, an underestimate (and never negative).
* The frontier is computed once per (board CIELAB values, ``σ²``, need, β grid)
  and cached in memory and as an ``npz`` file (``allow_pickle=False``) under
  ``$HUESENV_CACHE/ib`` (default ``~/.cache/huesenv/ib``).  A cache file is data
  from disk: it is validated on load (its key, array names, shapes, dtypes,
  finiteness, encoders' rows summing to 1) and recomputed, with a warning, when
  it does not pass.

numpy/scipy only: the metrics layer never needs torch.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import logsumexp

from huesenv.board import load_board
from huesenv.trust import check_npz

DEFAULT_SIGMA2 = 64.0
MERGE_TOL = 1e-3  # Hellinger² between two words' reconstructions below which they are one word
PROB_FLOOR = 1e-300
CACHE_VERSION = "ib-frontier-v1"
_LOG2 = np.log(2.0)


# -- the model: universe, meanings, need ----------------------------------------------------------------------------
@dataclass(frozen=True)
class IBModel:
    """Meanings ``(M, U)`` (rows sum to 1), need ``p(m)`` ``(M,)``, and what the measures reuse."""

    meanings: np.ndarray
    need: np.ndarray
    sigma2: float
    need_name: str
    key: str

    @property
    def n_meanings(self) -> int:
        return int(self.meanings.shape[0])

    @property
    def p_u(self) -> np.ndarray:
        """The listener's prior over the universe, ``p(u) = Σ_m p(m) m(u)``."""
        return self.need @ self.meanings

    @property
    def h_m(self) -> float:
        """``H(M)`` in bits: the complexity of a lexicon of singletons."""
        p = self.need[self.need > 0]
        return float(-(p * np.log2(p)).sum())

    @property
    def i_mu(self) -> float:
        """``I(M; U)`` in bits: the accuracy of a lexicon of singletons, the ceiling of every lexicon."""
        return accuracy(self, np.eye(self.n_meanings))


def gaussian_meanings(lab: np.ndarray, sigma2: float = DEFAULT_SIGMA2) -> np.ndarray:
    """``(N, N)``: row ``c`` is ``m_c(u) ∝ exp(-‖x_u - x_c‖² / (2σ²))`` over the ``N`` points ``lab``."""
    if not np.isfinite(sigma2) or sigma2 <= 0:
        raise ValueError(f"sigma2: expected a positive number, got {sigma2!r}")
    x = np.asarray(lab, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != 3 or not np.isfinite(x).all():
        raise ValueError(f"lab: expected an (N, 3) array of finite CIELAB values, got shape {x.shape}")
    d2 = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    logits = -d2 / (2.0 * sigma2)
    return np.exp(logits - logsumexp(logits, axis=1, keepdims=True))


def need_from_counts(counts: np.ndarray, smoothing: float = 1.0) -> np.ndarray:
    """A need distribution from answer counts per cell: ``(count + smoothing) / Σ``.

    Choice documented: one pseudo-count per cell by default, so every cell can
    be talked about (a meaning of need 0 leaves its encoder row undefined and
    would drop it from the analysis)."""
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 1 or (c < 0).any() or not np.isfinite(c).all():
        raise ValueError("need counts: expected a 1-d array of non-negative finite counts")
    if smoothing < 0:
        raise ValueError(f"need smoothing: expected a non-negative number, got {smoothing!r}")
    total = c + smoothing
    if total.sum() <= 0:
        raise ValueError("need counts: all zero and no smoothing; expected some mass")
    return total / total.sum()


def ib_model(
    lab: np.ndarray | None = None,
    sigma2: float = DEFAULT_SIGMA2,
    need: np.ndarray | None = None,
    need_name: str | None = None,
) -> IBModel:
    """The IB model of the board (``lab=None``: the packaged board's CIELAB values) or of any points."""
    if lab is None:
        lab = load_board().lab
    x = np.asarray(lab, dtype=np.float64)
    meanings = gaussian_meanings(x, sigma2)
    n = len(x)
    if need is None:
        p = np.full(n, 1.0 / n)
        name = need_name or "uniform"
    else:
        p = np.asarray(need, dtype=np.float64)
        if p.shape != (n,) or (p < 0).any() or not np.isfinite(p).all() or p.sum() <= 0:
            raise ValueError(f"need: expected {n} non-negative finite weights, got shape {p.shape}")
        p = p / p.sum()
        name = need_name or "custom"
    digest = hashlib.sha256()
    for part in (CACHE_VERSION, np.round(x, 10).tobytes(), repr(float(sigma2)), np.round(p, 15).tobytes()):
        digest.update(part if isinstance(part, bytes) else part.encode())
    return IBModel(meanings, p, float(sigma2), name, digest.hexdigest()[:32])


# -- encoders ---------------------------------------------------------------------------------------------------------
def encoder_from_labels(labels: Sequence[Any] | np.ndarray) -> tuple[np.ndarray, tuple[Any, ...]]:
    """A deterministic naming (one label per cell) → its ``(M, W)`` encoder and the words in column order."""
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"labels: expected one label per meaning, got shape {arr.shape}")
    words, inverse = np.unique(arr, return_inverse=True)
    q = np.zeros((len(arr), len(words)))
    q[np.arange(len(arr)), inverse] = 1.0
    return q, tuple(w.item() if hasattr(w, "item") else w for w in words)


def check_encoder(model: IBModel, q: np.ndarray, source: str = "encoder") -> np.ndarray:
    """``q`` as float64 ``(M, W)`` with rows on the simplex, or ``ValueError`` naming ``source``."""
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 2 or q.shape[0] != model.n_meanings or q.shape[1] < 1:
        raise ValueError(f"{source}: expected an ({model.n_meanings}, W) encoder, got shape {q.shape}")
    if not np.isfinite(q).all() or (q < -1e-12).any():
        raise ValueError(f"{source}: expected non-negative finite probabilities")
    sums = q.sum(1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        bad = int(np.argmax(np.abs(sums - 1)))
        raise ValueError(f"{source}: row {bad} sums to {sums[bad]:.6g}, expected 1")
    return np.clip(q, 0.0, None)


def _xlogy_sum(p: np.ndarray, ratio: np.ndarray) -> float:
    nz = p > 0
    return float((p[nz] * np.log2(ratio[nz])).sum())


def complexity(model: IBModel, q: np.ndarray) -> float:
    """``I(M; W)`` in bits."""
    q = np.asarray(q, dtype=np.float64)
    pw = model.need @ q
    joint = model.need[:, None] * q
    return max(0.0, _xlogy_sum(joint, q / np.maximum(pw[None, :], PROB_FLOOR)))


def reconstructions(model: IBModel, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``p(w)`` ``(W,)`` and the listener's ``m̂_w(u)`` ``(W, U)`` (a word never used gets ``p(u)``)."""
    q = np.asarray(q, dtype=np.float64)
    pw = model.need @ q
    joint = model.need[:, None] * q  # p(m, w)
    mhat = joint.T @ model.meanings  # p(w, u)
    used = pw > 0
    mhat[used] /= pw[used, None]
    mhat[~used] = model.p_u
    return pw, mhat


def accuracy(model: IBModel, q: np.ndarray) -> float:
    """``I(W; U)`` in bits."""
    pw, mhat = reconstructions(model, q)
    joint = pw[:, None] * mhat
    return max(0.0, _xlogy_sum(joint, mhat / np.maximum(model.p_u[None, :], PROB_FLOOR)))


def objective(model: IBModel, q: np.ndarray, beta: float) -> float:
    """``F_β[q] = I(M; W) - β I(W; U)`` in bits."""
    return complexity(model, q) - beta * accuracy(model, q)


def gnid(model: IBModel, q1: np.ndarray, q2: np.ndarray) -> float:
    """Generalised normalised information distance between two encoders of the same meanings (paper's SI):
    ``1 - I(W1; W2) / max(I(W1; W1'), I(W2; W2'))``, where ``W1, W2`` are words two speakers say for the same
    meaning drawn from the need (and ``W1'`` a second, independent draw of speaker 1).  0 for the same system."""

    def mi(a: np.ndarray, b: np.ndarray) -> float:
        joint = (model.need[:, None] * a).T @ b
        pa, pb = joint.sum(1), joint.sum(0)
        return max(0.0, _xlogy_sum(joint, joint / np.maximum(np.outer(pa, pb), PROB_FLOOR)))

    q1, q2 = np.asarray(q1, dtype=np.float64), np.asarray(q2, dtype=np.float64)
    top = max(mi(q1, q1), mi(q2, q2))
    return 0.0 if top <= 0 else float(min(1.0, max(0.0, 1.0 - mi(q1, q2) / top)))


# -- the IB method with reverse deterministic annealing ---------------------------------------------------------------
def _neg_entropy_rows(m: np.ndarray) -> np.ndarray:
    return (m * np.log(np.maximum(m, PROB_FLOOR))).sum(1)


def ib_iterate(
    model: IBModel, q: np.ndarray, beta: float, *, tol: float = 1e-6, max_iter: int = 500
) -> np.ndarray:
    """Self-consistent IB updates at ``β`` from ``q`` until no ``q(w|m)`` moves by more than ``tol``.

    ``q(w|m) ∝ q(w) exp(-β KL(m ‖ m̂_w))``; ``q(w)`` and ``m̂_w`` from the current ``q``."""
    neg_h = _neg_entropy_rows(model.meanings)  # Σ_u m log m
    q = np.asarray(q, dtype=np.float64)
    for _ in range(max_iter):
        pw, mhat = reconstructions(model, q)
        keep = pw > 1e-14
        pw, mhat, q = pw[keep], mhat[keep], q[:, keep]
        kl = neg_h[:, None] - model.meanings @ np.log(np.maximum(mhat, PROB_FLOOR)).T  # (M, W) nats
        logits = np.log(pw)[None, :] - beta * kl
        new = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
        moved = float(np.abs(new - q).max())
        q = new
        if moved < tol:
            break
    return q


def merge_words(model: IBModel, q: np.ndarray, tol: float = MERGE_TOL) -> np.ndarray:
    """Merge words whose reconstructions are (nearly) the same and drop unused words.

    Words with equal ``q(m | w)`` carry no information apart, so merging them
    leaves complexity and accuracy unchanged; this is how deterministic
    annealing lets clusters collapse as ``β`` goes down."""
    pw, mhat = reconstructions(model, q)
    used = pw > 1e-14
    q, mhat = q[:, used], mhat[used]
    if q.shape[1] <= 1:
        return q
    root = np.sqrt(mhat)
    hell2 = 1.0 - np.clip(root @ root.T, 0.0, 1.0)
    n, labels = connected_components(csr_matrix(hell2 < tol), directed=False)
    if n == q.shape[1]:
        return q
    merged = np.zeros((q.shape[0], n))
    np.add.at(merged.T, labels, q.T)
    return merged


def default_betas(n: int = 50, beta_max: float = 2.0**7, n_low: int = 16) -> np.ndarray:
    """A descending geometric grid from ``beta_max`` to 1, with ``n_low`` more points evenly in [1, 1.3].

    Choices documented: the paper anneals over ``β ∈ [1, 2^13]``; on the board the solution at
    ``β = 2^7`` is already within ~0.5 bit of the identity (8.4 of 8.9 bits, far above every
    system analysed here), so the grid starts there: the annealing on 480 meanings is the costly
    part (one 480×480×W product per iteration) and it runs on two shared cores.  The frontier
    climbs from 0 to ~2.5 bits between ``β = 1`` and ``1.3`` (the systems of 2-8 words), where a
    geometric grid has few points, hence the extra ones."""
    if n < 2:
        raise ValueError(f"betas: expected at least 2 grid points, got {n}")
    grid = np.geomspace(beta_max, 1.0, int(n))
    if n_low > 0:
        grid = np.concatenate([grid, np.linspace(1.0, min(1.3, beta_max), int(n_low))])
    return np.unique(grid)[::-1].copy()


@dataclass
class Frontier:
    """IB-optimal systems along a descending ``β`` grid: their complexity, accuracy and encoders."""

    betas: np.ndarray
    complexity: np.ndarray
    accuracy: np.ndarray
    encoders: list[np.ndarray] = field(repr=False)
    key: str = ""

    def optimal_objective(self, beta: float | np.ndarray) -> np.ndarray:
        """``F*_β``: the lower envelope ``min_j (C_j - β A_j)`` over the frontier points (module docstring)."""
        b = np.atleast_1d(np.asarray(beta, dtype=np.float64))
        return (self.complexity[None, :] - b[:, None] * self.accuracy[None, :]).min(1)

    def accuracy_at(self, bits: float | np.ndarray) -> np.ndarray:
        """The frontier's accuracy at a complexity (linear interpolation of the curve sorted by complexity)."""
        order = np.argsort(self.complexity, kind="stable")
        c, a = self.complexity[order], np.maximum.accumulate(self.accuracy[order])
        return np.asarray(np.interp(bits, c, a))


def compute_frontier(
    model: IBModel, betas: np.ndarray | None = None, *, tol: float = 1e-4, max_iter: int = 50
) -> Frontier:
    """The IB frontier by reverse deterministic annealing over ``betas`` (sorted descending).

    At each ``β`` the one-word system (``F_β = 0``) replaces the annealed solution when that is worse:
    near ``β = 1`` the iterations slow down critically and would otherwise stop short of the collapse."""
    grid = np.sort(np.asarray(default_betas() if betas is None else betas, dtype=np.float64))[::-1]
    if (grid <= 0).any() or not np.isfinite(grid).all():
        raise ValueError("betas: expected positive finite values")
    q = np.eye(model.n_meanings)
    one_word = np.ones((model.n_meanings, 1))
    comp, acc, encoders = [], [], []
    for beta in grid:
        q = merge_words(model, ib_iterate(model, q, float(beta), tol=tol, max_iter=max_iter))
        if objective(model, q, float(beta)) > 0.0:  # the one-word system (F = 0) is better: take it
            q = one_word
        comp.append(complexity(model, q))
        acc.append(accuracy(model, q))
        encoders.append(q.copy())
    return Frontier(grid, np.asarray(comp), np.asarray(acc), encoders, model.key)


# -- cache ------------------------------------------------------------------------------------------------------------
_MEMORY: dict[str, Frontier] = {}
_CACHE_ARRAYS = {"key", "betas", "complexity", "accuracy", "offsets", "columns"}


def default_cache_dir() -> Path:
    env = os.environ.get("HUESENV_CACHE")
    return (Path(env) if env else Path.home() / ".cache" / "huesenv") / "ib"


def _grid_key(model: IBModel, grid: np.ndarray) -> str:
    digest = hashlib.sha256((model.key + repr(np.round(grid, 12).tolist())).encode()).hexdigest()[:32]
    return f"{model.key}-{digest}"


def _save(path: Path, key: str, frontier: Frontier) -> None:
    widths = [e.shape[1] for e in frontier.encoders]
    arrays = {
        "key": np.asarray(key),
        "betas": frontier.betas,
        "complexity": frontier.complexity,
        "accuracy": frontier.accuracy,
        "offsets": np.concatenate([[0], np.cumsum(widths)]).astype(np.int64),
        "columns": np.concatenate(frontier.encoders, axis=1).astype(np.float32),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    try:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def load_cached_frontier(path: Path, key: str, n_meanings: int) -> Frontier:
    """A cached frontier after validation; ``ValueError`` saying what is wrong with the file."""
    check_npz(path)
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays: Mapping[str, np.ndarray] = {k: npz[k] for k in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as err:
        raise ValueError(f"{path}: not a readable npz cache ({err})") from None
    if set(arrays) != _CACHE_ARRAYS:
        raise ValueError(f"{path}: expected arrays {sorted(_CACHE_ARRAYS)}, got {sorted(arrays)}")
    if arrays["key"].dtype.kind != "U" or str(arrays["key"]) != key:
        raise ValueError(f"{path}: cache key does not match this board, σ², need and β grid")
    betas, comp, acc = (np.asarray(arrays[k]) for k in ("betas", "complexity", "accuracy"))
    offsets, cols = np.asarray(arrays["offsets"]), np.asarray(arrays["columns"])
    n = len(betas)
    for name, arr in (("betas", betas), ("complexity", comp), ("accuracy", acc)):
        if arr.dtype.kind != "f" or arr.shape != (n,) or not np.isfinite(arr).all():
            raise ValueError(f"{path}: {name}: expected {n} finite floats")
    if (betas <= 0).any() or (np.diff(betas) >= 0).any():
        raise ValueError(f"{path}: betas: expected positive and strictly descending")
    if (comp < 0).any() or (acc < 0).any():
        raise ValueError(f"{path}: complexity/accuracy: expected non-negative bits")
    if cols.dtype.kind != "f" or cols.ndim != 2 or cols.shape[0] != n_meanings or not np.isfinite(cols).all():
        raise ValueError(f"{path}: columns: expected a finite ({n_meanings}, K) float array")
    if (
        offsets.dtype.kind != "i"
        or offsets.shape != (n + 1,)
        or offsets[0] != 0
        or offsets[-1] != cols.shape[1]
        or (np.diff(offsets) < 1).any()
    ):
        raise ValueError(
            f"{path}: offsets: expected {n + 1} increasing column offsets ending at {cols.shape[1]}"
        )
    encoders = []
    for i in range(n):
        e = cols[:, offsets[i] : offsets[i + 1]].astype(np.float64)
        if (e < 0).any() or not np.allclose(e.sum(1), 1.0, atol=1e-3):
            raise ValueError(f"{path}: encoder {i}: expected rows of probabilities summing to 1")
        encoders.append(e / e.sum(1, keepdims=True))
    return Frontier(betas.astype(np.float64), comp.astype(np.float64), acc.astype(np.float64), encoders, key)


def frontier(
    model: IBModel,
    betas: np.ndarray | None = None,
    *,
    cache_dir: str | os.PathLike[str] | bool | None = None,
) -> Frontier:
    """The model's frontier, from memory, from the disk cache (validated), or computed and cached.

    ``cache_dir``: ``None``/``True`` → :func:`default_cache_dir`; ``False`` → memory only."""
    grid = np.sort(np.asarray(default_betas() if betas is None else betas, dtype=np.float64))[::-1]
    key = _grid_key(model, grid)
    if key in _MEMORY:
        return _MEMORY[key]
    folder: Path | None
    if cache_dir is False:
        folder = None
    elif cache_dir is None or cache_dir is True:
        folder = default_cache_dir()
    else:
        folder = Path(cache_dir)
    path = None if folder is None else folder / f"frontier-{key}.npz"
    result = None
    if path is not None and path.exists():
        try:
            result = load_cached_frontier(path, key, model.n_meanings)
        except ValueError as err:
            warnings.warn(f"ignoring the IB frontier cache: {err}; recomputing", stacklevel=2)
    if result is None:
        result = compute_frontier(model, grid)
        result.key = key
        if path is not None:
            _save(path, key, result)
    _MEMORY[key] = result
    return result


# -- one system against the frontier ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Efficiency:
    """Where one system stands: its bits, its efficiency loss and its distance to the nearest optimal system."""

    words: int
    complexity_bits: float
    accuracy_bits: float
    efficiency_loss: float
    gnid: float
    beta: float
    frontier_accuracy_bits: float


def efficiency(model: IBModel, q: np.ndarray, front: Frontier, source: str = "encoder") -> Efficiency:
    """ε and gNID of encoder ``q`` against ``front`` (see the module docstring for the definitions)."""
    q = check_encoder(model, q, source)
    c, a = complexity(model, q), accuracy(model, q)
    gap = (c - front.betas * a) - front.optimal_objective(front.betas)
    i = int(np.argmin(gap))
    beta = float(front.betas[i])
    eps = max(0.0, float(gap[i]) / beta)
    words = int(((model.need @ q) > 1e-12).sum())
    return Efficiency(
        words=words,
        complexity_bits=c,
        accuracy_bits=a,
        efficiency_loss=eps,
        gnid=gnid(model, q, front.encoders[i]),
        beta=beta,
        frontier_accuracy_bits=float(front.accuracy_at(c)),
    )
