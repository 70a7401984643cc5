"""The cue grammar: what a cue may say, checked in one place for the env, the agents, the play window and the app.

Rules (defaults follow the published board game; every list and limit comes
from the caller's :class:`CueRules`, i.e. :class:`huesenv.game.rules.HuesCuesRules`).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.game.cues``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Protocol

from huesenv.board import parse_coord
from huesenv.vocabulary import normalise_word

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


class CueRules(Protocol):
    """The rule values the grammar reads (:class:`huesenv.game.rules.HuesCuesRules` provides them)."""

    def __hash__(self) -> int: ...  # the grammar caches per rules object (lru_cache)

    @property
    def cue_word_limits(self) -> tuple[int, int]: ...
    @property
    def allow_pass(self) -> bool: ...
    @property
    def unique_cues(self) -> bool: ...
    @property
    def forbidden_words(self) -> tuple[str, ...]: ...
    @property
    def relative_words(self) -> tuple[str, ...]: ...
    @property
    def forbid_coordinates(self) -> bool: ...
    @property
    def forbid_letters(self) -> bool: ...
    @property
    def forbid_numbers(self) -> bool: ...
    @property
    def max_cue_chars(self) -> int: ...


def is_pass(text: object) -> bool:
    """``None`` or a blank string: the cue giver passes (cue 2 only, when the rules allow it)."""
    return text is None or (isinstance(text, str) and not text.strip())


def cue_problem(rules: CueRules, text: object, cue_index: int, used: Iterable[str] = ()) -> str | None:
    """Why ``text`` is not a valid cue ``cue_index`` (1 or 2) under ``rules``, or ``None`` when it is.

    ``used`` holds the normalised cues already given in this game.  Any other
    ``cue_index`` is a caller bug, not a bad cue: ``ValueError``.
    """
    if isinstance(cue_index, bool) or cue_index not in (1, 2):
        raise ValueError(f"cue_problem: field cue_index is {cue_index!r}, expected 1 or 2")
    if not isinstance(text, str) or not text.strip():
        return "a cue must be a non-empty string" + (
            " (pass with None or '')" if cue_index == 2 and rules.allow_pass else ""
        )
    cue = normalise_word(text)
    problem = static_cue_problem(rules, cue, cue_index)
    if problem is None and rules.unique_cues and cue in set(used):
        return f"cue {cue!r} was already used in this game"
    return problem


def counted_words(cue: str) -> int:
    """How many words count against the word limit (parenthesised disambiguations left out)."""
    return len(cue_words(_PAREN_RE.sub(" ", normalise_word(cue))))


def cue_words(cue: str) -> list[str]:
    """The words of a cue, split at every non-letter/digit character (see the module docstring)."""
    return _WORD_RE.findall(cue)


@lru_cache(maxsize=4096)
def static_cue_problem(rules: CueRules, cue: str, cue_index: int) -> str | None:
    """The checks that do not depend on the game so far (cached: agents repeat cues across games)."""
    if len(cue) > rules.max_cue_chars:
        return f"cue longer than {rules.max_cue_chars} characters"
    if rules.forbid_numbers and any(ch.isdigit() for ch in cue):
        return "numbers are not allowed in cues"
    bad = sorted({ch for ch in cue if ch not in _CUE_CHARS} - set("0123456789"))
    if bad:
        return f"unsupported character(s) {''.join(bad)!r} in cue"
    words = cue_words(cue)
    counted = cue_words(_PAREN_RE.sub(" ", cue))
    if not counted:
        return "a cue needs at least one word outside parentheses"
    # Whole white-space tokens and the cue itself are checked too, so an overridden
    # forbidden list may still hold compounds ("SKY-BLUE") or phrases ("NAVY BLUE").
    spaced = [t for t in (t.strip("().,'&-") for t in cue.split()) if t]
    forbidden = colour_forms(rules.forbidden_words)
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
def colour_forms(words: tuple[str, ...]) -> frozenset[str]:
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
