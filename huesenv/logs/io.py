"""Reading and writing episode logs: JSON Lines while running, Parquet for analysis.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.logs.io``.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from huesenv.logs.schema import APPENDABLE_VERSIONS, LogError, LogRecord, validate_record
from huesenv.secrets import mask, mask_text


@dataclass(frozen=True)
class ReadResult:
    """Records of a log, and the torn last line that was set aside (1-based line number), if any."""

    records: list[LogRecord]
    torn_line: int | None = None
    torn_text: str | None = None
    versions: frozenset[int] = frozenset()  # schema versions the lines were written with


def record_to_json(record: LogRecord) -> str:
    """One record as one JSON line (keys sorted, so equal records give equal bytes)."""
    return json.dumps(record._view(), sort_keys=True, ensure_ascii=False, allow_nan=False)


def _parse(text: str, where: str) -> tuple[LogRecord, int]:
    """(record, the schema version the line was written with)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise LogError(where, "<json>", f"not valid JSON ({err.msg} at column {err.colno})") from None
    except RecursionError:
        raise LogError(where, "<json>", "nested too deeply to be a log record") from None
    record = LogRecord.from_dict(data, where)
    return record, data["schema_version"]


def _last_line(path: Path, chunk: int = 1 << 16) -> tuple[int, bytes]:
    """(offset after the last newline, the bytes after it), reading the file backwards in chunks."""
    with open(path, "rb") as fh:
        end = fh.seek(0, os.SEEK_END)
        pos = end
        tail = b""
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            block = fh.read(pos - start)
            newline = block.rfind(b"\n")
            if newline >= 0:
                return start + newline + 1, block[newline + 1 :] + tail
            tail = block + tail
            pos = start
        return 0, tail


def _count_lines(path: Path, limit: int) -> int:
    count = 0
    with open(path, "rb") as fh:
        while fh.tell() < limit:
            block = fh.read(min(1 << 20, limit - fh.tell()))
            if not block:
                break
            count += block.count(b"\n")
    return count


def iter_records(path: str | os.PathLike, torn: list[tuple[int, str]] | None = None) -> Iterator[LogRecord]:
    """The records of a JSON Lines log one at a time (memory flat in the file size).

    A torn last line is skipped and, when ``torn`` is a list, appended to it as
    ``(line number, text)``; anything else malformed raises :class:`LogError`.
    """
    for record, _version in _iter_lines(Path(path), torn):
        yield record


def _iter_lines(path: Path, torn: list[tuple[int, str]] | None) -> Iterator[tuple[LogRecord, int]]:
    if path.is_dir():
        raise LogError(str(path), "<file>", "expected a log file (.jsonl), got a directory")
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            where = f"{path}, line {number}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                if raw.endswith(b"\n"):
                    raise LogError(where, "<bytes>", "not UTF-8 text (is this a JSON Lines log?)") from None
                line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            if not raw.endswith(b"\n"):  # the last line: a whole record lacking its newline, or torn
                try:
                    json.loads(line)
                except (json.JSONDecodeError, RecursionError):
                    if torn is not None:
                        torn.append((number, line))
                    return
            yield _parse(line, where)


def read_records(path: str | os.PathLike) -> ReadResult:
    """All records of a JSON Lines log; a torn last line is skipped and reported, anything else malformed
    raises :class:`LogError` naming the line."""
    path = Path(path)
    torn: list[tuple[int, str]] = []
    records: list[LogRecord] = []
    versions: set[int] = set()
    for record, version in _iter_lines(path, torn):
        records.append(record)
        versions.add(version)
    torn_line, torn_text = torn[0] if torn else (None, None)
    if torn_line is not None:
        warnings.warn(
            f"{path}, line {torn_line}: torn last line ignored ({len(torn_text or '')} characters)",
            stacklevel=2,
        )
    return ReadResult(records=records, torn_line=torn_line, torn_text=torn_text, versions=frozenset(versions))


@dataclass(frozen=True)
class PartialBlock:
    """A unit block cut short (a kill or a full disk mid-append): its unit key, records found, records promised."""

    unit: str
    found: int
    size: int | None
    first_record: int  # 1-based position of its first record among the log's records

    def describe(self) -> str:
        return f"{self.unit} ({self.found} of {self.size} records from record {self.first_record})"


@dataclass
class BlockSplit:
    """A log's records split into unit blocks (see :mod:`huesenv.logs.units`)."""

    kept: list[LogRecord]  # untagged records and complete blocks, in log order (duplicates included)
    units: dict[str, list[LogRecord]]  # unit key -> its first complete block
    partial: list[PartialBlock]
    duplicate_blocks: int = 0


def split_blocks(records: Sequence[LogRecord]) -> BlockSplit:
    """Group records into unit blocks: a unit is complete only as a contiguous block of exactly
    ``unit_size`` records with positions 0..n-1; untagged records are kept as they are."""
    split = BlockSplit(kept=[], units={}, partial=[])
    block: list[LogRecord] = []
    key: str | None = None
    start = 0

    def close_block() -> None:
        if not block:
            return
        if key is None:
            split.kept.extend(block)
            return
        size = block[0].unit_size
        if size != len(block) or [r.unit_pos for r in block] != list(range(len(block))):
            split.partial.append(PartialBlock(key, len(block), size, start + 1))
            return
        split.kept.extend(block)
        if key in split.units:
            split.duplicate_blocks += 1
        else:
            split.units[key] = list(block)

    for index, rec in enumerate(records):
        rkey = rec.unit
        if (
            rkey != key
            or rec.unit_pos == 0
            or (block and key is not None and len(block) == block[0].unit_size)
        ):
            close_block()
            block, key, start = [], rkey, index
        block.append(rec)
    close_block()
    return split


