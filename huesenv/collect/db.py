"""SQLite storage for the collection app: one file, WAL mode, every write in a transaction.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.db``.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from huesenv.trust import read_user_text

SCHEMA_VERSION = "3"
READABLE_VERSIONS = ("1", "2", "3")
SECRET_KEY_ENV = "HUESENV_COLLECT_SECRET_KEY"

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
    orientation    TEXT CHECK (orientation IS NULL OR orientation IN ('portrait', 'landscape')),
    UNIQUE (participant_id, word),
    FOREIGN KEY (participant_id, word) REFERENCES word_assignments (participant_id, word)
);
CREATE INDEX IF NOT EXISTS word_answers_word ON word_answers (word, id);
CREATE TABLE IF NOT EXISTS gca_stimuli (
    stimulus_id TEXT PRIMARY KEY,
    object      TEXT NOT NULL,
    condition   TEXT NOT NULL,
    colour      TEXT NOT NULL,
    tau         REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS gca_images (
    stimulus_id TEXT PRIMARY KEY,
    png         BLOB NOT NULL CHECK (length(png) > 0)
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
    orientation    TEXT CHECK (orientation IS NULL OR orientation IN ('portrait', 'landscape')),
    PRIMARY KEY (participant_id, position),
    FOREIGN KEY (participant_id, position) REFERENCES gca_items (participant_id, position)
);
CREATE TABLE IF NOT EXISTS onboardings (
    token          TEXT PRIMARY KEY CHECK (length(token) BETWEEN 16 AND 64),
    participant_id TEXT NOT NULL UNIQUE REFERENCES participants (id),
    consent_at     TEXT NOT NULL,
    consent_text   TEXT NOT NULL,
    adult          INTEGER NOT NULL CHECK (adult IN (0, 1)),
    guardian       INTEGER NOT NULL CHECK (guardian IN (0, 1)),
    display_ok     INTEGER NOT NULL CHECK (display_ok IN (0, 1)),
    platform_pid   TEXT CHECK (platform_pid IS NULL OR length(platform_pid) BETWEEN 1 AND 64),
    study_id       TEXT CHECK (study_id IS NULL OR length(study_id) BETWEEN 1 AND 64),
    session_id     TEXT CHECK (session_id IS NULL OR length(session_id) BETWEEN 1 AND 64)
);
CREATE INDEX IF NOT EXISTS onboardings_platform_pid ON onboardings (platform_pid);
CREATE TABLE IF NOT EXISTS displays (
    participant_id     TEXT PRIMARY KEY REFERENCES participants (id),
    viewport_w         INTEGER,
    viewport_h         INTEGER,
    screen_w           INTEGER,
    screen_h           INTEGER,
    dpr                REAL,
    orientation        TEXT,
    color_gamut        TEXT,
    forced_colors      INTEGER CHECK (forced_colors IS NULL OR forced_colors IN (0, 1)),
    dark_mode          INTEGER CHECK (dark_mode IS NULL OR dark_mode IN (0, 1)),
    contrast           TEXT,
    check_seen         TEXT,
    check_hits         INTEGER,
    check_false_alarms INTEGER
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
    """A collection database file; creates (or upgrades) the schema and the assignment seed on first open."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            raise FileNotFoundError(f"{self.path}: folder {self.path.parent} does not exist")
        if self.path.exists() and not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: not a file")
        private_file(self.path)
        self.moved_secret: str | None = None  # a schema-1 key, handed to :func:`session_key`
        try:
            self._create()
        except sqlite3.DatabaseError as err:
            raise ValueError(f"{self.path}: not a usable collection database ({err})") from None
        for suffix in ("-wal", "-shm"):
            side = Path(f"{self.path}{suffix}")
            if side.exists():
                private_file(side)

    def _create(self) -> None:
        with self.connection() as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            with transaction(conn):
                version = self._meta(conn, "schema_version") if _has_table(conn, "meta") else None
                if version == "1":
                    self.moved_secret = _upgrade_from_1(conn)
                if version in ("1", "2"):
                    _upgrade_to_3(conn)
                elif version not in (None, "1", SCHEMA_VERSION):
                    raise ValueError(
                        f"{self.path}: database schema version {version}, expected {SCHEMA_VERSION}"
                    )
                for statement in _statements(SCHEMA):
                    conn.execute(statement)
                if version != SCHEMA_VERSION:
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES ('schema_version', ?)"
                        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        (SCHEMA_VERSION,),
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

    def mark_pilot(self, pilot: bool) -> None:
        """A database holds a pilot's data or a study's, never both: the first ``--pilot`` server marks it
        (meta ``pilot``, read by every export); a study server refuses it, a pilot one refuses study data."""
        with self.connection() as conn, transaction(conn):
            marked = self._meta(conn, "pilot") is not None
            if marked and not pilot:
                raise ValueError(
                    f"{self.path}: holds a pilot's data (--pilot); start the study on a new database"
                )
            if pilot and not marked:
                if conn.execute("SELECT COUNT(*) FROM participants").fetchone()[0]:
                    raise ValueError(f"{self.path}: holds study data; run the pilot on a new database")
                conn.execute("INSERT INTO meta (key, value) VALUES ('pilot', ?)", (utc_now(),))

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


