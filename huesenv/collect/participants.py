"""Onboarding: the demographic fields every task collects, validated server-side, and participant rows.

The values are the study web app's own codes (language ``english``/``spanish``,
gender ``male``/``female``/``other``/``prefer-not-to-say``, age brackets
``-10`` … ``+70``) so that exports compare directly with the paper's data; the
self-reported colour-vision deficiency (CVD) screening is a yes/no question
(``colorBlind`` in the export), which is what the paper's exclusion used.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from huesenv.collect.db import utc_now

DEFAULT_LANGUAGES: tuple[str, ...] = ("english", "spanish")
GENDERS: tuple[str, ...] = ("female", "male", "other", "prefer-not-to-say")
AGE_RANGES: tuple[str, ...] = ("-10", "10-19", "20-29", "30-39", "40-49", "50-59", "60-69", "+70")
CVD_ANSWERS: dict[str, bool] = {"no": False, "yes": True}
MAX_FIELD = 32


@dataclass(frozen=True)
class Demographics:
    language: str
    gender: str
    age_range: str
    color_blind: bool


def _choice(form: Mapping[str, str], field: str, allowed: Sequence[str]) -> str:
    value = form.get(field, "")
    if not isinstance(value, str) or len(value) > MAX_FIELD:
        raise ValueError(f"field {field}: expected one of {', '.join(allowed)}")
    value = value.strip()
    if value not in allowed:
        raise ValueError(f"field {field}: please choose one of {', '.join(allowed)}")
    return value


def parse_demographics(form: Mapping[str, str], languages: Sequence[str] = DEFAULT_LANGUAGES) -> Demographics:
    """Validate the onboarding form; ``ValueError`` naming the first bad field."""
    return Demographics(
        language=_choice(form, "language", languages),
        gender=_choice(form, "gender", GENDERS),
        age_range=_choice(form, "age_range", AGE_RANGES),
        color_blind=CVD_ANSWERS[_choice(form, "color_blind", tuple(CVD_ANSWERS))],
    )


def create_participant(
    conn: sqlite3.Connection, task: str, demo: Demographics, condition: str | None = None
) -> tuple[str, int]:
    """Insert a participant (inside the caller's transaction); returns ``(id, serial)``.

    The id is a random UUID (as in the study's app): it identifies answers in the
    export without carrying anything about the person.
    """
    pid = str(uuid.uuid4())
    cur = conn.execute(
        "INSERT INTO participants (id, task, language, gender, age_range, color_blind, condition, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (pid, task, demo.language, demo.gender, demo.age_range, int(demo.color_blind), condition, utc_now()),
    )
    return pid, int(cur.lastrowid)


def get_participant(conn: sqlite3.Connection, pid: object) -> sqlite3.Row | None:
    if not isinstance(pid, str) or not 8 <= len(pid) <= 64:
        return None
    return conn.execute("SELECT * FROM participants WHERE id = ?", (pid,)).fetchone()


def mark_started(conn: sqlite3.Connection, pid: str) -> None:
    conn.execute(
        "UPDATE participants SET started_at = ? WHERE id = ? AND started_at IS NULL", (utc_now(), pid)
    )


def mark_finished(conn: sqlite3.Connection, pid: str) -> None:
    conn.execute(
        "UPDATE participants SET finished_at = ? WHERE id = ? AND finished_at IS NULL", (utc_now(), pid)
    )
