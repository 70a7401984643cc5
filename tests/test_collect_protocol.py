"""A study a lab can run on Prolific: sessions that survive people, the no-consent path, the end redirect,
display facts, phone upright, control characters, database failures as a translated 503, protocol details."""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("flask")

from huesenv.collect.app import CollectConfig, create_app  # noqa: E402
from huesenv.collect.db import SECRET_KEY_ENV  # noqa: E402
from huesenv.collect.export import participants_frame, word_answers_frame  # noqa: E402
from huesenv.collect.testing import ClientParticipant, onboarding_form  # noqa: E402
from huesenv.vocabulary import words  # noqa: E402

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
LANDING = f"/?PROLIFIC_PID={PID}&STUDY_ID=study42&SESSION_ID=sess9"


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch):
    monkeypatch.delenv(SECRET_KEY_ENV, raising=False)


def make_app(tmp_path, **kw):
    kw.setdefault("start_rate", None)
    kw.setdefault("vocabulary", words()[:5])
    kw.setdefault("words_per_participant", 3)
    kw.setdefault("show_feedback", False)
    return create_app(CollectConfig(db_path=tmp_path / "collect.sqlite3", **kw))


def n_participants(tmp_path) -> int:
    with sqlite3.connect(tmp_path / "collect.sqlite3") as conn:
        return conn.execute("SELECT COUNT(*) FROM participants").fetchone()[0]


# -- sessions that survive people ---------------------------------------------------------------------
def test_a_participant_on_a_new_browser_is_re_attached_to_their_answers(tmp_path):
    app = make_app(tmp_path)
    first = app.test_client()
    first.get(LANDING)
    p = ClientParticipant(first)
    page, answered = p.answer_words(p.onboard(), lambda w: "B2", limit=1)
    # the browser crashed; the same Prolific link opens on a phone (ids in another case, too)
    phone = ClientParticipant(app.test_client())
    page = phone.get(LANDING.replace(PID, PID.upper()))
    assert page.path == "/words" and "Word 2 of 3" in page.text  # no consent or demographics again
    page, more = phone.answer_words(page, lambda w: "C3")
    assert page.path == "/done" and n_participants(tmp_path) == 1
    # a link to /start works the same way
    late = ClientParticipant(app.test_client())
    assert late.get(f"/start?PROLIFIC_PID={PID}&STUDY_ID=study42&SESSION_ID=sess9").path == "/done"
    frame = word_answers_frame(tmp_path / "collect.sqlite3")
    assert len(frame) == 3 and frame["userId"].nunique() == 1


def test_a_returning_id_is_told_what_to_do_before_any_form(tmp_path):
    app = make_app(tmp_path, completion_code="C0DE42", completion_url="https://example.org/done?cc={code}")
    first = app.test_client()
    first.get(LANDING)
    p = ClientParticipant(first)
    p.answer_words(p.onboard(), lambda w: "B2", limit=1)
    other = app.test_client()  # same participant id, another platform session: cannot start again
    other.get(f"/?PROLIFIC_PID={PID}&STUDY_ID=study42&SESSION_ID=another")
    resp = other.get("/", follow_redirects=True)
    text = resp.get_data(as_text=True)
    assert resp.status_code == 409 and "another session" in text and "return the study" in text
    assert 'name="consent"' not in text
    # once finished, the same link shows the end again, with the completion code
    ClientParticipant(first).answer_words(ClientParticipant(first).get("/words"), lambda w: "B2")
    again = app.test_client()
    again.get(f"/?PROLIFIC_PID={PID}&STUDY_ID=study42&SESSION_ID=another")
    text = again.get("/", follow_redirects=True).get_data(as_text=True)
    assert "already completed" in text and "C0DE42" in text
    assert n_participants(tmp_path) == 1


def test_ids_are_normalised_so_changing_case_does_not_give_a_second_place(tmp_path):
    app = make_app(tmp_path)
    c1 = app.test_client()
    c1.get(f"/?PROLIFIC_PID={PID}")
    ClientParticipant(c1).onboard()
    c2 = app.test_client()
    c2.get(f"/?PROLIFIC_PID=%20{PID.upper()}%20")
    page = ClientParticipant(c2).get("/")
    assert page.status == 409 and n_participants(tmp_path) == 1
    assert participants_frame(tmp_path / "collect.sqlite3")["platformPid"].tolist() == [PID]


