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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from huesenv.board import N_CELLS
from huesenv.envs.hues_cues.encoding import SCORE_SCALE, ObservationEncoder
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

    def encode(self, rows: Any, seats: Any) -> Any:
        """Observations of seat ``seats[i]`` in game ``rows[i]``."""
        g, o, off = self.game, self.game.ops, self.offset
        k = int(rows.shape[0])
        x = o.zeros((k, self.size), o.float32)
        i = o.arange(k)
        n, me = g.n[rows], seats
        # cones per relative seat
        valid = o.arange(g.K)[None, :] < g.n_cones[rows][:, None]
        rel = (g.cone_seat[rows] - me[:, None]) % n[:, None]
        col = off["cones"] + rel * N_CELLS + g.cone_cell[rows]
        ii = i[:, None] + 0 * col
        x[ii[valid], col[valid]] = 1.0
        # cues
        cue = g.cue[rows]
        v = g.V
        for slot in (0, 1):
            c = cue[:, slot]
            given = o.nonzero(c > 0)
            if self.cue_encoding == "index":
                x[given, off["cues"] + slot * (v + 3) + c[given]] = self.weight
            else:
                word = o.nonzero((c > 0) & (c <= v))
                base = off["cues"] + slot * self.dim
                x[word, base : base + self.dim] = self.embeddings[c[word] - 1]
            state = o.where(c == 0, 0, o.where(c == v + 1, 2, 1))
            x[i, off["cue_state"] + 3 * slot + state] = 1.0
        x[i, off["phase"] + g.phase[rows]] = 1.0
        giver = g.giver[rows]
        is_giver = (me == giver) & (
            g.phase[rows] != DONE
        )  # the view hides card and role once the game is over
        x[:, off["role"]] = o.astype(is_giver, o.float32)
        x[i, off["cue_giver"] + (giver - me) % n] = 1.0
        x[
            i,
            off["round"] + g.round[rows].clamp(max=self.reference.max_rounds - 1)
            if o.is_torch
            else off["round"] + np.minimum(g.round[rows], self.reference.max_rounds - 1),
        ] = 1.0
        gi = o.nonzero(is_giver)
        if int(gi.shape[0]):
            x[gi[:, None], off["card"] + g.card[rows[gi]]] = 1.0
            t = g.target[rows[gi]]
            has = o.nonzero(t >= 0)
            x[gi[has], off["target"] + t[has]] = 1.0
        s = g.S
        j = o.arange(s)
        inside = j[None, :] < n[:, None]
        absolute = (me[:, None] + j[None, :]) % n[:, None]
        sc = g.scores[rows[:, None], absolute]
        x[:, off["scores"] : off["scores"] + s] = o.where(
            inside,
            o.astype(sc, o.float32) / SCORE_SCALE,
            0.0 if not o.is_torch else o.full((), 0.0, o.float32),
        )
        x[:, off["seat_mask"] : off["seat_mask"] + s] = o.astype(inside, o.float32)
        return x
