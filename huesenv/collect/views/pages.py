"""Helpers every blueprint uses: the participant of this request, where they go next, message pages.

The server decides what comes next (:func:`next_url`), so the back button or a
replayed form cannot change an answer: a view first calls :func:`require` with
its own endpoint and follows the redirect it gets when this is not the
participant's current step.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Mapping
from typing import Any

from flask import Response, redirect, render_template, request, session, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from werkzeug.wrappers import Response as BaseResponse

from huesenv.collect import participants as parts
from huesenv.collect.state import AppState, current_state

ParticipantRow = sqlite3.Row


def message(
    title: str,
    text: str,
    status: int,
    link: str | None = None,
    headers: Mapping[str, str] | None = None,
    **extra: object,
) -> Response:
    """A plain page with a title, one message and an optional "Continue" link (``extra`` goes to the template)."""
    body = render_template("message.html", title=title, message=text, link=link, **extra)
    return Response(body, status=status, headers=dict(headers or {}), mimetype="text/html")


def refused(text: str) -> Response:
    """409: a well-formed answer that is not allowed now (already answered, not the current item)."""
    return message(_("Answer not accepted"), text, 409, url_for("study.index"))


def field_error(err: ValueError, translated: str) -> str:
    """What a refused field says: the validator's own English line (it names the field), else ``translated``."""
    locale = get_locale()
    return str(err) if locale is None or locale.language == "en" else translated


def participant(state: AppState | None = None) -> ParticipantRow | None:
    """This session's participant row of this server's task, or ``None``."""
    state = state or current_state()
    row = parts.get_participant(state.conn(), session.get("pid"))
    if row is None or row["task"] != state.config.task:
        return None
    return row


def next_url(p: ParticipantRow | None, state: AppState | None = None) -> str:
    """The participant's current page: onboarding, instructions, the task's next step, or the end."""
    state = state or current_state()
    if p is None:
        return url_for("study.start")
    if p["started_at"] is None:
        return url_for("study.instructions")
    return url_for(state.next_step(state.conn(), p))


def require(endpoint: str) -> tuple[ParticipantRow | None, BaseResponse | None]:
    """The participant, or a redirect when ``endpoint`` is not their current step."""
    p = participant()
    if p is None:
        session.pop("pid", None)
        return None, redirect(url_for("study.start"))
    target = next_url(p)
    if target != url_for(endpoint):
        return p, redirect(target)
    return p, None


def require_step(
    endpoint: str, refusal: Callable[[], BaseResponse]
) -> tuple[ParticipantRow | None, BaseResponse | None]:
    """:func:`require` for a task page that takes answers: a POST to a step that is no longer the
    participant's (a stale or replayed submission) gets ``refusal()`` and changes nothing; a GET is
    redirected to the current step."""
    p, redirect_to = require(endpoint)
    if redirect_to is not None and request.method == "POST":
        return p, refusal()
    return p, redirect_to


def item_page(endpoint: str, already: str, task: Any, respond: Callable[..., Any], key: str) -> Any:
    """What every one-item-at-a-time task page does before drawing: the step check, a POST handed to
    ``respond`` (accepted or refused: its response is returned; invalid: the item again with the error,
    status 400), then the current item marked shown.  A response, or ``(conn, item, done, total, error, status)``."""
    p, redirect_to = require_step(endpoint, lambda: refused(_(already)))
    if redirect_to:
        return redirect_to
    assert p is not None
    state = current_state()
    c = state.conn()
    error, status = None, 200
    if request.method == "POST":
        error, answered = respond(state, c, p)
        if answered is not None:
            return answered
        status = 400
    item = task.current_item(c, p["id"])
    assert item is not None
    done, total = task.progress(c, p["id"])
    shown(f"{key}{item.position}")
    return c, item, done, total, error, status


def logout() -> None:
    """A fresh, anonymous session (the interface language is kept)."""
    keep = {k: session[k] for k in ("ui",) if k in session}
    session.clear()
    session.update(keep)


def login(pid: str) -> None:
    """Start a fresh session for participant ``pid``."""
    logout()
    session.permanent = True
    session["pid"] = pid


def shown(key: str) -> None:
    """Remember when item ``key`` was shown (for its response time)."""
    session["shown"] = [key, time.time()]


def elapsed_ms(key: str) -> int | None:
    """Milliseconds since item ``key`` was shown to this session, or ``None`` if it was not."""
    mark = session.pop("shown", None)
    if isinstance(mark, list) and len(mark) == 2 and mark[0] == key:
        try:
            return max(0, min(int((time.time() - float(mark[1])) * 1000), 2**31 - 1))
        except (TypeError, ValueError, OverflowError):
            return None
    return None
