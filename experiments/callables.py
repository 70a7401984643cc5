"""The code a config may swap in: registered names only, any ``module:function`` only with ``--allow-code``.

``tournament.agent_factory`` (replacing ``make_agent``) and ``tournament.play_fn``
(replacing ``play_game``) used to import whatever ``module:function`` a config
named, so a shared YAML file or one ``--set`` ran arbitrary code
(``os:system``).  Now a value must be

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.callables``.
"""

from __future__ import annotations

import importlib
import re
from importlib import metadata
from typing import Any

GROUPS: dict[str, str] = {"agent_factory": "huesenv.agent_factories", "play_fn": "huesenv.play_fns"}
BUILTIN: dict[str, dict[str, str]] = {
    "agent_factory": {"make_agent": "huesenv.agents.registry:make_agent"},
    "play_fn": {"play_game": "huesenv.envs.hues_cues.play:play_game"},
}
_CODE_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


def _entry_points(kind: str) -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=GROUPS[kind])}


def registered_names(kind: str) -> list[str]:
    return sorted(set(BUILTIN[kind]) | set(_entry_points(kind)))


def check_callable_name(kind: str, value: Any, *, allow_code: bool) -> str | None:
    """What is wrong with ``value`` for ``kind`` (``None`` when it may be used)."""
    if not isinstance(value, str) or not value:
        return f"expected a registered name ({', '.join(registered_names(kind))}), got {value!r}"
    if value in BUILTIN[kind] or value in _entry_points(kind):
        return None
    if ":" in value:
        if not allow_code:
            return (
                f"{value!r} would import and run code; expected a registered name "
                f"({', '.join(registered_names(kind))}) or pass --allow-code to run it"
            )
        if not _CODE_PATH.match(value):
            return f"expected 'package.module:function', got {value!r}"
        return None
    return f"unknown name {value!r}; expected one of {', '.join(registered_names(kind))}"


def resolve_callable(kind: str, value: str | None, *, allow_code: bool) -> Any:
    """The callable ``value`` names (``None`` for ``None``); refuses what :func:`check_callable_name` refuses."""
    if not value:
        return None
    problem = check_callable_name(kind, value, allow_code=allow_code)
    if problem:
        raise ValueError(f"tournament.{kind}: {problem}")
    if value in BUILTIN[kind]:
        value = BUILTIN[kind][value]
    elif value in _entry_points(kind):
        return _entry_points(kind)[value].load()
    module, _, attr = value.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"tournament.{kind}: cannot load {value!r} ({err})") from None
