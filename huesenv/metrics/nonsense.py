"""Nonsense baseline: how an agent answers the 16 semantically void inputs (4 rows × 4).

**Cell colours.**  Each input's top-1 cell is named by its macro-colour in lower
case (``"blue"``), except the neutral cell I18, named ``"achromatic"`` — the
paper's "neutral collapse" target, kept apart from Blue although I18's
category is Blue.

**Row collapse** (:func:`row_collapse`).  A row (numbers, stop words,
pseudowords, random strings) collapses onto a colour when at least
``k`` = :data:`ROW_K` = 3 of its 4 cells share it (the paper's Section 3.3
prose); otherwise it is ``"—"``.

**Behaviour class** (:func:`classify_behaviour`).  The prose asks for ≥ 3
collapsed rows, but the published Table 5 calls models with only two rows on
one colour collapsed (``blue / blue / — / —`` → specific colour collapse), and
the table is the published outcome.  The rule that reproduces it:

1. count the collapse colours over the four rows (``"—"`` ignored);
2. fewer than :data:`MODEL_MIN_ROWS` = 2 rows on any one colour → ``high_entropy``;
3. otherwise the most frequent colour decides: ``achromatic`` →
   ``neutral_collapse``, any other colour → ``specific_color_collapse``;
   a tie between achromatic and a colour goes to ``neutral_collapse`` (two
   rows each means no single focal bias dominates, and the neutral fallback is
   the paper's benign reading).

On the 162 rows of Table 5 this gives the published class for 161; the one
disagreement is ``PE-Core-T-16-384-meta`` (green / achromatic / green /
achromatic, published as specific colour collapse, while the identical tie
achromatic / blue / achromatic / blue of ``convnext_base_w-laion2b_s13b_b82k``
is published as neutral collapse — no order-free rule gets both).
The class labels are the paper's spelling in Table 5 (``specific_color_collapse``).

**Selective Collapse, the fourth mode** (:func:`classify_mode`, column
``mode`` beside ``behaviour``).  Figure 12 (d) names a mode Table 4/5 do not
use: "a systematic bias exclusively triggered by specific linguistic
categories (e.g. stop words)", and counts it with Specific Color Collapse as a
*biased* collapse (a focal colour that can masquerade as understanding), while
Neutral Collapse and High Entropy are the *valid* responses.  Definition used
here, built on the same row collapses:

* a *focal row* is a row collapsed onto a chromatic colour — anything but
  ``achromatic`` (I18 is the paper's benign neutral fallback, not a bias);
* the four-mode class equals the three-way class for neutral and specific
  colour collapses (so both columns always agree on those models); a
  ``high_entropy`` model — no colour shared by ≥ 2 rows, i.e. no global
  collapse — is ``selective_collapse`` when *every* collapsed row falls on one
  and the same chromatic colour: its bias shows up for some linguistic
  categories only (``selective_rows`` names them, e.g. ``stop words:purple``).
  Since no colour holds two rows of a high-entropy model, that means exactly one
  collapsed row, and it is chromatic.  A model whose rows collapse onto *different*
  colours (``pink / yellow / — / —``, ``blue / achromatic / — / —``) samples
  across the chromatic space with no single learned prior — §3.3(b)'s High
  Entropy — and stays ``high_entropy``.

On the 162 rows of Table 5 this gives neutral 46 / high entropy 49 /
specific 43 / selective 24, i.e. valid (neutral + high entropy) 95 = 58.6 % and
biased (specific + selective) 67 = 41.4 % against the prose's 58.0 / 42.0 %
(94 / 68 models).  The rule before 0.3 (selective = any focal row) put 22 more
models, whose rows collapse onto two different colours, into selective and gave
45 / 55 %.

The prose's four counts, 37 / 57 / 28 / 40 (22.8 / 35.2 / 17.3 / 24.7 %), are
not reachable by any rule that keeps the three-way classes of Table 4/5 for
neutral and specific collapse and only splits High Entropy (as this one does):
such a rule keeps 45 (or our 46) neutral and 44 (43) specific models, and the
prose has 37 and 28, so 8 published neutral and 16 published specific models
would have to become selective — i.e. the prose's selective mode cuts across the
published classes, which §3.3's definitions (a model is classified by its
collapsed rows) do not describe.  Table 4 publishes three classes, so the
three-way class stays the published outcome; the four-mode split is checked
against the prose's valid/biased totals instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from huesenv.board import category_of_cell, format_coord, is_neutral
from huesenv.metrics.collect import answer_sets, as_records
from huesenv.metrics.families import families_of
from huesenv.vocabulary import nonsense_inputs, normalise_word

NO_COLLAPSE = "—"
ACHROMATIC = "achromatic"
ROW_K = 3
MODEL_MIN_ROWS = 2
BEHAVIOURS = ("neutral_collapse", "high_entropy", "specific_color_collapse")
MODES = ("neutral_collapse", "high_entropy", "specific_color_collapse", "selective_collapse")
ROW_NAMES = ("numbers", "stop words", "pseudowords", "random strings")


def cell_colour(cell: int | str) -> str:
    """Lower-case macro-colour of a cell, ``"achromatic"`` for the neutral cell."""
    return ACHROMATIC if is_neutral(cell) else category_of_cell(cell).lower()


def row_collapse(colours: Sequence[str | None], k: int = ROW_K) -> str:
    """The colour at least ``k`` of a row's cells share, or ``"—"`` (missing answers are ``None``)."""
    counts = Counter(c for c in colours if c)
    if counts:
        colour, n = counts.most_common(1)[0]
        if n >= k:
            return colour
    return NO_COLLAPSE


