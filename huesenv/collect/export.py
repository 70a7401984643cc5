"""Exports from a collection database (read with :func:`pandas.read_sql_query`, columns by name).

* :func:`word_answers_frame` — the word→cell answers in the columns
  :func:`huesenv.humans.load_humans` reads
  (``userId,timestamp,clueCategory,clueId,word,coordinate,language,gender,ageRange,colorBlind``;
  ``colorBlind`` as ``true``/``false``, timestamps ISO 8601 UTC), followed by
  :data:`WORD_EXTRA_COLUMNS` (response time, orientation, the participant's
  display facts; the loader ignores extra columns), so collected data flows
  straight into the replay agent and the metrics and can be stratified by display.
* :func:`gca_frame` — one row per GCA item and response (trials, attention checks,
  the introspection answer), with the stimulus ground truth and per-participant
  exclusion flags as the GCA paper applied them.  ``huesenv probe gca --replies``
  reads this file as people's replies (:mod:`huesenv.probes.replies`).
* :func:`participants_frame` — one row per participant with consent, platform ids
  and display facts.
* :func:`tessellation_frame` — the consensus category table (or, raw, one row per
  participant and cell); :func:`huesenv.collect.consensus.load_category_map` reads it back.

**Who is exported.**  Answer exports (words, GCA, tessellation) hold only
participants who *finished* unless ``include_unfinished`` is set (the
participants table always lists everyone); ``display`` excludes participants by
their display facts (:data:`huesenv.collect.display.DISPLAY_FILTERS`):
``checked`` — display facts recorded, no forced colours, screen check passed
(every target tile seen, no catch tile ticked); ``no-forced-colors``;
``landscape`` — onboarded in landscape; ``passed`` — the screen check passed.
:func:`exclusions` counts who each rule left out, and the CLI prints it.

**Pilots.**  A database a ``--pilot`` server collected into (no approved
information sheet) gives every export a last column ``pilot``.

The database is opened read-only (:func:`huesenv.collect.db.open_readonly`).
Rows come out in storage order (answer id / participant serial), so the same
database gives the same bytes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from huesenv.board import format_coord, load_board
from huesenv.collect.db import has_table, open_readonly, private_file
from huesenv.collect.display import DISPLAY_FILTERS, TARGET_TILES
from huesenv.collect.tasks.tessellation import consensus_table
from huesenv.humans.loader import EXPORT_COLUMNS  # the export is written in the format load_humans reads
from huesenv.humans.reconstruct import write_export

DISPLAY_COLUMNS: dict[str, str] = {  # displays table column → export column
    "viewport_w": "viewportWidth",
    "viewport_h": "viewportHeight",
    "screen_w": "screenWidth",
    "screen_h": "screenHeight",
    "dpr": "devicePixelRatio",
    "orientation": "orientationAtStart",
    "color_gamut": "colorGamut",
    "forced_colors": "forcedColors",
    "dark_mode": "darkMode",
    "contrast": "prefersContrast",
    "check_seen": "screenCheckSeen",
    "check_hits": "screenCheckHits",
    "check_false_alarms": "screenCheckFalseAlarms",
}
WORD_EXTRA_COLUMNS: tuple[str, ...] = (
    "responseMs",
    "orientation",
    "forcedColors",
    "colorGamut",
    "screenCheckHits",
    "screenCheckFalseAlarms",
)
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
    "orientation",
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
    *DISPLAY_COLUMNS.values(),
)
EXPORT_TASKS = ("words", "gca", "tessellation", "tessellation-raw", "participants")


@contextmanager
def _open(db_path: str | Path) -> Iterator[sqlite3.Connection]:
    """Read-only: an export never writes into (or creates, or migrates) the database it reads."""
    conn = open_readonly(db_path)
    try:
        yield conn
    finally:
        conn.close()


def _display_select(conn: sqlite3.Connection) -> tuple[str, str]:
    """The display columns (``d.<col> AS "<export name>"``) and their join; NULLs for databases before schema 3."""
    if has_table(conn, "displays"):
        cols = ", ".join(f'd.{c} AS "{name}"' for c, name in DISPLAY_COLUMNS.items())
        return cols, " LEFT JOIN displays d ON d.participant_id = p.id"
    return ", ".join(f'NULL AS "{name}"' for name in DISPLAY_COLUMNS.values()), ""


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return column in [r[1] for r in conn.execute(f"PRAGMA table_info({table})").fetchall()]


def _display_rule(display: str) -> str:
    """A SQL condition on ``d`` (the displays join) for an export's ``display`` filter."""
    if display not in DISPLAY_FILTERS:
        raise ValueError(f"--display {display!r}: expected one of {', '.join(DISPLAY_FILTERS)}")
    passed = f"(d.check_hits = {len(TARGET_TILES)} AND d.check_false_alarms = 0)"
    return {
        "all": "1",
        "no-forced-colors": "coalesce(d.forced_colors, 0) = 0",
        "landscape": "d.orientation = 'landscape'",
        "passed": passed,
        "checked": f"d.forced_colors = 0 AND {passed}",
    }[display]


