"""The Flask application factory: onboarding, instructions and one task per server.

Server-rendered pages (Jinja templates, a little vanilla JS, no build step).
The participant's only state in the browser is a signed session cookie holding
a random participant id; everything else is in SQLite, and the server decides
what comes next, so the back button or a replayed form cannot change an
answer.  Forms carry CSRF tokens (flask-wtf).  Nothing about a participant is
written to the logs: URLs never carry answers or demographics, and the app
logs only counts.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from flask import Flask, Response, abort, g, redirect, render_template, request, session, url_for
from flask_wtf.csrf import CSRFError, CSRFProtect

from huesenv.board import N_COLS, N_ROWS, ROW_LETTERS, format_coord, load_board
from huesenv.categories import MACRO_COLOURS
from huesenv.collect import participants as parts
from huesenv.collect.db import Database, transaction
from huesenv.collect.gca_probes import make_probes_source
from huesenv.collect.tasks import gca as gca_task
from huesenv.collect.tasks import tessellation as tess_task
from huesenv.collect.tasks import words as words_task
from huesenv.vocabulary import Word, read_vocabulary_file, words

TASKS = ("words", "gca", "tessellation")
log = logging.getLogger("huesenv.collect")

# Display colours for the eight regions in the tessellation painter and consensus map.
CATEGORY_DISPLAY = {
    "Brown": "#8b4513",
    "Red": "#d62020",
    "Orange": "#ff8c00",
    "Yellow": "#ffd700",
    "Green": "#2e8b57",
    "Blue": "#1e5aff",
    "Purple": "#7b2fbe",
    "Pink": "#ff69b4",
}


@dataclass
class CollectConfig:
    """Everything a collection server needs; see ``huesenv collect serve --help`` for the CLI spelling."""

    db_path: str | Path
    task: str = "words"
    vocabulary: Sequence[Word] | None = None  # None: the paper's 100 words
    words_per_participant: int = words_task.DEFAULT_WORDS_PER_PARTICIPANT
    assignment: str = "balanced"
    show_feedback: bool = True
    languages: Sequence[str] = parts.DEFAULT_LANGUAGES
    gca_trials: int = gca_task.PAPER_TRIALS
    gca_attention_positions: Sequence[int] = gca_task.PAPER_ATTENTION_POSITIONS
    gca_introspection: str = "alternate"
    gca_source: gca_task.StimulusSource | None = None  # None: the probes package's generator
    seed: int | None = None  # None: the seed stored in the database on creation
    extra_flask_config: dict = field(default_factory=dict)


def create_app(config: CollectConfig) -> Flask:
    """Build the app for one task; creates the database (schema, secret key, seed) if needed."""
    if config.task not in TASKS:
        raise ValueError(f"--task {config.task!r}: expected one of {', '.join(TASKS)}")
    vocabulary: tuple[Word, ...] = ()
    if config.task == "words":
        vocabulary = words_task.check_vocabulary(config.vocabulary or words(), config.words_per_participant)
    source = config.gca_source
    if config.task == "gca":
        gca_task.introspection_condition(config.gca_introspection, 1)  # validates the mode
        if source is None:
            source = make_probes_source()
    languages = tuple(config.languages)
    if not languages or any(not 1 <= len(x) <= parts.MAX_FIELD for x in languages):
        raise ValueError(f"languages: expected 1-{parts.MAX_FIELD} character names, got {languages!r}")
    db = Database(config.db_path)  # only once the configuration is known to be valid
    seed = int(config.seed if config.seed is not None else db.meta("seed"))

    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=db.meta("secret_key"),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        MAX_CONTENT_LENGTH=64 * 1024,
        WTF_CSRF_TIME_LIMIT=None,  # the token is bound to the session; surveys can take long
        PERMANENT_SESSION_LIFETIME=7 * 24 * 3600,
    )
    app.config.update(config.extra_flask_config)
    CSRFProtect(app)
    board = load_board()
    cells = [
        (board.coords[i], "#%02x%02x%02x" % tuple(int(v) for v in board.rgb[i]))
        for i in range(board.rgb.shape[0])
    ]
    grid = {"rows": ROW_LETTERS[:N_ROWS], "n_cols": N_COLS, "cells": cells}

    def conn():
        if "conn" not in g:
            g.conn = db.connect()
        return g.conn

    @app.teardown_appcontext
    def _close(_exc):
        c = g.pop("conn", None)
        if c is not None:
            c.close()

    @app.context_processor
    def _globals():
        return {"task": config.task, "grid": grid, "category_display": CATEGORY_DISPLAY}

    def participant():
        return parts.get_participant(conn(), session.get("pid"))

    def next_url(p) -> str:
        if p is None:
            return url_for("start")
        if p["started_at"] is None:
            return url_for("instructions")
        if p["task"] == "words":
            if config.show_feedback and session.get("feedback") is not None:
                return url_for("word_feedback")
            return url_for("word") if words_task.current_item(conn(), p["id"]) else url_for("done")
        if p["task"] == "gca":
            return url_for("gca") if gca_task.current_item(conn(), p["id"]) else url_for("done")
        painted = (
            conn().execute("SELECT 1 FROM tessellations WHERE participant_id = ?", (p["id"],)).fetchone()
        )
        return url_for("done") if painted else url_for("tessellation")

    def require(step: str):
        """The participant, or a redirect when this page is not their current step."""
        p = participant()
        if p is None or p["task"] != config.task:
            session.pop("pid", None)
            return None, redirect(url_for("start"))
        target = next_url(p)
        if target != url_for(step):
            return p, redirect(target)
        return p, None

    def shown(key: str) -> None:
        session["shown"] = [key, time.time()]

    def elapsed_ms(key: str) -> int | None:
        mark = session.pop("shown", None)
        if isinstance(mark, list) and len(mark) == 2 and mark[0] == key:
            return max(0, int((time.time() - float(mark[1])) * 1000))
        return None

    @app.errorhandler(CSRFError)
    def _csrf(err):
        return render_template(
            "message.html",
            title="Form expired",
            message="This form is no longer valid (it may have been open in an old tab). "
            "Please continue from the current page.",
            link=url_for("index"),
        ), 400

    @app.errorhandler(413)
    def _too_large(_err):
        return render_template(
            "message.html", title="Too much data", message="The form was too large.", link=url_for("index")
        ), 413

    @app.get("/healthz")
    def healthz():
        return {"ok": True, "task": config.task}

    @app.get("/")
    def index():
        return redirect(next_url(participant()))

    @app.route("/start", methods=["GET", "POST"])
    def start():
        p = participant()
        if p is not None and p["task"] == config.task:
            return redirect(next_url(p))
        error = None
        if request.method == "POST":
            try:
                demo = parts.parse_demographics(request.form, languages)
            except ValueError as err:
                error = str(err)
            else:
                c = conn()
                with transaction(c):
                    condition = None
                    pid, serial = parts.create_participant(c, config.task, demo)
                    if config.task == "words":
                        words_task.assign_words(
                            c, pid, serial, vocabulary, config.words_per_participant, seed, config.assignment
                        )
                    elif config.task == "gca":
                        condition = gca_task.introspection_condition(config.gca_introspection, serial)
                        c.execute("UPDATE participants SET condition = ? WHERE id = ?", (condition, pid))
                        gca_task.create_plan(
                            c,
                            pid,
                            serial,
                            source,
                            config.gca_trials,
                            config.gca_attention_positions,
                            condition,
                            seed,
                        )
                session.clear()
                session.permanent = True
                session["pid"] = pid
                log.info("participant joined (%s task)", config.task)
                return redirect(url_for("instructions"))
        return render_template(
            "onboarding.html",
            languages=languages,
            genders=parts.GENDERS,
            ages=parts.AGE_RANGES,
            error=error,
            form=request.form,
        ), (400 if error else 200)

    @app.route("/instructions", methods=["GET", "POST"])
    def instructions():
        p, redirect_to = require("instructions")
        if redirect_to:
            return redirect_to
        if request.method == "POST":
            c = conn()
            with transaction(c):
                parts.mark_started(c, p["id"])
            return redirect(next_url(participant()))
        n = config.words_per_participant if config.task == "words" else None
        return render_template("instructions.html", n_words=n, show_feedback=config.show_feedback)

    # -- word → cell -------------------------------------------------------------------------------
    @app.route("/words", methods=["GET", "POST"])
    def word():
        if config.task != "words":
            abort(404)
        p, redirect_to = require("word")
        if redirect_to:
            if request.method == "POST":  # a stale or replayed submission: say so, change nothing
                return render_template(
                    "message.html",
                    title="Answer not accepted",
                    message="That word has already been answered; answers cannot be changed.",
                    link=url_for("index"),
                ), 409
            return redirect_to
        c = conn()
        error, status = None, 200
        if request.method == "POST":
            key = f"w{words_task.current_item(c, p['id']).position}"
            try:
                with transaction(c):
                    item, cell, answer_id = words_task.record_answer(
                        c, p["id"], request.form.get("word"), request.form.get("coordinate"), elapsed_ms(key)
                    )
                    if words_task.current_item(c, p["id"]) is None:
                        parts.mark_finished(c, p["id"])
            except words_task.AnswerRefused as err:
                return render_template(
                    "message.html", title="Answer not accepted", message=str(err), link=url_for("index")
                ), 409
            except ValueError as err:
                error, status = str(err), 400
            else:
                if config.show_feedback:
                    session["feedback"] = answer_id
                return redirect(next_url(p))
        item = words_task.current_item(c, p["id"])
        done, total = words_task.progress(c, p["id"])
        shown(f"w{item.position}")
        return render_template(
            "word.html",
            item=item,
            done=done,
            total=total,
            error=error,
            typed=request.form.get("coordinate", "") if error else "",
        ), status

    @app.route("/words/feedback", methods=["GET", "POST"])
    def word_feedback():
        if config.task != "words":
            abort(404)
        p, redirect_to = require("word_feedback")
        if redirect_to:
            return redirect_to
        if request.method == "POST":
            session.pop("feedback", None)
            return redirect(next_url(p))
        c = conn()
        row = c.execute(
            "SELECT id, word, cell FROM word_answers WHERE id = ? AND participant_id = ?",
            (int(session["feedback"]), p["id"]),
        ).fetchone()
        if row is None:
            session.pop("feedback", None)
            return redirect(next_url(p))
        counts = words_task.earlier_distribution(c, row["word"], row["id"])
        done, total = words_task.progress(c, p["id"])
        markers = {board.coords[i]: int(n) for i, n in enumerate(counts) if n}
        return render_template(
            "feedback.html",
            word=row["word"],
            own=format_coord(row["cell"]),
            markers=markers,
            n_earlier=int(counts.sum()),
            max_count=int(counts.max(initial=0)),
            done=done,
            total=total,
        )

    # -- GCA ---------------------------------------------------------------------------------------
    @app.route("/gca", methods=["GET", "POST"])
    def gca():
        if config.task != "gca":
            abort(404)
        p, redirect_to = require("gca")
        if redirect_to:
            if request.method == "POST":
                return render_template(
                    "message.html",
                    title="Answer not accepted",
                    message="That item has already been answered; answers cannot be changed.",
                    link=url_for("index"),
                ), 409
            return redirect_to
        c = conn()
        error, status = None, 200
        if request.method == "POST":
            key = f"g{gca_task.current_item(c, p['id']).position}"
            try:
                with transaction(c):
                    gca_task.record_response(c, p["id"], request.form, elapsed_ms(key))
                    if gca_task.current_item(c, p["id"]) is None:
                        parts.mark_finished(c, p["id"])
            except gca_task.ResponseRefused as err:
                return render_template(
                    "message.html", title="Answer not accepted", message=str(err), link=url_for("index")
                ), 409
            except ValueError as err:
                error, status = str(err), 400
            else:
                return redirect(next_url(p))
        item = gca_task.current_item(c, p["id"])
        done, total = gca_task.progress(c, p["id"])
        shown(f"g{item.position}")
        return render_template("gca.html", item=item, done=done, total=total, error=error), status

    @app.get("/gca/image/<int:position>.png")
    def gca_stimulus(position: int):
        p = participant()
        if config.task != "gca" or p is None:
            abort(404)
        png = gca_task.stimulus_png(conn(), p["id"], position)
        if png is None:
            abort(404)
        return Response(png, mimetype="image/png", headers={"Cache-Control": "private, max-age=3600"})

    # -- tessellation ------------------------------------------------------------------------------
    @app.route("/tessellation", methods=["GET", "POST"])
    def tessellation():
        if config.task != "tessellation":
            abort(404)
        p, redirect_to = require("tessellation")
        if redirect_to:
            if request.method == "POST":
                return render_template(
                    "message.html",
                    title="Not accepted",
                    message="Your tessellation was already submitted.",
                    link=url_for("index"),
                ), 409
            return redirect_to
        error = None
        if request.method == "POST":
            try:
                cats = tess_task.parse_painting(request.form.get("categories"))
                c = conn()
                with transaction(c):
                    tess_task.store_painting(c, p["id"], cats)
                    parts.mark_finished(c, p["id"])
            except tess_task.PaintingRefused as err:
                return render_template(
                    "message.html", title="Not accepted", message=str(err), link=url_for("index")
                ), 409
            except ValueError as err:
                error = str(err)
            else:
                return redirect(url_for("done"))
        return render_template(
            "tessellation.html",
            colours=MACRO_COLOURS,
            error=error,
            painted=request.form.get("categories", "") if error else "",
        ), (400 if error else 200)

    @app.get("/tessellation/consensus")
    def consensus():
        if config.task != "tessellation":
            abort(404)
        paintings = [cats for _, cats in tess_task.load_paintings(conn())]
        table = tess_task.consensus_table(paintings) if paintings else None
        cells_out = [] if table is None else list(zip(table["coord"], table["category"], table["agreement"]))
        return render_template("consensus.html", n=len(paintings), consensus=cells_out)

    @app.get("/done")
    def done():
        p = participant()
        if p is None:
            return redirect(url_for("start"))
        if next_url(p) != url_for("done"):
            return redirect(next_url(p))
        return render_template("done.html")

    app.extensions["huesenv_collect"] = {"db": db, "config": config, "seed": seed}
    return app


def app_from_env() -> Flask:
    """An app configured from environment variables, for production WSGI servers.

    ``huesenv collect serve`` runs Flask's threaded development server, which is
    fine on loopback; a public deployment should use a WSGI server behind HTTPS,
    e.g. ``waitress-serve --call huesenv.collect.app:app_from_env`` with
    ``HUESENV_COLLECT_DB`` (required), ``HUESENV_COLLECT_TASK`` (default
    ``words``), ``HUESENV_COLLECT_VOCABULARY`` (a vocabulary file) and
    ``HUESENV_COLLECT_WORDS`` (words per participant, default 15).
    """
    db = os.environ.get("HUESENV_COLLECT_DB")
    if not db:
        raise ValueError("HUESENV_COLLECT_DB: expected the path of the collection database")
    vocabulary = None
    if os.environ.get("HUESENV_COLLECT_VOCABULARY"):
        vocabulary = read_vocabulary_file(os.environ["HUESENV_COLLECT_VOCABULARY"])
    k = os.environ.get("HUESENV_COLLECT_WORDS", str(words_task.DEFAULT_WORDS_PER_PARTICIPANT))
    if not k.isdigit():
        raise ValueError(f"HUESENV_COLLECT_WORDS: expected a whole number, got {k!r}")
    return create_app(
        CollectConfig(
            db_path=db,
            task=os.environ.get("HUESENV_COLLECT_TASK", "words"),
            vocabulary=vocabulary,
            words_per_participant=int(k),
        )
    )