def classify_behaviour(row_colours: Sequence[str | None]) -> str:
    """Behaviour class from the four rows' collapse colours (see the module docstring for the rule)."""
    if len(row_colours) != 4:
        raise ValueError(f"expected the collapse colours of 4 rows, got {len(row_colours)}")
    counts = Counter(c.lower() for c in row_colours if c and c != NO_COLLAPSE)
    if not counts or max(counts.values()) < MODEL_MIN_ROWS:
        return "high_entropy"
    best = max(counts.values())
    leaders = {c for c, n in counts.items() if n == best}
    return "neutral_collapse" if ACHROMATIC in leaders else "specific_color_collapse"


def focal_rows(row_colours: Sequence[str | None]) -> list[tuple[str, str]]:
    """``(row name, colour)`` of the rows collapsed onto a chromatic (non-achromatic) colour."""
    if len(row_colours) != 4:
        raise ValueError(f"expected the collapse colours of 4 rows, got {len(row_colours)}")
    return [
        (name, c.lower())
        for name, c in zip(ROW_NAMES, row_colours)
        if c and c != NO_COLLAPSE and c.lower() != ACHROMATIC
    ]


def classify_mode(row_colours: Sequence[str | None]) -> str:
    """Figure 12's four modes: the three-way class, with ``high_entropy`` split off into
    ``selective_collapse`` when every collapsed row falls on one chromatic colour (see the module docstring)."""
    behaviour = classify_behaviour(row_colours)
    collapsed = {c.lower() for c in row_colours if c and c != NO_COLLAPSE}
    if behaviour == "high_entropy" and len(collapsed) == 1 and focal_rows(row_colours):
        return "selective_collapse"
    return behaviour


def valid_biased_split(modes: Iterable[str]) -> tuple[int, int]:
    """(valid, biased) model counts: neutral + high entropy vs specific + selective (the paper's 94 / 68)."""
    modes = list(modes)
    valid = sum(m in ("neutral_collapse", "high_entropy") for m in modes)
    return valid, len(modes) - valid


def nonsense_table(records_or_frame, k: int = ROW_K) -> pd.DataFrame:
    """One row per agent that answered nonsense inputs: its 16 top-1 cells, row collapses and class.

    Columns: ``agent, architecture_family, data_family, cells, colours, row_collapse, behaviour,
    n_missing, agent_id, mode, selective_rows`` (``mode``: Figure 12's four modes; ``selective_rows``:
    the focal rows of a selective collapse as ``row:colour``, ``;``-separated, else empty) — ``agent`` is the config agent name where the logs carry one (see
    :mod:`huesenv.metrics.collect`), families come from ``agent_id``; ``cells``/``colours`` list the 16 inputs row by row, ``;``-separated (``-`` when
    the agent gave no valid answer), ``row_collapse`` is in Table 5's form (``blue;—;—;achromatic``).
    """
    sets = answer_sets(as_records(records_or_frame))
    inputs = nonsense_inputs()
    agents = sorted({agent for agent, word in sets if any(normalise_word(n.text) == word for n in inputs)})
    ids = {a: e.agent_id for (a, _), e in sets.items()}
    rows = []
    for agent in agents:
        cells, colours = [], []
        for item in inputs:
            entry = sets.get((agent, normalise_word(item.text)))
            top1 = entry.top1() if entry else None
            cells.append(format_coord(top1) if top1 is not None else None)
            colours.append(cell_colour(top1) if top1 is not None else None)
        per_row = [row_collapse(colours[4 * r : 4 * r + 4], k) for r in range(4)]
        agent_id = ids[agent]
        arch, data = families_of(agent_id)
        rows.append(
            {
                "agent": agent,
                "architecture_family": arch,
                "data_family": data,
                "cells": ";".join(c or "-" for c in cells),
                "colours": ";".join(c or "-" for c in colours),
                "row_collapse": ";".join(per_row),
                "behaviour": classify_behaviour(per_row),
                "n_missing": sum(c is None for c in cells),
                "agent_id": agent_id,
                "mode": (mode := classify_mode(per_row)),
                "selective_rows": (
                    ";".join(f"{n}:{c}" for n, c in focal_rows(per_row))
                    if mode == "selective_collapse"
                    else ""
                ),
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "agent",
            "architecture_family",
            "data_family",
            "cells",
            "colours",
            "row_collapse",
            "behaviour",
            "n_missing",
            "agent_id",
            "mode",
            "selective_rows",
        ],
    )


def behaviour_counts(table: pd.DataFrame) -> Mapping[str, int]:
    """How many agents fall in each class (the shape of the paper's Table 4)."""
    counts = table["behaviour"].value_counts()
    return {b: int(counts.get(b, 0)) for b in BEHAVIOURS}


def mode_counts(table: pd.DataFrame) -> Mapping[str, int]:
    """How many agents fall in each of Figure 12's four modes (``mode`` column)."""
    counts = table["mode"].value_counts()
    return {m: int(counts.get(m, 0)) for m in MODES}


def classify_published(rows: Iterable[str]) -> list[str]:
    """Classify Table 5's ``"a;b;c;d"`` row-colour strings (for the agreement test and reports)."""
    return [classify_behaviour(r.split(";")) for r in rows]


def classify_published_modes(rows: Iterable[str]) -> list[str]:
    """Figure 12's four modes for Table 5's ``"a;b;c;d"`` row-colour strings."""
    return [classify_mode(r.split(";")) for r in rows]
