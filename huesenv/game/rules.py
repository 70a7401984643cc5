"""The rules of Hues and Cues, free of any RL framework (no PettingZoo, no Gymnasium).

OpenSpiel-style split: :class:`HuesCuesRules` is the immutable game description
(every number and word list overridable), :class:`GameState` is one game in
progress that applies actions and computes the legal ones in one place
(:meth:`GameState.legal_cells`, :meth:`GameState.cue_problem`).  The PettingZoo
env, the Gymnasium wrappers, the game loop and the vectorised scorer are thin
adapters over these two classes.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.game.rules``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from copy import deepcopy
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from typing import Any, Literal, NamedTuple

import numpy as np

from huesenv.board import N_CELLS, check_index, format_coord, frame, ring
from huesenv.game.cues import (
    BASIC_COLOUR_NAMES,
    CUE_CHARSET,
    RELATIVE_WORDS,
    cue_problem,
    is_pass,
)
from huesenv.game.phase import CUE_PHASES, GUESS_PHASES, PHASES, Phase
from huesenv.vocabulary import normalise_word

__all__ = [
    "BASIC_COLOUR_NAMES",
    "CUE_CHARSET",
    "CUE_PHASES",
    "DEFAULT_RULES",
    "GUESS_PHASES",
    "PHASES",
    "RELATIVE_WORDS",
    "Action",
    "Cone",
    "GameState",
    "HuesCuesRules",
    "IllegalActionError",
    "Phase",
    "RoundResult",
    "recompute_scores",
    "score_cones",
    "score_round",
]


class IllegalActionError(ValueError):
    """An action the rules do not allow now (wrong phase, occupied cell, invalid cue...)."""


@dataclass(frozen=True)
class HuesCuesRules:
    """The game description; every number and list can be overridden (``dataclasses.replace``)."""

    min_players: int = 3
    max_players: int = 10
    card_size: int = 4
    deck_size: int = 100
    deck: tuple[tuple[int, ...], ...] | None = None  # explicit deck of flat cell indices
    target_points: int = 3
    frame_points: int = 2
    ring_points: int = 1
    cue_giver_points: int = 1  # per cone inside the 3×3 frame
    rounds_per_player_few: int = 2
    rounds_per_player_many: int = 1
    many_players_from: int = 7
    first_cue_giver: int = 0
    cue_word_limits: tuple[int, int] = (1, 2)
    allow_pass: bool = True  # cue 2 may be passed
    second_cone_after_pass: bool = True
    unique_cues: bool = True
    forbidden_words: tuple[str, ...] = BASIC_COLOUR_NAMES
    relative_words: tuple[str, ...] = RELATIVE_WORDS
    forbid_coordinates: bool = True
    forbid_letters: bool = True
    forbid_numbers: bool = True
    max_cue_chars: int = 64

    def __post_init__(self) -> None:
        if not 2 <= self.min_players <= self.max_players:
            raise ValueError(
                f"HuesCuesRules.min_players/max_players: expected 2 <= min <= max, got {self.min_players}, {self.max_players}"
            )
        if not 1 <= self.card_size <= N_CELLS:
            raise ValueError(f"HuesCuesRules.card_size: expected 1-{N_CELLS}, got {self.card_size}")
        if self.deck is not None:
            deck = tuple(tuple(check_index(c) for c in card) for card in self.deck)
            for i, card in enumerate(deck):
                if len(card) != self.card_size or len(set(card)) != len(card):
                    raise ValueError(
                        f"HuesCuesRules.deck, card {i}: expected {self.card_size} distinct cells, got {card}"
                    )
            if not deck:
                raise ValueError("HuesCuesRules.deck: expected at least one card")
            object.__setattr__(self, "deck", deck)
        elif self.deck_size < 1:
            raise ValueError(f"HuesCuesRules.deck_size: expected >= 1, got {self.deck_size}")
        if len(self.cue_word_limits) != 2 or min(self.cue_word_limits) < 1:
            raise ValueError(
                f"HuesCuesRules.cue_word_limits: expected two limits >= 1, got {self.cue_word_limits}"
            )
        object.__setattr__(self, "forbidden_words", tuple(normalise_word(w) for w in self.forbidden_words))
        object.__setattr__(self, "relative_words", tuple(normalise_word(w) for w in self.relative_words))

    # -- derived quantities ----------------------------------------------------
    def rounds_per_player(self, num_players: int) -> int:
        self.check_players(num_players)
        return (
            self.rounds_per_player_many
            if num_players >= self.many_players_from
            else self.rounds_per_player_few
        )

    def num_rounds(self, num_players: int) -> int:
        return num_players * self.rounds_per_player(num_players)

    def check_players(self, num_players: int) -> int:
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, (int, np.integer))
            or not (self.min_players <= num_players <= self.max_players)
        ):
            raise ValueError(
                f"num_players: expected an integer {self.min_players}-{self.max_players}, got {num_players!r}"
            )
        return int(num_players)

    @property
    def points_matrix(self) -> np.ndarray:
        """``(480, 480)`` int array: points a cone on cell ``c`` earns when the target is ``t`` (``[t, c]``)."""
        return _points_matrix(self.target_points, self.frame_points, self.ring_points)

    @property
    def in_frame_matrix(self) -> np.ndarray:
        """``(480, 480)`` bool: cell ``c`` lies inside the 3×3 frame around target ``t``."""
        return _in_frame_matrix()

    def make_deck(self, rng: np.random.Generator) -> Sequence[tuple[int, ...]]:
        """The deck in the order it will be drawn (explicit decks are shuffled, generated ones drawn fresh)."""
        if self.deck is not None:
            order = rng.permutation(len(self.deck))
            return tuple(self.deck[i] for i in order)
        return Deck(rng, self.card_size, self.deck_size)

    # -- cues --------------------------------------------------------------------
    def cue_problem(self, text: object, cue_index: int, used: Iterable[str] = ()) -> str | None:
        """Why ``text`` is not a valid cue ``cue_index`` (1 or 2), or ``None`` when it is.

        ``used`` holds the normalised cues already given in this game; the checks
        are :func:`huesenv.game.cues.cue_problem` (the one cue grammar).
        """
        return cue_problem(self, text, cue_index, used)


@lru_cache(maxsize=8)
def _points_matrix(target: int, frame_pts: int, ring_pts: int) -> np.ndarray:
    m = np.zeros((N_CELLS, N_CELLS), dtype=np.int16)
    for t in range(N_CELLS):
        m[t, ring(t)] = ring_pts
        m[t, frame(t)] = frame_pts
        m[t, t] = target
    m.setflags(write=False)
    return m


@lru_cache(maxsize=1)
def _in_frame_matrix() -> np.ndarray:
    m = np.zeros((N_CELLS, N_CELLS), dtype=bool)
    for t in range(N_CELLS):
        m[t, frame(t)] = True
    m.setflags(write=False)
    return m


def score_cones(
    targets: np.ndarray | int, cells: np.ndarray, rules: HuesCuesRules | None = None
) -> np.ndarray:
    """Guesser points of cones on ``cells`` for ``targets`` (broadcast; vectorised, any batch shape)."""
    rules = rules or DEFAULT_RULES
    return rules.points_matrix[np.asarray(targets, dtype=np.int64), np.asarray(cells, dtype=np.int64)]


def score_round(
    target: int,
    cones: Sequence[tuple[int, int]],
    cue_giver: int,
    num_players: int,
    rules: HuesCuesRules | None = None,
) -> list[int]:
    """Points per seat for one round: ``cones`` are ``(seat, cell)`` pairs; the one scoring rule."""
    rules = rules or DEFAULT_RULES
    points = [0] * num_players
    pm, fm = rules.points_matrix[target], rules.in_frame_matrix[target]
    for seat, cell in cones:
        points[seat] += int(pm[cell])
        if fm[cell]:
            points[cue_giver] += rules.cue_giver_points
    return points


DEFAULT_RULES = HuesCuesRules()


class Deck(Sequence):
    """A generated deck whose cards are drawn from the game generator when first needed.

    Why lazy: a game uses at most 12 of the 100 cards, and drawing all of them
    took most of a reset.  Card ``i`` is the ``i``-th draw of
    ``rng.choice(N_CELLS, card_size, replace=False)``, exactly as an eager deck,
    so the same seed gives the same cards.
    """

    def __init__(self, rng: np.random.Generator, card_size: int, size: int) -> None:
        self._rng, self._card_size, self._size = rng, card_size, size
        self._cards: list[tuple[int, ...]] = []

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._size)))
        i = index + self._size if index < 0 else index
        if not 0 <= i < self._size:
            raise IndexError(f"deck index {index} out of range 0-{self._size - 1}")
        while len(self._cards) <= i:
            draw = self._rng.choice(N_CELLS, size=self._card_size, replace=False)
            self._cards.append(tuple(draw.tolist()))  # Python ints
        return self._cards[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Deck({len(self._cards)} of {self._size} cards drawn)"


class Action(NamedTuple):
    """One move: ``kind`` is ``"target"`` (cell), ``"cue"`` (text, ``None`` = pass) or ``"cone"`` (cell).

    A named tuple (immutable, built on every env step, so cheap to build).
    """

    kind: Literal["target", "cue", "cone"]
    cell: int | None = None
    cue: str | None = None


class Cone(NamedTuple):
    seat: int
    cell: int
    cue_index: int  # 1 or 2


def _new_cone(fields: tuple[int, int, int]) -> Cone:
    """``Cone(*fields)`` without the named tuple's generated ``__new__`` (a cone is placed on most moves)."""
    return tuple.__new__(Cone, fields)


