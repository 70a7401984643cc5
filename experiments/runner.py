"""Resumable execution: what is done is read back from the append-only logs, never from a side file.

Every unit's records are appended in one ``LogWriter.append`` call, tagged as a
block by :func:`huesenv.logs.tag_unit`; on a rerun :func:`huesenv.logs.read_log_state`
finds the complete blocks, so a crash mid-append (a torn last line, or a block
cut short) leaves that unit *not done*: it is played again and only its
complete block is ever read, so no game is lost and none is counted twice.  Units are written in plan order (Ray
results are buffered until their turn), hence same config → same log bytes,
apart from the wall-clock fields ``created`` and ``timings`` which
:func:`canonical_log_lines` drops for comparisons.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from huesenv.atomic import write_text_atomic
from huesenv.experiments.backends import Task
from huesenv.experiments.config import ExperimentConfig
from huesenv.experiments.evaluation import absolute_spec
from huesenv.experiments.tournament import batches, plan_games
from huesenv.logs import LogState, LogWriter, read_log_state, tag_unit
from huesenv.validation import dump_yaml, load_yaml, load_yaml_file

GAMES_LOG = "games.jsonl"
WORDLEVEL_LOG = "wordlevel.jsonl"
CONFIG_FILE = "config.yaml"
VOLATILE_FIELDS = ("created", "timings")


def canonical_log_lines(path: Path) -> list[str]:
    """A log's lines without the wall-clock fields, for byte-for-byte determinism comparisons."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        data = json.loads(line)
        for key in VOLATILE_FIELDS:
            data.pop(key, None)
        out.append(json.dumps(data, sort_keys=True, separators=(",", ":")))
    return out


def backup_path(path: Path) -> Path:
    """Where ``--fresh`` moves a log: ``NAME.old``, then ``NAME.old.2``, ``NAME.old.3``, … — the first free one.

    Why numbered: logs are append-only records of work done; a second ``--fresh``
    must not replace the backup the first one made.
    """
    candidate, n = path.with_name(f"{path.name}.old"), 1
    while candidate.exists() or candidate.is_symlink():
        n += 1
        candidate = path.with_name(f"{path.name}.old.{n}")
    return candidate


def _holds_records(run_dir: Path) -> bool:
    """Whether a run folder's logs hold anything (a start that failed before any unit holds nothing)."""
    return any(
        (run_dir / name).is_file() and (run_dir / name).stat().st_size > 0
        for name in (GAMES_LOG, WORDLEVEL_LOG)
    )


def conflicting_fields(config: ExperimentConfig) -> list[str]:
    """The identity fields in which the experiment stored in the config's run folder differs from
    ``config``: empty when the folder is new, holds this same experiment (so it can resume), or holds
    no records yet (a start that failed before its first unit never binds the folder)."""
    run_dir = config.run_dir()
    stored = run_dir / CONFIG_FILE
    if not stored.exists():
        return []
    try:
        previous = load_yaml_file(stored) or {}
        old = ExperimentConfig.from_dict(previous, source=str(stored))
    except ValueError as err:
        if _holds_records(run_dir):
            raise ValueError(f"{stored}: the run folder's stored config is unreadable ({err})") from None
        return []
    # the stored copy has its secrets masked and its file paths absolute: compare it with this config the same way
    current = ExperimentConfig.from_dict(load_yaml(stored_yaml(config), config.source), source=config.source)
    old = ExperimentConfig.from_dict(absolute_specs(old.data), source=str(stored))
    if old.fingerprint() == current.fingerprint() or not _holds_records(run_dir):
        return []
    return [k for k in old.identity() if old.identity()[k] != current.identity()[k]]