def test_an_id_can_be_required(tmp_path):
    app = make_app(tmp_path, require_platform_id=True)
    client = app.test_client()
    resp = client.get("/start")
    assert resp.status_code == 403 and "link on the study platform" in resp.get_data(as_text=True)
    token = "x"
    assert client.post("/start", data={"csrf_token": token, **onboarding_form()}).status_code in (400, 403)
    assert n_participants(tmp_path) == 0
    client.get(f"/?PROLIFIC_PID={PID}")
    assert ClientParticipant(client).onboard().path == "/words"


def test_no_consent_path_stores_nothing_and_gives_its_own_code(tmp_path):
    app = make_app(
        tmp_path,
        no_consent_code="NOCONSENT1",
        no_consent_url="https://app.prolific.com/submissions/complete?cc={code}",
    )
    client = app.test_client()
    start = client.get("/start").get_data(as_text=True)
    assert 'id="decline"' in start
    text = client.get("/declined").get_data(as_text=True)
    assert "NOCONSENT1" in text and "return the study" in text
    assert 'href="https://app.prolific.com/submissions/complete?cc=NOCONSENT1"' in text
    assert n_participants(tmp_path) == 0
    es = client.get("/declined", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert "Ha decidido no participar" in es


def test_the_end_page_redirects_to_the_platform_and_keeps_the_button(tmp_path):
    url = "https://app.prolific.com/submissions/complete?cc={code}"
    app = make_app(tmp_path, completion_code="C1AB2CD3", completion_url=url, completion_redirect_s=3)
    p = ClientParticipant(app.test_client())
    page, _ = p.answer_words(p.onboard(), lambda w: "B2")
    final = "https://app.prolific.com/submissions/complete?cc=C1AB2CD3"
    assert f'<meta http-equiv="refresh" content="3; url={final}">' in page.text
    assert f'id="completion-link" href="{final}"' in page.text
    (tmp_path / "x").mkdir()
    app = make_app(tmp_path / "x", completion_url=url.replace("{code}", "Z"), completion_redirect_s=0)
    p = ClientParticipant(app.test_client())
    page, _ = p.answer_words(p.onboard(), lambda w: "B2")
    assert "http-equiv" not in page.text and 'id="completion-link"' in page.text


# -- display facts and phone upright -----------------------------------------------------------------
def test_display_facts_and_screen_check_are_recorded(tmp_path):
    app = make_app(tmp_path)
    p = ClientParticipant(app.test_client())
    facts = {
        "d_viewport": "1400x1000",
        "d_screen": "2560x1440",
        "d_dpr": "2",
        "d_orientation": "landscape",
        "d_gamut": "p3",
        "d_forced": "0",
        "d_dark": "1",
        "d_contrast": "more",
        "screen_check": ["t1", "t2", "t3"],  # t2 is a catch tile
    }
    p.onboard(**facts)
    row = participants_frame(tmp_path / "collect.sqlite3").iloc[0]
    assert (row.viewportWidth, row.viewportHeight, row.screenWidth, row.devicePixelRatio) == (
        1400,
        1000,
        2560,
        2.0,
    )
    assert (row.orientationAtStart, row.colorGamut, row.forcedColors, row.darkMode) == (
        "landscape",
        "p3",
        0,
        1,
    )
    assert (row.prefersContrast, row.screenCheckSeen, row.screenCheckHits, row.screenCheckFalseAlarms) == (
        "more",
        "t1,t2,t3",
        2,
        1,
    )
    # nonsense facts are stored as missing, never refused (they describe the browser)
    q = ClientParticipant(app.test_client())
    assert q.onboard(d_viewport="9x9x9", d_dpr="NaN", d_gamut="<b>", d_forced="2").path == "/words"
    row = participants_frame(tmp_path / "collect.sqlite3").iloc[1]
    assert row[["viewportWidth", "devicePixelRatio", "colorGamut", "forcedColors"]].isna().all()


def test_onboarding_page_has_the_screen_check_and_forced_colour_rules(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    text = client.get("/start").get_data(as_text=True)
    assert text.count('name="screen_check"') == 6 and 'data-fact="forced"' in text
    css = client.get("/static/style.css").get_data(as_text=True)
    assert "forced-color-adjust: none" in css and "(forced-colors: active)" in css
    assert client.get("/favicon.ico").status_code == 301
    assert client.get("/static/favicon.svg").status_code == 200


def test_answers_from_a_phone_held_upright_are_refused_and_orientation_recorded(tmp_path):
    app = make_app(tmp_path)
    p = ClientParticipant(app.test_client())
    page = p.onboard()
    upright = {"d_orientation": "portrait", "d_viewport": "390x844"}
    bad = p.post("/words", {"csrf_token": page.token, "word": page.word, "coordinate": "B2", **upright})
    assert bad.status == 400 and "sideways" in bad.text
    assert word_answers_frame(tmp_path / "collect.sqlite3", include_unfinished=True).empty
    sideways = {"d_orientation": "landscape", "d_viewport": "844x390"}
    ok = p.post("/words", {"csrf_token": bad.token, "word": page.word, "coordinate": "B2", **sideways})
    assert ok.status == 200
    frame = word_answers_frame(tmp_path / "collect.sqlite3", include_unfinished=True)
    assert frame["orientation"].tolist() == ["landscape"]


# -- robust edges -------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/start%0d%0aSet-Cookie:%20x=1", "/words%00", "/?lang=es%0a", "/x%1b[31m"])
def test_control_characters_are_refused_with_400(tmp_path, path):
    client = make_app(tmp_path).test_client()
    resp = client.get(path)
    assert resp.status_code == 400 and "Set-Cookie: x" not in str(resp.headers)


def test_a_full_disk_gives_a_translated_503_and_loses_nothing_acknowledged(tmp_path, monkeypatch):
    from huesenv.collect.tasks import words as words_task

    app = make_app(tmp_path)
    p = ClientParticipant(app.test_client())
    page = p.onboard()
    page = p.post("/words", {"csrf_token": page.token, "word": page.word, "coordinate": "B2"})  # acknowledged
    word = page.word
    record = words_task.record_answer

    def disk_full(conn, *args, **kwargs):  # the row is written, then the disk fills before COMMIT
        record(conn, *args, **kwargs)
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(words_task, "record_answer", disk_full)
    resp = p.client.post(
        "/words",
        data={"csrf_token": page.token, "word": word, "coordinate": "C3"},
        headers={"Accept-Language": "es"},
    )
    text = resp.get_data(as_text=True)
    assert (
        resp.status_code == 503
        and "No disponible temporalmente" in text
        and resp.headers["Retry-After"] == "60"
    )
    assert "Traceback" not in text and "disk is full" not in text
    monkeypatch.undo()
    frame = word_answers_frame(tmp_path / "collect.sqlite3", include_unfinished=True)
    assert frame["coordinate"].tolist() == [
        "B2"
    ]  # the acknowledged answer is there; the refused one rolled back
    again = p.post("/words", {"csrf_token": page.token, "word": word, "coordinate": "C3"})
    assert again.status == 200
    frame = word_answers_frame(tmp_path / "collect.sqlite3", include_unfinished=True)
    assert frame["coordinate"].tolist() == ["B2", "C3"]


def test_protocol_details(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    text = client.get("/start").get_data(as_text=True)
    assert (
        'value="18-19"' in text and ">18-19<" in text and ">10-19<" not in text
    )  # adults only: the bracket says what it holds
    assert "Which of these languages do you speak best?" in text
    css = client.get("/static/style.css").get_data(as_text=True)
    assert "::placeholder { text-transform: none; }" in css  # "e.g. I18", not "E.G. I18"
    es = client.get("/start", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert "Le damos la bienvenida" in es and "Bienvenida" not in es
    (tmp_path / "g").mkdir()
    guardian = make_app(tmp_path / "g", age_policy="guardian")
    assert ">10-19<" in guardian.test_client().get("/start").get_data(as_text=True)