def check_appendable(path: str | os.PathLike) -> int:
    """Refuse to append to a log that is corrupt or was written by another schema version.

    Returns how many records the log holds (0 when there is none yet); reads it
    line by line.  Why: appending current-version records after lines this
    huesenv cannot read, or after an older version's, would make one file that
    no reader handles as a whole.
    """
    path = Path(path)
    if not path.exists():
        return 0
    if not path.is_file():
        raise LogError(str(path), "<file>", "expected a log file, got a directory or special file")
    count = 0
    for _record, version in _iter_lines(path, []):
        if version not in APPENDABLE_VERSIONS:
            raise LogError(
                f"{path}, line {count + 1}",
                "schema_version",
                f"the log holds version {version} records; expected version "
                f"{' or '.join(map(str, APPENDABLE_VERSIONS))} to append to it (write to a new log)",
            )
        count += 1
    return count


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
        cut, tail = _last_line(self.path)
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
        self.torn_line = _count_lines(self.path, cut) + 1
        self.torn_text = text
        sidecar = self.path.with_name(self.path.name + ".torn")
        with open(sidecar, "ab") as fh:
            fh.write(f"# {self.path.name}, line {self.torn_line}\n".encode())
            fh.write(tail + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        with open(self.path, "r+b") as fh:
            fh.truncate(cut)
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
        self._fh.write(mask_text("\n".join(lines) + "\n").encode("utf-8"))  # secrets never reach a log
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
        out.append(LogRecord.create(**clean))
    return out


def _parquet_schema() -> Any:  # a pyarrow.Schema (pyarrow loads here only)
    import pyarrow as pa

    return pa.schema(
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


class ParquetRecordWriter:
    """Records into a Parquet table in row groups of ``batch`` (``extra``/``timings`` as JSON text).

    Written to ``<path>.part`` and renamed on a clean close, so a failed write
    never leaves a half table under the real name.
    """

    def __init__(self, path: str | os.PathLike, batch: int = 256) -> None:
        import pyarrow.parquet as pq

        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._part = self.path.with_name(self.path.name + ".part")
        self._schema = _parquet_schema()
        self._writer = pq.ParquetWriter(self._part, self._schema)
        self._batch = batch
        self._rows: list[LogRecord] = []
        self.count = 0

    def write(self, record: LogRecord) -> None:
        validate_record(record, f"{self.path}, record {self.count + 1}")
        self._rows.append(record)
        self.count += 1
        if len(self._rows) >= self._batch:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if not self._rows:
            return
        columns: dict[str, list] = {name: [] for name in self._schema.names}
        for record in self._rows:
            for name, value in mask(record._view(), by_key=False).items():  # secrets never reach a log
                if name in ("extra", "timings"):
                    value = json.dumps(value, sort_keys=True, ensure_ascii=False)
                columns[name].append(value)
        self._writer.write_table(pa.table(columns, schema=self._schema))
        self._rows = []

    def close(self, ok: bool = True) -> None:
        if ok:
            self._flush()
        self._writer.close()
        if ok:
            os.replace(self._part, self.path)
        else:
            self._part.unlink(missing_ok=True)

    def __enter__(self) -> ParquetRecordWriter:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(ok=exc_type is None)


def write_parquet(records: Iterable[LogRecord], path: str | os.PathLike) -> Path:
    """Records as a Parquet table; ``extra`` and ``timings`` as JSON text (their keys differ per kind)."""
    with ParquetRecordWriter(path) as writer:
        for record in records:
            writer.write(record)
    return Path(path)


def read_parquet(path: str | os.PathLike) -> list[LogRecord]:
    """Records back from :func:`write_parquet` (validated like JSON Lines; errors name the row)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as err:
        raise LogError(str(path), "<file>", f"not a readable Parquet log ({err})") from None
    out = []
    for number, row in enumerate(table.to_pylist(), start=1):
        where = f"{path}, row {number}"
        for name in ("extra", "timings"):
            try:
                row[name] = json.loads(row[name]) if row.get(name) else {}
            except json.JSONDecodeError:
                raise LogError(where, name, "not valid JSON") from None
        out.append(LogRecord.from_dict(row, where))
    return out


def load_logs(
    paths: str | os.PathLike | Iterable[str | os.PathLike],
    *,
    complete_blocks: bool = False,
    interrupted: list[tuple[Path, PartialBlock]] | None = None,
) -> list[LogRecord]:
    """Records of one or more logs, JSON Lines (``.jsonl``/``.json``) or Parquet, in order.

    With ``complete_blocks`` a unit block that an interrupted run cut short (fewer records than its
    ``unit_size``) is dropped, as resume drops it, so an export or a count never includes half a game;
    each dropped block is appended to ``interrupted`` as ``(path, block)`` when given, else warned about.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    records: list[LogRecord] = []
    for path in paths:
        if not complete_blocks:
            records.extend(_load_one(Path(path)))
            continue
        split = split_blocks(_load_one(Path(path)))
        records.extend(split.kept)
        for block in split.partial:
            if interrupted is not None:
                interrupted.append((Path(path), block))
            else:
                warnings.warn(f"{path}: interrupted block {block.describe()} dropped", stacklevel=2)
    return records


def _load_one(path: Path) -> list[LogRecord]:
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such log")
    if not path.is_file():
        raise LogError(str(path), "<file>", "expected a log file (.jsonl or .parquet), got a directory")
    if path.suffix == ".parquet":
        return read_parquet(path)
    return read_records(path).records
