"""Create agents by name: one registry for built-ins and for plugins (entry-point group ``huesenv.agents``).

A spec is ``"<kind>"`` or ``"<kind>:<argument>"``; the kind says what is loaded.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.registry``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from huesenv.agents.protocol import Agent

ENTRY_POINT_GROUP = "huesenv.agents"

AgentFactory = Callable[..., Agent]


def load_target(target: str) -> Any:
    """The object a ``"package.module:attr"`` string names."""
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class AgentKind:
    """One agent kind: how its spec builds it, and what it can do.

    ``target`` is the class (or factory) as ``"module:attr"`` or a callable.
    ``argument`` says what ``ARG`` of ``"kind:ARG"`` becomes: the name of a
    keyword argument (converted by ``convert``), a function returning keyword
    arguments, or ``None`` for the plugin convention ``factory(ARG, **kwargs)``.
    ``usage`` is the error when the kind needs an ``ARG`` and got none.
    ``forwards`` names a function that receives the keyword arguments the class
    takes as ``**kwargs``, so they are checked against its signature too.
    """

    name: str
    target: str | AgentFactory
    description: str = ""
    argument: str | Callable[[str], dict[str, Any]] | None = None
    convert: Callable[[str], Any] = str
    usage: str | None = None
    forwards: str | None = None
    takes_device: bool = False  # a torch-backed agent: ``device=`` (the CLI's ``--device``)
    needs_weights: bool = False  # loads model weights named by its argument (experiments pre-fetch them)
    takes_vocabulary: bool = False  # plays from the game's word list, given as ``vocabulary=``
    answers_probes: bool = False  # answers :class:`~huesenv.agents.protocol.ProbeQuery` (huesenv probe)

    def load(self) -> AgentFactory:
        """The class or factory (imported on first use)."""
        return load_target(self.target) if isinstance(self.target, str) else self.target

    def call_arguments(self, spec: str, arg: str | None, kwargs: Mapping[str, Any]) -> tuple[tuple, dict]:
        """Positional and keyword arguments for the target; keyword options win over the spec's ``ARG``."""
        if arg is None:
            if self.usage:
                raise ValueError(self.usage)
            return (), dict(kwargs)
        if self.argument is None:
            return (arg,), dict(kwargs)
        if isinstance(self.argument, str):
            try:
                value = self.convert(arg)
            except (TypeError, ValueError):
                kind = getattr(self.convert, "__name__", "value")
                expected = "a whole number" if self.convert is int else f"a valid {kind}"
                raise ValueError(
                    f"agent spec {spec!r}: {arg!r} is not {expected} for {self.argument!r}"
                ) from None
            return (), {self.argument: value, **kwargs}
        return (), {**self.argument(arg), **kwargs}


def _clip_arguments(arg: str) -> dict[str, Any]:
    model, pretrained = load_target("huesenv.agents.clip_agent:parse_clip_spec")(arg)
    return {"model_name": model, "pretrained": pretrained}


def _kind(name: str, target: str, description: str, **fields: Any) -> tuple[str, AgentKind]:
    return name, AgentKind(name, target, description, **fields)


BUILTIN: dict[str, AgentKind] = dict(
    [
        _kind(
            "random",
            "huesenv.agents.random_agent:RandomAgent",
            "seeded uniform choice among legal cells, cues and options",
            argument="seed",
            convert=int,
            takes_vocabulary=True,
            answers_probes=True,
        ),
        _kind(
            "human-replay",
            "huesenv.agents.human_replay:HumanReplayAgent",
            "samples the human cohort's answers (huesenv.humans)",
            argument="path",
            forwards="huesenv.humans.loader:load_humans",
        ),
        _kind(
            "text-embedding",
            "huesenv.agents.text_embedding:TextEmbeddingAgent",
            "offline MiniLM similarity between the cue and each cell's colour names",
            argument="model_path",
            takes_device=True,
            takes_vocabulary=True,
        ),
        _kind(
            "clip",
            "huesenv.agents.clip_agent:ClipAgent",
            "open_clip model: clip:<model>/<pretrained> | clip:<model>-<pretrained> | clip:hf-hub:<id>",
            argument=_clip_arguments,
            usage="agent spec 'clip' needs a model: 'clip:<model>/<pretrained>' or 'clip:hf-hub:<id>'",
            takes_device=True,
            needs_weights=True,
            takes_vocabulary=True,
            answers_probes=True,
        ),
        _kind(
            "vlm",
            "huesenv.agents.vlm:TransformersVLMAgent",
            "transformers image-text-to-text model: vlm:<model id or path>",
            argument="model",
            usage="agent spec 'vlm' needs a model id or local path: 'vlm:<model>'",
            takes_device=True,
            needs_weights=True,
            answers_probes=True,
        ),
        _kind(
            "api-vlm",
            "huesenv.agents.api_vlm:ApiVLMAgent",
            "OpenAI-compatible chat-completions API: api-vlm:<model>",
            argument="model",
            usage="agent spec 'api-vlm' needs a model name: 'api-vlm:<model>'",
            answers_probes=True,
        ),
        _kind(
            "policy",
            "huesenv.agents.policy:PolicyAgent",
            "trained policy (huesenv train): policy:<checkpoint.pt | model.zip>",
            argument="path",
            usage="agent spec 'policy' needs a file: 'policy:<checkpoint.pt or model.zip>'",
            takes_device=True,
        ),
        _kind(
            "lookup",
            "huesenv.agents.lookup:LookupAgent.from_export",
            "per word the most chosen cells of a human export (other cues: nearest word): lookup:<file>",
            argument="path",
            usage="agent spec 'lookup' needs a human export: 'lookup:<answers.csv[.gz] | .parquet>'",
        ),
    ]
)

