"""Reading and writing episode logs: JSON Lines while running, Parquet for analysis.

**Crash safety.**  :class:`LogWriter` writes one episode's records in a single
``write`` and then flushes and fsyncs, so after a crash the file holds whole
lines plus, at worst, one *torn* last line (a fragment without its newline).
On open the writer detects such a fragment, reports it (a :mod:`warnings`
warning and the ``torn_line``/``torn_text`` attributes), copies it to a sidecar
``<log>.torn`` and cuts it off the log, so the next episode starts on a fresh
line instead of gluing onto the fragment.  Complete records are never
rewritten: the only bytes ever removed are a fragment that never was a record,
and those are kept in the sidecar.  :func:`read_records` likewise skips a torn
last line and reports it in :class:`ReadResult`; a malformed line anywhere
else (or a last line that *has* its newline) is corruption and raises.

**Validation.**  Every line must be a JSON object of the current schema version
with the required fields; coordinates (``cells``, ``extra.cell``,
``extra.target``) must be on the board; a ``word_query`` word must be one of
the 100 words or 16 nonsense inputs (category ``"Custom"`` marks a user
vocabulary and is exempt).  Errors read ``"<file>, line N, field F: ..."``.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from huesenv.board import parse_coord
from huesenv.logs.schema import SCHEMA_VERSION, LogRecord
from huesenv.vocabulary import is_known

CUSTOM_CATEGORY = "Custom"


@dataclass(frozen=True)
class ReadResult:
    """Records of a log, and the torn last line that was set aside (1-based line number), if any."""

    records: list[LogRecord]
    torn_line: int | None = None
    torn_text: str | None = None


def record_to_json(record: LogRecord) -> str:
    """One record as one JSON line (keys sorted, so equal records give equal bytes)."""
    return json.dumps(record.to_dict(), sort_keys=True, ensure_ascii=False, allow_nan=False)


def _check_coord(value: Any, where: str, field: str) -> None:
    try:
        parse_coord(value)
    except ValueError as err:
        raise ValueError(f"{where}, field {field}: {err}") from None


def validate_record(record: LogRecord, where: str = "record") -> LogRecord:
    """Check coordinates and words of a record; ``where`` prefixes the error ("<file>, line N")."""
    if record.cells is not None:
        if not isinstance(record.cells, list):
            raise ValueError(
                f"{where}, field cells: expected a list of coordinates, got {type(record.cells).__name__}"
            )
        for i, cell in enumerate(record.cells):
            _check_coord(cell, where, f"cells[{i}]")
    if record.scores is not None:
        if not isinstance(record.scores, list):
            raise ValueError(f"{where}, field scores: expected a list of numbers")
        if record.cells is not None and len(record.scores) != len(record.cells):
            raise ValueError(
                f"{where}, field scores: {len(record.scores)} scores for {len(record.cells)} cells (expected equal lengths)"
            )
    if record.seed is not None and (isinstance(record.seed, bool) or not isinstance(record.seed, int)):
        raise ValueError(f"{where}, field seed: expected an integer or null, got {record.seed!r}")
    if not isinstance(record.extra, dict):
        raise ValueError(f"{where}, field extra: expected an object")
    if not isinstance(record.timings, dict):
        raise ValueError(f"{where}, field timings: expected an object")
    for key in ("cell", "target"):
        if record.extra.get(key) is not None:
            _check_coord(record.extra[key], where, f"extra.{key}")
    if record.kind == "word_query":
        if not isinstance(record.word, str):
            raise ValueError(f"{where}, field word: expected the query word, got {record.word!r}")
        if record.category != CUSTOM_CATEGORY and not is_known(record.word):
            raise ValueError(
                f"{where}, field word: unknown word {record.word!r} (expected one of the 100 words or 16 nonsense "
                f"inputs, or category {CUSTOM_CATEGORY!r} for a user vocabulary)"
            )
    return record


def parse_line(text: str, where: str) -> LogRecord:
    """One JSON line → a validated record; every failure is a ``ValueError`` naming ``where`` and the field."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{where}, field <json>: not valid JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where}, field <json>: expected a JSON object, got {type(data).__name__}")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(
            f"{where}, field schema_version: {data.get('schema_version')!r} is not the supported version {SCHEMA_VERSION}"
        )
    for name in ("kind", "run_id", "agent_id"):
        if name not in data:
            raise ValueError(f"{where}, field {name}: missing (required in every record)")
    unknown = sorted(set(data) - set(LogRecord.field_names()))
    if unknown:
        raise ValueError(
            f"{where}, field {unknown[0]}: unknown field (schema version {SCHEMA_VERSION} has no such field)"
        )
    try:
        record = LogRecord.from_dict(data)
    except (TypeError, ValueError) as err:
        message = str(err)
        field = (
            message.split(":")[0].removeprefix("LogRecord.")
            if message.startswith("LogRecord.")
            else "<record>"
        )
        raise ValueError(f"{where}, field {field}: {message}") from None
    return validate_record(record, where)


def _split_torn(data: bytes) -> tuple[bytes, bytes]:
    """(complete part, torn tail): the tail is whatever follows the last newline."""
    cut = data.rfind(b"\n") + 1
    return data[:cut], data[cut:]


