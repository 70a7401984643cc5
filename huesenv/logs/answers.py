"""External answer tables → the log of a "sampled" agent, so published VLM answers can be scored.

A table has one row per word: ``Palabra`` (the word, any spelling that
:func:`huesenv.vocabulary.normalise_word` maps onto the vocabulary) and
``Answer1..AnswerN``, each a board coordinate.  Each row becomes one
``word_query`` record with ``cells`` = the parseable answers in column order,
``scores`` None and ``extra["sampled"] = True``.  Answers that are not a board
coordinate are never dropped: they are kept in ``extra["invalid_answers"]``
(``[{"column": ..., "text": ...}]``) and counted as invalid by the metrics; a
row where no answer parses is a record with ``valid = False`` and the row's
answers joined in ``raw_text``.  An empty cell counts as an invalid (missing)
answer too, since the table promised N answers for every word.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from huesenv.board import format_coord, parse_coord
from huesenv.logs.schema import LogRecord
from huesenv.vocabulary import category_of, normalise_word

_ANSWER_RE = re.compile(r"^Answer(\d+)$")


def import_answers(
    path: str | os.PathLike, agent: str, run_id: str | None = None, seed: int | None = None
) -> list[LogRecord]:
    """Read an answer table (``Palabra, Answer1..AnswerN``) into sampled ``word_query`` records."""
    path = Path(path)
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    if "Palabra" not in table.columns:
        raise ValueError(
            f"{path}, line 1, field Palabra: missing column (expected header Palabra,Answer1..AnswerN)"
        )
    numbers = {c: int(m.group(1)) for c in table.columns if (m := _ANSWER_RE.match(c))}
    answer_cols = sorted(numbers, key=numbers.__getitem__)
    if not answer_cols:
        raise ValueError(
            f"{path}, line 1, field Answer1: no Answer<N> columns (expected header Palabra,Answer1..AnswerN)"
        )
    run_id = run_id or f"import:{path.stem}"
    records: list[LogRecord] = []
    for line, row in enumerate(table.to_dict(orient="records"), start=2):
        raw_word = row["Palabra"]
        try:
            word = normalise_word(raw_word)
            category = category_of(word)
        except ValueError as err:
            raise ValueError(f"{path}, line {line}, field Palabra: {err}") from None
        cells, invalid = [], []
        for col in answer_cols:
            text = row[col]
            try:
                cells.append(format_coord(parse_coord(text)))
            except ValueError:
                invalid.append({"column": col, "text": text})
        extra = {"sampled": True, "source": str(path), "source_line": line, "n_answers": len(answer_cols)}
        if invalid:
            extra["invalid_answers"] = invalid
        valid = bool(cells)
        records.append(
            LogRecord(
                kind="word_query",
                run_id=run_id,
                agent_id=agent,
                seed=seed,
                episode=len(records),
                word=word,
                category=category,
                cells=cells if valid else None,
                scores=None,
                answer=cells[0] if valid else None,
                raw_text=None if valid else " | ".join(row[c] for c in answer_cols),
                valid=valid,
                extra=extra,
                created=0.0,  # imported, not timed: keeps the import byte-for-byte reproducible
            )
        )
    return records
