"""The phases of a Hues and Cues round, as one enum instead of string literals spread over the code.

Why a ``str`` enum: log records, JSON files and older code compare and store
phases as plain strings (``"guess_1"``); a member *is* that string (it compares
equal, hashes equal and serialises as its value), so records written before
and after the enum are byte-identical.

:data:`PHASES` is the state machine's order (the index is what observations
encode); :attr:`Phase.REVEAL` is not a state of the machine but the name logs
and render views give to the moment after the last cone, when points are shown.
"""

from __future__ import annotations

from enum import Enum
from functools import cached_property


class Phase(str, Enum):
    PICK_TARGET = "pick_target"
    CUE_1 = "cue_1"
    GUESS_1 = "guess_1"
    CUE_2 = "cue_2"
    GUESS_2 = "guess_2"
    DONE = "done"
    REVEAL = "reveal"  # logs and views only: the state machine moves straight to the next round

    # Why these two: phases are looked up on every env step.  str's own hash (equal to Enum's for a str
    # mixin: the value's) runs in C, and the derived flags below are cached on the members (singletons).
    __hash__ = str.__hash__

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @cached_property
    def is_cue(self) -> bool:
        """The cue giver gives a cue (or passes) now."""
        return self in _CUE

    @cached_property
    def is_guess(self) -> bool:
        """Guessers place cones now."""
        return self in _GUESS

    @cached_property
    def is_cue_giver_turn(self) -> bool:
        """The cue giver acts now (target pick or a cue)."""
        return self in _GIVER

    @cached_property
    def cue_index(self) -> int:
        """Which cue this phase is about: 2 in ``cue_2`` / ``guess_2``, else 1."""
        return 2 if self in (Phase.CUE_2, Phase.GUESS_2) else 1

    @cached_property
    def index(self) -> int:  # type: ignore[override]  # a property, not str.index: Phase is a StrEnum
        """Position in :data:`PHASES` (what observations encode); ``REVEAL`` has none."""
        return _INDEX[self]

    @classmethod
    def parse(cls, value: str | Phase) -> Phase:
        """``Phase`` from its value; ``ValueError`` naming the valid values otherwise."""
        try:
            return cls(value)
        except ValueError:
            raise ValueError(f"phase: expected one of {[p.value for p in cls]}, got {value!r}") from None


PHASES: tuple[Phase, ...] = (
    Phase.PICK_TARGET,
    Phase.CUE_1,
    Phase.GUESS_1,
    Phase.CUE_2,
    Phase.GUESS_2,
    Phase.DONE,
)
CUE_PHASES: tuple[Phase, ...] = (Phase.CUE_1, Phase.CUE_2)
GUESS_PHASES: tuple[Phase, ...] = (Phase.GUESS_1, Phase.GUESS_2)
_CUE = frozenset(CUE_PHASES)
_GUESS = frozenset(GUESS_PHASES)
_GIVER = frozenset((Phase.PICK_TARGET, *CUE_PHASES))
_INDEX = {p: i for i, p in enumerate(PHASES)}
