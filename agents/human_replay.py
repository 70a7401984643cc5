"""Replayed humans: answers sampled from the human cohort (:func:`huesenv.humans.load_humans`).

* **Guesser.** For the most recent cue that people answered (earlier cues if the
  latest is unknown), draw that word's human answers in a random order
  (``numpy.random.default_rng(seed)``) and return the first ``top_k`` distinct
  legal cells; occupied/illegal cells are skipped, not consumed.  Within one game
  (``GuessQuery.game`` not None) answers are drawn *without replacement*: the
  answer behind the placed cell (the first one) is used up for the rest of that
  game, so two replayed players never re-use one person's answer.  A new game id
  (or ``reset``) restores the pool.
* **Fallback (documented).** A cue nobody answered, or a pool with no legal
  answer left, gives cells drawn uniformly from the legal ones, marked
  ``info["fallback"] = "unknown_cue"`` or ``"exhausted"``.
* **Cue giver.** For each allowed word with human answers, ``P(frame(t) | w)`` is
  the share of its answers inside the target's 3×3 scoring frame; the word with
  the largest share is the cue (first in vocabulary order on ties).  With no
  target yet, the card cell whose best word has the largest share is the target.
  The frame is the rules' own (``rules.in_frame_matrix``, default
  :data:`~huesenv.game.rules.DEFAULT_RULES`), so the cue giver aims at
  whatever the game it plays actually scores.

Answers carry ``info["sampled"] = True`` and no scores (they are draws, not a ranking).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.board import N_CELLS
from huesenv.game.protocol import Answer, BaseAgent, CueQuery, GuessQuery
from huesenv.game.rules import DEFAULT_RULES, HuesCuesRules
from huesenv.humans import load_humans
from huesenv.vocabulary import EMPTY_INPUT, normalise_word

_MAX_CACHED_TEXTS = 65_536
_MAX_CACHED_POOLS = 64


@lru_cache(maxsize=1)
def _default_cohort() -> Any:
    """The packaged cohort, loaded once per process: a game seats several replayed humans (read-only use)."""
    return load_humans(None)


def frame_share_table(answers: Sequence[np.ndarray], rules: HuesCuesRules = DEFAULT_RULES) -> np.ndarray:
    """``(words, 480)``: for each word's answer cells, the share of them inside each target cell's scoring
    frame: what a cue giver replaying those answers expects a cue to earn (replayed humans and lookup)."""
    counts = np.zeros((len(answers), N_CELLS))
    for i, cells in enumerate(answers):
        counts[i] = np.bincount(cells, minlength=N_CELLS) / max(len(cells), 1)
    in_frame = np.asarray(rules.in_frame_matrix, dtype=np.float64)  # [target, cell]
    return counts @ in_frame.T


class _PoolTable:
    """One offered vocabulary (a pool of cue texts) matched to a frame-share table, for the cue giver.

    ``rows``: each text's row of the table (-1: nobody answered it).  ``ranked(t)``:
    the pool positions of answered words from the largest share of target
    ``t``'s frame to the smallest, ties in pool order, built the first time ``t``
    is asked about.  Why: a cue is then the first allowed word of each target's
    ranking (the blocked words are few), not an argmax over every word per turn.
    """

    def __init__(self, rows: list[int], share_by_target: np.ndarray) -> None:
        self.rows = np.asarray(rows, dtype=np.intp)
        self.rows.setflags(write=False)
        self.row_of = rows
        answered = [r for r in rows if r >= 0]
        #: two texts of the pool share a row (e.g. two spellings of a word): blocking one blocks both
        self.shared_rows = len(set(answered)) < len(answered)
        self._shares = share_by_target  # [target, row]
        self._ranked: dict[int, list[int]] = {}

    def share(self, target: int, position: int) -> np.float64:
        return self._shares[target, self.row_of[position]]

    def ranked(self, target: int) -> list[int]:
        ranking = self._ranked.get(target)
        if ranking is None:
            shares = self._shares[target, np.maximum(self.rows, 0)]
            order = np.argsort(-shares, kind="stable")  # stable: equal shares stay in pool order
            ranking = self._ranked[target] = order[self.rows[order] >= 0].tolist()
        return ranking


class HumanReplayAgent(BaseAgent):
    """Samples the human cohort's answers (see the module docstring)."""

    name = "human-replay"

    def __init__(
        self,
        humans: Any = None,
        *,
        path: str | None = None,
        seed: int | None = 0,
        rules: HuesCuesRules | None = None,
        **load_kwargs: Any,
    ) -> None:
        if humans is None:
            humans = (
                _default_cohort() if path is None and not load_kwargs else load_humans(path, **load_kwargs)
            )
        self.humans = humans
        self.rules = rules or DEFAULT_RULES
        self._seed = seed
        self.rng = np.random.default_rng(seed)
        self._pool = {w: np.asarray(humans.cells(w), dtype=np.int64) for w in humans.words}
        self._used: dict[str, np.ndarray] = {}  # word -> answers used up in this game (bool, by pool index)
        self._game: int | None = None
        self._frame_share: tuple[tuple[str, ...], np.ndarray] | None = None
        self._share_by_target = np.empty((N_CELLS, 0))  # frame shares as [target, word], set with them
        self._word_rows: dict[str, int] = {}  # word -> its row of the frame-share table, set with it
        self._keys: dict[str, str | None] = {}  # a cue text as asked -> its answered word (None: none)
        self._text_rows: dict[str, int] = {}  # a cue text as queried -> its frame-share row (-1: unknown)
        self._pool_tables: dict[tuple[str, ...], _PoolTable] = {}  # an offered vocabulary -> its table

    @property
    def agent_id(self) -> str:
        source = getattr(self.humans, "source", "")
        name = Path(str(source)).name if source else ""
        return "human-replay" if not name or name.startswith("reconstructed") else f"human-replay:{name}"

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self._seed if seed is None else seed)
        self._used = {}
        self._game = None

    # -- guessing ---------------------------------------------------------------
    def _known(self, cue: str) -> str | None:
        """The answered word ``cue`` normalises to (``None``: not a word people answered), cached per text.

        Why a cache: a game asks about the same few cue texts again and again.
        """
        try:
            return self._keys[cue]
        except KeyError:
            pass
        except TypeError:  # an unhashable non-text: normalise_word says why it is no word
            return None
        try:
            key: str | None = normalise_word(cue)
        except ValueError:
            key = None
        if key not in self._pool:
            key = None
        if len(self._keys) >= _MAX_CACHED_TEXTS:  # free-text cues: keep the cache bounded
            self._keys.clear()
        self._keys[cue] = key
        return key

    def guess(self, query: GuessQuery) -> Answer:
        return self.guess_cells(query.legal_mask(), query.cues, game=query.game, top_k=query.top_k)

    def guess_cells(
        self, legal: np.ndarray, cues: Sequence[str], *, game: int | None = None, top_k: int = 1
    ) -> Answer:
        """The guess for free cells ``legal`` ((480,) bool) after ``cues``: the whole rule of :meth:`guess`.

        Why a narrow method: the single-learner envs (``Guesser-v1``,
        ``CueGiver-v1``) ask replayed opponents a few times per learner step,
        and building the query and its view cost more than the draw itself.
        They call this with the same mask, cues and game id that :meth:`guess`
        would read from its query, so both take the same random draws and the
        episodes do not depend on which path asked.
        """
        if not legal.any():
            return Answer(valid=False, raw_text="no legal cell")
        if game is not None and game != self._game:
            self._game, self._used = game, {}
        k = max(1, int(top_k))
        word = next((w for w in map(self._known, reversed(cues)) if w is not None), None)
        if word is None:
            return self._uniform(legal, k, "unknown_cue")
        pool = self._pool[word]
        used = self._used.get(word) if game is not None else None
        order = self.rng.permutation(len(pool))  # the one draw of a guess (its numbers fix the episodes)
        picks = self._first_distinct_legal(pool, order, legal, used, k)
        if picks is None:
            return self._uniform(legal, k, "exhausted", word=word)
        if game is not None:
            if used is None:
                used = self._used[word] = np.zeros(len(pool), dtype=bool)
            used[order[picks[0]]] = True  # the answer behind the placed cell is used up in this game
        return Answer(cells=pool[order[picks]], info={"sampled": True, "word": word})

    @staticmethod
    def _first_distinct_legal(
        pool: np.ndarray, order: np.ndarray, legal: np.ndarray, used: np.ndarray | None, k: int
    ) -> np.ndarray | None:
        """Positions in ``order`` of the first ``k`` answers, in that order, that are not ``used``, fall on a
        ``legal`` cell and repeat no earlier pick's cell (``None``: not one).

        Why arrays: this scan is most of a replayed guess, and a Python loop over
        the permutation cost more than the draw; one pass over it does the same.
        """
        cells = pool[order]
        ok = legal[cells]
        if used is not None:
            ok &= ~used[order]
        if k == 1:  # the envs' case: the first usable answer
            first = int(ok.argmax())
            return np.array([first]) if ok[first] else None
        at = np.flatnonzero(ok)
        if not at.size:
            return None
        _, first_of_cell = np.unique(cells[at], return_index=True)  # a cell's first usable answer
        return at[np.sort(first_of_cell)[:k]]

    def _uniform(self, legal: np.ndarray, k: int, why: str, word: str | None = None) -> Answer:
        idx = np.flatnonzero(legal)
        cells = self.rng.choice(idx, size=min(k, idx.size), replace=False).astype(np.int64)
        info: dict[str, Any] = {"sampled": True, "fallback": why}
        if word:
            info["word"] = word
        return Answer(cells=cells, info=info)

    # -- cue giving -------------------------------------------------------------
    def frame_shares(self) -> tuple[tuple[str, ...], np.ndarray]:
        """Words and ``(words, 480)`` shares of their human answers inside each cell's scoring frame."""
        if self._frame_share is None:
            words = tuple(self._pool)
            self._frame_share = (words, frame_share_table([self._pool[w] for w in words], self.rules))
            self._share_by_target = np.ascontiguousarray(self._frame_share[1].T)  # [target, word]
            self._word_rows = {w: i for i, w in enumerate(words)}
        return self._frame_share

    def _row(self, text: object) -> int:
        """Row of ``text``'s word in :meth:`frame_shares`, -1 when nobody answered it (see :meth:`_rows`)."""
        if not isinstance(text, str):
            return -1
        self.frame_shares()
        row = self._text_rows.get(text)
        if row is None:
            if len(self._text_rows) >= _MAX_CACHED_TEXTS:  # free-text cues: keep the cache bounded
                self._text_rows.clear()
            key = self._known(text)
            row = -1 if key is None else self._word_rows[key]
            self._text_rows[text] = row
        return row

    def _rows(self, texts: Iterable[str]) -> list[int]:
        """:meth:`_row` of each text, from the per-text cache (the one place a cue text is matched to the table).

        Why a cache: a cue giver's query offers about a hundred words and forbids
        tens more on every turn, the same texts all game; normalising each on
        every query was most of a cue's cost.
        """
        get = self._text_rows.get
        try:
            return [row if (row := get(t)) is not None else self._row(t) for t in texts]
        except TypeError:  # an unhashable non-text
            return [self._row(t) for t in texts]

    def _pool_table(self, pool: Sequence[str]) -> _PoolTable:
        """The :class:`_PoolTable` of an offered vocabulary, kept per tuple (a game offers the same ones again)."""
        table = self._pool_tables.get(pool) if isinstance(pool, tuple) else None  # a tuple cannot change
        if table is None:
            self.frame_shares()
            table = _PoolTable(self._rows(pool), self._share_by_target)
            if isinstance(pool, tuple):
                if len(self._pool_tables) >= _MAX_CACHED_POOLS:
                    self._pool_tables.clear()
                self._pool_tables[pool] = table
        return table

    def give_cue(self, query: CueQuery) -> Answer:
        return self.give_cue_among(query.targets, query.cue_index, query.vocabulary, query.forbidden)

    def give_cue_among(
        self,
        targets: Sequence[int],
        cue_index: int,
        vocabulary: Sequence[str] | None,
        forbidden: Iterable[str],
        offered: np.ndarray | None = None,
    ) -> Answer:
        """The cue (and target) for ``targets`` given the texts ``forbidden``: the whole rule of :meth:`give_cue`.

        ``vocabulary``: the words to choose among (None: every word people
        answered); ``offered``: a bool mask over it of the words the game allows
        now, the others counted as forbidden (as a query lists them).  Why a
        narrow method: see :meth:`guess_cells`; the single-learner envs pass the
        full vocabulary with its mask (its rows are cached) instead of a query
        whose offered words and forbidden set are rebuilt every turn.  Blocking
        is by table row either way, so both give the same answer.
        """
        words, _ = self.frame_shares()
        pool: Sequence[str] = vocabulary or words
        table = self._pool_table(pool)
        blocked = set(self._rows(forbidden))  # as CueQuery.forbidden_words: texts matched by their rows
        if offered is not None and table.shared_rows:  # a word not offered blocks its row's other texts
            blocked.update(table.rows[~offered].tolist())
        empty = self._row(EMPTY_INPUT)  # as forbidden_words has it: all-white-space texts forbid nothing
        if empty >= 0:
            blocked.discard(empty)
        row_of = table.row_of
        best: tuple[float, int, int] | None = None  # (-share, pool position, target index): the smallest wins
        for k, t in enumerate(targets):
            for p in table.ranked(t):  # the first allowed word is the target's best (ties: pool order)
                if row_of[p] not in blocked and (offered is None or offered[p]):
                    key = (-float(table.share(t, p)), p, k)
                    best = key if best is None or key < best else best
                    break
            else:
                break  # no word allowed for one target: none for any
        if best is None:
            return Answer(
                target=targets[0] if targets else None,
                cue=None,
                valid=cue_index == 2,
                raw_text="no allowed cue with human answers",
            )
        _, p, k = best
        share = table.share(targets[k], p)
        return Answer(
            target=targets[k],
            cue=pool[p],
            scores=np.asarray([share]),
            info={"frame_share": float(share)},
        )
