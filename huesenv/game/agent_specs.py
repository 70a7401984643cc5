"""Agents by spec string for the lower layers: a name → ``"module:attr"`` registry, loaded with importlib.

Why strings: the game and env layers sit below :mod:`huesenv.agents` and must
not import it (not even inside a function), yet ``Guesser-v1(opponents="human-replay")``
must build agents.  The registry maps an agent *kind* (the part of a spec
before ``:``) to the import path of a factory called as ``factory(spec, **kwargs)``;
the built-in kinds point at :func:`huesenv.agents.registry.make_agent`, which
also serves the kinds that packages add through the ``huesenv.agents`` entry-point
group.  :func:`register_agent_kind` adds or redirects a kind in this process.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from huesenv.game.protocol import Agent

AGENTS_FACTORY = "huesenv.agents.registry:make_agent"

AGENT_KINDS: dict[str, str] = {
    "random": AGENTS_FACTORY,
    "human-replay": AGENTS_FACTORY,
    "text-embedding": AGENTS_FACTORY,
    "policy": AGENTS_FACTORY,
}


def register_agent_kind(kind: str, target: str) -> None:
    """Resolve specs of ``kind`` with the factory at ``target`` (``"package.module:function"``)."""
    if not kind or ":" in kind:
        raise ValueError(f"agent kind {kind!r}: expected a non-empty name without ':'")
    if target.count(":") != 1:
        raise ValueError(f"agent kind {kind!r}: target {target!r} is not 'module:attr'")
    AGENT_KINDS[kind] = target


def load_target(target: str) -> Callable[..., Any]:
    """The object a ``"module:attr"`` string names."""
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def resolve_agent(spec: str | Agent, **kwargs: Any) -> Agent:
    """An agent object as given, or the agent a spec string names (any kind the agents package knows)."""
    if not isinstance(spec, str):
        if not isinstance(spec, Agent):
            raise ValueError(f"agent: expected a spec string or an Agent, got {type(spec).__name__}")
        return spec
    kind = spec.strip().partition(":")[0]
    factory = load_target(AGENT_KINDS.get(kind, AGENTS_FACTORY))
    agent = factory(spec, **kwargs)
    if not isinstance(agent, Agent):
        raise ValueError(f"agent spec {spec!r}: factory returned {type(agent).__name__}, not an Agent")
    return agent
