"""Observation encoders: a :class:`~huesenv.game.view.PlayerView` as Gymnasium-space arrays (dict or flat).

Every per-seat field is **seat-relative** (the observer is seat 0, then
clockwise) and padded to ``rules.max_players`` (10) seats with a ``seat_mask``,
so the spaces do not depend on the number of players and one policy runs at
3-10 players.  Cones are kept per seat (``cones[k]`` = the cells of relative
seat ``k``), so a player tells its own cones from each other player's.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.envs.hues_cues.encoding``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces

from huesenv.board import N_CELLS, N_COLS, N_ROWS, load_board
from huesenv.game.cues import CUE_CHARSET
from huesenv.game.phase import PHASES, Phase
from huesenv.game.rules import HuesCuesRules
from huesenv.game.view import PlayerView

CUE_ENCODINGS = ("index", "embedding", "text")
OBSERVATION_MODES = ("dict", "flat")
MAX_SCORE = 10_000
SCORE_SCALE = 100.0
MAX_CODEPOINT = max(map(ord, CUE_CHARSET))


class TextEncoder(Protocol):
    """What ``cue_encoding="embedding"`` needs: a fixed vector size and a batch encoder."""

    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:  # (len(texts), dim) float32
        ...


class ObservationEncoder:
    """Encodes player views for one env configuration (spaces built once)."""

    def __init__(
        self,
        rules: HuesCuesRules,
        vocabulary: Sequence[str],
        cue_encoding: str = "index",
        text_encoder: TextEncoder | None = None,
        include_board: bool = False,
        flat_cue_weight: float = 4.0,
    ) -> None:
        if cue_encoding not in CUE_ENCODINGS:
            raise ValueError(f"cue_encoding: expected one of {CUE_ENCODINGS}, got {cue_encoding!r}")
        if cue_encoding == "embedding" and text_encoder is None:
            raise ValueError("cue_encoding='embedding' needs a text_encoder")
        self.rules = rules
        self.vocabulary = tuple(vocabulary)
        self.word_index = {w: i for i, w in enumerate(self.vocabulary)}
        self.cue_encoding = cue_encoding
        self.text_encoder = text_encoder
        self.include_board = include_board
        if not flat_cue_weight > 0:
            raise ValueError(f"flat_cue_weight: expected a positive number, got {flat_cue_weight!r}")
        self.flat_cue_weight = float(flat_cue_weight)
        self.seats = rules.max_players
        self.max_rounds = max(rules.num_rounds(n) for n in range(rules.min_players, rules.max_players + 1))
        self.v = len(self.vocabulary)
        self._embeddings: dict[str, np.ndarray] = {}
        self._cue_arrays: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # this round's cues -> arrays
        self.embedding_dim = int(text_encoder.dim) if cue_encoding == "embedding" and text_encoder else 0
        self._board = load_board().rgb.reshape(N_ROWS, N_COLS, 3).astype(np.uint8) if include_board else None
        if self._board is not None:
            self._board.setflags(write=False)
        self.dict_space = self._dict_space()
        self.flat_layout = self._flat_layout()
        self.flat_size = sum(n for _, n in self.flat_layout)
        # one-hots and masks in [0, 1], weighted cues in [-w, w], scores / 100 up to MAX_SCORE / 100
        w = self.flat_cue_weight
        self.flat_space = spaces.Box(
            -max(1.0, w), max(MAX_SCORE / SCORE_SCALE, w), (self.flat_size,), np.float32
        )
        self._no_card = np.full(rules.card_size, -1, dtype=np.int16)
        self._no_target = np.full(1, -1, dtype=np.int16)
        # the discrete fields' values as numpy scalars, built once (immutable, so shared by every observation)
        self._int64 = tuple(np.int64(i) for i in range(max(self.seats, self.max_rounds, len(PHASES))))
        self._seat_masks = {n: (np.arange(self.seats) < n).astype(np.int8) for n in range(self.seats + 1)}
        self._offset = {}
        pos = 0
        for name, n in self.flat_layout:
            self._offset[name] = pos
            pos += n
        self._flat_cues: dict[tuple, np.ndarray] = {}  # this round's cues -> the flat cue + cue_state block

    # -- spaces ---------------------------------------------------------------------
    def _cue_space(self) -> spaces.Space:
        if self.cue_encoding == "index":
            return spaces.MultiDiscrete([self.v + 3, self.v + 3])
        if self.cue_encoding == "embedding":
            return spaces.Box(-np.inf, np.inf, (2, self.embedding_dim), np.float32)
        return spaces.Box(0, MAX_CODEPOINT, (2, self.rules.max_cue_chars), np.int16)

    def _dict_space(self) -> spaces.Dict:
        s, card = self.seats, self.rules.card_size
        fields: dict[str, spaces.Space] = {
            "cones": spaces.Box(0, 1, (s, N_CELLS), np.int8),
            "occupied": spaces.Box(0, 1, (N_CELLS,), np.int8),
            "cues": self._cue_space(),
            "cue_state": spaces.MultiDiscrete([3, 3]),
            "phase": spaces.Discrete(len(PHASES)),
            "role": spaces.Discrete(2),
            "cue_giver": spaces.Discrete(s),
            "round": spaces.Discrete(self.max_rounds),
            "card": spaces.Box(-1, N_CELLS - 1, (card,), np.int16),
            "target": spaces.Box(-1, N_CELLS - 1, (1,), np.int16),
            "scores": spaces.Box(0, MAX_SCORE, (s,), np.int32),
            "seat_mask": spaces.Box(0, 1, (s,), np.int8),
        }
        if self.include_board:
            fields["board"] = spaces.Box(0, 255, (N_ROWS, N_COLS, 3), np.uint8)
        return spaces.Dict(fields)

    def _flat_layout(self) -> list[tuple[str, int]]:
        s = self.seats
        if self.cue_encoding == "index":
            cues = 2 * (self.v + 3)
        elif self.cue_encoding == "embedding":
            cues = 2 * self.embedding_dim
        else:
            cues = 2 * self.rules.max_cue_chars
        layout = [
            ("cones", s * N_CELLS),
            ("cues", cues),
            ("cue_state", 6),
            ("phase", len(PHASES)),
            ("role", 1),
            ("cue_giver", s),
            ("round", self.max_rounds),
            ("card", N_CELLS),
            ("target", N_CELLS),
            ("scores", s),
            ("seat_mask", s),
        ]
        if self.include_board:
            layout.append(("board", N_ROWS * N_COLS * 3))
        return layout

    # -- cues -----------------------------------------------------------------------
    def cue_code(self, cue: str | None, given: bool) -> int:
        """Index encoding of one cue slot."""
        if not given:
            return 0
        if cue is None:
            return self.v + 1
        i = self.word_index.get(cue)
        return self.v + 2 if i is None else i + 1

    def embedding(self, cue: str) -> np.ndarray:
        """The text encoder's vector of ``cue`` (cached per cue)."""
        vec = self._embeddings.get(cue)
        if vec is None:
            assert self.text_encoder is not None
            vec = np.asarray(self.text_encoder.encode([cue]), dtype=np.float32).reshape(self.embedding_dim)
            self._embeddings[cue] = vec
        return vec

    def prime(self, words: Sequence[str]) -> None:
        """Embed many cues in one batch (the vocabulary at construction)."""
        todo = [w for w in dict.fromkeys(words) if w not in self._embeddings]
        if todo and self.cue_encoding == "embedding":
            assert self.text_encoder is not None
            vecs = np.asarray(self.text_encoder.encode(todo), dtype=np.float32).reshape(len(todo), -1)
            self._embeddings.update(zip(todo, vecs))

    def _cues(self, view: PlayerView) -> Any:
        if self.cue_encoding == "index":
            cues = view.cues
            return np.array([self.cue_code(cues[k], True) if k < len(cues) else 0 for k in (0, 1)], np.int64)
        if self.cue_encoding == "embedding":
            out = np.zeros((2, self.embedding_dim), dtype=np.float32)
            for k, cue in enumerate(view.cues[:2]):
                if cue is not None:
                    out[k] = self.embedding(cue)
            return out
        out = np.zeros((2, self.rules.max_cue_chars), dtype=np.int16)
        for k, cue in enumerate(view.cues[:2]):
            if cue:
                out[k, : len(cue)] = [ord(ch) for ch in cue]
        return out

    # -- encoding -------------------------------------------------------------------
    def encode_dict(self, view: PlayerView) -> dict[str, Any]:
        n, me = view.num_players, view.seat
        cones = np.zeros((self.seats, N_CELLS), dtype=np.int8)
        occupied = np.zeros(N_CELLS, dtype=np.int8)
        for seat, cell, _ in view.cones:  # at most 18: item by item beats building index arrays
            cones[(seat - me) % n, cell] = 1
            occupied[cell] = 1
        cues = view.cues
        cached = self._cue_arrays.get(cues)
        if cached is None:
            state = [(2 if cues[k] is None else 1) if k < len(cues) else 0 for k in (0, 1)]
            cached = (self._cues(view), np.array(state, dtype=np.int64))
            if len(self._cue_arrays) > 4096:
                self._cue_arrays.clear()
            self._cue_arrays[cues] = cached
        card = np.array(view.card, dtype=np.int16) if view.card else self._no_card.copy()
        target = self._no_target.copy()
        if view.target is not None:
            target[0] = view.target
        scores = np.zeros(self.seats, dtype=np.int32)
        scores[:n] = view.scores[me:] + view.scores[:me]
        phase = view.phase
        ints = self._int64
        obs = {
            "cones": cones,
            "occupied": occupied,
            "cues": cached[0].copy(),
            "cue_state": cached[1].copy(),
            "phase": ints[phase.index],
            "role": ints[view.seat == view.cue_giver and phase is not Phase.DONE],
            "cue_giver": ints[(view.cue_giver - me) % n],
            "round": ints[min(view.round, self.max_rounds - 1)],
            "card": card,
            "target": target,
            "scores": scores,
            "seat_mask": self._seat_masks[n].copy(),
        }
        if self._board is not None:
            obs["board"] = self._board.copy()
        return obs

    def _flat_cue_block(self, view: PlayerView) -> np.ndarray:
        """The flat vector's ``cues`` and ``cue_state`` entries (adjacent in the layout) for this round's cues.

        Built once per distinct cues: a round's cues are seen by every seat at every move.
        """
        block = self._flat_cues.get(view.cues)
        if block is None:
            if len(self._flat_cues) > 4096:
                self._flat_cues.clear()
            block = self._flat_cues[view.cues] = self._build_flat_cue_block(view)
        return block

    def _build_flat_cue_block(self, view: PlayerView) -> np.ndarray:
        cues, w, v = self._cues(view), self.flat_cue_weight, self.v
        block = np.zeros(self._offset["phase"] - self._offset["cues"], dtype=np.float32)
        if self.cue_encoding == "index":
            for k in range(2):
                if cues[k]:  # 0: not given, no entry
                    block[k * (v + 3) + int(cues[k])] = w
        elif self.cue_encoding == "embedding":
            block[: cues.size] = cues.ravel() * w
        else:
            block[: cues.size] = cues.ravel() * (w / MAX_CODEPOINT)
        at = self._offset["cue_state"] - self._offset["cues"]
        for k in range(2):
            state = 0 if k >= len(view.cues) else (2 if view.cues[k] is None else 1)
            block[at + 3 * k + state] = 1.0
        block.setflags(write=False)
        return block

    def encode_flat(self, view: PlayerView) -> np.ndarray:
        """The flat float32 observation (layout: :attr:`flat_layout`; a fresh vector)."""
        n, me, o = view.num_players, view.seat, self._offset
        x = np.zeros(self.flat_size, dtype=np.float32)
        at = o["cones"]
        for seat, cell, _ in view.cones:
            x[at + ((seat - me) % n) * N_CELLS + cell] = 1.0
        block = self._flat_cue_block(view)
        at = o["cues"]
        x[at : at + block.size] = block
        x[o["phase"] + view.phase.index] = 1.0
        x[o["role"]] = float(view.is_cue_giver)
        x[o["cue_giver"] + (view.cue_giver - me) % n] = 1.0
        x[o["round"] + min(view.round, self.max_rounds - 1)] = 1.0
        at = o["card"]
        for cell in view.card:
            x[at + cell] = 1.0
        if view.target is not None:
            x[o["target"] + view.target] = 1.0
        at = o["scores"]
        # divided in Python: the float32 of each float64 quotient is numpy's float32 division (checked for
        # every score within +-100,000), without a second pass over a slice (a third of an encoding)
        scores = view.scores
        x[at : at + n] = [v / SCORE_SCALE for v in scores[me:] + scores[:me]]
        at = o["seat_mask"]
        x[at : at + n] = 1.0
        if self._board is not None:
            x[o["board"] :] = self._board.ravel() / 255.0
        return x
