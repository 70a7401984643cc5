"""Free text → one canonical colour name, the parser every probe and VLM agent shares.

Why one module: the GCA and text-interference probes score answers as colour
names, and the VLM agents must turn model text into the same names, so both sides
agree on what "gray", "violet" or "reddish" mean.

Canonical names (:data:`CANONICAL_COLOURS`) are the eleven basic colour terms in
lower case: ``red orange yellow green blue purple pink brown grey white black``.

Rules of :func:`parse_colour`, in order (documented choices):

1. The text is lower-cased and split into letter runs ("light-blue" → "light",
   "blue"; "Gray." → "gray").
2. Each word is mapped through :data:`SYNONYMS` (``gray``→``grey``,
   ``violet``→``purple``, ``crimson``→``red``, ``teal``→``blue`` …; the chromatic
   ones agree with :data:`huesenv.categories.TERM_TO_CATEGORY`, the achromatic
   ones add ``silver``/``charcoal``→grey, ``ivory``→white, ``ebony``→black;
   nouns that are also probe objects — cherry, lemon, plum, chocolate — are
   left out on purpose) and ``-ish``/``-y``/``-dish`` forms count as their
   base ("reddish"→red, "bluish"→blue, "purply"→purple).
3. A word preceded within two words by a negation (``not``, ``no``, ``never``,
   ``isn``, ``isnt``, ``nor``, ``neither``, ``without``) is skipped, so
   "it is not red but white" → white.
4. Consecutive colour words (not split by punctuation or "and") form one compound, whose *head* is its last colour
   word, as English puts the head last ("reddish brown" → brown, "blue green"
   → green).  The first compound in the text is the answer.
5. With ``subject`` (the object asked about, e.g. ``"orange"`` or ``"lemon"``),
   mentions of the subject after a determiner ("the orange", "an orange",
   "this orange", "its orange") are removed first, so that "The orange is
   white" → white while "It is orange" → orange.
6. With ``allowed``, only colours in it (canonicalised the same way) count; the
   first mention that is allowed wins.  Nothing found → ``None`` (the caller logs
   it as ``invalid`` and keeps the raw text).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

CANONICAL_COLOURS: tuple[str, ...] = (
    "red",
    "orange",
    "yellow",
    "green",
    "blue",
    "purple",
    "pink",
    "brown",
    "grey",
    "white",
    "black",
)
INVALID = "invalid"

SYNONYMS: dict[str, str] = {
    # spelling variants
    "gray": "grey",
    # red
    "crimson": "red",
    "scarlet": "red",
    "maroon": "red",
    "burgundy": "red",
    "vermilion": "red",
    "vermillion": "red",
    # orange
    "peach": "orange",
    "rust": "orange",
    "ochre": "orange",
    "amber": "orange",
    # yellow
    "gold": "yellow",
    "golden": "yellow",
    "mustard": "yellow",
    "cream": "yellow",
    # green
    "olive": "green",
    "lime": "green",
    "emerald": "green",
    # blue
    "teal": "blue",
    "turquoise": "blue",
    "cyan": "blue",
    "aqua": "blue",
    "navy": "blue",
    "azure": "blue",
    "cobalt": "blue",
    # purple
    "violet": "purple",
    "lilac": "purple",
    "lavender": "purple",
    "mauve": "purple",
    "indigo": "purple",
    # pink
    "magenta": "pink",
    "rose": "pink",
    "salmon": "pink",
    "coral": "pink",
    "fuchsia": "pink",
    # brown
    "tan": "brown",
    "beige": "brown",
    "khaki": "brown",
    "sienna": "brown",
    "umber": "brown",
    # achromatic
    "silver": "grey",
    "charcoal": "grey",
    "ivory": "white",
    "ebony": "black",
}
NEGATIONS = frozenset({"not", "no", "never", "isn", "isnt", "nor", "neither", "without"})
_NEGATION_WINDOW = 2
# Words that may sit inside a compound without ending it ("blue-ish green"); "and" ends it (lists).
_MODIFIERS = frozenset({"light", "dark", "pale", "bright", "deep", "pastel", "vivid", "dull", "ish"})
_WORD = re.compile(r"[a-z]+")
_CLAUSE = re.compile(r"[,;:.!?/|&+()\[\]{}\n]")


def canonical_colour(word: str) -> str | None:
    """The canonical name one word stands for ("Gray"→grey, "reddish"→red), or ``None``."""
    w = word.strip().lower()
    if w in CANONICAL_COLOURS:
        return w
    if w in SYNONYMS:
        return SYNONYMS[w] or None
    for suffix in ("dish", "ish", "ey", "y"):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            stem = w[: -len(suffix)]
            for candidate in (stem, stem + "e"):
                if candidate in CANONICAL_COLOURS:
                    return candidate
                if SYNONYMS.get(candidate):
                    return SYNONYMS[candidate]
    return None


def colour_mentions(text: str) -> list[str]:
    """Every non-negated colour compound in reading order, each reduced to its head (rules 1–4).

    Punctuation (``, ; : . ! ? / | & +`` and brackets) ends a compound, so
    "blue, black and yellow" lists three colours while "blue-green" is one.
    """
    out: list[str] = []
    for clause in _CLAUSE.split(str(text).lower()):
        words = _WORD.findall(clause)
        run_head: str | None = None
        for i, w in enumerate(words):
            c = canonical_colour(w)
            negated = any(words[j] in NEGATIONS for j in range(max(0, i - _NEGATION_WINDOW), i))
            if c is not None and not negated:
                run_head = c
                continue
            if c is None and w in _MODIFIERS and run_head is not None:
                continue  # "blue-ish green" keeps the compound open
            if run_head is not None:
                out.append(run_head)
            run_head = None
        if run_head is not None:
            out.append(run_head)
    return out


_DETERMINERS = r"(?:the|a|an|this|that|its|it's|it s)"


def strip_subject(text: str, subject: str | None) -> str:
    """Remove "the <subject>"-style mentions (rule 5), so an object named like a colour is not an answer."""
    if not subject or not str(subject).strip():
        return text
    words = [re.escape(w) for w in _WORD.findall(str(subject).lower())]
    if not words:
        return text
    joined = r"[\s-]+".join(words)
    pattern = re.compile(r"\b" + _DETERMINERS + r"\s+" + joined + r"s?\b", re.IGNORECASE)
    return pattern.sub(" ", text)


def parse_colour(
    text: str | None, allowed: Iterable[str] | None = None, *, subject: str | None = None
) -> str | None:
    """The first colour the text names (canonical), restricted to ``allowed``; ``None`` = invalid."""
    if text is None:
        return None
    text = strip_subject(str(text), subject)
    allowed_set: set[str] | None = None
    if allowed is not None:
        allowed_set = set()
        for a in allowed:
            c = canonical_colour(a)
            if c is None:
                raise ValueError(f"parse_colour: allowed colour {a!r} is not a colour name")
            allowed_set.add(c)
    for c in colour_mentions(text):
        if allowed_set is None or c in allowed_set:
            return c
    return None


_OPTION_LETTER = re.compile(r"^\s*\(?([a-z])\s*[\).:]|^\s*\(?([a-z])\)?\s*$", re.IGNORECASE)
_OPTION_WORD = re.compile(
    r"\b(?:option|answer|choice)\s*(?:is)?[\s:]*\(?([a-z]|\d+)\)?(?![a-z])", re.IGNORECASE
)


def parse_option(text: str | None, options: Sequence[str]) -> int | None:
    """Index of the offered option the text picks, or ``None``.

    Accepted, in order: a leading option letter ("B", "(b) red", "B."), "option
    2"/"answer: C", then the first colour named that is one of the options (via
    :func:`parse_colour`), then an option's exact text.  Letters are A, B, C…
    in option order; numbers are 1-based.
    """
    if text is None or not options:
        return None
    s = str(text).strip()
    m = _OPTION_LETTER.match(s)
    if m:
        idx = ord((m.group(1) or m.group(2)).lower()) - ord("a")
        if 0 <= idx < len(options):
            return idx
    m = _OPTION_WORD.search(s)
    if m:
        tok = m.group(1)
        idx = int(tok) - 1 if tok.isdigit() else ord(tok.lower()) - ord("a")
        if 0 <= idx < len(options):
            return idx
    canon = [canonical_colour(o) for o in options]
    if any(c is not None for c in canon):
        col = parse_colour(s, allowed=[o for o, c in zip(options, canon) if c is not None])
        if col is not None:
            return canon.index(col)
    low = s.lower()
    for i, o in enumerate(options):
        if o.lower() in low:
            return i
    return None


__all__ = [
    "CANONICAL_COLOURS",
    "INVALID",
    "NEGATIONS",
    "SYNONYMS",
    "canonical_colour",
    "colour_mentions",
    "parse_colour",
    "parse_option",
    "strip_subject",
]
