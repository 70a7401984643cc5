"""The flat observation of ``hues_cues_v1`` for many games at once, from the vectorised game's arrays.

Same layout, offsets and values as
:meth:`huesenv.envs.hues_cues.encoding.ObservationEncoder.encode_flat` (the
layout is taken from an ``ObservationEncoder`` built for the same rules and
vocabulary, so the two cannot drift): seat-relative, padded to
``rules.max_players`` seats, one-hots, scores / 100, the cue block weighted by
``flat_cue_weight``.  ``cue_encoding`` is ``"index"`` or ``"embedding"`` (a
``(V, D)`` table of the vocabulary's vectors); the text and board options of
the AEC env are not offered here.  ``tests/test_vector_game.py`` compares the
two encoders observation by observation.

Two forms of the same observation (:class:`FlatEncoder`):

==========================  ==============================  ========================  ======================
form                        arrays per game                  bytes per game (index)    what consumes it
==========================  ==============================  ========================  ======================
dense (:meth:`encode`)      ``(F,)`` float32, F = 6,021      24,084                    ``Linear(F, H)``
sparse (:meth:`sparse`)     ``index (L,)`` int32 +           8 L = 408 (L = 51)        ``EmbeddingBag(F, H,
                            ``value (L,)`` float32                                     mode="sum")`` with
                                                                                       ``per_sample_weights``
==========================  ==============================  ========================  ======================

*Why a sparse form.*  The flat vector is > 99 % zeros: at most ``2 (S - 1)``
cones, two cues and a few dozen one-hots and scores are set.  Writing 6,021
float32 per game per step (98 MB at 4,096 games) is memory-bandwidth bound
and costs several times the game itself, so a trainer that feeds the flat
vector to a first ``Linear`` layer can instead gather that layer's weight rows:
``sum_j value[j] * W[index[j]]`` equals ``flat @ W`` (the EmbeddingBag trick of
recommendation models; :func:`sparse_linear` is the numpy form, in torch
``torch.nn.functional.embedding_bag(index, W, per_sample_weights=value,
mode="sum")``).  The sparse form has a fixed width ``L`` (one column per
possible entry, in :attr:`FlatEncoder.sparse_layout` order), so it batches as
two plain arrays.  An entry whose value is 0 carries nothing (its index is in
range but otherwise arbitrary: a cone not yet placed, a cue not given, the
card of a guesser); :func:`to_dense` (scatter of the non-zero entries)
rebuilds the dense observation byte for byte, which the tests check against
the AEC encoder.  Non-zero entries never share an index.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from huesenv.board import N_CELLS
from huesenv.envs.hues_cues.encoding import SCORE_SCALE, ObservationEncoder
from huesenv.envs.vector_game.arrays import _ALONE, _POOLING
from huesenv.envs.vector_game.game import DONE, HuesCuesVectorGame


class _TableEncoder:
    """A text encoder backed by the vocabulary's embedding table (what ``ObservationEncoder`` needs)."""

    def __init__(self, words: Sequence[str], table: np.ndarray) -> None:
        self.dim = int(table.shape[1])
        self._rows = {w: i for i, w in enumerate(words)}
        self._table = table

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._table[[self._rows[t] for t in texts]]


