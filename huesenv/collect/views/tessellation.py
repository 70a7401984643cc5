"""The tessellation task's pages: ``/tessellation`` (the painter) and the public ``/tessellation/consensus``."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

from huesenv.categories import MACRO_COLOURS
from huesenv.collect import participants as parts
from huesenv.collect.config import CollectConfig
from huesenv.collect.state import AppState, TaskViews, current_state
from huesenv.collect.tasks import tessellation as tess_task
from huesenv.collect.views.pages import message, require_step

bp = Blueprint("tessellation", __name__)


def prepare(config: CollectConfig) -> dict[str, Any]:
    return {"consensus": tess_task.ConsensusCache()}


def enrol(state: AppState, conn: sqlite3.Connection, pid: str, serial: int) -> Callable[[], None] | None:
    return None


def next_step(state: AppState, conn: sqlite3.Connection, p: sqlite3.Row) -> str:
    painted = conn.execute("SELECT 1 FROM tessellations WHERE participant_id = ?", (p["id"],)).fetchone()
    return "study.done" if painted else "tessellation.tessellation"


def instructions(state: AppState) -> dict[str, Any]:
    return {}


def _already():
    return message(
        _("Not accepted"), _("Your tessellation was already submitted."), 409, url_for("study.index")
    )


@bp.route("/tessellation", methods=["GET", "POST"])
def tessellation():
    p, redirect_to = require_step("tessellation.tessellation", _already)
    if redirect_to:
        return redirect_to
    assert p is not None
    error = None
    if request.method == "POST":
        state = current_state()
        try:
            cats = tess_task.parse_painting(request.form.get("categories"))
            c = state.conn()
            with state.writing(c):
                tess_task.store_painting(c, p["id"], cats)
                parts.mark_finished(c, p["id"])
        except tess_task.PaintingRefused:
            return _already()
        except ValueError as err:
            error = str(err)
        else:
            return redirect(url_for("study.done"))
    painted = request.form.get("categories", "") if error else ""
    return render_template(
        "tessellation.html",
        colours=MACRO_COLOURS,
        error=error,
        painted=painted if len(painted) <= tess_task.MAX_PAINTING_LENGTH else "",
    ), (400 if error else 200)


@bp.get("/tessellation/consensus")
def consensus():
    """Public, so cached: votes are added incrementally and the page is rendered once per state."""
    state = current_state()
    cache: tess_task.ConsensusCache = state.task_data["consensus"]
    now = cache.update(state.conn())
    etag = f"{now.n}-{now.last_rowid}-{get_locale()}"
    if request.if_none_match.contains(etag):
        resp = Response(status=304)
    else:
        body = cache.page(etag, lambda: render_template("consensus.html", n=now.n, consensus=now.cells))
        resp = Response(body, mimetype="text/html")
    resp.set_etag(etag)
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["Vary"] = "Cookie, Accept-Language"
    return resp


VIEWS = TaskViews(blueprint=bp, prepare=prepare, enrol=enrol, next_step=next_step, instructions=instructions)
