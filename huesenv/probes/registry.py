"""The probe registry: one entry per probe, read by ``run``, ``report``, ``export``, ``huesenv probe`` and Gymnasium.

A probe is one module with an object following :class:`Probe` (its trials,
stimuli, report tables, CLI arguments, env) plus one :func:`register_probe`
line below (or in a plugin / test).  Entries name the probe object and its env
by ``"module:attr"`` within this package and load them on first use, so
``import huesenv`` (which registers the Gymnasium ids from here) imports no
probe code.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

# what a reply can be asked for (huesenv.probes.trials.parse_reply reads each; the prompts ask for each)
REPLY_KINDS = ("option", "colour", "colours", "coverage", "threshold", "threshold+colour", "percent")


@runtime_checkable
class Probe(Protocol):
    """What a probe provides.  ``name`` is the task name (CLI subcommand, log file, ``ProbeTrial.task``)."""

    name: str
    title: str  # one line for ``huesenv probe --help``
    stimulus_columns: tuple[str, ...]  # manifest.csv header of ``export``
    reply_kinds: tuple[str, ...]  # the answer kinds its trials ask for (of REPLY_KINDS)

    def trials(self, *, seed: int, **kwargs: Any) -> list[Any]:
        """The seeded trial list (:class:`~huesenv.probes.trials.ProbeTrial`)."""
        ...

    def stimuli(self, *, seed: int, **kwargs: Any) -> list[Any]:
        """The seeded stimuli (objects with ``stimulus_id``, ``image()`` and ``ground_truth()``)."""
        ...

    def manifest_row(self, stimulus: Any, seed: int) -> dict[str, Any]:
        """Answer-key fields of one stimulus beyond its ``ground_truth()`` (e.g. the options shown)."""
        ...

    def report_tables(self, records: Any) -> dict[str, Any]:
        """Metric tables (name → DataFrame) of the probe's ``probe_trial`` records."""
        ...

    def figures(self, tables: Mapping[str, Any], out: Path) -> list[Path]:
        """Figures drawn from the tables into ``out`` (may be none)."""
        ...

    def add_arguments(self, parser: argparse.ArgumentParser, count: Callable[[str], int]) -> None:
        """The probe's own ``huesenv probe NAME`` options (the shared ones come from the command);
        ``count`` is the CLI's argument type for positive whole numbers (its error messages)."""
        ...

    def task_kwargs(self, args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
        """(trial kwargs, stimulus kwargs) from the parsed options."""
        ...


@dataclass(frozen=True)
class ProbeEntry:
    """A registered probe: the probe object (or ``"module:attr"``) and its Gymnasium id and env."""

    name: str
    probe: Probe | str
    env_id: str | None = None
    env_entry_point: str | Callable[..., Any] | None = None

    def load(self) -> Probe:
        obj: Any = self.probe
        if isinstance(obj, str):
            module, _, attr = obj.partition(":")
            obj = getattr(importlib.import_module(module), attr)
        if not isinstance(obj, Probe) or obj.name != self.name:
            raise TypeError(f"probe {self.name!r}: {self.probe!r} is not a Probe named {self.name!r}")
        unknown = sorted(set(obj.reply_kinds) - set(REPLY_KINDS))
        if unknown:
            raise ValueError(f"probe {self.name!r}: reply kinds {unknown} are not among {REPLY_KINDS}")
        return obj


_PROBES: dict[str, ProbeEntry] = {}


def register_probe(
    name: str,
    probe: Probe | str,
    *,
    env_id: str | None = None,
    env_entry_point: str | Callable[..., Any] | None = None,
) -> None:
    """Register a probe (``probe``: the object or ``"module:attr"``); its env id goes to Gymnasium on
    :func:`register_probe_envs`.  A name registers once."""
    if not name or not name.replace("-", "_").isidentifier():
        raise ValueError(f"probe name {name!r}: expected a short identifier")
    if name in _PROBES:
        raise ValueError(f"probe {name!r} is already registered")
    if (env_id is None) != (env_entry_point is None):
        raise ValueError(f"probe {name!r}: env_id and env_entry_point go together")
    _PROBES[name] = ProbeEntry(name, probe, env_id, env_entry_point)


def probe_names() -> tuple[str, ...]:
    """Every registered probe name, in registration order."""
    return tuple(_PROBES)


def get_probe(name: str) -> Probe:
    """The probe called ``name`` (``ValueError`` naming the registered ones otherwise)."""
    if name not in _PROBES:
        raise ValueError(f"task: {name!r} is not one of {probe_names()}")
    return _PROBES[name].load()


def probe_env_ids() -> dict[str, str | Callable[..., Any]]:
    """Gymnasium id → entry point of every registered probe with an env."""
    return {e.env_id: e.env_entry_point for e in _PROBES.values() if e.env_id and e.env_entry_point}


def register_probe_envs() -> None:
    """Register the probes' Gymnasium ids; calling it again is a no-op."""
    from gymnasium.envs.registration import register, registry

    for env_id, entry_point in probe_env_ids().items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point)


# -- the built-in probes: one line each --------------------------------------------------------
register_probe(
    "gca",
    "huesenv.probes.gca.probe:GCA",
    env_id="huesenv/GCA-v0",
    env_entry_point="huesenv.probes.gca.env:GCAEnv",
)
register_probe(
    "interference",
    "huesenv.probes.interference.probe:INTERFERENCE",
    env_id="huesenv/TextInterference-v0",
    env_entry_point="huesenv.probes.interference.env:TextInterferenceEnv",
)

__all__ = [
    "REPLY_KINDS",
    "Probe",
    "ProbeEntry",
    "get_probe",
    "probe_env_ids",
    "probe_names",
    "register_probe",
    "register_probe_envs",
]
