"""The one agent interface: every agent answers *queries* and returns *answers*.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.game.protocol``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from huesenv.board import N_CELLS
from huesenv.game.phase import Phase
from huesenv.game.view import PlayerView
from huesenv.vocabulary import normalise_word


@dataclass(frozen=True)
class GuessQuery:
    cues: tuple[str, ...]
    legal: np.ndarray | None = None  # (480,) bool; None = every cell legal
    top_k: int = 1
    player: str | None = None
    game: int | None = None  # lets stateful agents (human replay) reset per game
    phase: Phase | None = None
    round: int | None = None
    seat: int | None = None
    given: tuple[str | None, ...] = ()  # this round's cues, passes as None
    view: PlayerView | None = None

    def legal_mask(self) -> np.ndarray:
        return np.ones(N_CELLS, dtype=bool) if self.legal is None else np.asarray(self.legal, dtype=bool)


@dataclass(frozen=True)
class CueQuery:
    card: tuple[int, ...]
    target: int | None = None  # None: pick a target from the card first
    cue_index: int = 1  # 1 = one word, 2 = up to two words
    forbidden: frozenset[str] = frozenset()
    vocabulary: tuple[str, ...] | None = None  # vocabulary mode: choose among these
    occupied: np.ndarray | None = None  # (480,) bool, cones already on the board
    player: str | None = None
    game: int | None = None
    phase: Phase | None = None
    round: int | None = None
    seat: int | None = None
    given: tuple[str | None, ...] = ()  # this round's cues, passes as None
    view: PlayerView | None = None

    @property
    def targets(self) -> list[int]:
        """The cells a cue may aim at: the chosen target, or every card cell when the agent picks it."""
        return [int(c) for c in self.card] if self.target is None else [int(self.target)]

    def no_cue(self, why: str, target: int | None = None) -> Answer:
        """The answer of an agent with no allowed word left: a pass for cue 2 (the rules allow one), an
        invalid answer for cue 1 (the env's fallback then plays); ``target`` defaults to the first target."""
        if target is None:
            targets = self.targets
            target = targets[0] if targets else None
        return Answer(target=target, cue=None, valid=self.cue_index == 2, raw_text=why)

    @property
    def forbidden_words(self) -> frozenset[str]:
        """The words already used this game, normalised, for comparing with candidate cues."""
        return frozenset(normalise_word(f) for f in self.forbidden if isinstance(f, str) and f.strip())


@dataclass(frozen=True)
class ProbeQuery:
    image: np.ndarray | None  # (H, W, 3) uint8; None = ask in text only (GCA text prior)
    question: str
    options: tuple[str, ...] | None = None
    subject: str | None = None  # what the question is about ("apple", "text"): lets CLIP build "a red apple"
    task: str | None = None  # "gca" | "interference" | ...
    trial_id: str | None = None
    # what the reply must give (huesenv.probes.parse_answer kinds, plus "threshold+colour"): picks the prompt
    answer_kind: str | None = None


Query = GuessQuery | CueQuery | ProbeQuery


@dataclass
class Answer:
    cells: np.ndarray | None = None  # ranked flat cell indices, best first
    scores: np.ndarray | None = None  # same length as cells, higher = better
    target: int | None = None  # CueQuery with target None: the chosen target
    cue: str | None = None  # CueQuery: the cue text ("" or None = pass, allowed for cue 2)
    option: int | None = None  # ProbeQuery with options: index of the chosen option
    text: str | None = None  # parsed free-text answer (colour name, number...)
    raw_text: str | None = None  # what the model said, verbatim
    valid: bool = True
    timings: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def cell(self) -> int | None:
        return None if self.cells is None or len(self.cells) == 0 else int(self.cells[0])


@runtime_checkable
class Agent(Protocol):
    """What every agent provides.  :class:`BaseAgent` supplies ``act_batch`` and ``reset``."""

    name: str

    @property
    def agent_id(self) -> str: ...

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, query: Query) -> Answer: ...

    def act_batch(self, queries: Sequence[Query]) -> list[Answer]: ...


class BaseAgent:
    """Convenience base: dispatches ``act`` by query type; ``act_batch`` loops unless overridden.

    Subclasses implement the query types they support (``guess``, ``give_cue``,
    ``answer_probe``); the others raise ``NotImplementedError`` with the agent name.
    """

    name: str = "base"

    @property
    def agent_id(self) -> str:
        return self.name

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        pass

    def act(self, query: Query) -> Answer:
        if isinstance(query, GuessQuery):
            return self.guess(query)
        if isinstance(query, CueQuery):
            return self.give_cue(query)
        if isinstance(query, ProbeQuery):
            return self.answer_probe(query)
        raise TypeError(f"{self.name}: unsupported query type {type(query).__name__}")

    def act_batch(self, queries: Sequence[Query]) -> list[Answer]:
        return [self.act(q) for q in queries]

    def guess(self, query: GuessQuery) -> Answer:
        raise NotImplementedError(f"agent {self.name!r} cannot guess cells")

    def give_cue(self, query: CueQuery) -> Answer:
        raise NotImplementedError(f"agent {self.name!r} cannot give cues")

    def answer_probe(self, query: ProbeQuery) -> Answer:
        raise NotImplementedError(f"agent {self.name!r} cannot answer probes")