def _who(conn: sqlite3.Connection, include_unfinished: bool, display: str) -> tuple[str, str]:
    """The join and ``WHERE`` clause selecting the exported participants ``p``."""
    rule = _display_rule(display)
    clauses = [] if include_unfinished else ["p.finished_at IS NOT NULL"]
    join = ""
    if display != "all":
        if not has_table(conn, "displays"):
            raise ValueError(f"--display {display}: this database records no display facts (schema before 3)")
        join = " LEFT JOIN displays d ON d.participant_id = p.id"
        clauses.append(rule)
    return join, (" WHERE " + " AND ".join(clauses)) if clauses else ""


def _bool_text(values: pd.Series) -> list[str]:
    return ["true" if v else "false" for v in values]


def word_answers_frame(
    db_path: str | Path, *, include_unfinished: bool = False, display: str = "all"
) -> pd.DataFrame:
    """The word-task answers as the human-baseline export table (one row per answer)."""
    with _open(db_path) as conn:
        join, where = _who(conn, include_unfinished, display)
        shown, shown_join = _display_select(conn)
        if join:  # the display filter joined the displays table already
            shown_join = ""
        orientation = "r.orientation" if _has_column(conn, "word_answers", "orientation") else "NULL"
        frame = pd.read_sql_query(
            'SELECT p.id AS "userId", r.answered_at AS "timestamp", a.category AS "clueCategory",'
            ' a.clue_id AS "clueId", r.word AS "word", r.cell AS "cell", p.language AS "language",'
            ' p.gender AS "gender", p.age_range AS "ageRange", p.color_blind AS "colorBlind",'
            f' r.response_ms AS "responseMs", {orientation} AS "orientation", {shown}'
            " FROM word_answers r"
            " JOIN participants p ON p.id = r.participant_id"
            " JOIN word_assignments a ON a.participant_id = r.participant_id AND a.word = r.word"
            f"{join}{shown_join}{where} ORDER BY r.id",
            conn,
        )
    frame.insert(frame.columns.get_loc("cell"), "coordinate", [format_coord(int(c)) for c in frame["cell"]])
    frame["colorBlind"] = _bool_text(frame["colorBlind"])
    frame["clueId"] = frame["clueId"].astype("int64")
    for col in ("responseMs", "forcedColors", "screenCheckHits", "screenCheckFalseAlarms"):
        frame[col] = frame[col].astype("Int64")
    return frame[[*EXPORT_COLUMNS, *WORD_EXTRA_COLUMNS]]


