"""What ``huesenv metrics`` reads from *game* logs, and which learned agents in a log it may not score.

Why: the metrics command scored only word-level logs (``word_query``
records) and refused a game log (a tournament's ``games.jsonl``, or the vector
env's :func:`~huesenv.envs.vector_game.record.write_game_logs`).  A game log
holds two things a user of this field expects measured, both defined once in
:mod:`huesenv.experiments.analysis` and used by the tournament report, so the
command and the report give the same numbers.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.game_logs``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from huesenv.experiments.analysis import guess_queries, points_by_role, seat_games
from huesenv.experiments.evaluation import learned_spec, overlaps, spec_in
from huesenv.experiments.uncertainty import add_role_intervals
from huesenv.humans.splits import describe_training
from huesenv.logs.schema import LogRecord
from huesenv.validation import load_yaml_file

GAME_KINDS = ("game_step",)


def is_game_record(rec: LogRecord) -> bool:
    return rec.kind in GAME_KINDS and rec.extra.get("player") is not None


def _locator(log: Path, records: Sequence[LogRecord]) -> Callable[[int], str]:
    """``index -> "<log>, line N"`` for the log's ``index``-th record (JSON Lines skip blank lines), else
    ``"<log>, row N"`` (a Parquet log)."""
    if Path(log).suffix != ".jsonl":
        return lambda i: f"{log}, row {i + 1}"
    lines: list[int] = []
    with open(log, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if raw.strip():
                lines.append(number)
    return lambda i: f"{log}, line {lines[i] if i < len(lines) else i + 1}"


def _game_index(rec: LogRecord, where: str) -> int:
    game = rec.extra.get("game")
    if isinstance(game, bool) or not isinstance(game, int):
        raise ValueError(
            f"{where}, field extra.game: expected the game's number (an integer >= 0) on a game_step record "
            f"with a player, got {game!r}"
        )
    return game


def _offset_games(
    records: Sequence[tuple[int, LogRecord]], offset: int, where: Callable[[int], str]
) -> tuple[list[LogRecord], int]:
    """The records with their games renumbered from ``offset`` (a copy), one number per (run_id, game), and
    the next free offset; a repeated step of one game (a log holding a game twice) is refused."""
    numbers: dict[tuple[str, int], int] = {}
    steps: dict[tuple[Any, ...], int] = {}
    out = []
    for index, rec in records:
        game = _game_index(rec, where(index))
        key = (str(rec.run_id), game)
        step: tuple[Any, ...] = (*key, rec.extra.get("player"), rec.extra.get("round"))
        step = (*step, rec.extra.get("phase"), rec.extra.get("cue_index"))
        if step in steps:
            raise ValueError(
                f"{where(index)}, field extra.game: game {game} of run {rec.run_id} repeats the step at "
                f"{where(steps[step])} (the same player, round and phase): the log holds this game twice "
                "(a log appended to itself?); keep one copy"
            )
        steps[step] = index
        copy = rec.model_copy()  # the log's record stays as read
        copy.extra["game"] = numbers.setdefault(key, offset + len(numbers))
        out.append(copy)
    return out, offset + len(numbers)


def _unit_size(block: Sequence[tuple[int, LogRecord]], where: Callable[[int], str]) -> int:
    """The block's ``unit_size``, refused (one line) when missing, disagreeing or a position lies outside it."""
    first = block[0][1].unit_size
    for index, rec in block:
        if rec.unit_size is None or rec.unit_pos is None:
            field = "extra.unit_size" if rec.unit_size is None else "extra.unit_pos"
            raise ValueError(
                f"{where(index)}, field {field}: expected an integer on a record of unit {rec.unit} "
                "(huesenv.logs.units.tag_unit writes unit, unit_size and unit_pos together), got null"
            )
        if rec.unit_size != first:
            raise ValueError(
                f"{where(index)}, field extra.unit_size: {rec.unit_size}, but the block of unit {rec.unit} "
                f"starting at {where(block[0][0])} says {first}"
            )
        if rec.unit_pos >= rec.unit_size:
            raise ValueError(
                f"{where(index)}, field extra.unit_pos: {rec.unit_pos}, expected below the unit's size "
                f"{rec.unit_size} (unit {rec.unit} holds more records than it wrote)"
            )
    return int(first or 0)