class FlatEncoder:
    """Builds ``(R, F)`` float32 observations for chosen games and observer seats."""

    def __init__(
        self,
        game: HuesCuesVectorGame,
        cue_encoding: str = "index",
        cue_embeddings: np.ndarray | None = None,
        flat_cue_weight: float = 4.0,
    ) -> None:
        if cue_encoding not in ("index", "embedding"):
            raise ValueError(f"cue_encoding: expected 'index' or 'embedding', got {cue_encoding!r}")
        text_encoder = None
        if cue_encoding == "embedding":
            if cue_embeddings is None:
                raise ValueError(
                    "cue_encoding='embedding' needs cue_embeddings, a (V, D) array (one row per vocabulary word)"
                )
            emb = np.asarray(cue_embeddings, dtype=np.float32)
            if emb.ndim != 2 or emb.shape[0] != game.V:
                raise ValueError(f"cue_embeddings: expected shape ({game.V}, D), got {emb.shape}")
            text_encoder = _TableEncoder(game.vocabulary, emb)
        self.reference = ObservationEncoder(
            game.rules, game.vocabulary, cue_encoding, text_encoder, False, flat_cue_weight=flat_cue_weight
        )
        self.game = game
        self.cue_encoding = cue_encoding
        self.weight = float(flat_cue_weight)
        self.size = self.reference.flat_size
        self.space = self.reference.flat_space
        self.offset = dict(self.reference._offset)
        o = game.ops
        if cue_encoding == "embedding":
            assert text_encoder is not None
            self.embeddings = o.asarray(text_encoder._table * self.weight)
            self.dim = text_encoder.dim
        self.v = game.V
        self._sparse_setup()
        low, high = float(self.space.low.min()), float(self.space.high.max())
        self.sparse_space = spaces.Dict(
            {
                "index": spaces.Box(0, self.size - 1, (self.width,), np.int32),
                "value": spaces.Box(low, high, (self.width,), np.float32),
            }
        )

    # -- the sparse form --------------------------------------------------------------
    def _sparse_setup(self) -> None:
        g, o = self.game, self.game.ops
        cues = 2 if self.cue_encoding == "index" else 2 * self.dim
        layout = [
            ("cones", g.K),
            ("cues", cues),
            ("cue_state", 2),
            ("phase", 1),
            ("role", 1),
            ("cue_giver", 1),
            ("round", 1),
            ("card", g.rules.card_size),
            ("target", 1),
            ("scores", g.S),
            ("seat_mask", g.S),
        ]
        self.sparse_layout = layout
        self.col: dict[str, slice] = {}
        pos = 0
        for name, n in layout:
            self.col[name] = slice(pos, pos + n)
            pos += n
        self.width = pos
        s, off = g.S, self.offset
        # seat-relative score gather: absolute seat of relative seat j for (players n, observer me);
        # j >= n points at seat n (always 0 points) or, at 10 players, is never outside
        rel = np.zeros((s + 1, s, s), dtype=np.int64)
        inside = np.zeros((s + 1, s), dtype=np.float32)
        for n in range(1, s + 1):
            inside[n, :n] = 1.0
            for me in range(n):
                rel[n, me] = [(me + j) % n if j < n else min(n, s - 1) for j in range(s)]
        self._rel_seat = o.asarray(rel.reshape((s + 1) * s, s))  # row n * S + me -> (S,) absolute seats
        self._inside = o.asarray(inside)
        self._slot_base = o.asarray(np.array([0, self.v + 3], dtype=np.int32) + off["cues"])  # per slot
        # cue code (0 none, 1..V word, V+1 passed) -> cue_state entry of slot 0 / slot 1
        state = np.where(np.arange(self.v + 2) == 0, 0, 1)
        state[self.v + 1] = 2
        self._state_code = o.asarray(state.astype(np.int32))
        self._state_base = o.asarray(np.array([0, 3], dtype=np.int32) + off["cue_state"])
        k_ = np.arange(g.K)
        self._cone_valid = o.asarray((k_[None, :] < np.arange(g.K + 1)[:, None]).astype(np.float32))
        self._row_base = o.asarray(np.arange(g.num_games, dtype=np.int64)[:, None] * s)
        # the columns that never change (their indices; the ones; the seat mask of each slot's game) are
        # copied from templates, so a step writes only what the state decides
        idx = np.zeros(self.width, dtype=np.int32)
        val = np.zeros(self.width, dtype=np.float32)
        idx[self.col["role"]] = off["role"]
        idx[self.col["scores"]] = np.arange(s) + off["scores"]
        idx[self.col["seat_mask"]] = np.arange(s) + off["seat_mask"]
        if self.cue_encoding == "embedding":
            idx[self.col["cues"]] = np.arange(2 * self.dim) + off["cues"]
        val[self.col["cue_state"].start : self.col["round"].stop] = 1.0
        b = g.num_games
        self._idx_template = o.asarray(np.ascontiguousarray(np.broadcast_to(idx, (b, self.width))))
        vt = np.ascontiguousarray(np.broadcast_to(val, (b, self.width)))
        vt[:, self.col["seat_mask"]] = inside[o.to_numpy(g.n)]
        self._val_template = o.asarray(vt)
        if self.cue_encoding == "embedding":
            zero = np.zeros((1, self.dim), dtype=np.float32)
            self._emb_ext = o.asarray(np.concatenate([o.to_numpy(self.embeddings), zero]))  # row V: none

    def sparse(self, rows: Any, seats: Any) -> tuple[Any, Any]:
        """``(index, value)``, each ``(R, L)`` (int32, float32), the caller's: the observation of seat
        ``seats[i]`` in game ``rows[i]`` as its possible non-zero entries (see the module docstring)."""
        g, o, off, c = self.game, self.game.ops, self.offset, self.col
        full = rows is g.rows  # every game in order: read the state arrays without gathering
        k = int(rows.shape[0])
        i32 = o.int32
        idx, val = o.output((k, self.width), i32), o.output((k, self.width), o.float32)
        idx[...], val[...] = self._idx_template[:k], self._val_template[:k]

        def take(a: Any) -> Any:
            return a if full else a[rows]

        n = o.astype(take(g.n), i32)
        me = o.astype(o.asarray(seats), i32)
        # cones: (seat - observer) * 480 + cell mod n * 480 (the relative seat) from the game's
        # seat * 480 + cell codes, in place (temporaries of megabytes cost page faults every step)
        d = o.output((k, g.K), i32)
        o.xp.subtract(take(g.cone_code), (me * N_CELLS)[:, None], out=d)
        o.xp.remainder(d, (n * N_CELLS)[:, None], out=d)
        d += off["cones"]
        idx[:, c["cones"]] = d
        val[:, c["cones"]] = o.take_rows(self._cone_valid, take(g.n_cones))
        # cues: index one-hots (weighted) or the weighted embedding rows; cue_state one-hots
        cue = o.astype(take(g.cue), i32)
        v = g.V
        if self.cue_encoding == "index":
            idx[:, c["cues"]] = cue + self._slot_base
            val[:, c["cues"]] = o.astype(cue > 0, o.float32) * self.weight
        else:
            word = (cue > 0) & (cue <= v)
            row = o.where(word, cue - 1, v)
            val[:, c["cues"]] = self._emb_ext[row].reshape(k, 2 * self.dim)
        idx[:, c["cue_state"]] = o.take_flat(self._state_code, cue) + self._state_base
        phase, giver = o.astype(take(g.phase), i32), take(g.giver)
        gv = o.astype(giver, i32)
        is_giver = (me == gv) & (phase != DONE)  # the view hides card and role once the game is over
        giver_f = o.astype(is_giver, o.float32)[:, None]
        idx[:, c["phase"]] = (phase + off["phase"])[:, None]
        d1 = gv - me
        d1 += (d1 >> 31) & n
        idx[:, c["cue_giver"]] = (d1 + off["cue_giver"])[:, None]
        rnd = o.clamp(o.astype(take(g.round), i32), high=self.reference.max_rounds - 1)
        idx[:, c["round"]] = (rnd + off["round"])[:, None]
        val[:, c["role"]] = giver_f
        idx[:, c["card"]] = o.astype(take(g.card), i32) + off["card"]
        val[:, c["card"]] = giver_f
        t = o.astype(take(g.target), i32)
        idx[:, c["target"]] = (o.clamp(t, low=0) + off["target"])[:, None]
        val[:, c["target"]] = giver_f * o.astype(t >= 0, o.float32)[:, None]
        # scores of the relative seats / 100 (seats past n read a seat with no points), seat mask
        absolute = o.take_rows(self._rel_seat, n * g.S + me, out=o.output((k, g.S), o.int64))
        absolute += self._row_base if full else rows[:, None] * g.S
        scores = val[:, c["scores"]]
        scores[...] = o.take_flat(g.scores, absolute, out=o.output((k, g.S), o.int64))
        scores /= SCORE_SCALE
        if not full:
            val[:, c["seat_mask"]] = o.take_rows(self._inside, n)
        return idx, val

    def encode(self, rows: Any, seats: Any) -> Any:
        """``(R, F)`` float32: the dense flat observation of seat ``seats[i]`` in game ``rows[i]``."""
        return to_dense(*self.sparse(rows, seats), self.size)


