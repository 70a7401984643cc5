"""Create agents by name: one registry for built-ins and for plugins (entry-point group ``huesenv.agents``).

A spec is ``"<kind>"`` or ``"<kind>:<argument>"``; the kind says what is loaded:

============================  =====================================================
``random``                    seeded uniform legal play
``human-replay``              answers sampled from the human cohort
``text-embedding``            offline MiniLM baseline over colour names
``clip:<model>/<pretrained>`` open_clip model + pretrained tag (or local checkpoint)
``clip:<model>-<pretrained>`` the paper's Table 5 spelling, split against open_clip
``clip:hf-hub:<org>/<name>``  an open_clip model on the Hugging Face hub
``vlm:<model id or path>``    transformers image-text-to-text model
``api-vlm:<model>``           OpenAI-compatible chat-completions endpoint
``policy:<path>``             a trained policy: huesenv torch checkpoint (.pt) or SB3 zip
``lookup:<export>``           per word, the most chosen cells of a human export
============================  =====================================================

**Plugins.** A package adds a kind by declaring an entry point in the group
``huesenv.agents`` whose name is the kind and whose object is a callable
returning an :class:`~huesenv.agents.protocol.Agent`; it is called as
``factory(argument, **kwargs)`` for ``"kind:argument"`` and ``factory(**kwargs)``
for a bare ``"kind"``.  Built-in kinds win over plugins of the same name (a
warning says so), so an installed package cannot silently replace them.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from importlib import metadata
from typing import Any

from huesenv.agents.protocol import Agent

ENTRY_POINT_GROUP = "huesenv.agents"

AgentFactory = Callable[..., Agent]

# The built-in factories import their agent module when called: one kind brings its own heavy
# dependencies (scipy through the human cohort, PIL, torch, ...) that the others must not pay.


def _random(arg: str | None = None, **kw: Any) -> Agent:
    from huesenv.agents.random_agent import RandomAgent

    if arg:
        kw.setdefault("seed", int(arg))
    return RandomAgent(**kw)


def _human_replay(arg: str | None = None, **kw: Any) -> Agent:
    from huesenv.agents.human_replay import HumanReplayAgent

    if arg:
        kw.setdefault("path", arg)
    return HumanReplayAgent(**kw)


def _text_embedding(arg: str | None = None, **kw: Any) -> Agent:
    from huesenv.agents.text_embedding import TextEmbeddingAgent

    if arg:
        kw.setdefault("model_path", arg)
    return TextEmbeddingAgent(**kw)


def _clip(arg: str | None = None, **kw: Any) -> Agent:
    from huesenv.agents.clip_agent import ClipAgent, parse_clip_spec

    if not arg:
        raise ValueError("agent spec 'clip' needs a model: 'clip:<model>/<pretrained>' or 'clip:hf-hub:<id>'")
    model, pretrained = parse_clip_spec(arg)
    return ClipAgent(model, pretrained, **kw)


def _vlm(arg: str | None = None, **kw: Any) -> Agent:
    from huesenv.agents.vlm import TransformersVLMAgent

    if not arg:
        raise ValueError("agent spec 'vlm' needs a model id or local path: 'vlm:<model>'")
    return TransformersVLMAgent(arg, **kw)


def _api_vlm(arg: str | None = None, **kw: Any) -> Agent:
    from huesenv.agents.api_vlm import ApiVLMAgent

    if not arg:
        raise ValueError("agent spec 'api-vlm' needs a model name: 'api-vlm:<model>'")
    return ApiVLMAgent(arg, **kw)


def _policy(arg: str | None = None, **kw: Any) -> Agent:
    from huesenv.agents.policy import PolicyAgent

    if not arg:
        raise ValueError("agent spec 'policy' needs a file: 'policy:<checkpoint.pt or model.zip>'")
    return PolicyAgent(arg, **kw)


def _lookup(arg: str | None = None, **kw: Any) -> Agent:
    from huesenv.agents.lookup import LookupAgent

    if not arg:
        raise ValueError("agent spec 'lookup' needs a human export: 'lookup:<answers.csv[.gz] | .parquet>'")
    return LookupAgent.from_export(arg, **kw)


BUILTIN: dict[str, tuple[AgentFactory, str]] = {
    "random": (_random, "seeded uniform choice among legal cells, cues and options"),
    "human-replay": (_human_replay, "samples the human cohort's answers (huesenv.humans)"),
    "text-embedding": (
        _text_embedding,
        "offline MiniLM similarity between the cue and each cell's colour names",
    ),
    "clip": (
        _clip,
        "open_clip model: clip:<model>/<pretrained> | clip:<model>-<pretrained> | clip:hf-hub:<id>",
    ),
    "vlm": (_vlm, "transformers image-text-to-text model: vlm:<model id or path>"),
    "api-vlm": (_api_vlm, "OpenAI-compatible chat-completions API: api-vlm:<model>"),
    "policy": (_policy, "trained policy (huesenv train): policy:<checkpoint.pt | model.zip>"),
    "lookup": (
        _lookup,
        "per word the most chosen cells of a human export (unseen cue: nearest word): lookup:<file>",
    ),
}

_EXTRA: dict[str, tuple[AgentFactory, str]] = {}


def register_agent(kind: str, factory: AgentFactory, description: str = "") -> None:
    """Register a kind in this process (tests, notebooks); packages should use the entry-point group."""
    if not kind or ":" in kind:
        raise ValueError(f"agent kind {kind!r}: expected a non-empty name without ':'")
    if kind in BUILTIN:
        raise ValueError(f"agent kind {kind!r} is built in and cannot be replaced")
    _EXTRA[kind] = (factory, description)


def _entry_points() -> dict[str, metadata.EntryPoint]:
    found: dict[str, metadata.EntryPoint] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in BUILTIN:
            warnings.warn(
                f"entry point {ep.value!r} for agent kind {ep.name!r} ignored: the kind is built in",
                stacklevel=3,
            )
            continue
        found.setdefault(ep.name, ep)
    return found


def available_agents() -> list[str]:
    """Every agent kind that :func:`make_agent` accepts: built-ins, registered and installed plugins."""
    return sorted(set(BUILTIN) | set(_EXTRA) | set(_entry_points()))


def describe_agents() -> dict[str, str]:
    """Kind → one-line description (plugins: their entry-point target)."""
    out = {k: d for k, (_, d) in BUILTIN.items()}
    out.update({k: d or "registered in this process" for k, (_, d) in _EXTRA.items()})
    for k, ep in _entry_points().items():
        out.setdefault(k, f"plugin {ep.value}")
    return dict(sorted(out.items()))


def split_spec(spec: str) -> tuple[str, str | None]:
    """``"clip:ViT-B-32/openai"`` → ``("clip", "ViT-B-32/openai")``; ``"random"`` → ``("random", None)``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec {spec!r}: expected '<kind>' or '<kind>:<argument>'")
    kind, sep, arg = spec.strip().partition(":")
    if sep and not arg:
        raise ValueError(f"agent spec {spec!r}: empty argument after ':'")
    return kind, (arg if sep else None)


_ARGUMENT_ERROR = re.compile(
    r"unexpected keyword argument|missing \d+ required|takes \d+ positional|positional argument|multiple values"
)


def make_agent(spec: str, **kwargs: Any) -> Agent:
    """Create the agent a spec names (see the module docstring); ``ValueError`` for unknown kinds."""
    kind, arg = split_spec(spec)
    if kind in BUILTIN:
        factory = BUILTIN[kind][0]
    elif kind in _EXTRA:
        factory = _EXTRA[kind][0]
    else:
        eps = _entry_points()
        if kind not in eps:
            raise ValueError(f"unknown agent kind {kind!r} in spec {spec!r}: available {available_agents()}")
        factory = eps[kind].load()
    try:
        agent = factory(arg, **kwargs) if arg is not None else factory(**kwargs)
    except TypeError as err:  # a wrong option is the user's input, not a bug: name the spec and the option
        if not _ARGUMENT_ERROR.search(str(err)):
            raise
        raise ValueError(f"agent spec {spec!r}: {err}") from None
    if not isinstance(agent, Agent):
        raise ValueError(f"agent spec {spec!r}: factory returned {type(agent).__name__}, not an Agent")
    return agent
