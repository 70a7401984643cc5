"""The collection app's Flask blueprints: the study frame (``study``) and one blueprint per task.

A server runs one task; :func:`task_views` gives that task's :class:`TaskViews`
(its blueprint and the hooks the study frame calls), and only that blueprint is
registered, so the other tasks' pages do not exist on it (404).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint

from huesenv.collect.config import CollectConfig
from huesenv.collect.state import AppState


@dataclass(frozen=True)
class TaskViews:
    """One task's blueprint and hooks.

    ``prepare(config)`` validates the task's settings before anything is created
    and returns its resources (``AppState.task_data``); ``enrol(state, conn, pid,
    serial)`` sets a new participant up inside the onboarding transaction and may
    return a callable to run after the commit; ``next_step(state, conn, p)`` is
    the endpoint of a started participant's current page; ``instructions(state)``
    the instruction page's variables; ``start(state)`` runs once the app exists.
    """

    blueprint: Blueprint
    prepare: Callable[[CollectConfig], dict[str, Any]]
    enrol: Callable[[AppState, sqlite3.Connection, str, int], Callable[[], None] | None]
    next_step: Callable[[AppState, sqlite3.Connection, sqlite3.Row], str]
    instructions: Callable[[AppState], dict[str, Any]]
    start: Callable[[AppState], None] | None = None


def task_views(task: str) -> TaskViews:
    """The views of one task (``words``, ``gca`` or ``tessellation``)."""
    if task == "words":
        from huesenv.collect.views.words import VIEWS
    elif task == "gca":
        from huesenv.collect.views.gca import VIEWS
    elif task == "tessellation":
        from huesenv.collect.views.tessellation import VIEWS
    else:
        raise ValueError(f"--task {task!r}: expected one of words, gca, tessellation")
    return VIEWS
