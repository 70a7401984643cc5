"""The Flask application factory: one task per server, its pages in blueprints (:mod:`huesenv.collect.views`).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.app``.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Mapping

from flask import Flask, request, session
from flask_babel import Babel
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from huesenv.collect import i18n
from huesenv.collect import participants as parts
from huesenv.collect.config import (  # noqa: F401 (re-exported)
    DEFAULT_INFORMATION,
    MAX_INFORMATION_BYTES,
    TASKS,
    CollectConfig,
    check_config,
    paragraphs,
)
from huesenv.collect.db import Database, session_key
from huesenv.collect.display import SCREEN_CHECK
from huesenv.collect.security import RateLimiter, add_security_headers, parse_rate
from huesenv.collect.state import EXTENSION, AppState, close_connection, current_state
from huesenv.collect.tasks import words as words_task
from huesenv.collect.views import study, task_views
from huesenv.collect.views.pages import message
from huesenv.trust import read_user_text
from huesenv.vocabulary import read_vocabulary_file

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
ERROR_TEXTS = {
    404: ("Not found", "There is no such page."),
    405: ("Method not allowed", "This page cannot be used that way."),
    413: ("Too much data", "The form was too large."),
}


def _information(config: CollectConfig) -> dict[str, tuple[str, ...] | None]:
    """Per interface language: the configured paragraphs, or ``None`` for the translated placeholder."""
    out: dict[str, tuple[str, ...] | None] = {}
    for ui, _name in i18n.UI_LANGUAGES:
        info = config.information
        text = info.get(ui) if isinstance(info, Mapping) else info
        out[ui] = paragraphs(text) if text else None
    return out


def _flask_app(config: CollectConfig, secret: str) -> Flask:
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
    Babel(
        app,
        locale_selector=lambda: i18n.pick_language(session.get("ui"), request.accept_languages),
        default_translation_directories=str(i18n.TRANSLATIONS),
    )
    return app


def create_app(config: CollectConfig) -> Flask:
    """Build the app for one task; creates the database (schema, seed) and key file if needed."""
    check_config(config)
    views = task_views(config.task)
    task_data = views.prepare(config)
    languages = tuple(config.languages)
    if not languages or any(not 1 <= len(x) <= parts.MAX_FIELD for x in languages):
        raise ValueError(f"languages: expected 1-{parts.MAX_FIELD} character names, got {languages!r}")
    ages = parts.age_ranges(config.age_policy, config.adult_age)
    db = Database(config.db_path)  # only once the configuration is known to be valid
    db.mark_pilot(config.pilot)
    state = AppState(
        config=config,
        db=db,
        seed=config.seed if config.seed is not None else int(db.meta("seed") or 0),
        languages=languages,
        ages=ages,
        information=_information(config),
        limiter=RateLimiter(*config.start_rate) if config.start_rate is not None else None,
        task_data=task_data,
        task=views,
    )
    app = _flask_app(config, session_key(db, config.secret_key_file))
    app.extensions[EXTENSION] = state
    app.teardown_appcontext(close_connection)
    app.context_processor(_template_globals)
    app.after_request(_headers)
    app.register_error_handler(CSRFError, _csrf_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(sqlite3.Error, _storage_error)
    app.register_error_handler(OSError, _storage_error)
    app.register_blueprint(study.bp)
    app.register_blueprint(views.blueprint)
    if views.start is not None:
        views.start(state)
    return app


def _age_label(age: str) -> str:
    """How an age bracket is shown (the two open-ended codes in words)."""
    return {"-10": _("under 10"), "+70": _("70 or older")}.get(age, age)


def _template_globals() -> dict[str, object]:
    state = current_state()
    endpoint = request.endpoint or "none"
    return {
        "task": state.config.task,
        "grid": state.grid,
        "category_display": CATEGORY_DISPLAY,
        "screen_check": SCREEN_CHECK,
        "ui": state.ui(),
        "ui_languages": i18n.UI_LANGUAGES,
        "page_class": "page-" + endpoint.rsplit(".", 1)[-1],
        "display_word": words_task.display_word,
        "age_label": _age_label,
    }


def _headers(response):
    add_security_headers(response, request.is_secure)
    if response.mimetype == "text/html":
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def _csrf_error(_err: CSRFError):
    return message(
        _("Form expired"),
        _(
            "This form is no longer valid (it may have been open in an old tab). "
            "Please continue from the current page."
        ),
        400,
        "/",
    )


def _http_error(err: HTTPException):
    code = err.code or 400
    if code >= 500:
        return _server_error(code)
    title, text = ERROR_TEXTS.get(code, ("Bad request", "The request could not be understood."))
    return message(_(title), _(text), code, "/")


def _server_error(code: int):
    return message(
        _("Something went wrong"),
        _("The server could not handle this page. Nothing you submitted here was saved; please try again."),
        code,
        "/",
    )


def _storage_error(err: Exception):
    """A database error (a full disk, a locked or broken file): a translated 503; the write was rolled back."""
    log.error("storage error on %s %s: %s", request.method, request.path, type(err).__name__)
    return message(
        _("Temporarily unavailable"),
        _(
            "The study could not save or load your answers just now. Nothing you submitted on this page was "
            "saved, and everything you answered before is safe. Please wait a minute and try again."
        ),
        503,
        "/",
        {"Retry-After": "60"},
    )


def app_from_env() -> Flask:
    """An app configured from environment variables, for production WSGI servers.

    ``huesenv collect serve`` runs Flask's threaded development server, which is
    fine on loopback; a public deployment uses a WSGI server behind HTTPS
    (``docs/collect-deployment.md``), e.g. ``waitress-serve --threads 16
    --call huesenv.collect.app:app_from_env`` with ``HUESENV_COLLECT_DB``
    (required), ``HUESENV_COLLECT_TASK`` (default ``words``),
    ``HUESENV_COLLECT_VOCABULARY`` (a vocabulary file), ``HUESENV_COLLECT_WORDS``
    (words per participant, default 15), ``HUESENV_COLLECT_TRUST_PROXY`` (proxy
    hops, default 1), ``HUESENV_COLLECT_INFORMATION`` (the approved information sheet; required
    unless ``HUESENV_COLLECT_PILOT=1``),
    ``HUESENV_COLLECT_COMPLETION_CODE`` / ``HUESENV_COLLECT_COMPLETION_URL``,
    ``HUESENV_COLLECT_NO_CONSENT_CODE`` / ``HUESENV_COLLECT_NO_CONSENT_URL``,
    ``HUESENV_COLLECT_REQUIRE_PLATFORM_ID`` (``1`` to require a study-platform id) and
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
        try:
            information = read_user_text(
                env["HUESENV_COLLECT_INFORMATION"],
                expected="the information sheet",
                max_bytes=MAX_INFORMATION_BYTES,
            )
        except (OSError, ValueError) as err:
            raise ValueError(f"HUESENV_COLLECT_INFORMATION: {err}") from None
    pilot = env.get("HUESENV_COLLECT_PILOT") == "1"
    if information is None and not pilot:
        raise ValueError(
            "HUESENV_COLLECT_INFORMATION: expected the approved information sheet "
            "(HUESENV_COLLECT_PILOT=1 runs a pilot without one)"
        )
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
            pilot=pilot,
            completion_code=env.get("HUESENV_COLLECT_COMPLETION_CODE") or None,
            completion_url=env.get("HUESENV_COLLECT_COMPLETION_URL") or None,
            no_consent_code=env.get("HUESENV_COLLECT_NO_CONSENT_CODE") or None,
            no_consent_url=env.get("HUESENV_COLLECT_NO_CONSENT_URL") or None,
            require_platform_id=whole("HUESENV_COLLECT_REQUIRE_PLATFORM_ID", "0") > 0,
            start_rate=parse_rate(env.get("HUESENV_COLLECT_START_LIMIT", "30/600")),
            secure_cookies=True,
        )
    )