def gca_frame(db_path: str | Path, *, include_unfinished: bool = False, display: str = "all") -> pd.DataFrame:
    """Every GCA item of the exported participants with its response (empty response fields: not answered).

    ``item`` is the 1-based item number (the paper's attention checks are items 5, 25, 45, 65, 85).
    ``choseDistractor`` flags trials where the distractor was chosen (the paper
    excluded participants choosing it on two or more trials); ``attentionPassed``
    is set on attention checks only.
    """
    with _open(db_path) as conn:
        join, where = _who(conn, include_unfinished, display)
        orientation = "r.orientation" if _has_column(conn, "gca_responses", "orientation") else "NULL"
        frame = pd.read_sql_query(
            'SELECT p.id AS "userId", p.condition AS "condition", i.position AS "position", i.kind AS "kind",'
            ' i.stimulus_id AS "stimulusId", s.object AS "object", s.condition AS "stimulusCondition",'
            ' s.colour AS "colour", s.tau AS "tau", i.options AS "options", i.distractor AS "distractor",'
            ' i.expected AS "expected", r.choice AS "choice", r.confidence AS "confidence",'
            ' r.threshold AS "threshold", r.answered_at AS "answeredAt", r.response_ms AS "responseMs",'
            f' {orientation} AS "orientation", p.language AS "language", p.gender AS "gender",'
            ' p.age_range AS "ageRange", p.color_blind AS "colorBlind" FROM gca_items i'
            " JOIN participants p ON p.id = i.participant_id"
            " LEFT JOIN gca_stimuli s ON s.stimulus_id = i.stimulus_id"
            " LEFT JOIN gca_responses r ON r.participant_id = i.participant_id AND r.position = i.position"
            f"{join}{where} ORDER BY p.serial, i.position",
            conn,
        )
    answered = frame["choice"].notna()
    frame["item"] = frame.pop("position").astype("int64") + 1
    frame["choseDistractor"] = (frame["choice"] == frame["distractor"]).where(
        answered & (frame["kind"] == "trial")
    )
    frame["attentionPassed"] = (frame["choice"] == frame["expected"]).where(
        answered & (frame["kind"] == "attention")
    )
    frame["colorBlind"] = _bool_text(frame["colorBlind"])
    for col in ("confidence", "threshold", "responseMs"):
        frame[col] = frame[col].astype("Int64")
    for col in ("choseDistractor", "attentionPassed"):
        frame[col] = frame[col].astype("object").where(frame[col].notna(), None)
    return frame[list(GCA_COLUMNS)]


def tessellation_frame(
    db_path: str | Path, *, raw: bool = False, include_unfinished: bool = False, display: str = "all"
) -> pd.DataFrame:
    """The consensus category table, or with ``raw`` one row per participant and cell.

    A stored painting is complete, so "finished" changes nothing here; ``display`` can still exclude.
    """
    with _open(db_path) as conn:
        join, where = _who(conn, include_unfinished, display)
        rows = pd.read_sql_query(
            'SELECT t.participant_id AS "userId", t.categories AS "categories" FROM tessellations t'
            f" JOIN participants p ON p.id = t.participant_id{join}{where}"
            " ORDER BY t.submitted_at, t.participant_id",
            conn,
        )
    paintings = [(pid, tuple(cats.split(","))) for pid, cats in zip(rows["userId"], rows["categories"])]
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
    """One row per participant: task, demographics, consent, study-platform ids and display facts."""
    with _open(db_path) as conn:
        if has_table(conn, "onboardings"):
            extra = (
                'o.consent_at AS "consentAt", o.adult AS "adult", o.guardian AS "guardianConsent",'
                ' o.display_ok AS "displayChecked", o.platform_pid AS "platformPid", o.study_id AS "studyId",'
                ' o.session_id AS "sessionId"'
            )
            join = " LEFT JOIN onboardings o ON o.participant_id = p.id"
        else:
            names = (
                "consentAt",
                "adult",
                "guardianConsent",
                "displayChecked",
                "platformPid",
                "studyId",
                "sessionId",
            )
            extra, join = ", ".join(f'NULL AS "{n}"' for n in names), ""
        shown, shown_join = _display_select(conn)
        frame = pd.read_sql_query(
            'SELECT p.id AS "userId", p.task AS "task", p.condition AS "condition", p.language AS "language",'
            ' p.gender AS "gender", p.age_range AS "ageRange", p.color_blind AS "colorBlind",'
            ' p.created_at AS "createdAt", p.started_at AS "startedAt", p.finished_at AS "finishedAt",'
            f" {extra}, {shown} FROM participants p{join}{shown_join} ORDER BY p.serial",
            conn,
        )
    frame["colorBlind"] = _bool_text(frame["colorBlind"])
    for col in ("adult", "guardianConsent", "displayChecked", "forcedColors", "darkMode"):
        frame[col] = frame[col].astype("Int64")
    return frame[list(PARTICIPANT_COLUMNS)]


