"""The board-tessellation task: participants paint the 480 cells into the 8 macro-colour regions.

The consensus map gives each cell the category most participants chose and its
*agreement*, the share of participants who chose it (the paper's Figure 8
shows low-agreement cells darker).  Ties are broken by the order of
:data:`huesenv.categories.MACRO_COLOURS` (a fixed, documented rule, so the map is
deterministic); the per-category vote counts are kept in the table so that any
other rule can be applied afterwards.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from huesenv.board import N_CELLS, N_COLS, load_board
from huesenv.categories import MACRO_COLOURS
from huesenv.collect.db import utc_now

MAX_PAINTING_LENGTH = N_CELLS * (max(len(c) for c in MACRO_COLOURS) + 1)


class PaintingRefused(ValueError):
    """A participant who already submitted a tessellation tried again."""


def parse_painting(text: object) -> tuple[str, ...]:
    """Validate a painting: 480 comma-separated macro-colour names, in flat cell order."""
    if not isinstance(text, str) or not text or len(text) > MAX_PAINTING_LENGTH:
        raise ValueError(f"field categories: expected {N_CELLS} comma-separated colour names")
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != N_CELLS:
        raise ValueError(f"field categories: expected {N_CELLS} cells, got {len(parts)}")
    allowed = {c.lower(): c for c in MACRO_COLOURS}
    out = []
    for i, p in enumerate(parts):
        if p.lower() not in allowed:
            unpainted = sum(1 for q in parts if q.lower() not in allowed)
            raise ValueError(
                f"field categories: {unpainted} cell(s) not painted with one of "
                f"{', '.join(MACRO_COLOURS)} (first: cell {load_board().coords[i]})"
            )
        out.append(allowed[p.lower()])
    return tuple(out)


def store_painting(conn: sqlite3.Connection, participant_id: str, categories: Sequence[str]) -> None:
    """Store one participant's painting (inside a write transaction); one per participant."""
    try:
        conn.execute(
            "INSERT INTO tessellations (participant_id, categories, submitted_at) VALUES (?, ?, ?)",
            (participant_id, ",".join(categories), utc_now()),
        )
    except sqlite3.IntegrityError:
        raise PaintingRefused("this participant has already submitted a tessellation") from None


def load_paintings(conn: sqlite3.Connection) -> list[tuple[str, tuple[str, ...]]]:
    """All stored paintings as ``(participant_id, categories)`` in submission order."""
    rows = conn.execute(
        "SELECT participant_id, categories FROM tessellations ORDER BY submitted_at, participant_id"
    )
    return [(pid, tuple(cats.split(","))) for pid, cats in rows.fetchall()]


def vote_counts(paintings: Sequence[Sequence[str]]) -> np.ndarray:
    """Votes per cell and category, shape (480, 8) in :data:`MACRO_COLOURS` order."""
    index = {c: k for k, c in enumerate(MACRO_COLOURS)}
    votes = np.zeros((N_CELLS, len(MACRO_COLOURS)), dtype=np.int64)
    for painting in paintings:
        if len(painting) != N_CELLS:
            raise ValueError(f"painting with {len(painting)} cells: expected {N_CELLS}")
        votes[np.arange(N_CELLS), [index[c] for c in painting]] += 1
    return votes


def consensus_table(paintings: Sequence[Sequence[str]]) -> pd.DataFrame:
    """The consensus map as a category table: ``coord,category,agreement,n,index,row,col,votes_<Colour>...``."""
    if not paintings:
        raise ValueError("no tessellations stored: the consensus needs at least one participant")
    votes = vote_counts(paintings)
    n = len(paintings)
    best = votes.argmax(axis=1)  # first maximum = earliest in MACRO_COLOURS: the documented tie rule
    table = pd.DataFrame(
        {
            "coord": load_board().coords,
            "category": [MACRO_COLOURS[k] for k in best],
            "agreement": votes[np.arange(N_CELLS), best] / n,
            "n": n,
            "index": np.arange(N_CELLS),
            "row": np.arange(N_CELLS) // N_COLS,
            "col": np.arange(N_CELLS) % N_COLS,
        }
    )
    for k, colour in enumerate(MACRO_COLOURS):
        table[f"votes_{colour}"] = votes[:, k]
    return table


@dataclass
class ConsensusState:
    n: int = 0
    last_rowid: int = 0
    votes: np.ndarray = field(default_factory=lambda: np.zeros((N_CELLS, len(MACRO_COLOURS)), dtype=np.int64))
    cells: list[tuple[str, str, float]] = field(default_factory=list)


class ConsensusCache:
    """The public consensus map, kept up to date incrementally (thread-safe).

    Each call reads only the paintings stored since the last one (by rowid), so
    a request costs O(new paintings) rather than re-reading every painting;
    the rendered page is kept per state (and interface language).  Paintings are
    never deleted, so rowids only grow.
    """

    def __init__(self) -> None:
        self._state = ConsensusState()
        self._pages: dict[str, str] = {}
        self._lock = threading.Lock()

    def update(self, conn: sqlite3.Connection) -> ConsensusState:
        with self._lock:
            st = self._state
            rows = conn.execute(
                "SELECT rowid, categories FROM tessellations WHERE rowid > ? ORDER BY rowid", (st.last_rowid,)
            ).fetchall()
            if rows or not st.cells and st.n == 0:
                votes = st.votes.copy()
                if rows:
                    votes += vote_counts([tuple(cats.split(",")) for _, cats in rows])
                n = st.n + len(rows)
                last = int(rows[-1][0]) if rows else st.last_rowid
                cells: list[tuple[str, str, float]] = []
                if n:
                    best = votes.argmax(axis=1)  # the documented tie rule, as in consensus_table
                    agreement = votes[np.arange(N_CELLS), best] / n
                    coords = load_board().coords
                    cells = [(coords[i], MACRO_COLOURS[best[i]], float(agreement[i])) for i in range(N_CELLS)]
                self._state = ConsensusState(n, last, votes, cells)
                self._pages.clear()
            return self._state

    def page(self, key: str, render: Callable[[], str]) -> str:
        with self._lock:
            body = self._pages.get(key)
        if body is None:
            body = render()
            with self._lock:
                self._pages[key] = body
        return body
