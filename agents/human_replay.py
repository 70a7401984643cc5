"""Replayed humans: answers sampled from the human cohort (:func:`huesenv.humans.load_humans`).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.human_replay``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import numpy as np

from huesenv.board import N_CELLS, cell_index
from huesenv.game.protocol import Answer, BaseAgent, CueQuery, GuessQuery
from huesenv.game.rules import DEFAULT_RULES, HuesCuesRules
from huesenv.humans import load_humans
from huesenv.vocabulary import EMPTY_INPUT, normalise_word

_MAX_CACHED_TEXTS = 65_536
_FIRST_TRIED = 8  # a replayed guess tries this many answers one by one before scanning the rest as arrays
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

    ``rows``: each text's row of the table (-1: nobody answered it).
    ``ranked[t]``: the pool positions of answered words from the largest share
    of target ``t``'s frame to the smallest, ties in pool order (``None`` until
    :meth:`rank` builds it, the first time ``t`` is asked about).  Why: a cue is
    then the first allowed word of each target's ranking (the blocked words are
    few), not an argmax over every word per turn.
    """

    def __init__(self, rows: list[int], share_by_target: np.ndarray) -> None:
        self.rows = np.asarray(rows, dtype=np.intp)
        self.rows.setflags(write=False)
        self.row_of = rows
        answered = [r for r in rows if r >= 0]
        #: two texts of the pool share a row (e.g. two spellings of a word): blocking one blocks both
        self.shared_rows = len(set(answered)) < len(answered)
        self.by_target = share_by_target  # [target, row]
        self.ranked: list[list[int] | None] = [None] * N_CELLS

    def rank(self, target: int) -> list[int]:
        shares = self.by_target[target, np.maximum(self.rows, 0)]
        order = np.argsort(-shares, kind="stable")  # stable: equal shares stay in pool order
        ranking = self.ranked[target] = order[self.rows[order] >= 0].tolist()
        return ranking


class _CueTable:
    """The frame shares of one cohort's answers under one rule set, with the vocabularies offered so far.

    Why shared (:func:`_cue_table`): an env seats one replayed person per
    opponent seat, and each computed the same table and target rankings on its
    first cues.
    """

    def __init__(self, pool: dict[str, np.ndarray], rules: HuesCuesRules) -> None:
        self.words = tuple(pool)
        self.share = frame_share_table([pool[w] for w in self.words], rules)  # [word, target]
        self.by_target = np.ascontiguousarray(self.share.T)  # [target, word]
        for a in (self.share, self.by_target):
            a.setflags(write=False)
        self.word_rows = {w: i for i, w in enumerate(self.words)}
        #: the row of the all-white-space input (-1: not answered), which a forbidden list never blocks
        self.empty_row = self.word_rows.get(normalise_word(EMPTY_INPUT), -1)
        self.pools: dict[tuple[str, ...], _PoolTable] = {}  # an offered vocabulary -> its table


_CUE_TABLES: dict[tuple[int, int], tuple[Any, HuesCuesRules, _CueTable]] = {}
_MAX_CUE_TABLES = 8


