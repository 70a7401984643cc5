"""Colour words → the eleven canonical basic colour names (the vocabulary every parser shares).

Why here, in the core layer: the probes, the VLM agents and the category map
must agree on what "gray", "violet" or "reddish" mean.  *Reading a reply* (which
colour a sentence gives as its answer) is not done here: that is
:func:`huesenv.probes.parse_answer`, the one reply parser.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.colour_names``.
"""

from __future__ import annotations

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


__all__ = ["CANONICAL_COLOURS", "INVALID", "SYNONYMS", "canonical_colour"]
