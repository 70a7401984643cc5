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
