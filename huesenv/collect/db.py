"""SQLite storage for the collection app: one file, WAL mode, every write in a transaction.

Why these settings: WAL lets many participants read (feedback distributions,
consensus maps) while one writes; ``synchronous=FULL`` makes every committed
answer survive a crash or power loss, not only a process restart; writes use
``BEGIN IMMEDIATE`` so two participants never interleave a read-then-write
(word assignment reads the counts it balances against).  All SQL is
parameterised.  Uniqueness rules (one answer per participant and word, one
response per GCA item, one tessellation per participant) live in the schema,
so they hold even if the web layer has a bug.

Each thread opens its own connection (:meth:`Database.connect`); sqlite3
connections must not be shared across threads.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS participants (
    serial      INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE CHECK (length(id) BETWEEN 8 AND 64),
    task        TEXT NOT NULL CHECK (task IN ('words', 'gca', 'tessellation')),
    language    TEXT NOT NULL CHECK (length(language) BETWEEN 1 AND 32),
    gender      TEXT NOT NULL CHECK (length(gender) BETWEEN 1 AND 32),
    age_range   TEXT NOT NULL CHECK (length(age_range) BETWEEN 1 AND 16),
    color_blind INTEGER NOT NULL CHECK (color_blind IN (0, 1)),
    condition   TEXT,
    created_at  TEXT NOT NULL,
    started_at  TEXT,
    finished_at TEXT
);
CREATE TABLE IF NOT EXISTS word_assignments (
    participant_id TEXT NOT NULL REFERENCES participants (id),
    position       INTEGER NOT NULL CHECK (position >= 0),
    word           TEXT NOT NULL CHECK (length(word) BETWEEN 1 AND 100),
    category       TEXT NOT NULL CHECK (length(category) BETWEEN 1 AND 100),
    clue_id        INTEGER NOT NULL,
    PRIMARY KEY (participant_id, position),
    UNIQUE (participant_id, word)
);
CREATE INDEX IF NOT EXISTS word_assignments_word ON word_assignments (word);
CREATE TABLE IF NOT EXISTS word_answers (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    participant_id TEXT NOT NULL REFERENCES participants (id),
    word           TEXT NOT NULL,
    cell           INTEGER NOT NULL CHECK (cell BETWEEN 0 AND 479),
    answered_at    TEXT NOT NULL,
    response_ms    INTEGER,
    UNIQUE (participant_id, word),
    FOREIGN KEY (participant_id, word) REFERENCES word_assignments (participant_id, word)
);
CREATE INDEX IF NOT EXISTS word_answers_word ON word_answers (word, id);
CREATE TABLE IF NOT EXISTS gca_stimuli (
    stimulus_id TEXT PRIMARY KEY,
    object      TEXT NOT NULL,
    condition   TEXT NOT NULL,
    colour      TEXT NOT NULL,
    tau         REAL NOT NULL,
    png         BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS gca_items (
    participant_id TEXT NOT NULL REFERENCES participants (id),
    position       INTEGER NOT NULL CHECK (position >= 0),
    kind           TEXT NOT NULL CHECK (kind IN ('trial', 'attention', 'introspection')),
    stimulus_id    TEXT REFERENCES gca_stimuli (stimulus_id),
    question       TEXT NOT NULL,
    options        TEXT NOT NULL,
    distractor     TEXT,
    expected       TEXT,
    PRIMARY KEY (participant_id, position)
);
CREATE TABLE IF NOT EXISTS gca_responses (
    participant_id TEXT NOT NULL,
    position       INTEGER NOT NULL,
    choice         TEXT,
    confidence     INTEGER CHECK (confidence BETWEEN 1 AND 10),
    threshold      INTEGER CHECK (threshold BETWEEN 0 AND 100),
    answered_at    TEXT NOT NULL,
    response_ms    INTEGER,
    PRIMARY KEY (participant_id, position),
    FOREIGN KEY (participant_id, position) REFERENCES gca_items (participant_id, position)
);
CREATE TABLE IF NOT EXISTS tessellations (
    participant_id TEXT PRIMARY KEY REFERENCES participants (id),
    categories     TEXT NOT NULL,
    submitted_at   TEXT NOT NULL
);
"""


def utc_now() -> str:
    """ISO 8601 UTC with milliseconds and a ``Z`` (what the study's web app stored)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Database:
    """A collection database file; creates the schema and the app's persistent secrets on first open."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            raise FileNotFoundError(f"{self.path}: folder {self.path.parent} does not exist")
        with self.connection() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            with transaction(conn):
                for statement in _statements(SCHEMA):
                    conn.execute(statement)
                version = self._meta(conn, "schema_version")
                if version is None:
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,)
                    )
                elif version != SCHEMA_VERSION:
                    raise ValueError(
                        f"{self.path}: database schema version {version}, expected {SCHEMA_VERSION}"
                    )
                # Persisted so that a restarted server keeps its participants' sessions valid.
                if self._meta(conn, "secret_key") is None:
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES ('secret_key', ?)", (secrets.token_hex(32),)
                    )
                if self._meta(conn, "seed") is None:
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES ('seed', ?)", (str(secrets.randbits(63)),)
                    )

    @staticmethod
    def _meta(conn: sqlite3.Connection, key: str) -> str | None:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def meta(self, key: str) -> str | None:
        with self.connection() as conn:
            return self._meta(conn, key)

    def set_meta(self, key: str, value: str) -> None:
        with self.connection() as conn, transaction(conn):
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def connect(self) -> sqlite3.Connection:
        """A new connection for the calling thread (autocommit; use :func:`transaction` for writes)."""
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=True)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        conn = self.connect()
        try:
            yield conn
        finally:
            conn.close()


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any exception (the write lock is taken up front)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
