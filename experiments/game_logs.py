"""What ``huesenv metrics`` reads from *game* logs, and which learned agents in a log it may not score.

Why: the metrics command scored only word-level logs (``word_query``
records) and refused a game log (a tournament's ``games.jsonl``, or the vector
env's :func:`~huesenv.envs.vector_game.record.write_game_logs`).  A game log
holds two things a user of this field expects measured, both defined once in
:mod:`huesenv.experiments.analysis` and used by the tournament report, so the
command and the report give the same numbers:

* **points per game by role** (:func:`game_points`): per agent (the seat's
  config name, else its ``agent_id``) and role (cue giver, guesser, total), the
  mean points per seat-game with a 95 % cluster-bootstrap interval over whole
  games (:func:`huesenv.experiments.uncertainty.add_role_intervals`).  Games of
  different log files are different games (their indices are offset), never
  merged;
* **first-cone alignment** (:func:`first_cone_queries`): every first cone
  (``guess_1``, placed after the one-word cue 1) is a sampled word→cell answer
  to that cue, scored against the human reference like any word-level answer
  (:func:`huesenv.experiments.analysis.guess_queries`; second cones answer two
  cues at once and have no human counterpart).

**Trained-on check** (:func:`trained_on`): a log inside a run folder has the
run's ``config.yaml`` beside it, which names each agent's spec; a
``policy:PATH`` whose checkpoint records human training data that overlaps the
reference the metrics score against is refused, as tournaments refuse it
(:func:`huesenv.experiments.evaluation.overlaps`), unless allowed, and then
labelled.  A log with ``policy:`` agents and no ``config.yaml`` beside it
cannot be checked: the command says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from huesenv.experiments.analysis import guess_queries, points_by_role, seat_games
from huesenv.experiments.evaluation import run_overlaps
from huesenv.experiments.uncertainty import add_role_intervals
from huesenv.humans.splits import describe_training
from huesenv.logs.schema import LogRecord
from huesenv.validation import load_yaml_file

GAME_KINDS = ("game_step",)


def is_game_record(rec: LogRecord) -> bool:
    return rec.kind in GAME_KINDS and rec.extra.get("player") is not None


def _offset_games(records: Sequence[LogRecord], offset: int) -> tuple[list[LogRecord], int]:
    """The records with ``extra["game"]`` shifted by ``offset`` (a copy), and the next free offset."""
    out, top = [], offset - 1
    for rec in records:
        copy = rec.model_copy()  # the log's record stays as read
        copy.extra["game"] = int(rec.extra["game"]) + offset
        top = max(top, int(copy.extra["game"]))
        out.append(copy)
    return out, top + 1


def complete_games(records: Sequence[LogRecord]) -> tuple[list[LogRecord], list[str]]:
    """The records of games whose unit block is whole, and the units a killed run cut short (left out:
    half a game is not a game; word-level blocks are kept as they are, each answer stands alone)."""
    counts: dict[str, int] = {}
    for rec in records:
        if rec.unit:
            counts[rec.unit] = counts.get(rec.unit, 0) + 1
    cut = {
        r.unit for r in records if r.unit and r.unit_size is not None and counts[r.unit] < int(r.unit_size)
    }
    return [r for r in records if r.unit not in cut], sorted(str(u) for u in cut)


def game_records(
    per_file: Mapping[Path, Sequence[LogRecord]], notes: list[str] | None = None
) -> list[LogRecord]:
    """The game records of every file, whole games only, game indices made distinct across files."""
    out: list[LogRecord] = []
    offset = 0
    for log, records in per_file.items():
        games, cut = complete_games([r for r in records if is_game_record(r)])
        if cut and notes is not None:
            notes.append(f"note: {log}: {', '.join(cut)} cut short (an interrupted run): left out")
        shifted, offset = _offset_games(games, offset)
        out.extend(shifted)
    return out


def game_points(records: Sequence[LogRecord], seed: int = 0) -> pd.DataFrame:
    """Agent × role (cue_giver, guesser, total): seat-games, mean points per game, SE and 95 % interval."""
    frame = seat_games(records)
    if frame.empty:
        return pd.DataFrame(columns=["agent", "role", "n", "mean", "se", "mean_ci_low", "mean_ci_high"])
    table = add_role_intervals(points_by_role(frame), frame, seed=seed)
    ids = frame.groupby("agent")["agent_id"].agg(lambda s: ", ".join(sorted(set(map(str, s)))))
    table.insert(1, "agent_id", table["agent"].map(ids))
    table["games"] = table["agent"].map(frame.groupby("agent")["game"].nunique())
    return table


def first_cone_queries(records: Sequence[LogRecord]) -> list[LogRecord]:
    """The first cones as sampled ``word_query`` records, one per (agent, cue-1 word).

    Each keeps the seat's name as ``extra["config_agent"]`` (the tables' ``agent``)
    and the playing agent's own ``agent_id`` (so a replayed human drawing from
    the reference is marked self-scored, and families are derived from the id).
    """
    ids: dict[str, set[str]] = {}
    for rec in records:
        if is_game_record(rec):
            ids.setdefault(record_agent(rec), set()).add(rec.agent_id)
    out = []
    for query in guess_queries(records, run_id="game-log"):
        name = query.agent_id
        own = ids.get(name, set())
        copy = query.model_copy(update={"agent_id": next(iter(own))} if len(own) == 1 else {})
        copy.extra["config_agent"] = name
        out.append(copy)
    return out


# -- the trained-on check ------------------------------------------------------------------------------------
def run_agent_specs(log: Path) -> dict[str, str] | None:
    """Agent name → spec from the run's ``config.yaml`` beside ``log`` (``None`` when there is none)."""
    path = log.parent / "config.yaml"
    if not path.is_file():
        return None
    data = load_yaml_file(path)
    agents = data.get("agents") if isinstance(data, Mapping) else None
    if not isinstance(agents, Mapping):
        return None
    out = {}
    for name, entry in agents.items():
        spec = entry.get("spec") if isinstance(entry, Mapping) else entry
        if isinstance(spec, str):
            out[str(name)] = spec
    return out


