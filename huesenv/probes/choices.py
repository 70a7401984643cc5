"""Checks on the lists a user picks probe trials with (objects, conditions, orderings, subsets, types)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")


def distinct(values: Iterable[T], what: str) -> tuple[T, ...]:
    """``values`` as a tuple, refusing one given twice (it would repeat its trials and weigh them double)."""
    out = tuple(values)
    for i, value in enumerate(out):
        if value in out[:i]:
            raise ValueError(f"{what}: {value!r} given twice; expected each once")
    return out
