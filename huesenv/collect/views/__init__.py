"""The collection app's Flask blueprints: the study frame (``study``) and one blueprint per task.

A server runs one task; :func:`task_views` gives that task's :class:`TaskViews`
(its blueprint and the hooks the study frame calls), and only that blueprint is
registered, so the other tasks' pages do not exist on it (404).
"""

from __future__ import annotations

from huesenv.collect.config import TASKS
from huesenv.collect.state import TaskViews
from huesenv.collect.views import gca, tessellation, words

_VIEWS: dict[str, TaskViews] = {"words": words.VIEWS, "gca": gca.VIEWS, "tessellation": tessellation.VIEWS}

__all__ = ["TaskViews", "task_views"]


def task_views(task: str) -> TaskViews:
    """The views of one task (``words``, ``gca`` or ``tessellation``)."""
    if task not in TASKS:
        raise ValueError(f"--task {task!r}: expected one of {', '.join(TASKS)}")
    return _VIEWS[task]
