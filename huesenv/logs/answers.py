"""External answer tables → the log of a "sampled" agent, so published VLM answers can be scored.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.logs.answers``.
"""

from __future__ import annotations

import csv
import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from huesenv.board import N_CELLS, format_coord, parse_coord
from huesenv.logs.io import LogWriter, ParquetRecordWriter, check_appendable, iter_records
from huesenv.logs.schema import LogError, LogRecord, WordQuery
from huesenv.vocabulary import category_of, normalise_word

_ANSWER_RE = re.compile(r"^Answer(\d+)$")
_CANONICAL: frozenset[str] = frozenset(format_coord(i) for i in range(N_CELLS))
FLUSH_EVERY = 64  # records per LogWriter.append (one fsync each)
MAX_ANSWER_TABLE_BYTES = 64 << 20  # the published tables are under 1 MB


@dataclass
class ImportSummary:
    """What an import wrote: words (records), answers, invalid answers, and lines already in the log."""

    words: int = 0
    answers: int = 0
    invalid: int = 0
    skipped: int = 0


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_size(path: Path, size: int) -> None:
    """Refuse a table over the cap before it is hashed and parsed (both stream, but time is bounded too)."""
    if size > MAX_ANSWER_TABLE_BYTES:
        raise LogError(
            str(path),
            "<file>",
            f"more than the {MAX_ANSWER_TABLE_BYTES:,} bytes allowed for an answer table; refused",
        )


def _where(path: Path, line: int, field: str) -> tuple[str, str]:
    return f"{path}, line {line}", field


def iter_answer_records(
    path: str | os.PathLike,
    agent: str,
    run_id: str | None = None,
    seed: int | None = None,
    *,
    sha256: str | None = None,
) -> Iterator[WordQuery]:
    """The table's records one at a time (see the module docstring); errors are :class:`LogError`."""
    path = Path(path)
    if not path.is_file():
        raise LogError(str(path), "<file>", "expected an answer table (.csv), got " + _what(path))
    _check_size(path, path.stat().st_size)
    sha256 = sha256 or file_sha256(path)
    run_id = _run_id(path, run_id)
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader, None)
            if header is None:
                raise LogError(
                    *_where(path, 1, "Palabra"), "empty file (expected header Palabra,Answer1..AnswerN)"
                )
            if "Palabra" not in header:
                raise LogError(
                    *_where(path, 1, "Palabra"), "missing column (expected header Palabra,Answer1..AnswerN)"
                )
            seen: set[str] = set()
            for name in header:
                if name in seen and (name == "Palabra" or _ANSWER_RE.match(name)):
                    raise LogError(*_where(path, 1, name), "column given twice (expected each column once)")
                seen.add(name)
            word_col = header.index("Palabra")
            answer_cols = sorted(
                (
                    (int(m.group(1)), i, name)
                    for i, name in enumerate(header)
                    if (m := _ANSWER_RE.match(name))
                ),
            )
            if not answer_cols:
                raise LogError(
                    *_where(path, 1, "Answer1"),
                    "no Answer<N> columns (expected header Palabra,Answer1..AnswerN)",
                )
            episode = 0
            for row in reader:
                line = reader.line_num
                if not row:
                    continue  # a blank line holds no word
                if len(row) > len(header):
                    raise LogError(
                        *_where(path, line, "<row>"), f"{len(row)} fields but the header has {len(header)}"
                    )
                row = row + [""] * (len(header) - len(row))
                yield _record(path, line, row, word_col, answer_cols, agent, run_id, seed, episode, sha256)
                episode += 1
        except csv.Error as err:
            raise LogError(*_where(path, reader.line_num, "<row>"), f"not a CSV table ({err})") from None
        except UnicodeDecodeError:
            raise LogError(str(path), "<bytes>", "not UTF-8 text (expected a CSV answer table)") from None


def _run_id(path: Path, run_id: str | None) -> str:
    """The run id recorded for a table: the one given, else ``import:<file stem>``."""
    return run_id or f"import:{path.stem}"


def _what(path: Path) -> str:
    if not path.exists():
        return "no such file"
    return "a directory" if path.is_dir() else "a special file"