@dataclass(frozen=True)
class Exclusions:
    """Who an answer export left out: participants in the database, unfinished ones, ones the display rule dropped."""

    participants: int
    unfinished: int
    display: int

    def describe(self, include_unfinished: bool, display: str) -> str:
        parts = []
        if self.unfinished:
            parts.append(
                f"{self.unfinished} unfinished participant(s) "
                + (
                    "included (--include-unfinished)"
                    if include_unfinished
                    else "excluded (--include-unfinished keeps them)"
                )
            )
        if display != "all":
            parts.append(f"{self.display} participant(s) excluded by --display {display}")
        return "; ".join(parts)


def exclusions(
    db_path: str | Path, task: str, *, include_unfinished: bool = False, display: str = "all"
) -> Exclusions:
    """How many of ``task``'s participants an export with these options leaves out (and why)."""
    rule = _display_rule(display)
    with _open(db_path) as conn:
        total, unfinished = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(finished_at IS NULL), 0) FROM participants WHERE task = ?", (task,)
        ).fetchone()
        dropped = 0
        if display != "all" and has_table(conn, "displays"):
            dropped = conn.execute(
                "SELECT COUNT(*) FROM participants p LEFT JOIN displays d ON d.participant_id = p.id"
                f" WHERE p.task = ? AND NOT ({rule})"
                + ("" if include_unfinished else " AND p.finished_at IS NOT NULL"),
                (task,),
            ).fetchone()[0]
    return Exclusions(int(total), int(unfinished), int(dropped))


def pilot_since(db_path: str | Path) -> str | None:
    """When a ``--pilot`` server first opened the database (``None``: a study's database)."""
    with _open(db_path) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'pilot'").fetchone()
    return None if row is None else str(row[0])


def export(
    db_path: str | Path,
    out: str | Path,
    task: str = "words",
    *,
    include_unfinished: bool = False,
    display: str = "all",
) -> int:
    """Write one task's table; returns the number of rows written (the output type is checked first)."""
    if not str(out).lower().endswith((".csv", ".csv.gz", ".parquet")):
        raise ValueError(f"{out}: unknown file type; expected .csv, .csv.gz or .parquet")
    if task not in EXPORT_TASKS:
        raise ValueError(f"--task {task!r}: expected one of {', '.join(EXPORT_TASKS)}")
    if task == "participants":
        frame = participants_frame(db_path)
    elif task == "words":
        frame = word_answers_frame(db_path, include_unfinished=include_unfinished, display=display)
    elif task == "gca":
        frame = gca_frame(db_path, include_unfinished=include_unfinished, display=display)
    else:
        raw = task == "tessellation-raw"
        frame = tessellation_frame(db_path, raw=raw, include_unfinished=include_unfinished, display=display)
    pilot = pilot_since(db_path)
    if pilot is not None:  # a trial run's data must never pass for a study's
        frame["pilot"] = f"pilot since {pilot}"
    write_table(frame, out)
    return len(frame)
