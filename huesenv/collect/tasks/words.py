"""The paper's word→cell task: word assignment, answer validation, and earlier participants' answers.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.tasks.words``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from huesenv.board import N_CELLS, parse_coord
from huesenv.collect.db import utc_now
from huesenv.vocabulary import Word, normalise_word

DEFAULT_WORDS_PER_PARTICIPANT = 15

# The paper's misspellings stay the words' identities (answers, exports, the paper's tables) but
# participants see the correct spelling.
DISPLAY_SPELLING: dict[str, str] = {"HAPINESS": "HAPPINESS", "SHRECK": "SHREK"}


def display_word(word: str) -> str:
    """How a cue word is shown to participants (the paper's typos corrected; the stored word is unchanged)."""
    return DISPLAY_SPELLING.get(word, word)


MAX_WORD_LENGTH = 100
MAX_COORD_LENGTH = 8


class AnswerRefused(ValueError):
    """A submission that is well-formed but not allowed now (already answered, not the current word)."""


@dataclass(frozen=True)
class WordItem:
    position: int
    word: str
    category: str
    clue_id: int


def check_vocabulary(vocabulary: Sequence[Word], k: int) -> tuple[Word, ...]:
    """Normalised, duplicate-free vocabulary with room for ``k`` words per participant."""
    seen: dict[str, Word] = {}
    for w in vocabulary:
        text = normalise_word(w.text)
        if len(text) > MAX_WORD_LENGTH:
            raise ValueError(f"vocabulary word {text[:20]!r}…: longer than {MAX_WORD_LENGTH} characters")
        if text in seen:
            raise ValueError(f"vocabulary word {text!r} appears twice")
        seen[text] = Word(text, w.category)
    if k < 1:
        raise ValueError(f"words per participant: expected at least 1, got {k}")
    if len(seen) < k:
        raise ValueError(f"vocabulary has {len(seen)} words, fewer than the {k} each participant answers")
    return tuple(seen.values())


def assign_words(
    conn: sqlite3.Connection,
    participant_id: str,
    serial: int,
    vocabulary: Sequence[Word],
    k: int,
    seed: int,
    mode: str = "balanced",
) -> list[WordItem]:
    """Choose and store the participant's words (call inside a write transaction)."""
    rng = np.random.default_rng((int(seed), int(serial)))
    n = len(vocabulary)
    if mode == "balanced":
        counts = dict(conn.execute("SELECT word, COUNT(*) FROM word_assignments GROUP BY word").fetchall())
        load = np.array([counts.get(w.text, 0) for w in vocabulary], dtype=np.int64)
        order = np.lexsort((rng.random(n), load))  # primary key: load; ties: random
        chosen = order[:k]
    elif mode == "uniform":
        chosen = rng.choice(n, size=k, replace=False)
    else:
        raise ValueError(f"assignment mode {mode!r}: expected 'balanced' or 'uniform'")
    chosen = rng.permutation(chosen)  # presentation order
    items = [
        WordItem(pos, vocabulary[i].text, vocabulary[i].category, int(i) + 1) for pos, i in enumerate(chosen)
    ]
    conn.executemany(
        "INSERT INTO word_assignments (participant_id, position, word, category, clue_id) VALUES (?, ?, ?, ?, ?)",
        [(participant_id, it.position, it.word, it.category, it.clue_id) for it in items],
    )
    return items


def current_item(conn: sqlite3.Connection, participant_id: str) -> WordItem | None:
    """The first assigned word without an answer, or ``None`` when all are answered."""
    row = conn.execute(
        "SELECT a.position, a.word, a.category, a.clue_id FROM word_assignments a"
        " LEFT JOIN word_answers r ON r.participant_id = a.participant_id AND r.word = a.word"
        " WHERE a.participant_id = ? AND r.id IS NULL ORDER BY a.position LIMIT 1",
        (participant_id,),
    ).fetchone()
    return None if row is None else WordItem(*row)


def progress(conn: sqlite3.Connection, participant_id: str) -> tuple[int, int]:
    """``(answered, total)`` for the progress indicator."""
    total = conn.execute(
        "SELECT COUNT(*) FROM word_assignments WHERE participant_id = ?", (participant_id,)
    ).fetchone()[0]
    done = conn.execute(
        "SELECT COUNT(*) FROM word_answers WHERE participant_id = ?", (participant_id,)
    ).fetchone()[0]
    return int(done), int(total)


def parse_answer(word: object, coordinate: object) -> tuple[str, int]:
    """Validate the raw form fields: the word (normalised) and the cell index."""
    if not isinstance(word, str) or not word.strip() or len(word) > MAX_WORD_LENGTH:
        raise ValueError(f"field word: expected the shown word (1-{MAX_WORD_LENGTH} characters)")
    if not isinstance(coordinate, str) or len(coordinate) > MAX_COORD_LENGTH:
        raise ValueError("field coordinate: expected a board coordinate such as I18")
    try:
        cell = parse_coord(coordinate)
    except ValueError:
        raise ValueError("field coordinate: expected a row letter A-P and a column 1-30, e.g. I18") from None
    return normalise_word(word), cell


def record_answer(
    conn: sqlite3.Connection,
    participant_id: str,
    word: object,
    coordinate: object,
    response_ms: int | None = None,
    orientation: str | None = None,
) -> tuple[WordItem, int, int]:
    """Store the answer to the current word (call inside a write transaction).

    Returns ``(item, cell, answer_id)``.  ``ValueError`` for malformed fields,
    :class:`AnswerRefused` for a word that is not the current one.
    """
    text, cell = parse_answer(word, coordinate)
    item = current_item(conn, participant_id)
    if item is None:
        raise AnswerRefused("all words are already answered")
    if text != item.word:
        raise AnswerRefused(
            "this word was already answered or is not the current word; answers cannot be changed"
        )
    try:
        cur = conn.execute(
            "INSERT INTO word_answers (participant_id, word, cell, answered_at, response_ms, orientation)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (participant_id, item.word, cell, utc_now(), response_ms, orientation),
        )
    except sqlite3.IntegrityError:
        raise AnswerRefused("this word was already answered; answers cannot be changed") from None
    assert cur.lastrowid is not None  # an INSERT sets it
    return item, cell, cur.lastrowid


def earlier_distribution(conn: sqlite3.Connection, word: str, before_id: int | None = None) -> np.ndarray:
    """Counts per cell (480,) of the answers to ``word`` stored before answer ``before_id`` (all if None)."""
    if before_id is None:
        rows = conn.execute("SELECT cell, COUNT(*) FROM word_answers WHERE word = ? GROUP BY cell", (word,))
    else:
        rows = conn.execute(
            "SELECT cell, COUNT(*) FROM word_answers WHERE word = ? AND id < ? GROUP BY cell",
            (word, int(before_id)),
        )
    counts = np.zeros(N_CELLS, dtype=np.int64)
    for cell, n in rows.fetchall():
        counts[int(cell)] = int(n)
    return counts