def _cue_table(humans: Any, rules: HuesCuesRules, pool: dict[str, np.ndarray]) -> _CueTable:
    """The :class:`_CueTable` of ``humans`` (whose answers ``pool`` holds) under ``rules``, one per pair.

    Keyed by identity, holding both objects so that neither id is reused while
    the entry lives; a cohort is read-only once loaded (see :func:`_default_cohort`).
    """
    key = (id(humans), id(rules))
    hit = _CUE_TABLES.get(key)
    if hit is not None and hit[0] is humans and hit[1] is rules:
        return hit[2]
    table = _CueTable(pool, rules)
    if len(_CUE_TABLES) >= _MAX_CUE_TABLES:
        _CUE_TABLES.clear()
    _CUE_TABLES[key] = (humans, rules, table)
    return table


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
        self._rng_seed = seed
        self._rng: np.random.Generator | None = None
        self._pool = {w: np.asarray(humans.cells(w), dtype=np.int64) for w in humans.words}
        self._cells: dict[str, list[int]] = {}  # a word's pool as Python ints, made at its first guess
        self._used: dict[str, list[int]] = {}  # word -> its answers used up in this game (pool indices)
        self._game: int | None = None
        self._cues: _CueTable | None = None  # the frame shares, shared with agents of this cohort and rules
        self._last_pool: tuple[tuple[str, ...] | None, Any] = (None, None)  # (vocabulary, its _PoolTable)
        self._keys: dict[str, str | None] = {}  # a cue text as asked -> its answered word (None: none)
        self._text_rows: dict[str, int] = {}  # a cue text as queried -> its frame-share row (-1: unknown)

    @property
    def agent_id(self) -> str:
        source = getattr(self.humans, "source", "")
        name = Path(str(source)).name if source else ""
        return "human-replay" if not name or name.startswith("reconstructed") else f"human-replay:{name}"

    @property
    def rng(self) -> np.random.Generator:
        """The generator of the draws, ``default_rng`` of the seed, made at its first draw after a reset.

        Why lazily: envs reset every agent per episode, and an agent that only
        gives cues in it (a stand-in cue giver) never draws.
        """
        if self._rng is None:
            self._rng = np.random.default_rng(self._rng_seed)
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value

    def reset(self, seed: int | None = None) -> None:
        self._rng_seed, self._rng = (self._seed if seed is None else seed), None
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
        if (
            not legal.size or not legal[legal.argmax()]
        ):  # no free cell (argmax: ndarray.any goes through Python)
            return Answer(valid=False, raw_text="no legal cell")
        cells, word, why = self._draw(legal, cues, game, max(1, int(top_k)))
        info: dict[str, Any] = {"sampled": True}
        if why:
            info["fallback"] = why
        if word:
            info["word"] = word
        return Answer(cells=np.asarray(cells, dtype=np.int64), info=info)

    def guess_cell(self, legal: np.ndarray, cues: Sequence[str], *, game: int | None = None) -> int | None:
        """The cell of ``guess_cells(legal, cues, game=game)`` (``None``: no free cell), with the same draws.

        Why: an env's opponent only needs the cell, and building the answer and
        reading it back was a third of a replayed guess.
        """
        if not legal.size or not legal[legal.argmax()]:
            return None
        return self._draw(legal, cues, game, 1)[0][0]

    #: what :meth:`guess_cell` gives the first cell of: the envs ask ``guess_cell`` only while this is
    #: still the class's ``guess_cells`` (a subclass or patch replacing ``guess_cells`` is asked that)
    guess_cell_mirrors = guess_cells

    def _draw(
        self, legal: np.ndarray, cues: Sequence[str], game: int | None, k: int
    ) -> tuple[list[int], str | None, str | None]:
        """``(cells, word, fallback reason)`` of a guess with at least one free cell: the rule's draws.

        The latest cue people answered gives the word; its answers are tried in
        a random order (the one draw of a guess: its numbers fix the episodes),
        skipping those used up in this ``game``; with no such cue, or none of
        its answers usable, ``k`` free cells are drawn uniformly.  The order is
        ``rng.permutation(len(answers))``, drawn by shuffling a list of Python
        ints: ``Generator.shuffle`` of a list makes the same Fisher-Yates calls
        as ``permutation``, draw for draw (``tests/test_agents_human_replay.py``
        checks both), without the arrays that were a third of a replayed guess.
        """
        if game is not None and game != self._game:
            self._game, self._used = game, {}
        word = None
        for cue in reversed(cues):  # the latest cue people answered
            if (word := self._known(cue)) is not None:
                break
        if word is None:
            return self._uniform(legal, k), None, "unknown_cue"
        cells = self._cells.get(word)
        if cells is None:
            cells = self._cells[word] = self._pool[word].tolist()
        used = self._used.get(word) if game is not None else None
        order = list(range(len(cells)))
        self.rng.shuffle(order)
        picked = self._first_distinct_legal(self._pool[word], cells, order, legal, used, k)
        if picked is None:
            return self._uniform(legal, k), word, "exhausted"
        if game is not None:  # the answer behind the placed cell is used up in this game
            self._used.setdefault(word, []).append(picked[0])
        return [cells[i] for i in picked], word, None

    @staticmethod
    def _first_distinct_legal(
        pool: np.ndarray,
        cells: list[int],
        order: list[int],
        legal: np.ndarray,
        used: list[int] | None,
        k: int,
    ) -> list[int] | None:
        """The first ``k`` answers (indices into ``pool``, whose cells ``cells`` lists as Python ints) in
        ``order`` that are not ``used``, fall on a ``legal`` cell and repeat no earlier pick's cell
        (``None``: not one).

        Why two passes: this scan is most of a replayed guess.  With ``k == 1``
        (the envs' case) the first usable answer is nearly always among the
        first few of the order, so those are tried one by one; a Python
        loop over the whole order cost more than the draw, so the rest is
        scanned as arrays.  Both find the same answer.
        """
        if not order:  # a word without answers
            return None
        if k == 1:
            for i in order[:_FIRST_TRIED]:
                if (not used or i not in used) and legal[cells[i]]:
                    return [i]
            if len(order) <= _FIRST_TRIED:
                return None
        ranked = np.asarray(order, dtype=np.intp)
        ranked_cells = pool[ranked]
        ok = legal[ranked_cells]
        if used:
            gone = np.zeros(len(pool), dtype=bool)
            gone[used] = True
            ok[gone[ranked]] = False
        if k == 1:  # the envs' case: the first usable answer
            first = int(ok.argmax())
            return [order[first]] if ok[first] else None
        at = np.flatnonzero(ok)
        if not at.size:
            return None
        _, first_of_cell = np.unique(ranked_cells[at], return_index=True)  # a cell's first usable answer
        return ranked[at[np.sort(first_of_cell)[:k]]].tolist()

    def _uniform(self, legal: np.ndarray, k: int) -> list[int]:
        """``k`` free cells drawn uniformly without replacement (the fallback of a guess)."""
        idx = np.flatnonzero(legal)
        return self.rng.choice(idx, size=min(k, idx.size), replace=False).tolist()

    # -- cue giving -------------------------------------------------------------
    def frame_shares(self) -> tuple[tuple[str, ...], np.ndarray]:
        """Words and ``(words, 480)`` shares of their human answers inside each cell's scoring frame (read-only)."""
        table = self._table()
        return table.words, table.share

    def _table(self) -> _CueTable:
        if self._cues is None:
            self._cues = _cue_table(self.humans, self.rules, self._pool)
        return self._cues

    def _row(self, text: object) -> int:
        """Row of ``text``'s word in :meth:`frame_shares`, -1 when nobody answered it (see :meth:`_rows`)."""
        if not isinstance(text, str):
            return -1
        row = self._text_rows.get(text)
        if row is None:
            if len(self._text_rows) >= _MAX_CACHED_TEXTS:  # free-text cues: keep the cache bounded
                self._text_rows.clear()
            key = self._known(text)
            row = -1 if key is None else self._table().word_rows[key]
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

    def _blocked_rows(self, forbidden: Iterable[str]) -> set[int]:
        """:meth:`_rows` of the ``forbidden`` texts as a set (a forbidden text blocks its word's row).

        Why the first try: the texts a game forbids are the same few dozen all
        along, so they are nearly always cached, and one C-level pass over
        them is most of this lookup saved.
        """
        if iter(forbidden) is forbidden:  # an iterator can be read once: keep its texts
            forbidden = list(forbidden)
        try:
            cached = set(map(self._text_rows.get, forbidden))
        except TypeError:  # an unhashable non-text
            cached = {None}
        if None in cached:  # a text not seen yet
            return set(self._rows(forbidden))
        return cast(set[int], cached)

    def _pool_table(self, pool: Sequence[str]) -> _PoolTable:
        """The :class:`_PoolTable` of an offered vocabulary, kept per tuple (a game offers the same ones again)."""
        if pool is self._last_pool[0]:  # the same vocabulary as last time (an env's): no tuple hash
            return self._last_pool[1]
        pools = self._table().pools
        table = pools.get(pool) if isinstance(pool, tuple) else None  # only a tuple cannot change
        if table is None:
            table = _PoolTable(self._rows(pool), self._table().by_target)
            if isinstance(pool, tuple):
                if len(pools) >= _MAX_CACHED_POOLS:
                    pools.clear()
                pools[pool] = table
        if isinstance(pool, tuple):
            self._last_pool = (pool, table)
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
        now, the others counted as forbidden (as a query lists them); it may be
        the env's read-only array, valid during the call only (not to be kept).  Why a
        narrow method: see :meth:`guess_cells`; the single-learner envs pass the
        full vocabulary with its mask (its rows are cached) instead of a query
        whose offered words and forbidden set are rebuilt every turn.  Blocking
        is by table row either way, so both give the same answer.
        """
        cells: list[int] = []  # the targets as Python ints; -1 would silently read the last cell's words
        for t in targets:
            c = cell_index(t)
            if c is None:
                raise ValueError(f"give_cue_among: target {t!r} is not a cell index 0-{N_CELLS - 1}")
            cells.append(c)
        targets = cells
        pool: Sequence[str] = vocabulary or self._table().words
        table = self._pool_table(pool)
        blocked = self._blocked_rows(forbidden)  # as CueQuery.forbidden_words: texts matched by their rows
        if offered is not None and table.shared_rows:  # a word not offered blocks its row's other texts
            blocked.update(table.rows[~offered].tolist())
        empty = self._table().empty_row  # as forbidden_words has it: all-white-space texts forbid nothing
        if empty >= 0:
            blocked.discard(empty)
        row_of, ranked, by_target = table.row_of, table.ranked, table.by_target
        best: tuple[float, int, int] | None = None  # (-share, pool position, target index): the smallest wins
        for k, t in enumerate(targets):
            for p in ranked[t] or table.rank(
                t
            ):  # the first allowed word is the target's best (ties: pool order)
                if row_of[p] not in blocked and (offered is None or offered[p]):
                    key = (-float(by_target[t, row_of[p]]), p, k)
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
        share = by_target[targets[k], row_of[p]]
        return Answer(
            target=targets[k],
            cue=pool[p],
            scores=np.asarray([share]),
            info={"frame_share": float(share)},
        )
