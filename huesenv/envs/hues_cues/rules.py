"""The rules of Hues and Cues, free of any RL framework (no PettingZoo, no Gymnasium).

OpenSpiel-style split: :class:`HuesCuesRules` is the immutable game description
(every number and word list overridable), :class:`GameState` is one game in
progress that applies actions and computes the legal ones in one place
(:meth:`GameState.legal_cells`, :meth:`GameState.cue_problem`).  The PettingZoo
env, the Gymnasium wrappers, the game loop and the vectorised scorer are thin
adapters over these two classes.

Rules (defaults follow the published board game):

* A deck of cards, each with ``card_size`` (4) distinct cells; by default a
  deck of ``deck_size`` cards drawn from the game seed (uniform, distinct cells
  per card), or an explicit ``deck``.  One card is drawn per round without
  replacement (a deck shorter than the game is reshuffled and reused).
* The cue giver rotates clockwise from ``first_cue_giver``.  Each player is cue
  giver ``rounds_per_player_few`` (2) times with 3–6 players and
  ``rounds_per_player_many`` (1) times with 7–10 (``many_players_from`` = 7).
* Round: the cue giver picks one of its card's cells as the target; gives cue 1
  (at most 1 word); the guessers place cone 1 one after another clockwise,
  starting left of the cue giver; the cue giver gives cue 2 (at most 2 words)
  or passes; the guessers place cone 2 counter-clockwise, starting right of the
  cue giver (the player who placed last); reveal and score; cones are removed.
  *(Choice: after a pass the guessers still place their second cone, with no
  new information; set ``second_cone_after_pass=False`` to reveal right after
  a pass instead.)*
* A cell holds at most one cone.
* Scoring per cone with the target at Chebyshev distance 0 / 1 / 2:
  ``target_points`` 3 / ``frame_points`` 2 / ``ring_points`` 1, with the 3×3
  frame and the 5×5 ring taken from :func:`huesenv.board.frame` /
  :func:`huesenv.board.ring` (clipped at the board edges).  The cue giver gets
  ``cue_giver_points`` (1) per cone inside the frame (target included).
* Cues (after :func:`huesenv.vocabulary.normalise_word`): no basic colour names
  (``forbidden_words``, also as plurals and -ish / -y derivatives), no board coordinates, single
  letters or numbers, no cue already used in this game, at most
  ``cue_word_limits`` words, and no ``relative_words`` ("lighter", "darker",
  ...) in cue 2.
* Words (:func:`_cue_words`): a cue is split at every character that is not a
  letter or digit (space, ``-``, ``(``, ``)``, ``.``, ``,``, ``&``...), so the
  checks see inside compounds: ``SKY-BLUE``, ``BLUE-GREEN`` and ``BLUE(S)``
  contain ``BLUE``; ``I-18`` / ``I 18`` are the coordinate ``I18`` (a letter
  word followed by a number word is checked as a coordinate); ``U.S.`` is two
  single letters.  Why: whitespace-only splitting let colour names through
  any punctuation.  An apostrophe between letters stays inside its word
  (``O'NEILL``, ``CHILD'S`` are one word each, not a stray single letter), and the
  colour check also sees the word without apostrophes (``BLUE'S`` → ``BLUES``).
* *(Choice: a hyphenated compound counts as one word per part:* ``SEA-SALT``
  *is two words, valid as cue 2 only.)*  Why: the word limits bound how much a
  cue says, and ``SKY-BLUE`` says no less than ``SKY BLUE``; counting the same
  words that are checked keeps one tokenisation for every rule.  Words are
  counted after dropping parenthesised disambiguations, so ``"(LILO AND)
  STITCH"`` is one word and ``"PETER PAN"`` two (valid as cue 2 only); the
  words inside the parentheses are still checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

import numpy as np

from huesenv.board import N_CELLS, check_index, format_coord, frame, parse_coord, ring
from huesenv.vocabulary import normalise_word

PHASES: tuple[str, ...] = ("pick_target", "cue_1", "guess_1", "cue_2", "guess_2", "done")
CUE_PHASES = ("cue_1", "cue_2")
GUESS_PHASES = ("guess_1", "guess_2")

BASIC_COLOUR_NAMES: tuple[str, ...] = (
    "PURPLE",
    "BLUE",
    "GREEN",
    "RED",
    "PINK",
    "YELLOW",
    "ORANGE",
    "BROWN",
    "WHITE",
    "BLACK",
    "GRAY",
    "GREY",
)
RELATIVE_WORDS: tuple[str, ...] = (
    "LIGHTER",
    "DARKER",
    "BRIGHTER",
    "DULLER",
    "PALER",
    "DEEPER",
    "RICHER",
    "WARMER",
    "COOLER",
    "MORE",
    "LESS",
    "HIGHER",
    "LOWER",
    "ABOVE",
    "BELOW",
    "LEFT",
    "RIGHT",
    "UP",
    "DOWN",
    "CLOSER",
    "FURTHER",
)
# Characters a cue may contain: Latin letters (ASCII, Latin-1, Latin Extended-A)
# and a little punctuation.  Why a whitelist: anything else (digits, '#', '_',
# '/') is a way to smuggle coordinates or numbers into a cue, and a fixed set
# lets the text-mode observation space (``gymnasium.spaces.Text``) contain every cue.
CUE_PUNCTUATION = " -'()&.,"
CUE_LETTERS = "".join(
    ch for ch in map(chr, [*range(0x41, 0x5B), *range(0x61, 0x7B), *range(0xC0, 0x180)]) if ch.isalpha()
)
CUE_CHARSET = CUE_LETTERS + CUE_PUNCTUATION
_CUE_CHARS = frozenset(CUE_CHARSET)
_PAREN_RE = re.compile(r"\([^)]*\)")
# A word: a run of letters/digits, with apostrophes allowed *between* them (O'NEILL).
_WORD_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


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

    @property
    def _forbidden_forms(self) -> frozenset[str]:
        return _colour_forms(self.forbidden_words)

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

    def make_deck(self, rng: np.random.Generator) -> tuple[tuple[int, ...], ...]:
        """The deck in the order it will be drawn (explicit decks are shuffled, generated ones drawn fresh)."""
        if self.deck is not None:
            order = rng.permutation(len(self.deck))
            return tuple(self.deck[i] for i in order)
        return tuple(
            tuple(int(c) for c in rng.choice(N_CELLS, size=self.card_size, replace=False))
            for _ in range(self.deck_size)
        )

    # -- cues --------------------------------------------------------------------
    def cue_problem(self, text: object, cue_index: int, used: Iterable[str] = ()) -> str | None:
        """Why ``text`` is not a valid cue ``cue_index`` (1 or 2), or ``None`` when it is.

        ``used`` holds the normalised cues already given in this game.  Any other
        ``cue_index`` is a caller bug, not a bad cue: ``ValueError`` (it used to
        fall through to the last word limit silently).
        """
        if isinstance(cue_index, bool) or cue_index not in (1, 2):
            raise ValueError(f"cue_problem: field cue_index is {cue_index!r}, expected 1 or 2")
        if not isinstance(text, str) or not text.strip():
            return "a cue must be a non-empty string" + (
                " (pass with None or '')" if cue_index == 2 and self.allow_pass else ""
            )
        cue = normalise_word(text)
        problem = _static_cue_problem(self, cue, cue_index)
        if problem is None and self.unique_cues and cue in set(used):
            return f"cue {cue!r} was already used in this game"
        return problem


def _cue_words(cue: str) -> list[str]:
    """The words of a cue, split at every non-letter/digit character (see the module docstring)."""
    return _WORD_RE.findall(cue)


@lru_cache(maxsize=4096)
def _static_cue_problem(rules: HuesCuesRules, cue: str, cue_index: int) -> str | None:
    """The checks that do not depend on the game so far (cached: agents repeat cues across games)."""
    if len(cue) > rules.max_cue_chars:
        return f"cue longer than {rules.max_cue_chars} characters"
    if rules.forbid_numbers and any(ch.isdigit() for ch in cue):
        return "numbers are not allowed in cues"
    bad = sorted({ch for ch in cue if ch not in _CUE_CHARS} - set("0123456789"))
    if bad:
        return f"unsupported character(s) {''.join(bad)!r} in cue"
    words = _cue_words(cue)
    counted = _cue_words(_PAREN_RE.sub(" ", cue))
    if not counted:
        return "a cue needs at least one word outside parentheses"
    # Whole white-space tokens and the cue itself are checked too, so an overridden
    # forbidden list may still hold compounds ("SKY-BLUE") or phrases ("NAVY BLUE").
    spaced = [t for t in (t.strip("().,'&-") for t in cue.split()) if t]
    forbidden = rules._forbidden_forms
    for token in dict.fromkeys([*words, *(w.replace("'", "") for w in words), *spaced, cue]):
        if token in forbidden:
            return f"basic colour names are not allowed in cues ({token!r})"
    if rules.forbid_coordinates:
        pairs = [a + b for a, b in zip(words, words[1:]) if a.isalpha() and b.isdigit()]
        for token in (*words, *spaced, *pairs):
            if _is_coordinate(token):
                return f"board coordinates are not allowed in cues ({token!r})"
    if rules.forbid_letters:
        for token in words:
            if len(token) == 1:
                return f"single letters are not allowed in cues ({token!r})"
    if cue_index == 2:
        for token in dict.fromkeys([*words, *spaced, cue]):
            if token in rules.relative_words:
                return f"relative words are not allowed in cue 2 ({token!r})"
    limit = rules.cue_word_limits[cue_index - 1]
    if len(counted) > limit:
        return f"cue {cue_index} allows at most {limit} word(s), got {len(counted)}"
    return None


@lru_cache(maxsize=16)
def _colour_forms(words: tuple[str, ...]) -> frozenset[str]:
    """Each forbidden word with its plural and -ish / -y derivatives (REDS, REDDISH, BLUISH, ORANGEY...)."""
    forms = set()
    for w in words:
        stems = {w, w + w[-1], w[:-1] if w.endswith("E") else w}
        forms |= {w, w + "S", w + "ES"} | {s + suffix for s in stems for suffix in ("ISH", "Y")}
    return frozenset(forms)


def _is_coordinate(token: str) -> bool:
    try:
        parse_coord(token)
    except ValueError:
        return False
    return True


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


@dataclass(frozen=True)
class Action:
    """One move: ``kind`` is ``"target"`` (cell), ``"cue"`` (text, ``None`` = pass) or ``"cone"`` (cell)."""

    kind: Literal["target", "cue", "cone"]
    cell: int | None = None
    cue: str | None = None


@dataclass(frozen=True)
class Cone:
    seat: int
    cell: int
    cue_index: int  # 1 or 2


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
    deck: tuple[tuple[int, ...], ...]
    round: int = 0
    phase: str = "pick_target"
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
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        state = cls(rules=rules, num_players=n, deck=rules.make_deck(rng))
        state.scores = [0] * n
        state.points_by_role = [{"cue_giver": 0, "guesser": 0} for _ in range(n)]
        state._start_round(0)
        return state

    # -- queries ----------------------------------------------------------------
    @property
    def num_rounds(self) -> int:
        return self.rules.num_rounds(self.num_players)

    @property
    def done(self) -> bool:
        return self.phase == "done"

    @property
    def cue_index(self) -> int:
        """Which cue the current phase is about (pick_target and guess_1 → 1)."""
        return 2 if self.phase in ("cue_2", "guess_2") else 1

    def role(self, seat: int) -> str:
        return "cue_giver" if seat == self.cue_giver else "guesser"

    def legal_cells(self) -> np.ndarray:
        """(480,) bool mask of the cells the current player may choose now (all False in cue phases)."""
        if self.phase == "pick_target":
            mask = np.zeros(N_CELLS, dtype=bool)
            mask[list(self.card)] = True
            return mask
        if self.phase in GUESS_PHASES:
            return ~self.occupied
        return np.zeros(N_CELLS, dtype=bool)

    def can_pass(self) -> bool:
        return self.phase == "cue_2" and self.rules.allow_pass

    def cue_problem(self, text: object) -> str | None:
        """Why ``text`` is not a valid cue now (``None``: valid)."""
        if self.phase not in CUE_PHASES:
            return f"no cue expected in phase {self.phase!r}"
        return self.rules.cue_problem(text, self.cue_index, self.used_cues)

    def problem(self, action: Action) -> str | None:
        """Why ``action`` is illegal now, or ``None``: the single legality check."""
        if self.done:
            return "the game is over"
        if action.kind == "target":
            if self.phase != "pick_target":
                return f"picking a target is not allowed in phase {self.phase!r}"
            if action.cell not in self.card:
                return f"target {action.cell!r} is not on the cue giver's card {[format_coord(c) for c in self.card]}"
            return None
        if action.kind == "cue":
            if self.phase not in CUE_PHASES:
                return f"giving a cue is not allowed in phase {self.phase!r}"
            if action.cue is None or (isinstance(action.cue, str) and not action.cue.strip()):
                return None if self.can_pass() else f"passing is not allowed in phase {self.phase!r}"
            return self.cue_problem(action.cue)
        if action.kind == "cone":
            if self.phase not in GUESS_PHASES:
                return f"placing a cone is not allowed in phase {self.phase!r}"
            try:
                cell = check_index(action.cell)
            except ValueError as err:
                return str(err)
            if self.occupied[cell]:
                return f"cell {format_coord(cell)} already holds a cone"
            return None
        return f"unknown action kind {action.kind!r}"

    # -- transitions --------------------------------------------------------------
    def apply(self, action: Action) -> RoundResult | None:
        """Apply a legal action (``IllegalActionError`` otherwise); returns the round result at a reveal."""
        why = self.problem(action)
        if why is not None:
            raise IllegalActionError(why)
        self.moves += 1
        if action.kind == "target":
            self.target = int(action.cell)
            self.phase = "cue_1"
            return None
        if action.kind == "cue":
            passed = action.cue is None or not action.cue.strip()
            cue = None if passed else normalise_word(action.cue)
            self.cues.append(cue)
            if cue is not None:
                self.used_cues.append(cue)
            if self.phase == "cue_1":
                self._start_guessing("guess_1", clockwise=True)
            elif passed and not self.rules.second_cone_after_pass:
                return self._reveal()
            else:
                self._start_guessing("guess_2", clockwise=False)
            return None
        cell = int(action.cell)
        self.occupied[cell] = True
        self.cones.append(Cone(self.current, cell, 1 if self.phase == "guess_1" else 2))
        self.order.pop(0)
        if self.order:
            self.current = self.order[0]
            return None
        if self.phase == "guess_1":
            self.phase = "cue_2"
            self.current = self.cue_giver
            return None
        return self._reveal()

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
        self.phase = "pick_target"

    def _start_guessing(self, phase: str, clockwise: bool) -> None:
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
            self.phase = "done"
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