@dataclass(frozen=True)
class RoundResult:
    """What the reveal shows: the target, every cone, and the points per seat."""

    round: int
    cue_giver: int
    card: tuple[int, ...]
    target: int
    cues: tuple[str | None, ...]
    cones: tuple[Cone, ...]
    points: tuple[int, ...]


@dataclass
class GameState:
    """One game in progress.  Mutated only through :meth:`apply`; :meth:`clone` copies it."""

    rules: HuesCuesRules
    num_players: int
    deck: Sequence[tuple[int, ...]]
    round: int = 0
    phase: Phase = Phase.PICK_TARGET
    cue_giver: int = 0
    current: int = 0
    card: tuple[int, ...] = ()
    target: int | None = None
    cues: list[str | None] = field(default_factory=list)  # None = passed
    cones: list[Cone] = field(default_factory=list)
    occupied: np.ndarray = field(default_factory=lambda: np.zeros(N_CELLS, dtype=bool))
    order: list[int] = field(default_factory=list)  # seats still to place in this guess phase
    used_cues: list[str] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    points_by_role: list[dict[str, int]] = field(default_factory=list)
    history: list[RoundResult] = field(default_factory=list)
    moves: int = 0

    @classmethod
    def new(
        cls,
        num_players: int,
        seed: int | np.random.Generator | None = None,
        rules: HuesCuesRules | None = None,
    ) -> GameState:
        rules = rules or DEFAULT_RULES
        n = rules.check_players(num_players)
        return cls.from_deck(n, rules.make_deck(np.random.default_rng(seed)), rules)

    @classmethod
    def from_deck(
        cls, num_players: int, deck: Sequence[tuple[int, ...]], rules: HuesCuesRules | None = None
    ) -> GameState:
        """A new game whose round ``r`` uses ``deck[r]`` as dealt (replays build the deck from a log)."""
        rules = rules or DEFAULT_RULES
        n = rules.check_players(num_players)
        if not deck:
            raise ValueError("GameState.from_deck: expected at least one card")
        state = cls(rules=rules, num_players=n, deck=deck)
        state.scores = [0] * n
        state.points_by_role = [{"cue_giver": 0, "guesser": 0} for _ in range(n)]
        state._start_round(0)
        return state

    def __eq__(self, other: object) -> bool:
        """By value; written out because the generated ``==`` raised on the ``occupied`` array."""
        if type(other) is not type(self):
            return NotImplemented
        return all(
            np.array_equal(getattr(self, f.name), getattr(other, f.name))
            if f.name == "occupied"
            else getattr(self, f.name) == getattr(other, f.name)
            for f in fields(self)
        )

    # -- queries ----------------------------------------------------------------
    @cached_property
    def num_rounds(self) -> int:
        """Rounds in this game (fixed by the rules and the number of players; asked at every view)."""
        return self.rules.num_rounds(self.num_players)

    @property
    def done(self) -> bool:
        return self.phase is Phase.DONE

    @property
    def cue_index(self) -> int:
        """Which cue the current phase is about (pick_target and guess_1 → 1)."""
        return self.phase.cue_index

    def role(self, seat: int) -> str:
        return "cue_giver" if seat == self.cue_giver else "guesser"

    def legal_cells(self) -> np.ndarray:
        """(480,) bool mask of the cells the current player may choose now (all False in cue phases)."""
        if self.phase is Phase.PICK_TARGET:
            mask = np.zeros(N_CELLS, dtype=bool)
            mask[list(self.card)] = True
            return mask
        if self.phase in GUESS_PHASES:
            return ~self.occupied
        return np.zeros(N_CELLS, dtype=bool)

    def can_pass(self) -> bool:
        return self.phase is Phase.CUE_2 and self.rules.allow_pass

    def cue_problem(self, text: object) -> str | None:
        """Why ``text`` is not a valid cue now (``None``: valid)."""
        if self.phase not in CUE_PHASES:
            return f"no cue expected in phase {self.phase!r}"
        return self.rules.cue_problem(text, self.cue_index, self.used_cues)

    def problem(self, action: Action) -> str | None:
        """Why ``action`` is illegal now, or ``None``: the single legality check."""
        phase = self.phase
        if phase is Phase.DONE:
            return "the game is over"
        kind = action.kind
        if kind == "cone":  # most moves of a game are cones: checked first
            if not phase.is_guess:
                return f"placing a cone is not allowed in phase {phase!r}"
            cell = action.cell
            if type(cell) is not int or not 0 <= cell < N_CELLS:  # the common case needs no conversion
                try:
                    cell = check_index(cell)
                except ValueError as err:
                    return str(err)
            if self.occupied[cell]:
                return f"cell {format_coord(cell)} already holds a cone"
            return None
        if kind == "target":
            if phase is not Phase.PICK_TARGET:
                return f"picking a target is not allowed in phase {phase!r}"
            if action.cell not in self.card:
                return f"target {action.cell!r} is not on the cue giver's card {[format_coord(c) for c in self.card]}"
            return None
        if kind == "cue":
            if not phase.is_cue:
                return f"giving a cue is not allowed in phase {phase!r}"
            if is_pass(action.cue):
                return None if self.can_pass() else f"passing is not allowed in phase {phase!r}"
            return self.cue_problem(action.cue)
        return f"unknown action kind {kind!r}"

    # -- transitions --------------------------------------------------------------
    def apply(self, action: Action, *, checked: bool = False) -> RoundResult | None:
        """Apply a legal action (``IllegalActionError`` otherwise); returns the round result at a reveal.

        ``checked=True``: the caller has just had ``problem(action)`` return ``None``
        (the env does, to report the reason), so the check is not repeated.
        """
        why = None if checked else self.problem(action)
        if why is not None:
            raise IllegalActionError(why)
        self.moves += 1
        kind = action.kind
        if kind == "cone":
            assert action.cell is not None  # checked by problem()
            cell = int(action.cell)
            phase = self.phase
            self.occupied[cell] = True
            self.cones.append(_new_cone((self.current, cell, phase.cue_index)))
            order = self.order
            del order[0]
            if order:
                self.current = order[0]
                return None
            if phase is Phase.GUESS_1:
                self.phase = Phase.CUE_2
                self.current = self.cue_giver
                return None
            return self._reveal()
        if kind == "target":
            assert action.cell is not None  # checked by problem()
            self.target = int(action.cell)
            self.phase = Phase.CUE_1
            return None
        # kind == "cue" (checked by problem())
        passed = is_pass(action.cue)
        cue = None if passed else normalise_word(action.cue)
        self.cues.append(cue)
        if cue is not None:
            self.used_cues.append(cue)
        if self.phase is Phase.CUE_1:
            self._start_guessing(Phase.GUESS_1, clockwise=True)
        elif passed and not self.rules.second_cone_after_pass:
            return self._reveal()
        else:
            self._start_guessing(Phase.GUESS_2, clockwise=False)
        return None

    def _start_round(self, index: int) -> None:
        self.round = index
        self.cue_giver = (self.rules.first_cue_giver + index) % self.num_players
        self.current = self.cue_giver
        self.card = self.deck[index % len(self.deck)]
        self.target = None
        self.cues = []
        self.cones = []
        self.occupied = np.zeros(N_CELLS, dtype=bool)
        self.order = []
        self.phase = Phase.PICK_TARGET

    def _start_guessing(self, phase: Phase, clockwise: bool) -> None:
        n, g = self.num_players, self.cue_giver
        step = 1 if clockwise else -1
        self.order = [(g + step * k) % n for k in range(1, n)]
        self.phase = phase
        self.current = self.order[0]

    def _reveal(self) -> RoundResult:
        assert self.target is not None
        points = score_round(
            self.target, [(c.seat, c.cell) for c in self.cones], self.cue_giver, self.num_players, self.rules
        )
        for seat, p in enumerate(points):
            self.scores[seat] += p
            self.points_by_role[seat][self.role(seat)] += p
        result = RoundResult(
            round=self.round,
            cue_giver=self.cue_giver,
            card=self.card,
            target=self.target,
            cues=tuple(self.cues),
            cones=tuple(self.cones),
            points=tuple(points),
        )
        self.history.append(result)
        if self.round + 1 >= self.num_rounds:
            self.phase = Phase.DONE
            self.order = []
        else:
            self._start_round(self.round + 1)
        return result

    def clone(self) -> GameState:
        return deepcopy(self)


def recompute_scores(
    history: Sequence[RoundResult], num_players: int, rules: HuesCuesRules | None = None
) -> list[int]:
    """Final scores recomputed from the revealed rounds alone (a check on the incremental bookkeeping)."""
    totals = [0] * num_players
    for r in history:
        pts = score_round(r.target, [(c.seat, c.cell) for c in r.cones], r.cue_giver, num_players, rules)
        totals = [a + b for a, b in zip(totals, pts)]
    return totals
