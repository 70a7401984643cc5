"""Replies collected elsewhere (an API batch job, another harness, a published table) → probe records.

Why: a model's replies are often gathered outside this package; scoring them must
read them exactly as a live run would.  Each reply goes through the probe's own
:func:`~huesenv.probes.trials.parse_reply` (hence
:func:`~huesenv.probes.answers.parse_answer`) and becomes the same
``probe_trial`` record :func:`~huesenv.probes.run.run_probe` writes.

File formats (chosen by suffix): ``.csv`` with a header row, or ``.jsonl`` with
one object per line.  Fields: ``trial_id`` (as in the trial list of the task
and seed, e.g. ``interference/color/type1/003``), ``reply`` (the model's text,
verbatim; empty = no reply, logged invalid) and, optionally, ``agent`` (one file
may hold several models; default: ``agent_id``).  Unknown trial ids, missing
fields and a trial answered twice by the same agent are errors naming the file,
line and field; unreadable replies are never dropped — they are records with
``valid=False`` and the raw text.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Any

from huesenv.probes.run import build_trials, default_run_id
from huesenv.probes.trials import make_record, parse_reply

FIELDS = ("trial_id", "reply")


def read_replies(path: str | os.PathLike) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, row)`` for every reply in a CSV or JSONL file; bad structure raises ``ValueError``."""
    path = Path(path)
    rows: list[tuple[int, dict[str, Any]]] = []
    if path.suffix.lower() == ".jsonl":
        for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
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
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [k for k in FIELDS if k not in (reader.fieldnames or [])]
            if missing:
                raise ValueError(
                    f"{path}, line 1, field {missing[0]}: missing column (expected header trial_id,reply[,agent])"
                )
            rows = [(reader.line_num, dict(r)) for r in reader]
    else:
        raise ValueError(f"{path}: expected a .csv or .jsonl file of replies")
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
    **task_kwargs: Any,
) -> list:
    """The ``probe_trial`` records of the replies in ``path`` for ``task``'s seeded trial list (file order)."""
    path = Path(path)
    rows = list(read_replies(path))  # a malformed file fails before the (seconds-long) trial list is built
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


__all__ = ["FIELDS", "import_replies", "read_replies"]