def to_dense(index: Any, value: Any, size: int) -> Any:
    """The dense ``(R, size)`` float32 observations of a sparse ``(index, value)`` pair (numpy or torch)."""
    k = int(index.shape[0])
    nz = value != 0
    if not isinstance(index, np.ndarray):  # torch
        x = value.new_zeros((k, size))
        x[nz.nonzero()[:, 0], index[nz].long()] = value[nz]
        return x
    x = np.zeros((k, size), dtype=np.float32)
    flat = index.astype(np.int64) + (np.arange(k, dtype=np.int64) * size)[:, None]
    x.reshape(-1)[flat[nz]] = value[nz]
    return x


class DenseBuffer:
    """One persistent ``(N, F)`` dense observation array, updated in place from each step's sparse form.

    Why: zeroing and rewriting 6,021 float32 per game per step is memory-bandwidth bound; here a step
    clears only the entries the previous step set and writes the new ones (about 50 per game).  The array
    returned is the same object every step and is overwritten by the next one (Gymnasium's ``copy=False``
    contract): copy it to keep it.
    """

    def __init__(self, num: int, size: int, ops: Any) -> None:
        self.ops, self.size = ops, size
        self.x = ops.zeros((num, size), ops.float32)
        self._flat = self.x.reshape(-1)
        self._last: Any = None
        self._base = ops.arange(num)[:, None] * size

    def update(self, index: Any, value: Any) -> Any:
        o = self.ops
        if self._last is not None:
            self._flat[self._last] = 0.0
        nz = value != 0
        flat = (o.astype(index, o.int64) + self._base)[nz]
        self._flat[flat] = value[nz]
        self._last = flat  # only the entries set: the next step clears just these
        return self.x


