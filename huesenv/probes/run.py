"""Batch evaluation: every trial of a probe through an agent's ``act_batch``, one record each.

Why batches: model agents amortise a forward pass over many images; the env is
for interactive and RL use, this is for benchmarks.  Same seed, same trials,
same order, so two runs of a deterministic agent give identical answers.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from huesenv.game.protocol import Answer
from huesenv.probes.registry import get_probe, probe_names
from huesenv.probes.trials import ProbeTrial, make_record, parse_reply

TASKS = probe_names()  # the built-in probes at import; probe_names() also lists those registered later


def build_trials(task: str, *, seed: int = 0, **kwargs: Any) -> list[ProbeTrial]:
    """The seeded trial list of a registered probe (kwargs: its :meth:`~huesenv.probes.registry.Probe.trials`,
    e.g. :func:`~huesenv.probes.gca.questions.gca_trials` plus ``data_dir`` for ``gca``)."""
    return get_probe(task).trials(seed=seed, **kwargs)


def subsample(trials: Sequence[ProbeTrial], limit: int | None, seed: int = 0) -> list[ProbeTrial]:
    """``limit`` trials drawn without replacement (seeded), kept in their original order."""
    if limit is None or limit >= len(trials):
        return list(trials)
    if limit < 0:
        raise ValueError(f"limit: {limit} is negative")
    idx = np.sort(
        np.random.default_rng([int(seed) & 0xFFFFFFFF, 7]).choice(len(trials), size=limit, replace=False)
    )
    return [trials[int(i)] for i in idx]


def default_run_id(task: str, seed: int, agent_id: str, **options: Any) -> str:
    """The run id of a probe run when none is given: a hash of (task, seed, agent id, options).

    Why not random: a run id goes into every record, so a random one would make
    two runs with the same seed write different logs.  ``options`` (``limit``,
    the trial-selection kwargs) are part of the hash so that different
    selections get different ids; ``batch_size`` and ``progress`` are not, as
    they do not change what is asked.
    """
    key = json.dumps(
        {"task": str(task), "seed": int(seed), "agent_id": str(agent_id), "options": options},
        sort_keys=True,
        default=str,
    )
    return f"probe-{task}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def agent_id_of(agent: Any) -> str:
    """The id an agent's records are logged under."""
    return str(getattr(agent, "agent_id", None) or getattr(agent, "name", "agent"))


def run_probe(
    agent: Any,
    task: str | Sequence[ProbeTrial],
    *,
    seed: int = 0,
    limit: int | None = None,
    batch_size: int = 16,
    run_id: str | None = None,
    on_record: Callable[[list], object] | None = None,
    progress: bool = False,
    **task_kwargs: Any,
) -> list:
    """Ask ``agent`` every trial of ``task`` (a task name or a trial list) through ``act_batch``.

    Returns the ``probe_trial`` records in trial order; ``on_record`` receives
    each batch's records as soon as they exist (e.g. ``LogWriter.append``).
    Without ``run_id`` the id is :func:`default_run_id` of (task, seed, agent
    id, limit, task kwargs), so two runs with the same seed write the same
    records apart from the wall-clock fields ``created`` and ``timings``.
    The agent's answer to a trial it cannot handle (``NotImplementedError``) is
    logged as invalid with the error text, never dropped.  Replies are parsed
    by the probe (:func:`~huesenv.probes.trials.parse_reply`) from the agent's
    raw text too, so an agent that only parses colours still gets its numbers
    read.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size: {batch_size} must be ≥ 1")
    trials = build_trials(task, seed=seed, **task_kwargs) if isinstance(task, str) else list(task)
    agent_id = agent_id_of(agent)
    if not run_id:
        if isinstance(task, str):
            run_id = default_run_id(task, seed, agent_id, limit=limit, **task_kwargs)
        else:  # a trial list: its trial ids stand in for the selection kwargs
            name = "+".join(sorted({t.task for t in trials})) or "empty"
            run_id = default_run_id(name, seed, agent_id, limit=limit, trial_ids=[t.trial_id for t in trials])
    trials = subsample(trials, limit, seed)
    if hasattr(agent, "reset"):
        agent.reset(seed)
    records: list = []
    iterator = range(0, len(trials), batch_size)
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, total=(len(trials) + batch_size - 1) // batch_size, unit="batch")
    for start in iterator:
        batch = trials[start : start + batch_size]
        queries = [t.query() for t in batch]
        t0 = time.perf_counter()
        try:
            answers = list(agent.act_batch(queries))
        except NotImplementedError as err:
            answers = [_invalid(str(err)) for _ in batch]
        elapsed = time.perf_counter() - t0
        if len(answers) != len(batch):
            raise ValueError(
                f"agent {agent_id}: act_batch returned {len(answers)} answers for {len(batch)} queries"
            )
        out = []
        for i, (trial, ans) in enumerate(zip(batch, answers)):
            parsed = parse_reply(trial, ans)
            timings = dict(getattr(ans, "timings", {}) or {})
            timings.setdefault("batch_s", elapsed / len(batch))
            out.append(
                make_record(
                    trial,
                    parsed,
                    agent_id=str(agent_id),
                    run_id=run_id,
                    seed=seed,
                    episode=start + i,
                    timings=timings,
                )
            )
        records += out
        if on_record is not None:
            on_record(out)
    return records


def _invalid(text: str) -> Answer:
    return Answer(valid=False, raw_text=text)


__all__ = ["TASKS", "agent_id_of", "build_trials", "default_run_id", "run_probe", "subsample"]
