"""Study-platform identifiers (Prolific's ``PROLIFIC_PID``, ``STUDY_ID``, ``SESSION_ID``): parsing and look-up.

Ids are normalised before they are compared or stored: surrounding spaces
dropped and lower-cased (Prolific's ids are lower-case hexadecimal), so a
participant cannot take part twice by changing the case of their id.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping

# URL parameter → stored field
PARAMS: dict[str, str] = {"PROLIFIC_PID": "platform_pid", "STUDY_ID": "study_id", "SESSION_ID": "session_id"}
_ID = re.compile(r"[a-z0-9_-]{1,64}")


def normalise(value: str) -> str:
    return value.strip().lower()


def parse_ids(found: Mapping[str, str]) -> dict[str, str]:
    """URL parameters → ``{platform_pid, study_id, session_id}`` (normalised); ``ValueError`` naming a bad one."""
    out: dict[str, str] = {}
    for key, value in found.items():
        text = normalise(value) if isinstance(value, str) else ""
        if not _ID.fullmatch(text):
            raise ValueError(f"{key}: expected 1-64 letters, digits, '-' or '_'")
        out[PARAMS[key]] = text
    return out


def find(conn: sqlite3.Connection, task: str, platform_pid: str | None) -> sqlite3.Row | None:
    """The participant of ``task`` who arrived with this platform id (the first, if several), or ``None``."""
    if not platform_pid:
        return None
    return conn.execute(
        "SELECT o.participant_id, o.study_id, o.session_id, p.finished_at FROM onboardings o"
        " JOIN participants p ON p.id = o.participant_id"
        " WHERE lower(o.platform_pid) = ? AND p.task = ? ORDER BY p.serial LIMIT 1",
        (normalise(platform_pid), task),
    ).fetchone()


def same_session(found: sqlite3.Row, ids: Mapping[str, str]) -> bool:
    """Whether a returning visit is the same platform session (participant, study and session ids all equal)."""
    session_id = ids.get("session_id")
    return bool(session_id) and found["session_id"] == session_id and found["study_id"] == ids.get("study_id")