_EXTRA: dict[str, AgentKind] = {}


def register_agent(kind: str | AgentKind, factory: AgentFactory | None = None, description: str = "") -> None:
    """Register a kind in this process (tests, notebooks); packages should use the entry-point group.

    Either an :class:`AgentKind` (with its capabilities), or a name and a factory
    called as ``factory(ARG, **kwargs)`` / ``factory(**kwargs)``.
    """
    if isinstance(kind, AgentKind):
        entry = kind
    else:
        if factory is None:
            raise ValueError(f"agent kind {kind!r}: no factory given")
        entry = AgentKind(kind, factory, description)
    if not entry.name or ":" in entry.name:
        raise ValueError(f"agent kind {entry.name!r}: expected a non-empty name without ':'")
    if entry.name in BUILTIN:
        raise ValueError(f"agent kind {entry.name!r} is built in and cannot be replaced")
    _EXTRA[entry.name] = entry


@functools.lru_cache(maxsize=4)
def _installed(path: tuple[str, ...]) -> tuple[metadata.EntryPoint, ...]:
    """The group's entry points on one ``sys.path``: a scan of every installed package (~25 ms), once."""
    return tuple(metadata.entry_points(group=ENTRY_POINT_GROUP))


def _entry_points() -> dict[str, metadata.EntryPoint]:
    found: dict[str, metadata.EntryPoint] = {}
    for ep in _installed(tuple(sys.path)):
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
    out = {k: entry.description for k, entry in BUILTIN.items()}
    out.update({k: entry.description or "registered in this process" for k, entry in _EXTRA.items()})
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


def agent_kind(spec_or_kind: str) -> AgentKind:
    """The declared kind of a spec (``"clip:..."``) or kind name (``ValueError`` for unknown kinds)."""
    kind, _ = split_spec(spec_or_kind)
    if kind in BUILTIN:
        return BUILTIN[kind]
    if kind in _EXTRA:
        return _EXTRA[kind]
    eps = _entry_points()
    if kind not in eps:
        raise ValueError(
            f"unknown agent kind {kind!r} in spec {spec_or_kind!r}: available {available_agents()}"
        )
    return AgentKind(kind, eps[kind].load(), f"plugin {eps[kind].value}")


def kinds_with(capability: str) -> list[str]:
    """The kinds (built in and registered) that declare ``capability`` (an :class:`AgentKind` flag)."""
    return sorted(k for k, e in {**BUILTIN, **_EXTRA}.items() if getattr(e, capability))


def refuses_probes(spec: str) -> bool:
    """Whether the spec's kind is built in and declares that it does not answer probes (a plugin's or a
    registered kind's ability is unknown: it is asked, and an agent that cannot answers invalid)."""
    kind = spec.split(":", 1)[0].strip()
    return kind in BUILTIN and not BUILTIN[kind].answers_probes


def has_capability(spec: str, capability: str) -> bool:
    """Whether the spec's kind declares ``capability``; unknown kinds have none."""
    try:
        kind = agent_kind(spec)
    except ValueError:
        return False
    return bool(getattr(kind, capability))


def _bind(spec: str, fn: Callable[..., Any], args: tuple, kwargs: Mapping[str, Any]) -> None:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: nothing to check beforehand
        return
    try:
        signature.bind(*args, **kwargs)
    except TypeError as err:  # a wrong option is the user's input, not a bug: name the spec and the option
        raise ValueError(f"agent spec {spec!r}: {err}") from None


def check_arguments(
    spec: str,
    factory: Callable[..., Any],
    args: tuple,
    kwargs: Mapping[str, Any],
    forwards: str | None = None,
) -> None:
    """``ValueError`` naming ``spec`` when ``factory(*args, **kwargs)`` would not bind (and, for the options
    it takes as ``**kwargs``, when ``forwards`` would not take them)."""
    _bind(spec, factory, args, kwargs)
    if forwards is None:
        return
    params = inspect.signature(factory).parameters
    named = {n for n, p in params.items() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    rest = {k: v for k, v in kwargs.items() if k not in named}
    if rest:
        _bind(spec, load_target(forwards), (), rest)


def make_agent(spec: str, **kwargs: Any) -> Agent:
    """Create the agent a spec names (see the module docstring); ``ValueError`` for unknown kinds and options."""
    kind = agent_kind(spec)
    _, arg = split_spec(spec)
    factory = kind.load()
    args, call_kwargs = kind.call_arguments(spec, arg, kwargs)
    check_arguments(spec, factory, args, call_kwargs, kind.forwards)
    agent = factory(*args, **call_kwargs)
    if not isinstance(agent, Agent):
        raise ValueError(f"agent spec {spec!r}: factory returned {type(agent).__name__}, not an Agent")
    return agent


def seat_agent(spec: str | None, *, vocabulary: Sequence[str]) -> Agent:
    """An agent for one seat of an env (:mod:`huesenv.envs.hues_cues.defaults`'s factory): ``None`` is
    :data:`DEFAULT_OPPONENT`; kinds that take the game's vocabulary are given it."""
    spec = DEFAULT_OPPONENT if spec is None else spec
    kwargs = {"vocabulary": tuple(vocabulary)} if has_capability(spec, "takes_vocabulary") else {}
    return make_agent(spec, **kwargs)


# the env wrappers' opponents when the caller names none: replayed people
DEFAULT_OPPONENT = "human-replay"
