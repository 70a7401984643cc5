"""The GCA survey's pages: ``/gca`` (one item at a time) and ``/gca/image/<position>.png`` (its stimulus)."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from flask import Blueprint, Response, abort, redirect, render_template, request
from flask_babel import gettext as _

from huesenv.collect import participants as parts
from huesenv.collect.config import CollectConfig
from huesenv.collect.display import answer_orientation
from huesenv.collect.gca_probes import make_probes_source
from huesenv.collect.state import AppState, TaskViews, current_state
from huesenv.collect.tasks import gca as gca_task
from huesenv.collect.views.pages import (
    elapsed_ms,
    field_error,
    item_page,
    next_url,
    participant,
    refused,
)

log = logging.getLogger("huesenv.collect")
bp = Blueprint("gca", __name__)
ALREADY = "That item has already been answered; answers cannot be changed."


def prepare(config: CollectConfig) -> dict[str, Any]:
    """Validate the survey settings with a dry run of the draw (nothing is rendered)."""
    gca_task.introspection_condition(config.gca_introspection, 1)  # validates the mode
    source = config.gca_source if config.gca_source is not None else make_probes_source()
    for condition in ("first", "last"):
        n_checks = len(gca_task.attention_slots(config.gca_trials, config.gca_attention_positions, condition))
        drawn = source(np.random.default_rng(0), config.gca_trials, n_checks)
        if len(drawn) != config.gca_trials + n_checks:
            raise ValueError(
                f"GCA stimulus source gave {len(drawn)} stimuli, expected {config.gca_trials + n_checks}"
            )
    return {"source": source}


def enrol(state: AppState, conn: sqlite3.Connection, pid: str, serial: int) -> Callable[[], None] | None:
    cfg = state.config
    condition = gca_task.introspection_condition(cfg.gca_introspection, serial)
    conn.execute("UPDATE participants SET condition = ? WHERE id = ?", (condition, pid))
    drawn: list = []
    gca_task.create_plan(
        conn,
        pid,
        serial,
        state.task_data["source"],
        cfg.gca_trials,
        cfg.gca_attention_positions,
        condition,
        state.seed,
        on_drawn=drawn.extend,
    )
    images: gca_task.ImageStore = state.task_data["images"]
    return lambda: images.register(drawn)  # rendered when first shown, never inside a transaction


def next_step(state: AppState, conn: sqlite3.Connection, p: sqlite3.Row) -> str:
    return "gca.gca" if gca_task.current_item(conn, p["id"]) else "study.done"


def instructions(state: AppState) -> dict[str, Any]:
    return {}


def start(state: AppState) -> None:
    """Make the image store; with ``gca_prerender``, render every stimulus in a background thread."""
    source = state.task_data["source"]
    cfg = state.config
    cache = cfg.gca_image_cache if cfg.gca_image_cache is not None else f"{state.db.path}.gca-images"
    images = gca_task.ImageStore(
        lookup=getattr(source, "render_png", None), write_lock=state.write_lock, cache_dir=cache
    )
    state.task_data["images"] = images
    if not (cfg.gca_prerender and hasattr(source, "stimulus_ids")):
        return

    def prerender() -> None:
        with state.db.connection() as c:
            n = images.prerender(c, source.stimulus_ids, state.stop, progress=_log_progress)
        log.info("GCA: %d stimulus images pre-rendered", n)

    threading.Thread(target=prerender, name="gca-prerender", daemon=True).start()


def _log_progress(done: int, total: int) -> None:
    if done == total or done % 200 == 0:
        log.info("GCA: pre-rendering stimulus images, %d of %d", done, total)


@bp.route("/gca", methods=["GET", "POST"])
def gca():
    page = item_page("gca.gca", ALREADY, gca_task, _respond, "g")
    if not isinstance(page, tuple):
        return page
    c, item, done, total, error, status = page
    return render_template(
        "gca.html",
        item=item,
        item_object=gca_task.stimulus_object(c, item.stimulus_id) if item.stimulus_id else "",
        done=done,
        total=total,
        error=error,
    ), status


def _respond(state: AppState, c: sqlite3.Connection, p: sqlite3.Row):
    """Store the posted response: ``(None, response)`` when accepted or refused, ``(error, None)`` when invalid."""
    current = gca_task.current_item(c, p["id"])
    key = f"g{current.position}" if current else "-"
    try:
        with state.writing(c):
            gca_task.record_response(
                c, p["id"], request.form, elapsed_ms(key), answer_orientation(request.form)
            )
            if gca_task.current_item(c, p["id"]) is None:
                parts.mark_finished(c, p["id"])
    except gca_task.ResponseRefused:
        return None, refused(_(ALREADY))
    except ValueError as err:
        if "threshold" in str(err):
            return field_error(err, _("Please give a whole number from 0 to 100.")), None
        return field_error(err, _("Please choose one of the colours and how sure you are.")), None
    return None, redirect(next_url(p))


@bp.get("/gca/image/<int:position>.png")
def gca_stimulus(position: int):
    p = participant()
    if p is None:
        abort(404)
    state = current_state()
    sid = gca_task.stimulus_at(state.conn(), p["id"], position)
    png = None if sid is None else state.task_data["images"].png(state.conn(), sid)
    if png is None:
        abort(404)
    return Response(png, mimetype="image/png", headers={"Cache-Control": "private, max-age=3600"})


VIEWS = TaskViews(
    blueprint=bp, prepare=prepare, enrol=enrol, next_step=next_step, instructions=instructions, start=start
)
