"""The Simple subset's colour-irrelevant words, and the data rule that keeps colour-laden ones out.

The paper's control subset uses "color-irrelevant words (e.g. Saturday, good)".
A hand-picked list let in words people read as colours (SUMMER: the human
cohort answers yellow J5 at 0.82 consistency; RIVER, GARDEN), so the list is
derived from data instead of chosen by hand.  A candidate of
:data:`CANDIDATE_WORDS` is **colour-laden** (and left out) by the rules in the design notes.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.interference.words``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from huesenv.colour_names import canonical_colour

NEIGHBOUR_COSINE = 0.5
NEIGHBOUR_SHARE = 0.9
CANDIDATE_WORDS: tuple[str, ...] = (
    "GOOD",
    "SATURDAY",
    "TABLE",
    "HAPPY",
    "RIVER",
    "MUSIC",
    "PAPER",
    "WINDOW",
    "CHAIR",
    "HOUSE",
    "PLANET",
    "SMILE",
    "CLOCK",
    "TRAIN",
    "PENCIL",
    "MONDAY",
    "DANCE",
    "FRIEND",
    "LETTER",
    "SUMMER",
    "TICKET",
    "JUMP",
    "GARDEN",
    "QUIET",
    "THINK",
    "WALK",
    "MARKET",
    "BOTTLE",
    "CAMERA",
    "DOCTOR",
    "IDEA",
    "NUMBER",
    "QUESTION",
    "REASON",
    "TUESDAY",
    "WEEK",
    "PERSON",
    "STORY",
    "METHOD",
    "VOTE",
)
# left out, with the rule that excluded them: colour_laden(CANDIDATE_WORDS, …) on the packaged cohort
# and all-MiniLM-L6-v2 (recomputed by a test)
COLOUR_LADEN: tuple[str, ...] = ("RIVER", "PLANET", "SUMMER", "GARDEN", "THINK", "BOTTLE")
# the colour-irrelevant words the stimuli use: the candidates less the colour-laden ones, in order
SIMPLE_WORDS: tuple[str, ...] = tuple(w for w in CANDIDATE_WORDS if w not in COLOUR_LADEN)


def colour_name_tokens() -> frozenset[str]:
    """Every word of an XKCD colour-survey name (upper case), e.g. BOTTLE from "bottle green"."""
    from matplotlib import colors as mcolors

    out: set[str] = set()
    for key in mcolors.XKCD_COLORS:
        out.update(key.removeprefix("xkcd:").replace("/", " ").replace("-", " ").upper().split())
    return frozenset(out)


def colour_laden(
    candidates: Iterable[str],
    modal_share: Mapping[str, float],
    embed: Callable[[Sequence[str]], np.ndarray],
    *,
    cosine: float = NEIGHBOUR_COSINE,
    share: float = NEIGHBOUR_SHARE,
) -> dict[str, str]:
    """The colour-laden candidates, each with the reason (see the module docstring).

    ``modal_share``: vocabulary word (upper case) → share of its human answers on
    its modal macro-colour; ``embed``: texts → L2-normalised embeddings (n, d).
    """
    words = [str(w).upper() for w in candidates]
    vocab = sorted(modal_share)
    names = colour_name_tokens()
    out: dict[str, str] = {}
    vocab_emb = np.asarray(embed([v.lower() for v in vocab]), dtype=float)
    cand_emb = np.asarray(embed([w.lower() for w in words]), dtype=float)
    sims = cand_emb @ vocab_emb.T
    for i, word in enumerate(words):
        if word in modal_share:
            out[word] = f"a Hues and Cues word (people's modal-colour share {modal_share[word]:.2f})"
            continue
        if canonical_colour(word.lower()) is not None or word in names:
            out[word] = "a colour name or a word of an XKCD colour name"
            continue
        j = int(np.argmax(sims[i]))
        near = vocab[j]
        if sims[i, j] >= cosine and modal_share[near] >= share:
            out[word] = (
                f"nearest Hues and Cues word {near} (cosine {sims[i, j]:.2f}, share {modal_share[near]:.2f})"
            )
    return out


def colour_irrelevant(
    candidates: Iterable[str],
    modal_share: Mapping[str, float],
    embed: Callable[[Sequence[str]], np.ndarray],
) -> tuple[str, ...]:
    """The candidates :func:`colour_laden` keeps, in candidate order."""
    cands = [str(w).upper() for w in candidates]
    laden = colour_laden(cands, modal_share, embed)
    return tuple(w for w in cands if w not in laden)


__all__ = [
    "CANDIDATE_WORDS",
    "COLOUR_LADEN",
    "NEIGHBOUR_COSINE",
    "NEIGHBOUR_SHARE",
    "SIMPLE_WORDS",
    "colour_irrelevant",
    "colour_laden",
    "colour_name_tokens",
]
