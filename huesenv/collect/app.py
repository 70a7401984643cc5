"""The Flask application factory: onboarding, instructions and one task per server.

Server-rendered pages (Jinja templates, a little vanilla JS, no build step).
The participant's only state in the browser is a signed session cookie holding
a random participant id; everything else is in SQLite, and the server decides
what comes next, so the back button or a replayed form cannot change an
answer.  Forms carry CSRF tokens (flask-wtf).  Nothing about a participant is
written to the logs: URLs never carry answers or demographics (a study
platform's ``?PROLIFIC_PID=`` is taken off the URL at once), and the app logs
only counts.

Hardening (see :mod:`huesenv.collect.security` and ``docs/collect-deployment.md``):
cookies ``HttpOnly``, ``SameSite=Lax`` and ``Secure`` (``secure_cookies``, on by
default; switch it off only for plain-http use on this machine); security headers
on every response; the signing key outside the database
(:func:`huesenv.collect.db.session_key`); onboarding idempotent (a replayed form
returns the participant it created) and rate-limited per client; GCA images
rendered outside write transactions; the public consensus page cached; every
bad request answered with a 4xx page in the participant's interface language
(:mod:`huesenv.collect.i18n`).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import threading
import time
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlencode

import numpy as np
from flask import Flask, Response, abort, g, redirect, render_template, request, session, url_for
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from huesenv.board import N_COLS, N_ROWS, ROW_LETTERS, format_coord, load_board
from huesenv.categories import MACRO_COLOURS
from huesenv.collect import i18n
from huesenv.collect import participants as parts
from huesenv.collect.config import DEFAULT_INFORMATION, TASKS, CollectConfig, check_config, paragraphs  # noqa: F401 (re-exported)
from huesenv.collect.db import Database, session_key, transaction, utc_now
from huesenv.collect.gca_probes import make_probes_source
from huesenv.collect.security import RateLimiter, add_security_headers, parse_rate
from huesenv.collect.tasks import gca as gca_task
from huesenv.collect.tasks import tessellation as tess_task
from huesenv.collect.tasks import words as words_task
from huesenv.vocabulary import Word, read_vocabulary_file, words

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
# Study-platform parameters captured from the landing URL (Prolific's names).
PLATFORM_PARAMS = {"PROLIFIC_PID": "platform_pid", "STUDY_ID": "study_id", "SESSION_ID": "session_id"}
_PLATFORM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def create_app(config: CollectConfig) -> Flask:
    """Build the app for one task; creates the database (schema, seed) and key file if needed."""
    check_config(config)
    vocabulary: tuple[Word, ...] = ()
    if config.task == "words":
        vocabulary = words_task.check_vocabulary(config.vocabulary or words(), config.words_per_participant)
    source = config.gca_source
    if config.task == "gca":
        gca_task.introspection_condition(config.gca_introspection, 1)  # validates the mode
        if source is None:
            source = make_probes_source()
        for condition in ("first", "last"):  # a dry run: the survey can be drawn (nothing is rendered)
            n_checks = len(
                gca_task.attention_slots(config.gca_trials, config.gca_attention_positions, condition)
            )
            drawn = source(np.random.default_rng(0), config.gca_trials, n_checks)
            if len(drawn) != config.gca_trials + n_checks:
                raise ValueError(
                    f"GCA stimulus source gave {len(drawn)} stimuli, expected {config.gca_trials + n_checks}"
                )
    languages = tuple(config.languages)
    if not languages or any(not 1 <= len(x) <= parts.MAX_FIELD for x in languages):
        raise ValueError(f"languages: expected 1-{parts.MAX_FIELD} character names, got {languages!r}")
    ages = parts.age_ranges(config.age_policy)
    information: dict[str, tuple[str, ...]] = {}
    for ui, _name in i18n.UI_LANGUAGES:
        text = config.information.get(ui) if isinstance(config.information, Mapping) else config.information
        information[ui] = (
            paragraphs(text)
            if text
            else tuple(i18n.translate(ui, paragraph) for paragraph in DEFAULT_INFORMATION)
        )
    db = Database(config.db_path)  # only once the configuration is known to be valid
    secret = session_key(db, config.secret_key_file)
    seed = int(config.seed if config.seed is not None else db.meta("seed"))

    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=bool(config.secure_cookies),
        MAX_CONTENT_LENGTH=64 * 1024,
        WTF_CSRF_TIME_LIMIT=None,  # the token is bound to the session; surveys can take long
        WTF_CSRF_SSL_STRICT=True,
        PERMANENT_SESSION_LIFETIME=7 * 24 * 3600,
    )
    app.config.update(config.extra_flask_config)
    if config.trust_proxy:
        n = config.trust_proxy
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n)  # type: ignore[method-assign]
    CSRFProtect(app)
    limiter = RateLimiter(*config.start_rate) if config.start_rate is not None else None
    consensus_cache = tess_task.ConsensusCache()
    board = load_board()
    cells = [
        (board.coords[i], "#{:02x}{:02x}{:02x}".format(*(int(v) for v in board.rgb[i])))
        for i in range(board.rgb.shape[0])
    ]
    grid = {"rows": ROW_LETTERS[:N_ROWS], "n_cols": N_COLS, "cells": cells}
    stop_prerender = threading.Event()
    # One writer at a time inside this process: threads queue on a lock (fair, no polling) instead of
    # SQLite's busy handler, which sleeps and retries and can starve a waiter for its whole timeout
    # when many participants arrive at once.  Other processes are still kept out by BEGIN IMMEDIATE.
    write_lock = threading.Lock()

    @contextmanager
    def writing(c):
        with write_lock, transaction(c):
            yield c

    images = gca_task.ImageStore(lookup=getattr(source, "render_png", None), write_lock=write_lock)

    def conn():
        if "conn" not in g:
            g.conn = db.connect()
        return g.conn

    @app.teardown_appcontext
    def _close(_exc):
        c = g.pop("conn", None)
        if c is not None:
            c.close()

    def ui() -> str:
        if "ui" not in g:
            g.ui = i18n.pick_language(session.get("ui"), request.accept_languages)
        return g.ui

    def _(message: str, **kwargs) -> str:
        return i18n.translate(ui(), message, **kwargs)

    def ngettext(singular: str, plural: str, n: int, **kwargs) -> str:
        return i18n.ntranslate(ui(), singular, plural, n, **kwargs)

    def age_label(age: str) -> str:
        if age == "-10":
            return _("under 10")
        if age == "+70":
            return _("70 or older")
        return age

    @app.context_processor
    def _globals():
        return {
            "task": config.task,
            "grid": grid,
            "category_display": CATEGORY_DISPLAY,
            "ui": ui(),
            "ui_languages": i18n.UI_LANGUAGES,
            "_": _,
            "ngettext": ngettext,
            "display_word": words_task.display_word,
            "age_label": age_label,
        }

    def message(title: str, text: str, status: int, link: str | None = None, headers=None):
        body = render_template("message.html", title=title, message=text, link=link)
        return Response(body, status=status, headers=headers, mimetype="text/html")

    @app.before_request
    def _preferences():
        """``?lang=`` sets the interface language; study-platform ids are kept in the session, off the URL."""
        if request.method != "GET":
            return None
        lang = request.args.get("lang")
        if lang in dict(i18n.UI_LANGUAGES):
            session["ui"] = lang
            g.pop("ui", None)
        found = {key: request.args.get(key) for key in PLATFORM_PARAMS if key in request.args}
        if not found:
            return None
        for key, value in found.items():
            if not isinstance(value, str) or not _PLATFORM_ID.fullmatch(value):
                return message(
                    _("Bad request"),
                    f"{key}: expected 1-64 letters, digits, '-' or '_'",
                    400,
                    url_for("index"),
                )
        if "pid" not in session:  # an ongoing participant keeps the ids they arrived with
            session["platform"] = {PLATFORM_PARAMS[k]: v for k, v in found.items()}
        rest = [(k, v) for k, v in request.args.items(multi=True) if k not in PLATFORM_PARAMS and k != "lang"]
        return redirect(request.path + (f"?{urlencode(rest)}" if rest else ""))

    @app.after_request
    def _headers(response):
        add_security_headers(response, request.is_secure)
        if response.mimetype == "text/html":
            response.headers.setdefault("Cache-Control", "no-store")
        return response

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
            try:
                return max(0, min(int((time.time() - float(mark[1])) * 1000), 2**31 - 1))
            except (TypeError, ValueError, OverflowError):
                return None
        return None

    @app.errorhandler(CSRFError)
    def _csrf(_err):
        return message(
            _("Form expired"),
            _(
                "This form is no longer valid (it may have been open in an old tab). "
                "Please continue from the current page."
            ),
            400,
            url_for("index"),
        )

    @app.errorhandler(HTTPException)
    def _http(err: HTTPException):
        titles = {
            404: ("Not found", "There is no such page."),
            405: ("Method not allowed", "This page cannot be used that way."),
            413: ("Too much data", "The form was too large."),
        }
        title, text = titles.get(err.code or 400, ("Bad request", "The request could not be understood."))
        if err.code and err.code >= 500:
            return err
        return message(_(title), _(text), err.code or 400, url_for("index"))

    @app.get("/healthz")
    def healthz():
        return {"ok": True, "task": config.task}

    @app.get("/")
    def index():
        return redirect(next_url(participant()))

    def login(pid: str) -> None:
        keep = {k: session[k] for k in ("ui",) if k in session}
        session.clear()
        session.update(keep)
        session.permanent = True
        session["pid"] = pid

    def form_error(err: parts.FieldError) -> str:
        age = config.adult_age
        if err.rule == "consent":
            return _("Please confirm that you agree to take part.")
        if err.rule == "adult-only":
            return _(
                "This study is open only to people aged %(age)s or older. Thank you for your interest.",
                age=age,
            )
        if err.rule == "guardian":
            return _(
                "Participants under %(age)s need the consent of a parent or legal guardian: please ask "
                "them to read the information and tick the box.",
                age=age,
            )
        if err.rule == "age-check":
            return _("Your age answer says you are under %(age)s: please check it.", age=age)
        if err.rule == "display":
            return _("Please confirm that your screen is set up as described.")
        return _("field %(field)s: please choose one of the options", field=err.field)

    @app.route("/start", methods=["GET", "POST"])
    def start():
        p = participant()
        if p is not None and p["task"] == config.task:
            return redirect(next_url(p))
        token = session.get("onboarding")
        if not isinstance(token, str) or not 16 <= len(token) <= 64:
            token = session["onboarding"] = secrets.token_hex(16)
        error = None
        if request.method == "POST":
            c = conn()
            row = c.execute("SELECT participant_id FROM onboardings WHERE token = ?", (token,)).fetchone()
            if row is not None:  # this very form was accepted before (a replay or a double click)
                login(row[0])
                return redirect(next_url(participant()))
            try:
                demo = parts.parse_demographics(request.form, languages, ages)
                consent = parts.parse_consent(request.form, demo, config.age_policy)
            except parts.FieldError as err:
                error = form_error(err)
            else:
                if limiter is not None:
                    wait = limiter.hit(request.remote_addr or "-")
                    if wait is not None:
                        minutes = max(1, int(wait // 60) + 1)
                        return message(
                            _("Too many attempts"),
                            _(
                                "Too many sign-ups from your connection. Please try again in %(n)s minutes.",
                                n=minutes,
                            ),
                            429,
                            None,
                            {"Retry-After": str(int(wait) + 1)},
                        )
                platform = session.get("platform") if isinstance(session.get("platform"), dict) else {}
                drawn: list = []
                with writing(c):
                    locked_at = time.perf_counter()  # BEGIN IMMEDIATE returned: the write lock is ours
                    row = c.execute(
                        "SELECT participant_id FROM onboardings WHERE token = ?", (token,)
                    ).fetchone()
                    if row is not None:  # a concurrent replay won the race
                        pid = row[0]
                    else:
                        if (
                            platform.get("platform_pid")
                            and c.execute(
                                "SELECT 1 FROM onboardings o JOIN participants p ON p.id = o.participant_id"
                                " WHERE o.platform_pid = ? AND p.task = ?",
                                (platform["platform_pid"], config.task),
                            ).fetchone()
                        ):
                            return message(
                                _("Already taken part"),
                                _("This study-platform ID has already taken part in this study."),
                                409,
                            )
                        pid, serial = parts.create_participant(c, config.task, demo)
                        if config.task == "words":
                            words_task.assign_words(
                                c,
                                pid,
                                serial,
                                vocabulary,
                                config.words_per_participant,
                                seed,
                                config.assignment,
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
                                on_drawn=drawn.extend,
                            )
                        c.execute(
                            "INSERT INTO onboardings (token, participant_id, consent_at, consent_text, adult,"
                            " guardian, display_ok, platform_pid, study_id, session_id)"
                            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (
                                token,
                                pid,
                                utc_now(),
                                "\n\n".join(information[ui()]),
                                int(consent.adult),
                                int(consent.guardian),
                                int(consent.display_ok),
                                platform.get("platform_pid"),
                                platform.get("study_id"),
                                platform.get("session_id"),
                            ),
                        )
                held_ms = (time.perf_counter() - locked_at) * 1000
                images.register(drawn)  # rendered when first shown, never inside a transaction
                login(pid)
                log.info("participant joined (%s task; write lock held %.1f ms)", config.task, held_ms)
                return redirect(url_for("instructions"))
        return render_template(
            "onboarding.html",
            languages=languages,
            default_language={"en": "english", "es": "spanish"}.get(ui(), ""),
            genders=parts.GENDERS,
            ages=ages,
            age_policy=config.age_policy,
            adult_age=config.adult_age,
            information=information[ui()],
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
            with writing(c):
                parts.mark_started(c, p["id"])
            return redirect(next_url(participant()))
        n = config.words_per_participant if config.task == "words" else None
        return render_template("instructions.html", n_words=n, show_feedback=config.show_feedback)

    # -- word → cell -------------------------------------------------------------------------------
    def refused(text: str):
        return message(_("Answer not accepted"), _(text), 409, url_for("index"))

    @app.route("/words", methods=["GET", "POST"])
    def word():
        if config.task != "words":
            abort(404)
        p, redirect_to = require("word")
        if redirect_to:
            if request.method == "POST":  # a stale or replayed submission: say so, change nothing
                return refused("That word has already been answered; answers cannot be changed.")
            return redirect_to
        c = conn()
        error, status = None, 200
        if request.method == "POST":
            key = f"w{words_task.current_item(c, p['id']).position}"
            try:
                with writing(c):
                    item, cell, answer_id = words_task.record_answer(
                        c, p["id"], request.form.get("word"), request.form.get("coordinate"), elapsed_ms(key)
                    )
                    if words_task.current_item(c, p["id"]) is None:
                        parts.mark_finished(c, p["id"])
            except words_task.AnswerRefused:
                return refused("That word has already been answered; answers cannot be changed.")
            except ValueError as err:
                error, status = str(err), 400
                if ui() != "en":
                    error = _("Please enter a row letter A-P and a column 1-30, e.g. I18.")
            else:
                if config.show_feedback:
                    session["feedback"] = answer_id
                return redirect(next_url(p))
        item = words_task.current_item(c, p["id"])
        done, total = words_task.progress(c, p["id"])
        shown(f"w{item.position}")
        typed = request.form.get("coordinate", "") if error else ""
        return render_template(
            "word.html", item=item, done=done, total=total, error=error, typed=typed[:8]
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
        answer = session.get("feedback")
        row = None
        if isinstance(answer, int) and 0 < answer < 2**63:
            row = c.execute(
                "SELECT id, word, cell FROM word_answers WHERE id = ? AND participant_id = ?",
                (answer, p["id"]),
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
                return refused("That item has already been answered; answers cannot be changed.")
            return redirect_to
        c = conn()
        error, status = None, 200
        if request.method == "POST":
            key = f"g{gca_task.current_item(c, p['id']).position}"
            try:
                with writing(c):
                    gca_task.record_response(c, p["id"], request.form, elapsed_ms(key))
                    if gca_task.current_item(c, p["id"]) is None:
                        parts.mark_finished(c, p["id"])
            except gca_task.ResponseRefused:
                return refused("That item has already been answered; answers cannot be changed.")
            except ValueError as err:
                error, status = str(err), 400
                if ui() != "en":
                    error = _(
                        "Please give a whole number from 0 to 100."
                        if "threshold" in str(err)
                        else "Please choose one of the colours and how sure you are."
                    )
            else:
                return redirect(next_url(p))
        item = gca_task.current_item(c, p["id"])
        done, total = gca_task.progress(c, p["id"])
        shown(f"g{item.position}")
        return render_template(
            "gca.html",
            item=item,
            item_object=gca_task.stimulus_object(c, item.stimulus_id) if item.stimulus_id else "",
            done=done,
            total=total,
            error=error,
        ), status

    @app.get("/gca/image/<int:position>.png")
    def gca_stimulus(position: int):
        p = participant()
        if config.task != "gca" or p is None:
            abort(404)
        sid = gca_task.stimulus_at(conn(), p["id"], position)
        png = None if sid is None else images.png(conn(), sid)
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
                return message(
                    _("Not accepted"), _("Your tessellation was already submitted."), 409, url_for("index")
                )
            return redirect_to
        error = None
        if request.method == "POST":
            try:
                cats = tess_task.parse_painting(request.form.get("categories"))
                c = conn()
                with writing(c):
                    tess_task.store_painting(c, p["id"], cats)
                    parts.mark_finished(c, p["id"])
            except tess_task.PaintingRefused:
                return message(
                    _("Not accepted"), _("Your tessellation was already submitted."), 409, url_for("index")
                )
            except ValueError as err:
                error = str(err)
            else:
                return redirect(url_for("done"))
        painted = request.form.get("categories", "") if error else ""
        return render_template(
            "tessellation.html",
            colours=MACRO_COLOURS,
            error=error,
            painted=painted if len(painted) <= tess_task.MAX_PAINTING_LENGTH else "",
        ), (400 if error else 200)

    @app.get("/tessellation/consensus")
    def consensus():
        """Public, so cached: votes are added incrementally and the page is rendered once per state."""
        if config.task != "tessellation":
            abort(404)
        state = consensus_cache.update(conn())
        etag = f"{state.n}-{state.last_rowid}-{ui()}"
        if request.if_none_match.contains(etag):
            resp = Response(status=304)
        else:
            body = consensus_cache.page(
                etag,
                lambda: render_template("consensus.html", n=state.n, consensus=state.cells),
            )
            resp = Response(body, mimetype="text/html")
        resp.set_etag(etag)
        resp.headers["Cache-Control"] = "no-cache"
        resp.headers["Vary"] = "Cookie, Accept-Language"
        return resp

    @app.get("/done")
    def done():
        p = participant()
        if p is None:
            return redirect(url_for("start"))
        if next_url(p) != url_for("done"):
            return redirect(next_url(p))
        url = config.completion_url
        if url is not None and config.completion_code is not None:
            url = url.replace("{code}", quote(config.completion_code, safe=""))
        return render_template("done.html", completion_code=config.completion_code, completion_url=url)

    if config.task == "gca" and config.gca_prerender and hasattr(source, "stimulus_ids"):

        def _prerender() -> None:
            with db.connection() as c:
                n = images.prerender(c, source.stimulus_ids, stop_prerender)
            log.info("GCA: %d stimulus images pre-rendered", n)

        threading.Thread(target=_prerender, name="gca-prerender", daemon=True).start()

    app.extensions["huesenv_collect"] = {
        "db": db,
        "config": config,
        "seed": seed,
        "images": images,
        "limiter": limiter,
        "stop": stop_prerender,
    }
    return app


def app_from_env() -> Flask:
    """An app configured from environment variables, for production WSGI servers.

    ``huesenv collect serve`` runs Flask's threaded development server, which is
    fine on loopback; a public deployment uses a WSGI server behind HTTPS
    (``docs/collect-deployment.md``), e.g. ``waitress-serve --threads 16
    --call huesenv.collect.app:app_from_env`` with ``HUESENV_COLLECT_DB``
    (required), ``HUESENV_COLLECT_TASK`` (default ``words``),
    ``HUESENV_COLLECT_VOCABULARY`` (a vocabulary file), ``HUESENV_COLLECT_WORDS``
    (words per participant, default 15), ``HUESENV_COLLECT_TRUST_PROXY`` (proxy
    hops, default 1), ``HUESENV_COLLECT_INFORMATION`` (information text file),
    ``HUESENV_COLLECT_COMPLETION_CODE`` / ``HUESENV_COLLECT_COMPLETION_URL`` and
    ``HUESENV_COLLECT_START_LIMIT`` (``N/SECONDS`` or ``off``).  Cookies are
    always ``Secure`` here.
    """
    env = os.environ
    db = env.get("HUESENV_COLLECT_DB")
    if not db:
        raise ValueError("HUESENV_COLLECT_DB: expected the path of the collection database")
    vocabulary = None
    if env.get("HUESENV_COLLECT_VOCABULARY"):
        vocabulary = read_vocabulary_file(env["HUESENV_COLLECT_VOCABULARY"])

    def whole(name: str, default: str) -> int:
        value = env.get(name, default)
        if not value.isdigit():
            raise ValueError(f"{name}: expected a whole number, got {value!r}")
        return int(value)

    information = None
    if env.get("HUESENV_COLLECT_INFORMATION"):
        information = Path(env["HUESENV_COLLECT_INFORMATION"]).read_text(encoding="utf-8")
    return create_app(
        CollectConfig(
            db_path=db,
            task=env.get("HUESENV_COLLECT_TASK", "words"),
            vocabulary=vocabulary,
            words_per_participant=whole(
                "HUESENV_COLLECT_WORDS", str(words_task.DEFAULT_WORDS_PER_PARTICIPANT)
            ),
            trust_proxy=whole("HUESENV_COLLECT_TRUST_PROXY", "1"),
            information=information,
            completion_code=env.get("HUESENV_COLLECT_COMPLETION_CODE") or None,
            completion_url=env.get("HUESENV_COLLECT_COMPLETION_URL") or None,
            start_rate=parse_rate(env.get("HUESENV_COLLECT_START_LIMIT", "30/600")),
            secure_cookies=True,
        )
    )
