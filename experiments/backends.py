"""Where independent units run: in this process (default) or on Ray workers.

A *unit* is a batch of games or one agent's word-level evaluation; units never
share state, so a backend only has to run them and hand back ``(index,
result)`` pairs in whatever order they finish.  The runner writes them to the
log in plan order, which is why the backends' logs are identical.

Ray runs one :class:`UnitWorker` actor per worker so that a model agent is
loaded once per worker, not once per unit; with GPUs in the cluster, a worker
that runs model agents asks for one GPU.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from huesenv.experiments.callables import resolve_callable
from huesenv.experiments.config import ExperimentConfig
from huesenv.experiments.tournament import GamePlayer, play_batch
from huesenv.experiments.wordlevel import run_wordlevel_unit


@dataclass(frozen=True)
class Task:
    """One unit of work: ``kind`` is ``"games"`` (payload: list of GameUnit) or ``"wordlevel"`` (agent name)."""

    index: int
    kind: str
    payload: Any


def _resolve(config: ExperimentConfig, kind: str) -> Any:
    """The configured ``tournament.<kind>`` callable, or ``None`` for the default (see experiments.callables)."""
    return resolve_callable(
        kind, config["tournament"].get(kind), allow_code=bool(config.data.get("allow_code"))
    )


class UnitWorker:
    """Runs tasks of one experiment; keeps the agents it built for the next task."""

    def __init__(self, config_data: dict[str, Any], source: str = "<worker>") -> None:
        self.config = ExperimentConfig(config_data, source=source)
        self._player: GamePlayer | None = None

    @property
    def player(self):
        if self._player is None:
            self._player = GamePlayer(
                self.config,
                agent_factory=_resolve(self.config, "agent_factory"),
                play_fn=_resolve(self.config, "play_fn"),
            )
        return self._player

    def run(self, task: Task) -> tuple[int, Any]:
        if task.kind == "games":
            return task.index, play_batch(self.player, task.payload)
        if task.kind == "wordlevel":
            factory = _resolve(self.config, "agent_factory")
            return task.index, run_wordlevel_unit(self.config, task.payload, agent_factory=factory)
        raise ValueError(f"task {task.index}: unknown kind {task.kind!r}")


class InProcessBackend:
    """Runs every task here, one after the other (the default; no extra dependency)."""

    name = "inprocess"

    def __init__(self) -> None:
        self._workers: dict[str, UnitWorker] = {}

    def run(
        self, config: ExperimentConfig, tasks: Sequence[Task], gpu: bool = False
    ) -> Iterator[tuple[int, Any]]:
        key = config.fingerprint()
        if key not in self._workers:
            self._workers[key] = UnitWorker(config.data, config.source)
        worker = self._workers[key]
        for task in tasks:
            yield worker.run(task)

    def describe(self) -> str:
        return "in-process"

    def close(self) -> None:
        self._workers.clear()


class RayBackend:
    """Runs tasks on Ray actors: an existing cluster (``address``) or a local one started here.

    ``num_workers`` defaults to the cluster's CPUs (GPUs for model agents when
    the cluster has them).  A local Ray started here is shut down by :meth:`close`.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        num_cpus: int | None = None,
        num_workers: int | None = None,
        runtime_env: dict[str, Any] | None = None,
    ) -> None:
        try:
            import ray
        except ImportError as err:  # pragma: no cover - the ray extra is missing
            raise ValueError(
                "backend ray: the 'ray' package is not installed (pip install 'huesenv[ray]')"
            ) from err
        self._ray = ray
        self._started_here = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "configure_logging": False,
            }
            if address:
                kwargs["address"] = address
            elif num_cpus:
                kwargs["num_cpus"] = int(num_cpus)
            if runtime_env:
                kwargs["runtime_env"] = runtime_env
            ray.init(**kwargs)
            self._started_here = True
        self.num_workers = num_workers
        self.address = address

    def _resources(self) -> tuple[int, int]:
        res = self._ray.cluster_resources()
        return int(res.get("CPU", 1)), int(res.get("GPU", 0))

    def describe(self) -> str:
        cpus, gpus = self._resources()
        where = self.address or "local"
        return f"ray ({where}: {cpus} CPU, {gpus} GPU)"

    def run(
        self, config: ExperimentConfig, tasks: Sequence[Task], gpu: bool = False
    ) -> Iterator[tuple[int, Any]]:
        ray = self._ray
        if not tasks:
            return
        cpus, gpus = self._resources()
        use_gpu = bool(gpu and gpus > 0)
        limit = gpus if use_gpu else cpus
        n = max(1, min(len(tasks), self.num_workers or limit, limit))
        actor_cls = ray.remote(UnitWorker).options(num_cpus=1, num_gpus=1 if use_gpu else 0)
        actors = [actor_cls.remote(config.data, config.source) for _ in range(n)]
        pending: dict[Any, Any] = {}
        queue = list(tasks)
        try:
            for actor in actors:
                if queue:
                    pending[actor.run.remote(queue.pop(0))] = actor
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                ref = done[0]
                actor = pending.pop(ref)
                result = ray.get(ref)
                if queue:
                    pending[actor.run.remote(queue.pop(0))] = actor
                yield result
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
            for actor in actors:
                ray.kill(actor)

    def close(self) -> None:
        if self._started_here and self._ray.is_initialized():
            self._ray.shutdown()


def make_backend(
    name: str = "inprocess",
    address: str | None = None,
    num_cpus: int | None = None,
    num_workers: int | None = None,
) -> InProcessBackend | RayBackend:
    if name == "inprocess":
        return InProcessBackend()
    if name == "ray":
        env = {"env_vars": {"OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}}
        for key in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HOME", "HF_HUB_CACHE", "HUESENV_CACHE"):
            if os.environ.get(key):  # workers see the same weights and the same no-download rule
                env["env_vars"][key] = os.environ[key]
        return RayBackend(address=address, num_cpus=num_cpus, num_workers=num_workers, runtime_env=env)
    raise ValueError(f"backend {name!r}: expected 'inprocess' or 'ray'")