def read_records(path: str | os.PathLike) -> ReadResult:
    """All records of a JSON Lines log; a torn last line is skipped and reported, anything else malformed raises."""
    path = Path(path)
    data = path.read_bytes()
    complete, tail = _split_torn(data)
    torn_line = torn_text = None
    lines = complete.decode("utf-8").split("\n")[:-1] if complete else []
    if tail.strip():
        text = tail.decode("utf-8", errors="replace")
        try:  # a final record that only lacks its newline is still a whole record
            json.loads(text)
            lines.append(text)
        except json.JSONDecodeError:
            torn_line, torn_text = len(lines) + 1, text
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        records.append(parse_line(line, f"{path}, line {number}"))
    if torn_line is not None:
        warnings.warn(
            f"{path}, line {torn_line}: torn last line ignored ({len(torn_text or '')} characters)",
            stacklevel=2,
        )
    return ReadResult(records=records, torn_line=torn_line, torn_text=torn_text)


class LogWriter:
    """Append-only JSON Lines log: one :meth:`append` per episode, flushed and fsynced."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.torn_line: int | None = None
        self.torn_text: str | None = None
        self._set_aside_torn_tail()
        self._fh = open(self.path, "ab")

    def _set_aside_torn_tail(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        complete, tail = _split_torn(data)
        if not tail:
            return
        text = tail.decode("utf-8", errors="replace")
        try:
            json.loads(text)
            whole = True
        except json.JSONDecodeError:
            whole = False
        if whole:  # a whole record missing only its newline: terminate it, keep it
            with open(self.path, "ab") as fh:
                fh.write(b"\n")
                fh.flush()
                os.fsync(fh.fileno())
            return
        self.torn_line = complete.count(b"\n") + 1
        self.torn_text = text
        sidecar = self.path.with_name(self.path.name + ".torn")
        with open(sidecar, "ab") as fh:
            fh.write(f"# {self.path.name}, line {self.torn_line}\n".encode())
            fh.write(tail + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        with open(self.path, "r+b") as fh:
            fh.truncate(len(complete))
            fh.flush()
            os.fsync(fh.fileno())
        warnings.warn(
            f"{self.path}, line {self.torn_line}: torn last line from an interrupted run set aside in {sidecar}",
            stacklevel=3,
        )

    def append(self, records: Iterable[LogRecord]) -> int:
        """Write one episode's records in one go, flush and fsync; returns how many were written."""
        lines: list[str] = []
        for record in records:
            validate_record(record, f"{self.path}, record {len(lines) + 1} of this episode")
            lines.append(record_to_json(record))
        if not lines:
            return 0
        self._fh.write(("\n".join(lines) + "\n").encode("utf-8"))
        self._fh.flush()
        os.fsync(self._fh.fileno())
        return len(lines)

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- tables --------------------------------------------------------------------

FRAME_COLUMNS: tuple[str, ...] = LogRecord.field_names()


def records_to_frame(records: Sequence[LogRecord]) -> pd.DataFrame:
    """One row per record, one column per schema field (``cells``/``scores`` as lists, ``extra`` as dicts)."""
    rows = [r.to_dict() for r in records]
    return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))


def frame_to_records(frame: pd.DataFrame) -> list[LogRecord]:
    """Inverse of :func:`records_to_frame` (NaN → None for optional scalars)."""
    out = []
    for row in frame.to_dict(orient="records"):
        clean = {}
        for key, value in row.items():
            if isinstance(value, float) and value != value:
                value = None
            clean[key] = value
        for key in ("seed", "episode", "step"):
            if clean.get(key) is not None:
                clean[key] = int(clean[key])
        for key in ("cells", "scores"):
            if clean.get(key) is not None:
                clean[key] = list(clean[key])
        clean["timings"] = dict(clean.get("timings") or {})
        clean["extra"] = dict(clean.get("extra") or {})
        out.append(LogRecord(**clean))
    return out


def write_parquet(records: Sequence[LogRecord], path: str | os.PathLike) -> Path:
    """Records as a Parquet table; ``extra`` and ``timings`` as JSON text (their keys differ per kind)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    columns: dict[str, list] = {name: [] for name in FRAME_COLUMNS}
    for record in records:
        for name, value in record.to_dict().items():
            if name in ("extra", "timings"):
                value = json.dumps(value, sort_keys=True, ensure_ascii=False)
            columns[name].append(value)
    schema = pa.schema(
        [
            ("kind", pa.string()),
            ("run_id", pa.string()),
            ("agent_id", pa.string()),
            ("seed", pa.int64()),
            ("episode", pa.int64()),
            ("step", pa.int64()),
            ("word", pa.string()),
            ("category", pa.string()),
            ("cells", pa.list_(pa.string())),
            ("scores", pa.list_(pa.float64())),
            ("answer", pa.string()),
            ("raw_text", pa.string()),
            ("valid", pa.bool_()),
            ("timings", pa.string()),
            ("extra", pa.string()),
            ("created", pa.float64()),
            ("schema_version", pa.int64()),
        ]
    )
    table = pa.table({name: columns[name] for name in schema.names}, schema=schema)
    pq.write_table(table, path)
    return path


def read_parquet(path: str | os.PathLike) -> list[LogRecord]:
    """Records back from :func:`write_parquet` (validated like JSON Lines; errors name the row)."""
    import pyarrow.parquet as pq

    path = Path(path)
    table = pq.read_table(path)
    out = []
    for number, row in enumerate(table.to_pylist(), start=1):
        where = f"{path}, row {number}"
        for name in ("extra", "timings"):
            try:
                row[name] = json.loads(row[name]) if row.get(name) else {}
            except json.JSONDecodeError:
                raise ValueError(f"{where}, field {name}: not valid JSON") from None
        out.append(parse_line(json.dumps(row), where))
    return out


def load_logs(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> list[LogRecord]:
    """Records of one or more logs, JSON Lines (``.jsonl``/``.json``) or Parquet, in order."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    records: list[LogRecord] = []
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such log")
        if path.suffix == ".parquet":
            records.extend(read_parquet(path))
        else:
            records.extend(read_records(path).records)
    return records
