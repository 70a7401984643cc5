"""Replies collected elsewhere (an API batch job, another harness, a published table) → probe records.

Why: a model's replies are often gathered outside this package; scoring them must
read them exactly as a live run would.  Each reply goes through the probe's own
:func:`~huesenv.probes.trials.parse_reply` (hence
:func:`~huesenv.probes.answers.parse_answer`) and becomes the same
``probe_trial`` record :func:`~huesenv.probes.run.run_probe` writes.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.replies``.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any

from huesenv.probes.run import build_trials, default_run_id
from huesenv.probes.trials import make_record, parse_reply
from huesenv.trust import read_user_text

FIELDS = ("trial_id", "reply")
SURVEY_FIELDS = ("userId", "kind", "stimulusId", "choice", "threshold")  # the collection app's GCA export


DISTRACTOR_LIMIT = 2  # the GCA paper: excluded "for selecting the distractor color on two or more trials"


FLAG_TRUE = ("true", "1")  # the export writes True / False (pandas' CSV of the flags), empty when not set
FLAG_FALSE = ("false", "0")


def _flag(line_no: int, row: dict[str, Any], column: str, choice_vs: str) -> bool | None:
    """An item's export flag (``True``/``False``/unset), or the same test redone from ``choice``.

    Anything but the export's spellings (``True``/``False``, ``1``/``0``, any case; empty = unset) is refused
    (``ValueError`` naming the line and field): a misread flag would silently exclude nobody."""
    value = row.get(column)
    text = str(value if value is not None else "").strip().lower()
    if text in FLAG_TRUE:
        return True
    if text in FLAG_FALSE:
        return False
    if text:
        raise ValueError(
            f"line {line_no}, field {column}: {value!r} is not a flag (expected True, False or empty, "
            "as huesenv collect export writes)"
        )
    choice = str(row.get("choice") or "").strip()
    if column not in row and choice and row.get(choice_vs) not in (None, ""):
        return choice == str(row[choice_vs]).strip()
    return None


def excluded_participants(rows: list[tuple[int, dict[str, Any]]]) -> tuple[dict[str, str], bool]:
    """``userId`` → why the GCA paper's rules exclude them, and whether the rows could tell at all."""
    distractor: dict[str, int] = {}
    failed: dict[str, int] = {}
    known = False
    for line_no, row in rows:
        user, kind = str(row["userId"]), str(row["kind"])
        if kind == "trial":
            chose = _flag(line_no, row, "choseDistractor", "distractor")
            known |= chose is not None or "choseDistractor" in row
            distractor[user] = distractor.get(user, 0) + bool(chose)
        elif kind == "attention":
            passed = _flag(line_no, row, "attentionPassed", "expected")
            known |= passed is not None or "attentionPassed" in row
            failed[user] = failed.get(user, 0) + (passed is False)
    out = {}
    for user in dict.fromkeys([*distractor, *failed]):
        why = []
        if distractor.get(user, 0) >= DISTRACTOR_LIMIT:
            why.append(f"chose the distractor on {distractor[user]} trials")
        if failed.get(user, 0):
            why.append(f"failed {failed[user]} attention check(s)")
        if why:
            out[user] = " and ".join(why)
    return out, known


def survey_note(left: dict[str, int], keep_excluded: bool) -> str:
    """One line saying whom the GCA paper's exclusions left out (or kept, or could not judge)."""
    if not left.get("flags_known", 1):
        return "GCA exclusions: the export has no choseDistractor/attentionPassed flags; none applied"
    n = left.get("excluded_participants", 0)
    rule = f"{DISTRACTOR_LIMIT}+ distractor choices or a failed attention check"
    if keep_excluded:
        return f"GCA exclusions: {n} participant(s) meet the paper's rule ({rule}), kept (--keep-excluded)"
    return (
        f"GCA exclusions: {n} participant(s) excluded by the paper's rule ({rule}), "
        f"{left.get('excluded_replies', 0)} of their replies dropped (--keep-excluded keeps them)"
    )


def survey_replies(
    rows: list[tuple[int, dict[str, Any]]], *, keep_excluded: bool = False
) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, int]]:
    """The collection app's GCA export rows → reply rows (see the module docstring) and what was left out."""
    out: list[tuple[int, dict[str, Any]]] = []
    pairs: dict[str, dict[str, int]] = {}  # participant → text-prior pair → first line
    thresholds: dict[str, tuple[int, str]] = {}
    excluded, known = excluded_participants(rows)
    left = {
        "attention": 0,
        "unanswered": 0,
        "excluded_participants": len(excluded),
        "excluded_replies": 0,
        "flags_known": int(known),
    }
    for line_no, row in rows:
        user, kind = str(row["userId"]), str(row["kind"])
        agent = f"human:{user}"
        if user in excluded and not keep_excluded and kind in ("trial", "introspection"):
            left["excluded_replies"] += 1
            continue
        if kind == "attention":
            left["attention"] += 1
        elif kind == "introspection":
            if str(row["threshold"] or "").strip() == "":
                left["unanswered"] += 1
            else:
                thresholds[agent] = (line_no, f"threshold={str(row['threshold']).strip()}%")
        elif kind == "trial":
            if str(row["choice"] or "").strip() == "":
                left["unanswered"] += 1
                continue
            sid = str(row["stimulusId"]).strip()
            out.append((line_no, {"trial_id": f"gca/{sid}/colour", "reply": row["choice"], "agent": agent}))
            pairs.setdefault(agent, {}).setdefault(sid.rsplit("/", 1)[0], line_no)
        else:
            raise ValueError(f"line {line_no}, field kind: {kind!r} is not trial, attention or introspection")
    for agent, (line_no, reply) in thresholds.items():
        for pair in pairs.get(agent, {}):
            out.append(
                (
                    line_no,
                    {"trial_id": f"gca/{pair}/introspection/text-prior", "reply": reply, "agent": agent},
                )
            )
    return out, left


