"""Onboarding: the demographic fields every task collects, validated server-side, and participant rows.

The values are the study web app's own codes (language ``english``/``spanish``,
gender ``male``/``female``/``other``/``prefer-not-to-say``, age brackets
``-10`` … ``+70``) so that exports compare directly with the paper's data; the
self-reported colour-vision deficiency (CVD) screening is a yes/no question
(``colorBlind`` in the export), which is what the paper's exclusion used.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.participants``.
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
AGE_POLICIES = ("adult", "guardian")
CHILD_AGE_RANGES = frozenset({"-10"})  # brackets wholly below any adult age we allow (16 or more)


class FieldError(ValueError):
    """A bad onboarding field (``field`` names it) or a consent rule not met (``rule`` says which)."""

    def __init__(self, message: str, field: str = "", rule: str = "") -> None:
        super().__init__(message)
        self.field, self.rule = field, rule


@dataclass(frozen=True)
class Consent:
    adult: bool
    guardian: bool
    display_ok: bool


@dataclass(frozen=True)
class Demographics:
    language: str
    gender: str
    age_range: str
    color_blind: bool


def _choice(form: Mapping[str, str], field: str, allowed: Sequence[str]) -> str:
    value = form.get(field, "")
    if not isinstance(value, str) or len(value) > MAX_FIELD:
        raise FieldError(f"field {field}: expected one of {', '.join(allowed)}", field=field)
    value = value.strip()
    if value not in allowed:
        raise FieldError(f"field {field}: please choose one of {', '.join(allowed)}", field=field)
    return value


def age_ranges(policy: str, adult_age: int = 18) -> tuple[str, ...]:
    """The age brackets offered (and stored) under an age policy: adults-only drops ``-10`` and offers
    ``10-19`` as what it can hold, ``18-19``."""
    if policy not in AGE_POLICIES:
        raise ValueError(f"age policy {policy!r}: expected one of {', '.join(AGE_POLICIES)}")
    if policy == "guardian":
        return AGE_RANGES
    return tuple(f"{adult_age}-19" if a == "10-19" else a for a in AGE_RANGES if a not in CHILD_AGE_RANGES)


def _ticked(form: Mapping[str, str], field: str) -> bool:
    return form.get(field, "") == "yes"


def parse_consent(form: Mapping[str, str], demo: Demographics, policy: str = "adult") -> Consent:
    """Check consent, the age gate and the display confirmation (see the module docstring); ``FieldError``."""
    if not _ticked(form, "consent"):
        raise FieldError(
            "consent: please confirm that you agree to take part", field="consent", rule="consent"
        )
    adult, guardian = _ticked(form, "adult"), _ticked(form, "guardian")
    if policy == "adult":
        if not adult:
            raise FieldError("adult: this study is open only to adults", field="adult", rule="adult-only")
        if demo.age_range in CHILD_AGE_RANGES:
            raise FieldError(
                "age_range: contradicts the adult confirmation", field="age_range", rule="age-check"
            )
        guardian = False
    elif policy == "guardian":
        if adult and demo.age_range in CHILD_AGE_RANGES:
            raise FieldError(
                "age_range: contradicts the adult confirmation", field="age_range", rule="age-check"
            )
        if not adult and not guardian:
            raise FieldError("guardian: a parent or guardian must consent", field="guardian", rule="guardian")
        if adult:
            guardian = False
    else:
        raise ValueError(f"age policy {policy!r}: expected one of {', '.join(AGE_POLICIES)}")
    if not _ticked(form, "display"):
        raise FieldError("display: please confirm the screen setup", field="display", rule="display")
    return Consent(adult=adult, guardian=guardian, display_ok=True)


def parse_demographics(
    form: Mapping[str, str], languages: Sequence[str] = DEFAULT_LANGUAGES, ages: Sequence[str] = AGE_RANGES
) -> Demographics:
    """Validate the onboarding form; :class:`FieldError` naming the first bad field."""
    return Demographics(
        language=_choice(form, "language", languages),
        gender=_choice(form, "gender", GENDERS),
        age_range=_choice(form, "age_range", ages),
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
    assert cur.lastrowid is not None  # an INSERT sets it
    return pid, cur.lastrowid


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