def record_agent(rec: LogRecord) -> str:
    """The name a metrics table uses for the record's agent (config name, seat name, else ``agent_id``)."""
    return str(rec.extra.get("config_agent") or rec.extra.get("seat_agent") or rec.agent_id)


def trained_on(
    per_file: Mapping[Path, Sequence[LogRecord]], humans: Any
) -> tuple[dict[str, tuple[int, dict[str, Any], str]], list[str]]:
    """``(found, unchecked)``: agents whose policy trained on answers of ``humans`` (name → overlap, record,
    spec), and one note per log whose ``policy:`` agents could not be checked (no ``config.yaml``)."""
    found: dict[str, tuple[int, dict[str, Any], str]] = {}
    unchecked = []
    for log, records in per_file.items():
        names = {record_agent(r) for r in records}
        specs = run_agent_specs(log)
        if specs is None:
            policies = sorted({r.agent_id for r in records if str(r.agent_id).startswith("policy:")})
            if policies:
                unchecked.append(
                    f"note: {log}: no run config.yaml beside the log, so the training data of "
                    f"{', '.join(policies)} could not be checked against the human reference"
                )
            continue
        mine = {n: s for n, s in specs.items() if n in names}
        here, notes = run_overlaps(mine, humans, log.parent)  # relative paths: also in the run folder
        unchecked.extend(notes)  # TRAINING DATA UNKNOWN (no record, or no such file): never held out
        for name, (n, record) in here.items():
            found[name] = (n, record, mine[name])
    return found, unchecked


def refusal(
    found: Mapping[str, tuple[int, Mapping[str, Any], str]], humans: Any, logs: Iterable[Path]
) -> str:
    """The one-line refusal for agents scored on answers they trained on."""
    name, (n, record, spec) = next(iter(found.items()))
    hint = ""
    for log in logs:
        cfg = log.parent / "config.yaml"
        data = load_yaml_file(cfg) if cfg.is_file() else None
        path = ((data or {}).get("humans") or {}).get("path") if isinstance(data, Mapping) else None
        if path:
            hint = f" (the run was scored against --humans {path})"
            break
    return (
        f"agent {name} ({spec}) was trained on {n} of the {len(humans)} answers of the human reference "
        f"({describe_training(record)}); score it against the split's evaluation part with --humans PATH"
        f"{hint}, or pass --allow-trained-on to score it on its training data (labelled as such)"
    )