def read_replies(
    path: str | os.PathLike, *, keep_excluded: bool = False, notes: list[str] | None = None
) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, row)`` for every reply in a CSV or JSONL file; bad structure raises ``ValueError``.

    A GCA survey export gets the paper's exclusions (``keep_excluded`` keeps them; refused for any other file,
    where it would do nothing); ``notes`` receives the line saying how many were excluded."""
    path = Path(path)
    rows: list[tuple[int, dict[str, Any]]] = []
    if path.suffix.lower() == ".jsonl":
        for line_no, line in enumerate(read_user_text(path, expected="JSON Lines").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as err:
                raise ValueError(f"{path}, line {line_no}: not a JSON object ({err})") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path}, line {line_no}: expected a JSON object, got {type(row).__name__}")
            rows.append((line_no, row))
    elif path.suffix.lower() == ".csv":
        with io.StringIO(read_user_text(path, expected="a CSV table"), newline="") as f:
            reader = csv.DictReader(f)
            if all(k in (reader.fieldnames or []) for k in SURVEY_FIELDS):
                survey = [(reader.line_num, dict(r)) for r in reader]
                try:
                    replies, left = survey_replies(survey, keep_excluded=keep_excluded)
                except ValueError as err:
                    raise ValueError(f"{path}, {err}") from None
                if notes is not None:
                    notes.append(survey_note(left, keep_excluded))
                return replies
            missing = [k for k in FIELDS if k not in (reader.fieldnames or [])]
            if missing:
                raise ValueError(
                    f"{path}, line 1, field {missing[0]}: missing column (expected header trial_id,reply[,agent], "
                    "or the collection app's GCA export)"
                )
            rows = [(reader.line_num, dict(r)) for r in reader]
    else:
        raise ValueError(f"{path}: expected a .csv or .jsonl file of replies")
    if keep_excluded:  # only a survey export has exclusions to keep: the flag would do nothing here
        raise ValueError(
            f"{path}: --keep-excluded applies only to the collection app's GCA export (a .csv with columns "
            f"{','.join(SURVEY_FIELDS)}); this is a plain replies file"
        )
    for line_no, row in rows:
        for k in FIELDS:
            if k not in row:
                raise ValueError(f"{path}, line {line_no}, field {k}: missing")
    return rows


def import_replies(
    path: str | os.PathLike,
    task: str,
    *,
    agent_id: str | None = None,
    seed: int = 0,
    run_id: str | None = None,
    keep_excluded: bool = False,
    notes: list[str] | None = None,
    **task_kwargs: Any,
) -> list:
    """The ``probe_trial`` records of the replies in ``path`` for ``task``'s seeded trial list (file order).

    ``keep_excluded`` and ``notes``: as for :func:`read_replies` (a GCA survey export's exclusions)."""
    path = Path(path)
    rows = list(
        read_replies(path, keep_excluded=keep_excluded, notes=notes)
    )  # a malformed file fails before the (seconds-long) trial list is built
    trials = {t.trial_id: t for t in build_trials(task, seed=seed, **task_kwargs)}
    default_agent = agent_id or f"replies:{path.stem}"
    seen: set[tuple[str, str]] = set()
    records: list[Any] = []
    for line_no, row in rows:
        tid = str(row["trial_id"]).strip()
        trial = trials.get(tid)
        if trial is None:
            raise ValueError(
                f"{path}, line {line_no}, field trial_id: {tid!r} is not a trial of {task} (seed {seed})"
            )
        agent = str(row.get("agent") or default_agent)
        if (agent, tid) in seen:
            raise ValueError(f"{path}, line {line_no}, field trial_id: {tid!r} answered twice by {agent}")
        seen.add((agent, tid))
        reply = row["reply"]
        reply = None if reply is None or str(reply) == "" else str(reply)
        rid = run_id or default_run_id(task, seed, agent, source=str(path), **task_kwargs)
        parsed = parse_reply(trial, reply)
        rec = make_record(trial, parsed, agent_id=agent, run_id=rid, seed=seed, episode=len(records))
        rec.extra.update({"source": str(path), "source_line": line_no})
        records.append(rec)
    return records


__all__ = [
    "FIELDS",
    "SURVEY_FIELDS",
    "excluded_participants",
    "import_replies",
    "read_replies",
    "survey_note",
    "survey_replies",
]
