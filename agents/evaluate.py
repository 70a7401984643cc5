"""The paper's word-level task: each of the 116 inputs → the agent's top-k cells, as ``word_query`` records.

Every input becomes a :class:`GuessQuery` with one cue and every cell legal; the
queries go through ``act_batch`` in batches (``batch_size=None``: one batch), so
model agents encode all texts at once.  Ranking agents give ``cells`` (coords,
best first) with ``scores``; sampling agents (``Answer.info["sampled"]``, e.g. the
human replay) give their sampled answers in order with ``scores`` None and
``extra["sampled"] = True``.  Invalid answers are kept with ``valid=False`` and
their raw text.  ``timings`` holds the agent's own timings plus ``batch_s`` (wall
time of the batch the query was in) and ``per_query_s`` (that divided by the batch size).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from huesenv.agents.protocol import Agent, Answer, GuessQuery
from huesenv.board import format_coord
from huesenv.logs.schema import LogRecord
from huesenv.vocabulary import Word, evaluation_inputs


def _record(
    agent: Agent,
    word: Word,
    answer: Answer,
    *,
    step: int,
    run_id: str,
    seed: int | None,
    top_k: int,
    timings: dict[str, float],
) -> LogRecord:
    cells = None if answer.cells is None else [format_coord(int(c)) for c in answer.cells]
    sampled = bool(answer.info.get("sampled", False))
    scores = None if (answer.scores is None or sampled) else [float(s) for s in answer.scores]
    extra: dict[str, str | int | float | bool] = {"top_k": top_k, "sampled": sampled}
    extra.update(
        {k: v for k, v in answer.info.items() if k != "sampled" and isinstance(v, (str, int, float, bool))}
    )
    return LogRecord.create(
        kind="word_query",
        run_id=run_id,
        agent_id=agent.agent_id,
        seed=seed,
        step=step,
        word=word.text,
        category=word.category,
        cells=cells,
        scores=scores,
        answer=cells[0] if cells else None,
        raw_text=answer.raw_text,
        valid=bool(answer.valid and cells),
        timings={**answer.timings, **timings},
        extra=extra,
    )


def evaluate_words(
    agent: Agent,
    inputs: Iterable[Word] | None = None,
    top_k: int = 5,
    run_id: str = "words",
    seed: int | None = None,
    batch_size: int | None = None,
) -> list[LogRecord]:
    """Ask ``agent`` for the top-``top_k`` cells of every input (default: the 100 words + 16 nonsense inputs).

    ``seed`` (when given) resets the agent first, so sampling agents repeat byte for byte.
    """
    words: Sequence[Word] = tuple(evaluation_inputs() if inputs is None else inputs)
    if top_k < 1:
        raise ValueError(f"top_k {top_k!r}: expected a positive integer")
    if seed is not None:
        agent.reset(seed)
    size = len(words) if not batch_size else int(batch_size)
    records: list[LogRecord] = []
    for start in range(0, len(words), max(size, 1)):
        chunk = words[start : start + size]
        queries = [GuessQuery(cues=(w.text,), top_k=top_k) for w in chunk]
        t0 = time.perf_counter()
        answers = agent.act_batch(queries)
        elapsed = time.perf_counter() - t0
        if len(answers) != len(queries):
            raise ValueError(
                f"agent {agent.agent_id!r}: act_batch returned {len(answers)} answers for {len(queries)} queries"
            )
        for i, (word, answer) in enumerate(zip(chunk, answers)):
            records.append(
                _record(
                    agent,
                    word,
                    answer,
                    step=start + i,
                    run_id=run_id,
                    seed=seed,
                    top_k=top_k,
                    timings={"batch_s": elapsed, "per_query_s": elapsed / len(chunk)},
                )
            )
    return records
