"""Macro-colour categories of the board cells: Brown, Red, Orange, Yellow, Green, Blue, Purple, Pink.

The paper tessellated the board by hand (8 participants, consensus), but that map
is not published as data.  Ours comes from a documented colour-naming method that
never sees the paper's labels.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.categories``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Protocol

import numpy as np

from huesenv.colourspace import delta_e2000, srgb_to_lab


class HasLab(Protocol):
    """Anything with CIELAB colours per cell, like :class:`huesenv.board.Board` (which imports this module)."""

    @property
    def lab(self) -> np.ndarray: ...


MACRO_COLOURS = ("Brown", "Red", "Orange", "Yellow", "Green", "Blue", "Purple", "Pink")
NEUTRAL_CELLS = ("I18",)
K_NEIGHBOURS = 5
GRID_SHAPE = (16, 30)  # rows × columns of the board (huesenv.board.N_ROWS × N_COLS), for step 3
GREY_TERMS = ("grey", "gray")

# Colour terms that can head an XKCD name, and the basic category they belong to.
# ``None`` marks achromatic heads: such names are left out of the dictionary.
TERM_TO_CATEGORY: dict[str, str | None] = {
    "brown": "Brown",
    "tan": None,  # tan, beige, khaki: not basic terms, split between Brown, Yellow, Green and grey
    "beige": None,
    "khaki": None,
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
    """Basic category of a colour name by its head word, or ``None`` when achromatic/unknown.

    A grey head takes the category of its nearest chromatic modifier ("bluish grey" → Blue).
    """
    words = name.lower().replace("-", " ").replace("/", " ").split()
    for i in range(len(words) - 1, -1, -1):
        term = _head_term(words[i])
        if term is None:
            continue
        category = TERM_TO_CATEGORY[term]
        if category is None and term in GREY_TERMS:
            for modifier in reversed(words[:i]):
                mod = _head_term(modifier)
                if mod is not None and TERM_TO_CATEGORY[mod] is not None:
                    return TERM_TO_CATEGORY[mod]
        return category
    return None


@lru_cache(maxsize=1)
def colour_dictionary() -> tuple[tuple[str, ...], np.ndarray, tuple[str, ...]]:
    """The chromatic XKCD names, their CIELAB values and categories: ``(names, lab, categories)``."""
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
    lab = srgb_to_lab(np.asarray(rgbs), scale=1.0)
    lab.setflags(write=False)
    return tuple(names), lab, tuple(cats)


def classify_lab(lab: np.ndarray, k: int = K_NEIGHBOURS) -> tuple[str, ...]:
    """Macro-colour category of CIELAB colours (n, 3) by k-NN over the colour dictionary (ΔE2000)."""
    lab = np.atleast_2d(np.asarray(lab, dtype=np.float64))
    _, dict_lab, dict_cats = colour_dictionary()
    cats = np.asarray(dict_cats)
    de = delta_e2000(lab[:, None, :], dict_lab[None, :, :])
    nearest = np.argsort(de, axis=1, kind="stable")[:, :k]
    out = []
    for row in nearest:
        votes = cats[row]
        # majority; ties go to the category of the nearest among the tied ones
        counts = {c: int((votes == c).sum()) for c in votes}
        best = max(counts.values())
        out.append(next(c for c in votes if counts[c] == best))
    return tuple(out)


def merge_islands(categories: Sequence[str], n_rows: int, n_cols: int) -> tuple[str, ...]:
    """Categories of a row-major grid with every island absorbed, so each category is one area (step 3).

    An island is a 4-connected component of one category other than its largest; it takes the
    category most frequent among the cells 4-adjacent to it (ties: :data:`MACRO_COLOURS` order).
    Smallest island first (then the one starting nearest the top-left), repeated until none is left.
    """
    grid = np.asarray(categories, dtype=object).reshape(n_rows, n_cols)
    order = {c: i for i, c in enumerate(MACRO_COLOURS)}

    def neighbours(r: int, c: int) -> Iterator[tuple[int, int]]:
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < n_rows and 0 <= cc < n_cols:
                yield rr, cc

    while True:
        seen = np.zeros(grid.shape, dtype=bool)
        components: list[tuple[str, list[tuple[int, int]]]] = []
        for r in range(n_rows):
            for c in range(n_cols):
                if seen[r, c]:
                    continue
                cat, stack, cells = grid[r, c], [(r, c)], []
                seen[r, c] = True
                while stack:
                    cell = stack.pop()
                    cells.append(cell)
                    for nb in neighbours(*cell):
                        if not seen[nb] and grid[nb] == cat:
                            seen[nb] = True
                            stack.append(nb)
                components.append((cat, cells))
        largest: dict[str, int] = {}
        for cat, cells in components:
            largest[cat] = max(largest.get(cat, 0), len(cells))
        islands = [(len(cells), cells) for cat, cells in components if len(cells) < largest[cat]]
        if not islands:
            return tuple(grid.ravel())
        _, cells = min(islands, key=lambda item: (item[0], item[1][0]))
        inside = set(cells)
        votes: dict[str, int] = {}
        for cell in cells:
            for nb in neighbours(*cell):
                if nb not in inside:
                    votes[grid[nb]] = votes.get(grid[nb], 0) + 1
        new = min(votes, key=lambda cat: (-votes[cat], order.get(cat, len(order))))
        for cell in cells:
            grid[cell] = new


def classify_board(board: HasLab, shape: tuple[int, int] = GRID_SHAPE) -> tuple[str, ...]:
    """Category of each cell of a board (``board.lab``: CIELAB of every cell, row-major ``shape``):
    naming (steps 1–2), then one area per category (step 3)."""
    return merge_islands(classify_lab(board.lab), *shape)
