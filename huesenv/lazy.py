"""Lazy package exports: names whose modules pull in optional extras load on first access.

Why: ``import huesenv`` (and ``huesenv.agents``, ``.envs``, ``.render``,
``.collect``, ``.probes``) must stay light and work without torch, pygame,
flask or PettingZoo; the heavy names are still importable from the package.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``exports[name]`` from its module once and caches it on ``package``."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def lazy_callable(target: str) -> Callable[..., Any]:
    """A callable that imports ``"module:attr"`` on its first call and forwards every call to it.

    Why: the package entry point wires a higher layer's defaults into a lower
    one (``huesenv/__init__.py``) without importing the higher layer at
    ``import huesenv``.
    """
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        raise ValueError(f"target {target!r}: expected 'package.module:attr'")
    loaded: list[Callable[..., Any]] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not loaded:
            obj: Any = importlib.import_module(module)
            for part in attr.split("."):
                obj = getattr(obj, part)
            loaded.append(obj)
        return loaded[0](*args, **kwargs)

    call.__qualname__ = call.__name__ = f"lazy_callable[{target}]"
    return call