def complete_games(
    records: Sequence[LogRecord], where: Callable[[int], str] | None = None
) -> tuple[list[tuple[int, LogRecord]], list[str]]:
    """The (index, record) pairs of whole unit blocks and untagged records, and the units cut short.

    A unit block is whole as a contiguous run of exactly ``unit_size`` records at positions 0..n-1
    (:func:`huesenv.logs.io.split_blocks`); a block cut short (a killed run; a resumed run writes the
    unit again after it) is left out: half a game is not a game.  A second whole block of one (run_id,
    unit) is a log holding a game twice and is refused, as are unit fields that contradict each other.
    """
    where = where or (lambda i: f"record {i + 1}")
    kept: list[tuple[int, LogRecord]] = []
    cut: set[str] = set()
    whole: dict[tuple[str, str], int] = {}
    blocks: list[list[tuple[int, LogRecord]]] = []
    for index, rec in enumerate(records):
        last = blocks[-1] if blocks else None
        if (
            last is None
            or rec.unit != last[0][1].unit
            or rec.unit is None
            or rec.unit_pos == 0
            or len(last) == (last[0][1].unit_size or -1)
        ):
            blocks.append([])
        blocks[-1].append((index, rec))
    done: set[str] = set()
    for block in blocks:
        unit = block[0][1].unit
        if unit is None:
            kept.extend(block)
            continue
        size = _unit_size(block, where)
        if len(block) != size or [r.unit_pos for _, r in block] != list(range(size)):
            cut.add(str(unit))
            continue
        key = (str(block[0][1].run_id), str(unit))
        if key in whole:
            raise ValueError(
                f"{where(block[0][0])}, field extra.unit: unit {unit} of run {key[0]} is already whole at "
                f"{where(whole[key])}: the log holds this game twice (a log appended to itself?); keep one copy"
            )
        whole[key] = block[0][0]
        done.add(str(unit))
        kept.extend(block)
    return kept, sorted(cut - done)


def game_records(
    per_file: Mapping[Path, Sequence[LogRecord]], notes: list[str] | None = None
) -> list[LogRecord]:
    """The game records of every file, whole games only, game indices made distinct across files (and
    across the runs of one file); a game held twice or a record without its game number is refused."""
    out: list[LogRecord] = []
    offset = 0
    for log, records in per_file.items():
        if not any(is_game_record(r) for r in records):
            continue
        where = _locator(log, records)
        kept, cut = complete_games(records, where)
        if cut and notes is not None:
            notes.append(f"note: {log}: {', '.join(cut)} cut short (an interrupted run): left out")
        games = [(i, r) for i, r in kept if is_game_record(r)]
        shifted, offset = _offset_games(games, offset, where)
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
    humans = data.get("humans") if isinstance(data, Mapping) else None
    if humans is not None and not isinstance(humans, Mapping):
        raise ValueError(
            f"{path}, field humans: expected a mapping (humans: {{path: FILE}}), got {type(humans).__name__} "
            f"{humans!r}"
        )
    agents = data.get("agents") if isinstance(data, Mapping) else None
    if agents is None:
        return None
    if not isinstance(agents, Mapping):
        raise ValueError(
            f"{path}, field agents: expected a mapping of agent name to spec (the run's agents), "
            f"got {type(agents).__name__}"
        )
    out = {}
    for name, entry in agents.items():
        spec = entry.get("spec") if isinstance(entry, Mapping) else entry
        if isinstance(spec, str):
            out[str(name)] = spec
    return out


def record_agent(rec: LogRecord) -> str:
    """The name a metrics table uses for the record's agent (config name, seat name, else ``agent_id``)."""
    return str(rec.extra.get("config_agent") or rec.extra.get("seat_agent") or rec.agent_id)


def learned_agents(per_file: Mapping[Path, Sequence[LogRecord]]) -> tuple[dict[str, str], set[str]]:
    """``(specs, unchecked)``: the ``policy:`` agents of the logs' run configs (name → spec), and the names
    of ``policy:`` agents of logs with no ``config.yaml`` (their training data is unknown)."""
    specs: dict[str, str] = {}
    unchecked: set[str] = set()
    for log, records in per_file.items():
        names = {record_agent(r) for r in records}
        mine = run_agent_specs(log)
        if mine is None:
            unchecked |= {record_agent(r) for r in records if str(r.agent_id).startswith("policy:")}
            continue
        specs.update({n: spec_in(s, log.parent) for n, s in mine.items() if n in names and learned_spec(s)})
    return specs, unchecked


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
        for name, (n, record) in overlaps(mine, humans, log.parent).items():  # relative: also in the run
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
        block = data.get("humans") if isinstance(data, Mapping) else None
        if block is not None and not isinstance(block, Mapping):
            raise ValueError(
                f"{cfg}, field humans: expected a mapping (humans: {{path: FILE}}), got {type(block).__name__} "
                f"{block!r}"
            )
        path = (block or {}).get("path")
        if path:
            hint = f" (the run was scored against --humans {path})"
            break
    return (
        f"agent {name} ({spec}) was trained on {n} of the {len(humans)} answers of the human reference "
        f"({describe_training(record)}); score it against the split's evaluation part with --humans PATH"
        f"{hint}, or pass --allow-trained-on to score it on its training data (labelled as such)"
    )
