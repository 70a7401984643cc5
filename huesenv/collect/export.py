"""Exports from a collection database.

* :func:`word_answers_frame` / :func:`export_words` — the word→cell answers in
  exactly the columns :func:`huesenv.humans.load_humans` reads
  (``userId,timestamp,clueCategory,clueId,word,coordinate,language,gender,ageRange,colorBlind``;
  ``colorBlind`` as ``true``/``false``, timestamps ISO 8601 UTC), so collected data
  flows straight into the replay agent and the metrics.
* :func:`gca_frame` — one row per GCA item and response (trials, attention checks,
  the introspection answer), with the stimulus ground truth and per-participant
  exclusion flags as the GCA paper applied them.
* :func:`participants_frame` — one row per participant with consent and platform ids.
* :func:`tessellation_frame` — the consensus category table (or, raw, one row per
  participant and cell).

The database is opened read-only (:func:`huesenv.collect.db.open_readonly`).
Rows come out in storage order (answer id / participant serial), so the same
database gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from huesenv.board import format_coord, load_board
from huesenv.collect.db import open_readonly, private_file
from huesenv.collect.tasks.tessellation import consensus_table, load_paintings
from huesenv.humans.loader import EXPORT_COLUMNS  # the export is written in the format load_humans reads
from huesenv.humans.reconstruct import write_export

GCA_COLUMNS: tuple[str, ...] = (
    "userId",
    "condition",
    "item",
    "kind",
    "stimulusId",
    "object",
    "stimulusCondition",
    "colour",
    "tau",
    "options",
    "distractor",
    "expected",
    "choice",
    "confidence",
    "threshold",
    "answeredAt",
    "responseMs",
    "choseDistractor",
    "attentionPassed",
    "language",
    "gender",
    "ageRange",
    "colorBlind",
)
PARTICIPANT_COLUMNS: tuple[str, ...] = (
    "userId",
    "task",
    "condition",
    "language",
    "gender",
    "ageRange",
    "colorBlind",
    "createdAt",
    "startedAt",
    "finishedAt",
    "consentAt",
    "adult",
    "guardianConsent",
    "displayChecked",
    "platformPid",
    "studyId",
    "sessionId",
)
EXPORT_TASKS = ("words", "gca", "tessellation", "tessellation-raw", "participants")


@contextmanager
def _open(db_path: str | Path) -> Iterator:
    """Read-only: an export never writes into (or creates, or migrates) the database it reads."""
    conn = open_readonly(db_path)
    try:
        yield conn
    finally:
        conn.close()


def word_answers_frame(db_path: str | Path, *, finished_only: bool = False) -> pd.DataFrame:
    """The word-task answers as the human-baseline export table (one row per answer)."""
    query = (
        "SELECT p.id, r.answered_at, a.category, a.clue_id, r.word, r.cell, p.language, p.gender, p.age_range,"
        " p.color_blind FROM word_answers r"
        " JOIN participants p ON p.id = r.participant_id"
        " JOIN word_assignments a ON a.participant_id = r.participant_id AND a.word = r.word"
        + (" WHERE p.finished_at IS NOT NULL" if finished_only else "")
        + " ORDER BY r.id"
    )
    with _open(db_path) as conn:
        rows = conn.execute(query).fetchall()
    return pd.DataFrame(
        [
            (
                r[0],
                r[1],
                r[2],
                int(r[3]),
                r[4],
                format_coord(int(r[5])),
                r[6],
                r[7],
                r[8],
                "true" if r[9] else "false",
            )
            for r in rows
        ],
        columns=list(EXPORT_COLUMNS),
    )


def gca_frame(db_path: str | Path) -> pd.DataFrame:
    """Every GCA item of every participant with its response (empty response fields: not answered yet).

    ``item`` is the 1-based item number (the paper's attention checks are items 5, 25, 45, 65, 85).

    ``choseDistractor`` flags trials where the distractor was chosen (the paper
    excluded participants choosing it on two or more trials); ``attentionPassed``
    is set on attention checks only.
    """
    query = (
        "SELECT p.id, p.condition, i.position, i.kind, i.stimulus_id, s.object, s.condition, s.colour, s.tau,"
        " i.options, i.distractor, i.expected, r.choice, r.confidence, r.threshold, r.answered_at, r.response_ms,"
        " p.language, p.gender, p.age_range, p.color_blind FROM gca_items i"
        " JOIN participants p ON p.id = i.participant_id"
        " LEFT JOIN gca_stimuli s ON s.stimulus_id = i.stimulus_id"
        " LEFT JOIN gca_responses r ON r.participant_id = i.participant_id AND r.position = i.position"
        " ORDER BY p.serial, i.position"
    )
    with _open(db_path) as conn:
        rows = [tuple(r) for r in conn.execute(query).fetchall()]
    out = []
    for r in rows:
        (
            pid,
            cond,
            pos,
            kind,
            sid,
            obj,
            scond,
            colour,
            tau,
            options,
            distractor,
            expected,
            choice,
            conf,
            thr,
            at,
            ms,
            lang,
            gender,
            age,
            cvd,
        ) = r
        chose_distractor = None if kind != "trial" or choice is None else choice == distractor
        passed = None if kind != "attention" or choice is None else choice == expected
        out.append(
            (
                pid,
                cond,
                int(pos) + 1,
                kind,
                sid,
                obj,
                scond,
                colour,
                tau,
                options,
                distractor,
                expected,
                choice,
                conf,
                thr,
                at,
                ms,
                chose_distractor,
                passed,
                lang,
                gender,
                age,
                "true" if cvd else "false",
            )
        )
    frame = pd.DataFrame(out, columns=list(GCA_COLUMNS))
    for col in ("confidence", "threshold", "responseMs"):
        frame[col] = frame[col].astype("Int64")
    return frame


def tessellation_frame(db_path: str | Path, *, raw: bool = False) -> pd.DataFrame:
    """The consensus category table, or with ``raw`` one row per participant and cell."""
    with _open(db_path) as conn:
        paintings = load_paintings(conn)
    if raw:
        coords = load_board().coords
        return pd.DataFrame(
            [(pid, coords[i], i, cat) for pid, cats in paintings for i, cat in enumerate(cats)],
            columns=["userId", "coord", "index", "category"],
        )
    return consensus_table([cats for _, cats in paintings])


def write_table(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write ``.csv``, ``.csv.gz`` or ``.parquet`` with the humans module's writer (same bytes every run).

    The file is made ``0600`` before anything is written into it: it holds the
    demographics and study-platform ids the database (also ``0600``) protects.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    private_file(path)
    return write_export(frame, path)


def participants_frame(db_path: str | Path) -> pd.DataFrame:
    """One row per participant: task, demographics, consent and study-platform ids (for paying and approving)."""
    with _open(db_path) as conn:
        has_onboardings = (
            conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='onboardings'").fetchone()
            is not None
        )
        extra = (
            "o.consent_at, o.adult, o.guardian, o.display_ok, o.platform_pid, o.study_id, o.session_id"
            if has_onboardings
            else "NULL, NULL, NULL, NULL, NULL, NULL, NULL"
        )
        join = " LEFT JOIN onboardings o ON o.participant_id = p.id" if has_onboardings else ""
        rows = conn.execute(
            "SELECT p.id, p.task, p.condition, p.language, p.gender, p.age_range, p.color_blind, p.created_at,"
            f" p.started_at, p.finished_at, {extra} FROM participants p{join} ORDER BY p.serial"
        ).fetchall()
    frame = pd.DataFrame(
        [tuple(r) for r in rows],
        columns=list(PARTICIPANT_COLUMNS),
    )
    frame["colorBlind"] = ["true" if v else "false" for v in frame["colorBlind"]]
    return frame


def export(db_path: str | Path, out: str | Path, task: str = "words", *, finished_only: bool = False) -> int:
    """Write one task's table; returns the number of rows written (the output type is checked first)."""
    if not str(out).lower().endswith((".csv", ".csv.gz", ".parquet")):
        raise ValueError(f"{out}: unknown file type; expected .csv, .csv.gz or .parquet")
    if task not in EXPORT_TASKS:
        raise ValueError(f"--task {task!r}: expected one of {', '.join(EXPORT_TASKS)}")
    if task == "participants":
        frame = participants_frame(db_path)
    elif task == "words":
        frame = word_answers_frame(db_path, finished_only=finished_only)
    elif task == "gca":
        frame = gca_frame(db_path)
    elif task == "tessellation":
        frame = tessellation_frame(db_path)
    elif task == "tessellation-raw":
        frame = tessellation_frame(db_path, raw=True)
    else:
        raise ValueError(f"--task {task!r}: expected one of {', '.join(EXPORT_TASKS)}")
    write_table(frame, out)
    return len(frame)