def _record(
    path: Path,
    line: int,
    row: list[str],
    word_col: int,
    answer_cols: list[tuple[int, int, str]],
    agent: str,
    run_id: str,
    seed: int | None,
    episode: int,
    sha256: str,
) -> WordQuery:
    try:
        word = normalise_word(row[word_col])
        category = category_of(word)
    except ValueError as err:
        raise LogError(*_where(path, line, "Palabra"), str(err)) from None
    cells, invalid = [], []
    for _, index, name in answer_cols:
        text = row[index]
        if text in _CANONICAL:  # the usual spelling ("I18"): no parsing needed
            cells.append(text)
            continue
        try:
            cells.append(format_coord(parse_coord(text)))
        except ValueError:
            invalid.append({"column": name, "text": text})
    valid = bool(cells)
    record = WordQuery(
        kind="word_query",
        run_id=run_id,
        agent_id=agent,
        seed=seed,
        episode=episode,
        word=word,
        category=category,
        cells=cells if valid else None,
        scores=None,
        answer=cells[0] if valid else None,
        raw_text=None if valid else " | ".join(row[i] for _, i, _ in answer_cols),
        valid=valid,
        sampled=True,
        source=str(path),
        source_line=line,
        source_sha256=sha256,
        n_answers=len(answer_cols),
        created=0.0,  # imported, not timed: keeps the import byte-for-byte reproducible
    )
    if invalid:
        record.invalid_answers = invalid  # set only when there are some (absent from the line otherwise)
    return record


def import_answers(
    path: str | os.PathLike, agent: str, run_id: str | None = None, seed: int | None = None
) -> list[LogRecord]:
    """Read an answer table (``Palabra, Answer1..AnswerN``) into sampled ``word_query`` records (in memory)."""
    return list(iter_answer_records(path, agent, run_id=run_id, seed=seed))


def _record_key(record: LogRecord) -> tuple | None:
    sha = record.extra.get("source_sha256")
    if sha is None:
        return None
    return (record.run_id, record.agent_id, sha, record.extra.get("source_line"))


def write_answers(
    path: str | os.PathLike,
    out: str | os.PathLike,
    agent: str,
    run_id: str | None = None,
    seed: int | None = None,
) -> ImportSummary:
    """Stream a table into ``out``: appended to a JSON Lines log (idempotently), or a new Parquet file."""
    path, out = Path(path), Path(out)
    if not path.is_file():
        raise LogError(str(path), "<file>", "expected an answer table (.csv), got " + _what(path))
    if out.exists() and not out.is_file():
        raise LogError(str(out), "<file>", "expected a log file to write, got a directory")
    if out.resolve() == path.resolve():
        raise LogError(str(out), "<file>", "the output is the input table; give another -o")
    summary = ImportSummary()
    sha = file_sha256(path)
    for _record_checked in iter_answer_records(path, agent, run_id=run_id, seed=seed, sha256=sha):
        pass  # the whole table is valid before a line is written (see "Checked before writing")
    records = iter_answer_records(path, agent, run_id=run_id, seed=seed, sha256=sha)
    if out.suffix == ".parquet":
        with ParquetRecordWriter(out) as writer:
            for record in records:
                writer.write(record)
                _count(summary, record)
        return summary
    check_appendable(out)  # corrupt or other-version logs are refused before anything is written
    done = (
        {key for rec in iter_records(out) if (key := _record_key(rec)) is not None} if out.exists() else set()
    )
    run_id = _run_id(path, run_id)
    other = sorted({key[2] for key in done if key[:2] == (run_id, agent) and key[2] != sha})
    if other:
        raise LogError(
            str(out),
            "agent_id",
            f"already holds {agent!r} answers of run {run_id!r} from another table (sha256 {other[0][:12]}...); "
            "expected a new --run-id or --agent for a different table",
        )
    with LogWriter(out) as writer:
        batch: list[LogRecord] = []
        for record in records:
            if _record_key(record) in done:
                summary.skipped += 1
                continue
            batch.append(record)
            _count(summary, record)
            if len(batch) >= FLUSH_EVERY:
                writer.append(batch)
                batch = []
        writer.append(batch)
    return summary


def _count(summary: ImportSummary, record: LogRecord) -> None:
    summary.words += 1
    summary.answers += len(record.cells or [])
    summary.invalid += len(record.extra.get("invalid_answers") or [])
