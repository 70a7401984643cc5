"""The study frame every task shares: landing, onboarding (consent, demographics), instructions, the end.

**Study-platform ids.**  ``?PROLIFIC_PID=&STUDY_ID=&SESSION_ID=`` are taken off
the URL at once (kept in the session) and normalised (surrounding spaces
dropped, lower-cased: Prolific's ids are lower-case hexadecimal, so changing the
case cannot make a second participant of one person).  They are checked on the
landing page, before anyone fills in a form.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.views.study``.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from urllib.parse import quote, urlencode

from flask import Blueprint, Response, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response as BaseResponse

from huesenv.collect import participants as parts
from huesenv.collect import platform as plat
from huesenv.collect.config import DEFAULT_INFORMATION
from huesenv.collect.db import utc_now
from huesenv.collect.display import parse_display
from huesenv.collect.state import AppState, current_state
from huesenv.collect.views.pages import login, logout, message, next_url, participant, require

log = logging.getLogger("huesenv.collect")
bp = Blueprint("study", __name__)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
RETRY_WINDOW_S = 30.0  # a replayed onboarding form logs in only this soon after it was first accepted


# -- every request ------------------------------------------------------------------------------------
@bp.before_app_request
def _refuse_control_characters():
    """CR/LF or other control characters in the path or the query: 400 (they could forge log lines)."""
    raw = request.path + "".join(k + v for k, v in request.args.items(multi=True))
    if _CONTROL.search(raw):
        return message(_("Bad request"), _("The request could not be understood."), 400, "/")
    return None


@bp.before_app_request
def _preferences():
    """``?lang=`` sets the interface language; study-platform ids go into the session, off the URL."""
    if request.method != "GET":
        return None
    lang = request.args.get("lang")
    if lang in current_state().ui_codes:
        session["ui"] = lang
    found = {key: request.args[key] for key in plat.PARAMS if key in request.args}
    if not found:
        return None
    try:
        ids = plat.parse_ids(found)
    except ValueError as err:
        return message(_("Bad request"), str(err), 400, url_for("study.index"))
    if "pid" in session and ids.get("platform_pid") not in (None, _platform().get("platform_pid")):
        logout()  # another person's link (a shared computer): never file their answers under this one
    if "pid" not in session:  # an ongoing participant keeps the ids they arrived with
        session["platform"] = ids
        session.pop("platform_checked", None)
    rest = [(k, v) for k, v in request.args.items(multi=True) if k not in plat.PARAMS and k != "lang"]
    return redirect(request.path + (f"?{urlencode(rest)}" if rest else ""))


def _platform() -> dict[str, str]:
    value = session.get("platform")
    return value if isinstance(value, dict) else {}


# -- pages ----------------------------------------------------------------------------------------------
@bp.get("/healthz")
def healthz():
    return {"ok": True, "task": current_state().config.task}


@bp.get("/favicon.ico")
def favicon():
    return redirect(url_for("static", filename="favicon.svg"), code=301)


@bp.get("/")
def index():
    p = participant()
    if p is None and _platform():
        returning = _returning(current_state())
        if returning is not None:
            return returning
    return redirect(next_url(p))


def _returning(state: AppState) -> BaseResponse | None:
    """A platform id seen before: re-attach the same session, or say what to do (``None``: a new person)."""
    ids = _platform()
    found = plat.find(state.conn(), state.config.task, ids.get("platform_pid"))
    if found is None:
        return None
    if plat.same_session(found, ids):
        login(found["participant_id"])
        session["platform"] = ids
        log.info("participant re-attached to their session (%s task)", state.config.task)
        return redirect(next_url(participant()))
    if found["finished_at"] is not None:
        code, url = _completion(state)
        return message(
            _("Already taken part"),
            _("This study-platform ID has already completed this study. Thank you!"),
            409,
            completion_code=code,
            completion_url=url,
        )
    return message(
        _("Already taken part"),
        _(
            "This study-platform ID has already started this study in another session, so it cannot start "
            "again. If you did not finish, please return the study on the platform (do not submit it without a "
            "code) and contact the researchers through the platform: they can reset your place."
        ),
        409,
    )


def _completion(state: AppState) -> tuple[str | None, str | None]:
    """The completion code and the address to send a finished participant to (``{code}`` filled in)."""
    cfg = state.config
    url = cfg.completion_url
    if url is not None and cfg.completion_code is not None:
        url = url.replace("{code}", quote(cfg.completion_code, safe=""))
    return cfg.completion_code, url


@bp.route("/start", methods=["GET", "POST"])
def start():
    state = current_state()
    p = participant()
    if p is not None:
        return redirect(next_url(p))
    if request.method == "GET" and _platform():  # a study link may point at /start too
        returning = _returning(state)
        if returning is not None:
            return returning
    if state.config.require_platform_id and not _platform().get("platform_pid"):
        return message(
            _("Open the study from the study platform"),
            _(
                "This study can only be started from the link on the study platform, which identifies you "
                "there. Please go back to the platform and open the study from its page."
            ),
            403,
        )
    token = session.get("onboarding")
    if not isinstance(token, str) or not 16 <= len(token) <= 64:
        token = session["onboarding"] = secrets.token_hex(16)
    error = None
    if request.method == "POST":
        error, response = _onboard(state, token)
        if response is not None:
            return response
    return render_template(
        "onboarding.html",
        languages=state.languages,
        default_language={"en": "english", "es": "spanish"}.get(state.ui(), ""),
        genders=parts.GENDERS,
        ages=state.ages,
        age_policy=state.config.age_policy,
        adult_age=state.config.adult_age,
        information=_information(state),
        error=error,
        form=request.form,
    ), (400 if error else 200)


def _information(state: AppState) -> tuple[str, ...]:
    text = state.information.get(state.ui())
    return text if text is not None else tuple(_(paragraph) for paragraph in DEFAULT_INFORMATION)


def _form_error(state: AppState, err: parts.FieldError) -> str:
    age = state.config.adult_age
    texts = {
        "consent": _("Please confirm that you agree to take part."),
        "adult-only": _(
            "This study is open only to people aged %(age)s or older. Thank you for your interest.", age=age
        ),
        "guardian": _(
            "Participants under %(age)s need the consent of a parent or legal guardian: please ask "
            "them to read the information and tick the box.",
            age=age,
        ),
        "age-check": _("Your age answer says you are under %(age)s: please check it.", age=age),
        "display": _("Please confirm that your screen is set up as described."),
    }
    return texts.get(err.rule) or _("field %(field)s: please choose one of the options", field=err.field)


def _onboard(state: AppState, token: str) -> tuple[str | None, BaseResponse | None]:
    """Validate and store the onboarding form: ``(error, None)`` or ``(None, response)``."""
    c = state.conn()
    row = c.execute(
        "SELECT participant_id, (julianday('now') - julianday(consent_at)) * 86400 FROM onboardings"
        " WHERE token = ?",
        (token,),
    ).fetchone()
    if row is not None:  # this very form was accepted before
        if row[1] is None or row[1] > RETRY_WINDOW_S:  # not a retry: a kept cookie is no credential
            logout()
            return None, redirect(url_for("study.start"))
        login(row[0])  # a double click or a network retry
        return None, redirect(next_url(participant()))
    try:
        demo = parts.parse_demographics(request.form, state.languages, state.ages)
        consent = parts.parse_consent(request.form, demo, state.config.age_policy)
    except parts.FieldError as err:
        return _form_error(state, err), None
    limited = _rate_limited(state)
    if limited is not None:
        return None, limited
    display = parse_display(request.form)
    platform = _platform()
    after = None
    with state.writing(c):
        locked_at = time.perf_counter()  # BEGIN IMMEDIATE returned: the write lock is ours
        row = c.execute("SELECT participant_id FROM onboardings WHERE token = ?", (token,)).fetchone()
        if row is not None:  # a concurrent replay won the race
            pid = row[0]
        elif plat.find(c, state.config.task, platform.get("platform_pid")) is not None:
            return None, message(
                _("Already taken part"),
                _("This study-platform ID has already taken part in this study."),
                409,
            )
        else:
            pid, serial = parts.create_participant(c, state.config.task, demo)
            assert state.task is not None
            after = state.task.enrol(state, c, pid, serial)
            c.execute(
                "INSERT INTO onboardings (token, participant_id, consent_at, consent_text, adult,"
                " guardian, display_ok, platform_pid, study_id, session_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    token,
                    pid,
                    utc_now(),
                    "\n\n".join(_information(state)),
                    int(consent.adult),
                    int(consent.guardian),
                    int(consent.display_ok),
                    platform.get("platform_pid"),
                    platform.get("study_id"),
                    platform.get("session_id"),
                ),
            )
            display.store(c, pid)
    held_ms = (time.perf_counter() - locked_at) * 1000
    if after is not None:
        after()
    login(pid)
    session["platform"] = platform
    log.info("participant joined (%s task; write lock held %.1f ms)", state.config.task, held_ms)
    return None, redirect(url_for("study.instructions"))


def _rate_limited(state: AppState) -> Response | None:
    if state.limiter is None:
        return None
    wait = state.limiter.hit(request.remote_addr or "-")
    if wait is None:
        return None
    minutes = max(1, int(wait // 60) + 1)
    return message(
        _("Too many attempts"),
        _("Too many sign-ups from your connection. Please try again in %(n)s minutes.", n=minutes),
        429,
        None,
        {"Retry-After": str(int(wait) + 1)},
    )


@bp.get("/declined")
def declined():
    """The person does not consent: nothing is stored; they are told to return the study (with its code)."""
    state = current_state()
    if participant() is not None:
        return redirect(url_for("study.index"))
    cfg = state.config
    url = cfg.no_consent_url
    if url is not None and cfg.no_consent_code is not None:
        url = url.replace("{code}", quote(cfg.no_consent_code, safe=""))
    return render_template("declined.html", code=cfg.no_consent_code, url=url)


@bp.route("/instructions", methods=["GET", "POST"])
def instructions():
    p, redirect_to = require("study.instructions")
    if redirect_to:
        return redirect_to
    assert p is not None
    state = current_state()
    if request.method == "POST":
        c = state.conn()
        with state.writing(c):
            parts.mark_started(c, p["id"])
        return redirect(next_url(participant()))
    assert state.task is not None
    return render_template("instructions.html", **state.task.instructions(state))


@bp.get("/done")
def done():
    p = participant()
    if p is None:
        return redirect(url_for("study.start"))
    if next_url(p) != url_for("study.done"):
        return redirect(next_url(p))
    state = current_state()
    code, url = _completion(state)
    return render_template(
        "done.html", redirect_s=state.config.completion_redirect_s, completion_code=code, completion_url=url
    )
