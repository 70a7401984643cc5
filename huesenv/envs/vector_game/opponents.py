"""Opponents of the vectorised game as precomputed tables: plain arrays, no agent objects.

Why tables: an agent object answers one query at a time in Python; thousands of
games per step need every opponent decision as an array operation.  The
agents/experiments layer turns an agent into a table
(:mod:`huesenv.agents.vector_tables`); this module only says what a table is and
how the vectorised game plays one, so the environment layer never imports an
agent.

A :class:`TableOpponent` has, each optional:

* ``guess_scores`` ``(V, 480)`` float: a guesser that puts its cone on the legal
  cell with the highest score, averaged over the cues given this round (the
  scoring agents' rule, e.g. text embedding);
* ``pool`` ``(V, L)`` int cells (``-1`` padding): a replayed-human guesser that
  draws one of the latest known cue's human answers uniformly among those still
  unused *by this seat in this game* whose cell is free (without replacement
  within a game, as :class:`~huesenv.agents.human_replay.HumanReplayAgent`);
  none left or an unknown cue: a uniformly random free cell;
* ``cue_value`` ``(V, 480)`` float: a cue giver that gives the allowed word
  with the highest value on its target (``-inf``: never), and picks the card cell
  whose best allowed word is highest (first on ties, word-major like the replay
  agent); with no allowed valued word it passes cue 2 (cue 1: a random allowed word).

Without ``guess_scores``/``pool`` the guesser is uniformly random over the free
cells; without ``cue_value`` the cue giver picks a random card cell, a random
allowed word for cue 1 and passes cue 2 (the random agent's play).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from huesenv.board import N_CELLS


@dataclass(frozen=True)
class TableOpponent:
    """One opponent kind as arrays (see the module docstring)."""

    name: str = "random"
    guess_scores: np.ndarray | None = None
    pool: np.ndarray | None = None
    cue_value: np.ndarray | None = None

    def check(self, vocabulary_size: int) -> None:
        """``ValueError`` naming the field when a table does not fit the vocabulary and board."""
        for field_name in ("guess_scores", "cue_value"):
            t = getattr(self, field_name)
            if t is not None and np.shape(t) != (vocabulary_size, N_CELLS):
                raise ValueError(
                    f"TableOpponent {self.name!r}.{field_name}: expected shape ({vocabulary_size}, {N_CELLS}), got {np.shape(t)}"
                )
        if self.pool is not None:
            p = np.asarray(self.pool)
            if p.ndim != 2 or p.shape[0] != vocabulary_size or p.min() < -1 or p.max() >= N_CELLS:
                raise ValueError(
                    f"TableOpponent {self.name!r}.pool: expected ({vocabulary_size}, L) cells -1..{N_CELLS - 1}, got shape {p.shape}"
                )
            # -1 pads a row's end (the game reads as answers the first as many entries as the row has cells)
            padded = p < 0
            answer_after_padding = (padded[:, :-1] & ~padded[:, 1:]).any(axis=1)
            if answer_after_padding.any():
                row = int(np.flatnonzero(answer_after_padding)[0])
                raise ValueError(
                    f"TableOpponent {self.name!r}.pool: row {row}: expected the -1 padding at the end of the row "
                    "(answers first; pad_pool builds such rows)"
                )
        if self.guess_scores is not None and self.pool is not None:
            raise ValueError(f"TableOpponent {self.name!r}: give guess_scores or pool, not both")


RANDOM = TableOpponent("random")


def pad_pool(cells_per_word: list[np.ndarray]) -> np.ndarray:
    """Ragged per-word answer lists → one ``(V, L)`` table padded with ``-1`` (words without answers: all ``-1``)."""
    length = max([len(c) for c in cells_per_word] + [1])
    table = np.full((len(cells_per_word), length), -1, dtype=np.int64)
    for i, c in enumerate(cells_per_word):
        table[i, : len(c)] = np.asarray(c, dtype=np.int64)
    return table
