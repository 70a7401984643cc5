"""Macro-colour categories of the board cells: Brown, Red, Orange, Yellow, Green, Blue, Purple, Pink.

The paper tessellated the board by hand (8 participants, consensus), but that map
is not published as data.  Ours comes from a documented colour-naming method that
never sees the paper's labels:

1. **Dictionary.** The XKCD colour-survey names (954 names with sRGB values,
   shipped with matplotlib as ``matplotlib.colors.XKCD_COLORS``).  Each name is
   reduced to a basic category by its *head* word — the last word that names a
   colour, read from the right, as English puts the head of a compound last
   ("greenish blue" → Blue, "dusty rose" → Pink).  :data:`TERM_TO_CATEGORY` lists
   every accepted term; ``-ish``/``-y``/``-dish`` forms count as their base
   ("reddish" → Red).  Names whose head is achromatic (grey, white, black) or
   unknown are left out of the dictionary, since the eight categories have no
   grey.
2. **Naming.** Each board cell gets the majority category of its
   :data:`K_NEIGHBOURS` = 5 nearest dictionary colours in CIELAB (D65) by
   ΔE2000 (colour-science), ties going to the nearest.

Measured against the 111 cells labelled in the paper's Table 6
(``human_coord``→``human_color`` and ``model_coord``→``model_color``) this agrees
on 102 of 111 (91.9 %); ``tests/test_categories.py`` prints the disagreements
and fails below 90 %.
Since the method learns nothing from those labels, the number is not
cross-validated; the term list was written before the first measurement and the
only choice made while looking at it was K (5 rather than 1).

**The neutral cell.** The paper calls I18 its most achromatic cell ("an
achromatic gray-blue") and the target of "uncertainty collapse", while its tables
label I18 "Blue".  We keep both: I18's *category* is Blue (so tables transcribed
from the paper compare as printed) and I18 is flagged *neutral*
(:data:`NEUTRAL_CELLS`); metrics call a model's answer on a neutral cell an
uncertainty collapse, separately from semantic bleeding.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

import numpy as np


class HasLab(Protocol):
    """Anything with CIELAB colours per cell, like :class:`huesenv.board.Board` (which imports this module)."""

    @property
    def lab(self) -> np.ndarray: ...


MACRO_COLOURS = ("Brown", "Red", "Orange", "Yellow", "Green", "Blue", "Purple", "Pink")
NEUTRAL_CELLS = ("I18",)
K_NEIGHBOURS = 5

# Colour terms that can head an XKCD name, and the basic category they belong to.
# ``None`` marks achromatic heads: such names are left out of the dictionary.
TERM_TO_CATEGORY: dict[str, str | None] = {
    "brown": "Brown",
    "tan": "Brown",
    "beige": "Brown",
    "khaki": "Brown",
    "sienna": "Brown",
    "umber": "Brown",
    "red": "Red",
    "maroon": "Red",
    "burgundy": "Red",
    "crimson": "Red",
    "orange": "Orange",
    "peach": "Orange",
    "rust": "Orange",
    "ochre": "Orange",
    "yellow": "Yellow",
    "gold": "Yellow",
    "mustard": "Yellow",
    "cream": "Yellow",
    "green": "Green",
    "olive": "Green",
    "lime": "Green",
    "blue": "Blue",
    "teal": "Blue",
    "turquoise": "Blue",
    "cyan": "Blue",
    "aqua": "Blue",
    "navy": "Blue",
    "purple": "Purple",
    "violet": "Purple",
    "lilac": "Purple",
    "lavender": "Purple",
    "mauve": "Purple",
    "indigo": "Purple",
    "pink": "Pink",
    "magenta": "Pink",
    "rose": "Pink",
    "salmon": "Pink",
    "coral": "Pink",
    "grey": None,
    "gray": None,
    "white": None,
    "black": None,
}


def _head_term(word: str) -> str | None:
    """The dictionary term a word stands for, accepting -ish/-y/-dish forms ("reddish", "purply")."""
    if word in TERM_TO_CATEGORY:
        return word
    for suffix in ("dish", "ish", "ey", "y"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            for candidate in (stem, stem + "e"):
                if candidate in TERM_TO_CATEGORY:
                    return candidate
    return None


def name_to_category(name: str) -> str | None:
    """Basic category of a colour name by its head word, or ``None`` when achromatic/unknown."""
    for word in reversed(name.lower().replace("-", " ").replace("/", " ").split()):
        term = _head_term(word)
        if term is not None:
            return TERM_TO_CATEGORY[term]
    return None


@lru_cache(maxsize=1)
def colour_dictionary() -> tuple[tuple[str, ...], np.ndarray, tuple[str, ...]]:
    """The chromatic XKCD names, their CIELAB values and categories: ``(names, lab, categories)``."""
    import colour
    import matplotlib.colors as mcolors

    names, rgbs, cats = [], [], []
    for key, hexcode in mcolors.XKCD_COLORS.items():
        name = key.removeprefix("xkcd:")
        category = name_to_category(name)
        if category is None:
            continue
        names.append(name)
        rgbs.append(mcolors.to_rgb(hexcode))
        cats.append(category)
    srgb = colour.RGB_COLOURSPACES["sRGB"]
    xyz = colour.RGB_to_XYZ(np.asarray(rgbs), srgb, apply_cctf_decoding=True)
    lab = np.asarray(colour.XYZ_to_Lab(xyz, srgb.whitepoint))
    lab.setflags(write=False)
    return tuple(names), lab, tuple(cats)


def classify_lab(lab: np.ndarray, k: int = K_NEIGHBOURS) -> tuple[str, ...]:
    """Macro-colour category of CIELAB colours (n, 3) by k-NN over the colour dictionary (ΔE2000)."""
    import colour

    lab = np.atleast_2d(np.asarray(lab, dtype=np.float64))
    _, dict_lab, dict_cats = colour_dictionary()
    cats = np.asarray(dict_cats)
    de = colour.delta_E(lab[:, None, :], dict_lab[None, :, :], method="CIE 2000")
    nearest = np.argsort(de, axis=1, kind="stable")[:, :k]
    out = []
    for row in nearest:
        votes = cats[row]
        # majority; ties go to the category of the nearest among the tied ones
        counts = {c: int((votes == c).sum()) for c in votes}
        best = max(counts.values())
        out.append(next(c for c in votes if counts[c] == best))
    return tuple(out)


def classify_board(board: HasLab) -> tuple[str, ...]:
    """Category of each of the board's 480 cells (``board.lab``: CIELAB of every cell)."""
    return classify_lab(board.lab)