def private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 if missing, else tighten it to 0600 (owner read/write only)."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            os.chmod(path, 0o600)
    else:
        os.close(fd)


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return (
        conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
        is not None
    )


def _upgrade_from_1(conn: sqlite3.Connection) -> str | None:
    """Schema 1 → 2 (inside the caller's transaction): images to ``gca_images``, the signing key out.

    Returns the schema-1 signing key (deleted from the database) so the caller can keep it in the key file.
    """
    conn.execute(
        "CREATE TABLE IF NOT EXISTS gca_images (stimulus_id TEXT PRIMARY KEY,"
        " png BLOB NOT NULL CHECK (length(png) > 0))"
    )
    columns = [r[1] for r in conn.execute("PRAGMA table_info(gca_stimuli)").fetchall()]
    if "png" in columns:
        conn.execute(
            "INSERT OR IGNORE INTO gca_images (stimulus_id, png)"
            " SELECT stimulus_id, png FROM gca_stimuli WHERE length(png) > 0"
        )
        conn.execute("ALTER TABLE gca_stimuli DROP COLUMN png")
    row = conn.execute("SELECT value FROM meta WHERE key = 'secret_key'").fetchone()
    conn.execute("DELETE FROM meta WHERE key = 'secret_key'")
    return None if row is None else str(row[0])


def _upgrade_to_3(conn: sqlite3.Connection) -> None:
    """Schema 2 → 3 (inside the caller's transaction): the answers' orientation columns (new tables follow)."""
    for table in ("word_answers", "gca_responses"):
        columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})").fetchall()]
        if columns and "orientation" not in columns:
            conn.execute(
                f"ALTER TABLE {table} ADD COLUMN orientation TEXT"
                " CHECK (orientation IS NULL OR orientation IN ('portrait', 'landscape'))"
            )


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    """Whether the database has table ``name`` (older schemas lack some)."""
    return _has_table(conn, name)


def session_key(db: Database, key_file: str | Path | None = None) -> str:
    """The session-signing key: ``$HUESENV_COLLECT_SECRET_KEY``, else a 0600 key file (created if missing).

    The default file is the database path plus ``.key``.  A key file readable by
    others is refused (fix its mode or remove it), since it would let them forge
    participants' sessions.
    """
    env = os.environ.get(SECRET_KEY_ENV, "")
    if env:
        if len(env) < 32:
            raise ValueError(f"${SECRET_KEY_ENV}: expected at least 32 characters")
        return env
    path = Path(key_file) if key_file is not None else Path(f"{db.path}.key")
    if not path.exists():
        key = db.moved_secret or secrets.token_hex(32)
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(key + "\n")
        return key
    if not path.is_file():
        raise ValueError(f"{path}: session key file is not a file")
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        raise ValueError(
            f"{path}: session key file is readable by others; expected mode 0600 (chmod 600 {path})"
        )
    key = read_user_text(path, expected="a session key file", max_bytes=1 << 16).strip()
    if len(key) < 32:
        raise ValueError(f"{path}: session key file: expected at least 32 characters")
    return key


def open_readonly(path: str | Path) -> sqlite3.Connection:
    """A read-only connection for exports: never creates, migrates or writes anything.

    Works on a read-only copy: ``mode=ro`` first; if SQLite cannot open its
    shared-memory file there (read-only folder) and no write-ahead log is
    pending, the file is opened as immutable.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such collection database")
    uri = path.resolve().as_uri()
    try:
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None)
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as err:
        if not isinstance(err, sqlite3.OperationalError) or "unable to open" not in str(err):
            raise ValueError(f"{path}: not a collection database ({err})") from None
        wal = Path(f"{path}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise ValueError(
                f"{path}: cannot open read-only with a pending write-ahead log; copy {wal.name} "
                "with it into a writable folder"
            ) from None
        conn = sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        if not _has_table(conn, "meta"):
            raise ValueError(f"{path}: not a collection database (no meta table)")
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError as err:
        conn.close()
        raise ValueError(f"{path}: not a collection database ({err})") from None
    if row is None or row[0] not in READABLE_VERSIONS:
        conn.close()
        raise ValueError(f"{path}: unsupported collection schema {None if row is None else row[0]!r}")
    return conn


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