def absolute_specs(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with every ``policy:``/``lookup:`` agent's relative path made absolute (see ``absolute_spec``)."""
    agents = data.get("agents")
    if not isinstance(agents, dict):
        return data
    out = dict(data)
    out["agents"] = {
        name: {**entry, "spec": absolute_spec(entry.get("spec"))}
        if isinstance(entry, dict)
        else absolute_spec(entry)
        for name, entry in agents.items()
    }
    return out


def stored_yaml(config: ExperimentConfig) -> str:
    """The run folder's config.yaml: the masked config with ``policy:``/``lookup:`` paths absolute, so that a
    later ``huesenv metrics`` from another folder finds the files the games were played with."""
    return dump_yaml(absolute_specs(load_yaml(config.masked_yaml(), config.source)))


POLICY_FILES = "policy_files.json"


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def policy_files(config: ExperimentConfig) -> dict[str, dict[str, str]]:
    """Agent name → ``{"path", "sha256"}`` of every ``policy:FILE`` agent: what the file *holds* is part of
    the run's identity (a retrained or replaced checkpoint at the same path is another experiment)."""
    out = {}
    for name in sorted(config.data["agents"]):
        spec = config.agent(name).spec
        kind, _, arg = spec.partition(":")
        if kind == "policy" and arg and Path(arg).is_file():
            out[name] = {"path": arg, "sha256": file_sha256(arg)}
    return out


def changed_policy_files(config: ExperimentConfig) -> list[str]:
    """The ``policy:`` agents whose file content differs from what the run folder's records were played with."""
    stored = config.run_dir() / POLICY_FILES
    if not stored.exists() or not _holds_records(config.run_dir()):
        return []
    try:
        before = json.loads(stored.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"{stored}: unreadable ({err}); pass --fresh to start over") from None
    now = policy_files(config)
    return sorted(n for n in set(before) | set(now) if before.get(n) != now.get(n))


def prepare_run_dir(config: ExperimentConfig, fresh: bool = False) -> Path:
    """Create the run folder, or check that the one there holds this same experiment (so it can resume).

    A stored config only binds the folder once its logs hold records: a start that
    failed before its first unit (a bad agent, missing weights) never blocks the next.
    """
    run_dir = config.run_dir()
    stored = run_dir / CONFIG_FILE
    if stored.exists() and not fresh:
        diff = conflicting_fields(config)
        if diff:
            raise ValueError(
                f"{stored}, field(s) {', '.join(diff)}: the run folder holds a different experiment; "
                f"choose another --name or pass --fresh to start over"
            )
        changed = changed_policy_files(config)
        if changed:
            raise ValueError(
                f"{run_dir / POLICY_FILES}: agent(s) {', '.join(changed)}: the policy file's content changed "
                "since these games were played (refusing to mix checkpoints in one leaderboard); "
                "pass --fresh to replay or choose another --name"
            )
    if fresh and run_dir.exists():
        for name in (GAMES_LOG, WORDLEVEL_LOG):
            if (run_dir / name).exists():
                (run_dir / name).rename(backup_path(run_dir / name))
    run_dir.mkdir(parents=True, exist_ok=True)
    stored.write_text(stored_yaml(config), encoding="utf-8")
    write_text_atomic(run_dir / POLICY_FILES, json.dumps(policy_files(config), indent=1) + "\n")
    return run_dir


@dataclass
class StageResult:
    """What one stage (games or word-level) did: for the summary and the 'resumed' message."""

    stage: str
    total: int
    done_before: int
    ran_now: int
    partial_blocks: int = 0
    torn_line: int | None = None

    @property
    def resumed(self) -> bool:
        return self.done_before > 0

    def message(self) -> str:
        unit = "games" if self.stage == "games" else "agents"
        if self.total == 0:
            return f"{self.stage}: none planned"
        if self.done_before == self.total:
            return (
                f"{self.stage}: all {self.total} {unit} already in the log from an earlier run (none run now)"
            )
        if self.done_before:
            extra = ""
            if self.partial_blocks or self.torn_line:
                extra = f" (set aside an interrupted write{f' at line {self.torn_line}' if self.torn_line else ''})"
            return (
                f"{self.stage}: resumed: {self.done_before} of {self.total} {unit} were already in the log"
                f"{extra}; ran the remaining {self.ran_now}"
            )
        return f"{self.stage}: ran {self.ran_now} {unit}"


class _InOrder:
    """Tracks the next task index to write and flushes consecutive buffered results."""

    def __init__(self, order: Sequence[int], write: Callable[[int, Any], None]) -> None:
        self.order = list(order)
        self.pos = 0
        self.buffer: dict[int, Any] = {}
        self.write = write

    def add(self, index: int, result: Any) -> None:
        self.buffer[index] = result
        while self.pos < len(self.order) and self.order[self.pos] in self.buffer:
            i = self.order[self.pos]
            self.write(i, self.buffer.pop(i))
            self.pos += 1


def _run_units(
    config: ExperimentConfig,
    backend: Any,
    stage: str,
    log_path: Path,
    tasks: list[Task],
    total: int,
    done_before: int,
    noun: str,
    bar: str,
    progress: Any,
    write: Callable[[Any, int, Any, Callable[[], None]], int],
) -> int:
    """The resumable skeleton of every stage: say what is resumed, run ``tasks`` on ``backend``, and write
    their results in plan order through one append-only ``LogWriter``; returns the units written.

    ``write(writer, task_index, result, advance)`` appends one task's units, calls ``advance()`` per unit
    and returns how many it wrote.
    """
    if progress is not None and 0 < done_before < total:
        progress.console.print(f"resuming: {done_before} of {total} {noun} already in {log_path}")
    task_id = progress.add_task(bar, total=total, completed=done_before) if progress else None
    advance = (lambda: progress.advance(task_id)) if progress is not None else (lambda: None)
    ran = 0
    if tasks:
        with LogWriter(log_path) as writer:

            def flush(index: int, result: Any) -> None:
                nonlocal ran
                ran += write(writer, index, result, advance)

            sink = _InOrder([t.index for t in tasks], flush)
            for index, result in backend.run(config, tasks, gpu=_needs_gpu(config, stage)):
                sink.add(index, result)
    return ran


def run_games(
    config: ExperimentConfig,
    backend: Any,
    run_dir: Path,
    progress: Any = None,
    on_game: Callable[[int, dict[str, int]], None] | None = None,
) -> tuple[StageResult, LogState]:
    """Play every planned game not yet in ``games.jsonl``; return the stage result and the final log state."""
    log_path = run_dir / GAMES_LOG
    plan = plan_games(config)
    state = read_log_state(log_path)
    todo = [u for u in plan if f"game:{u.game}" not in state.units]
    chunks = batches(todo, int(config["tournament"]["batch_size"]))
    tasks = [Task(i, "games", chunk) for i, chunk in enumerate(chunks)]

    def write(writer: Any, _: int, outcomes: list, advance: Callable[[], None]) -> int:
        for outcome in outcomes:
            writer.append(tag_unit(outcome.records, f"game:{outcome.game}"))
            if on_game:
                on_game(outcome.game, outcome.scores)
            advance()
        return len(outcomes)

    done_before = len(plan) - len(todo)
    ran = _run_units(
        config, backend, "games", log_path, tasks, len(plan), done_before, "games", "games", progress, write
    )
    final = read_log_state(log_path)
    return StageResult("games", len(plan), done_before, ran, state.partial_blocks, state.torn_line), final


def run_wordlevel(
    config: ExperimentConfig, backend: Any, run_dir: Path, progress: Any = None
) -> tuple[StageResult, LogState]:
    """Evaluate every word-level agent not yet in ``wordlevel.jsonl`` (one unit per agent)."""
    log_path = run_dir / WORDLEVEL_LOG
    names = [a.name for a in config.wordlevel_agents()] if config["wordlevel"].get("enabled", True) else []
    state = read_log_state(log_path)
    todo = [n for n in names if f"agent:{n}" not in state.units]
    tasks = [Task(i, "wordlevel", name) for i, name in enumerate(todo)]

    def write(writer: Any, index: int, records: list, advance: Callable[[], None]) -> int:
        writer.append(tag_unit(records, f"agent:{todo[index]}"))
        advance()
        return 1

    done_before = len(names) - len(todo)
    ran = _run_units(
        config,
        backend,
        "wordlevel",
        log_path,
        tasks,
        len(names),
        done_before,
        "word-level agents",
        "models",
        progress,
        write,
    )
    final = read_log_state(log_path)
    return StageResult(
        "wordlevel", len(names), done_before, ran, state.partial_blocks, state.torn_line
    ), final


def _needs_gpu(config: ExperimentConfig, stage: str) -> bool:
    if stage == "wordlevel":
        return any(a.is_model or a.gpu for a in config.wordlevel_agents())
    used = {name for lineup in config["lineups"] for name in lineup}
    return any(config.agent(n).is_model or config.agent(n).gpu for n in used)
