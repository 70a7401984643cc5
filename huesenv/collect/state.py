"""What one collection server holds between requests: :class:`AppState`, kept in ``app.extensions``.

The blueprints read everything through :func:`current_state` instead of closing
over variables of an application factory, so each view is a plain function a
reader can follow, and a test can look at the state (database, image store,
rate limiter) of the app it built.

**Writes.**  One writer at a time inside this process: threads queue on a lock
(fair, no polling) instead of SQLite's busy handler, which sleeps and retries
and can starve a waiter for its whole timeout when many participants arrive at
once.  Other processes are still kept out by ``BEGIN IMMEDIATE``
(:func:`huesenv.collect.db.transaction`).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, current_app, g
from flask_babel import get_locale

from huesenv.board import N_COLS, N_ROWS, ROW_LETTERS, load_board
from huesenv.collect.config import CollectConfig
from huesenv.collect.db import Database, transaction
from huesenv.collect.i18n import DEFAULT_UI, UI_LANGUAGES
from huesenv.collect.security import RateLimiter

EXTENSION = "huesenv_collect"


def board_grid() -> dict[str, Any]:
    """The board as the templates draw it: row letters, column count, ``(coord, "#rrggbb")`` per cell."""
    board = load_board()
    cells = [
        (board.coords[i], "#{:02x}{:02x}{:02x}".format(*(int(v) for v in board.rgb[i])))
        for i in range(board.rgb.shape[0])
    ]
    return {"rows": ROW_LETTERS[:N_ROWS], "n_cols": N_COLS, "cells": cells}


@dataclass(frozen=True)
class TaskViews:
    """One task's blueprint and hooks (each task's module in :mod:`huesenv.collect.views` defines one).

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


@dataclass
class AppState:
    """One server's configuration, storage and shared helpers (thread-safe where shared)."""

    config: CollectConfig
    db: Database
    seed: int
    languages: tuple[str, ...]
    ages: tuple[str, ...]
    information: dict[str, tuple[str, ...] | None]  # None: the translated built-in placeholder
    limiter: RateLimiter | None
    grid: dict[str, Any] = field(default_factory=board_grid)
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)
    # the configured task's own resources (vocabulary, stimulus source, image store, consensus cache)
    task_data: dict[str, Any] = field(default_factory=dict)
    task: TaskViews | None = None  # the configured task's blueprint and hooks

    @property
    def ui_codes(self) -> tuple[str, ...]:
        return tuple(code for code, _ in UI_LANGUAGES)

    def ui(self) -> str:
        """This request's interface language code."""
        locale = get_locale()
        return locale.language if locale is not None else DEFAULT_UI

    def next_step(self, conn: sqlite3.Connection, p: sqlite3.Row) -> str:
        """The endpoint of a started participant's current page (the task decides)."""
        assert self.task is not None
        return self.task.next_step(self, conn, p)

    def conn(self) -> sqlite3.Connection:
        """This request's connection (opened on first use, closed at teardown)."""
        if "conn" not in g:
            g.conn = self.db.connect()
        return g.conn

    @contextmanager
    def writing(self, conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        """A write transaction, queued on the in-process write lock."""
        with self.write_lock, transaction(conn):
            yield conn


def current_state() -> AppState:
    """The running app's :class:`AppState`."""
    state = current_app.extensions[EXTENSION]
    assert isinstance(state, AppState)
    return state


def close_connection(_exc: BaseException | None = None) -> None:
    """Teardown: close the request's connection, if one was opened."""
    conn = g.pop("conn", None)
    if conn is not None:
        conn.close()