class FreshDense:
    """Fresh dense observations (``copy=True``: each step's array is the caller's) at about
    :class:`DenseBuffer`'s cost.

    Why: a zeroed ``(N, F)`` array per step is memory-bandwidth bound (24 kB per game) and its pages fault in
    afresh.  Each step here returns a new array object over one of a few recycled buffers that nothing but
    this object holds (the rule of :class:`~huesenv.envs.vector_game.arrays.OutputPool`), cleared only of the
    entries that buffer's previous observation set.  Torch, or Pythons where reference counts are not exact:
    a zeroed array per step.
    """

    keep = 3  # buffers (N x 24 kB each) of observations held at once by a caller (SB3 keeps two)

    def __init__(self, num: int, size: int, ops: Any) -> None:
        self.ops, self.size = ops, size
        self._buffers: list[list[Any]] = []  # [array, the flat indices its observation set]
        self._base = np.arange(num, dtype=np.int64)[:, None] * size

    def update(self, index: Any, value: Any) -> Any:
        if self.ops.is_torch or not _POOLING:
            return to_dense(index, value, self.size)
        k = int(index.shape[0])  # the first k rows (an end's final observations: any k <= N)
        entry = next((e for e in self._buffers if sys.getrefcount(e[0]) <= _ALONE), None)
        if entry is None:
            if len(self._buffers) >= self.keep:  # every kept one is held (it lives on in the caller's hands)
                del self._buffers[0]
            entry = [np.zeros((self._base.shape[0], self.size), np.float32), None]
            self._buffers.append(entry)
        flat = entry[0].reshape(-1)
        if entry[1] is not None:
            flat[entry[1]] = 0.0
        nz = value != 0
        entry[1] = (index.astype(np.int64) + self._base[:k])[nz]
        flat[entry[1]] = value[nz]
        return entry[0][:k]


def sparse_linear(
    index: np.ndarray, value: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None
) -> np.ndarray:
    """``to_dense(index, value) @ weight (+ bias)`` without the dense matrix: ``sum_j value[:, j] * weight[index[:, j]]``
    (``weight`` ``(F, H)``; torch: ``embedding_bag(index, weight, per_sample_weights=value, mode="sum")``)."""
    out = np.einsum("rl,rlh->rh", value, weight[index])
    return out if bias is None else out + bias
