"""Macro-colour severity: did the agent cross a colour category, or fall back onto the neutral cell?

Both the agent's top-1 cell and the humans' modal cell are named with the
board's macro-colours (:mod:`huesenv.categories`).  Following the paper's two
failure modes (Section 3.1 / 4.2):

* ``uncertainty_collapse`` — the agent answered a neutral cell (I18, the
  "achromatic gray-blue") while the humans' modal cell is not neutral.  This is
  checked first: I18's category is Blue, so a collapse onto it for a blue word
  would otherwise pass as a match.
* ``semantic_bleeding`` — the agent's macro-colour differs from the humans'.
* ``match`` — same macro-colour (a minor coordinate error at most).
"""

from __future__ import annotations

from huesenv.board import category_of_cell, is_neutral

SEVERITY_CLASSES = ("match", "semantic_bleeding", "uncertainty_collapse")


def severity(agent_cell: int | str, human_cell: int | str) -> str:
    """Severity class of an agent's top-1 cell against the humans' modal cell."""
    if is_neutral(agent_cell) and not is_neutral(human_cell):
        return "uncertainty_collapse"
    if category_of_cell(agent_cell) != category_of_cell(human_cell):
        return "semantic_bleeding"
    return "match"
