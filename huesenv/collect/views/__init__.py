"""The collection app's Flask blueprints: the study frame (``study``) and one blueprint per task.

A server runs one task; :func:`task_views` gives that task's :class:`TaskViews`
(its blueprint and the hooks the study frame calls), and only that blueprint is
registered, so the other tasks' pages do not exist on it (404).
"""

from __future__ import annotations

from huesenv.collect.state import TaskViews

__all__ = ["TaskViews", "task_views"]


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
