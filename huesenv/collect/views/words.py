"""The word→cell task's pages: ``/words`` (one word at a time) and ``/words/feedback`` (earlier answers)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from flask import Blueprint, redirect, render_template, request, session
from flask_babel import gettext as _

from huesenv.board import format_coord, load_board
from huesenv.collect import participants as parts
from huesenv.collect.config import CollectConfig
from huesenv.collect.display import answer_orientation, upright_phone
from huesenv.collect.state import AppState, TaskViews, current_state
from huesenv.collect.tasks import words as words_task
from huesenv.collect.views.pages import (
    elapsed_ms,
    field_error,
    item_page,
    next_url,
    refused,
    require,
)
from huesenv.vocabulary import words

bp = Blueprint("words", __name__)
ALREADY = "That word has already been answered; answers cannot be changed."


def prepare(config: CollectConfig) -> dict[str, Any]:
    return {
        "vocabulary": words_task.check_vocabulary(config.vocabulary or words(), config.words_per_participant)
    }


def enrol(state: AppState, conn: sqlite3.Connection, pid: str, serial: int) -> Callable[[], None] | None:
    cfg = state.config
    words_task.assign_words(
        conn,
        pid,
        serial,
        state.task_data["vocabulary"],
        cfg.words_per_participant,
        state.seed,
        cfg.assignment,
    )
    return None


def next_step(state: AppState, conn: sqlite3.Connection, p: sqlite3.Row) -> str:
    if state.config.show_feedback and session.get("feedback") is not None:
        return "words.word_feedback"
    return "words.word" if words_task.current_item(conn, p["id"]) else "study.done"


def instructions(state: AppState) -> dict[str, Any]:
    return {"n_words": state.config.words_per_participant, "show_feedback": state.config.show_feedback}


@bp.route("/words", methods=["GET", "POST"])
def word():
    page = item_page("words.word", ALREADY, words_task, _answer, "w")
    if not isinstance(page, tuple):
        return page
    _, item, answered, total, error, status = page
    typed = request.form.get("coordinate", "") if error else ""
    return render_template(
        "word.html", item=item, done=answered, total=total, error=error, typed=typed[:8]
    ), status


def _answer(state: AppState, c: sqlite3.Connection, p: sqlite3.Row):
    """Store the posted answer: ``(None, response)`` when accepted or refused, ``(error, None)`` when invalid."""
    current = words_task.current_item(c, p["id"])
    key = f"w{current.position}" if current else "-"
    if upright_phone(request.form):
        return _("Please turn your phone sideways (landscape) before answering."), None
    try:
        with state.writing(c):
            _item, _cell, answer_id = words_task.record_answer(
                c,
                p["id"],
                request.form.get("word"),
                request.form.get("coordinate"),
                elapsed_ms(key),
                answer_orientation(request.form),
            )
            if words_task.current_item(c, p["id"]) is None:
                parts.mark_finished(c, p["id"])
    except words_task.AnswerRefused:
        return None, refused(_(ALREADY))
    except ValueError as err:
        return field_error(err, _("Please enter a row letter A-P and a column 1-30, e.g. I18.")), None
    if state.config.show_feedback:
        session["feedback"] = answer_id
    return None, redirect(next_url(p))


@bp.route("/words/feedback", methods=["GET", "POST"])
def word_feedback():
    p, redirect_to = require("words.word_feedback")
    if redirect_to:
        return redirect_to
    assert p is not None
    if request.method == "POST":
        session.pop("feedback", None)
        return redirect(next_url(p))
    c = current_state().conn()
    answer = session.get("feedback")
    row = None
    if isinstance(answer, int) and 0 < answer < 2**63:
        row = c.execute(
            "SELECT id, word, cell FROM word_answers WHERE id = ? AND participant_id = ?", (answer, p["id"])
        ).fetchone()
    if row is None:
        session.pop("feedback", None)
        return redirect(next_url(p))
    counts = words_task.earlier_distribution(c, row["word"], row["id"])
    answered, total = words_task.progress(c, p["id"])
    coords = load_board().coords
    return render_template(
        "feedback.html",
        word=row["word"],
        own=format_coord(row["cell"]),
        markers={coords[i]: int(n) for i, n in enumerate(counts) if n},
        n_earlier=int(counts.sum()),
        max_count=int(counts.max(initial=0)),
        done=answered,
        total=total,
    )


VIEWS = TaskViews(blueprint=bp, prepare=prepare, enrol=enrol, next_step=next_step, instructions=instructions)
