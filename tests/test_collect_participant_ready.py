"""Participant-ready collection: consent and age gate, display guidance, study-platform ids and completion,
English and Spanish interface, correctly spelt words, the GCA introspection page, the painter's tools."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("flask")

from huesenv.collect import i18n  # noqa: E402
from huesenv.collect.app import CollectConfig, create_app  # noqa: E402
from huesenv.collect.db import SECRET_KEY_ENV  # noqa: E402
from huesenv.collect.export import participants_frame, word_answers_frame  # noqa: E402
from huesenv.collect.testing import ClientParticipant, onboarding_form  # noqa: E402
from huesenv.vocabulary import Word  # noqa: E402

TEMPLATES = Path(__file__).resolve().parents[1] / "huesenv" / "collect" / "templates"


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch):
    monkeypatch.delenv(SECRET_KEY_ENV, raising=False)


def make_app(tmp_path, **kw):
    kw.setdefault("words_per_participant", 2)
    kw.setdefault("start_rate", None)
    return create_app(CollectConfig(db_path=tmp_path / "collect.sqlite3", **kw))


def n_participants(tmp_path) -> int:
    with sqlite3.connect(tmp_path / "collect.sqlite3") as conn:
        return conn.execute("SELECT COUNT(*) FROM participants").fetchone()[0]


def post_start(p: ClientParticipant, **fields):
    page = p.get("/start")
    return p.post("/start", {"csrf_token": page.token, **onboarding_form(**fields)})


# -- consent, age gate, display ---------------------------------------------------------------------
def test_consent_and_display_confirmation_are_required(tmp_path):
    app = make_app(tmp_path)
    p = ClientParticipant(app.test_client())
    page = post_start(p, consent=None)
    assert page.status == 400 and "agree to take part" in page.text
    page = post_start(p, display=None)
    assert page.status == 400 and "screen is set up" in page.text
    assert n_participants(tmp_path) == 0
    page = p.get("/start")
    for text in ("brightness", "night mode", "colour-vision deficiency", "colour filters"):
        assert text in page.text


def test_adults_only_by_default(tmp_path):
    app = make_app(tmp_path)
    p = ClientParticipant(app.test_client())
    page = p.get("/start")
    assert 'value="-10"' not in page.text  # the under-10 bracket is not offered
    page = post_start(p, adult=None)
    assert page.status == 400 and "only to people aged 18 or older" in page.text
    page = post_start(p, age_range="-10")
    assert page.status == 400
    assert n_participants(tmp_path) == 0
    assert post_start(p, age_range="10-19").status == 400  # not offered: "18-19" is
    assert post_start(p, age_range="18-19").path == "/instructions"
    frame = participants_frame(tmp_path / "collect.sqlite3")
    assert frame["adult"].tolist() == [1] and frame["guardianConsent"].tolist() == [0]
    assert frame["ageRange"].tolist() == ["18-19"]  # stored and exported as shown


def test_guardian_policy_admits_minors_only_with_guardian_consent(tmp_path):
    app = make_app(tmp_path, age_policy="guardian", adult_age=16)
    p = ClientParticipant(app.test_client())
    page = p.get("/start")
    assert (
        'value="-10"' in page.text and "parent or legal guardian" in page.text and "16 years old" in page.text
    )
    page = post_start(p, adult=None, age_range="-10")
    assert page.status == 400 and "need the consent of a parent" in page.text
    page = post_start(p, adult="yes", age_range="-10")
    assert page.status == 400 and "under 16" in page.text
    assert post_start(p, adult=None, guardian="yes", age_range="-10").path == "/instructions"
    frame = participants_frame(tmp_path / "collect.sqlite3")
    assert frame["guardianConsent"].tolist() == [1] and frame["ageRange"].tolist() == ["-10"]


def test_information_text_is_configurable_per_language(tmp_path):
    info = {"en": "Study X by Lab Y.\n\nEthics approval 123.", "es": "Estudio X del laboratorio Y."}
    app = make_app(tmp_path, information=info)
    client = app.test_client()
    text = client.get("/start").get_data(as_text=True)
    assert "<p>Study X by Lab Y.</p>" in text and "<p>Ethics approval 123.</p>" in text
    text = client.get("/start", headers={"Accept-Language": "es-ES,es;q=0.9"}).get_data(as_text=True)
    assert "Estudio X del laboratorio Y." in text
    p = ClientParticipant(app.test_client())
    p.onboard()
    with sqlite3.connect(tmp_path / "collect.sqlite3") as conn:
        assert conn.execute("SELECT consent_text FROM onboardings").fetchone()[0] == info["en"]


def test_cli_information_file_per_language(tmp_path):
    from huesenv.commands.collect import _information

    (tmp_path / "info.en.txt").write_text("English sheet", encoding="utf-8")
    (tmp_path / "info.es.txt").write_text("Hoja en español", encoding="utf-8")
    assert _information(str(tmp_path / "info.{lang}.txt")) == {"en": "English sheet", "es": "Hoja en español"}
    with pytest.raises(FileNotFoundError):
        _information(str(tmp_path / "nothing.{lang}.txt"))


# -- study platforms ------------------------------------------------------------------------------
def test_prolific_ids_are_captured_and_the_completion_code_shown(tmp_path):
    app = make_app(
        tmp_path,
        completion_code="C1AB2CD3",
        completion_url="https://app.prolific.com/submissions/complete?cc={code}",
    )
    client = app.test_client()
    resp = client.get("/?PROLIFIC_PID=5f1a2b3c4d5e6f7a8b9c0d1e&STUDY_ID=study42&SESSION_ID=sess9")
    assert resp.status_code == 302 and resp.headers["Location"] == "/"  # the ids leave the address bar
    p = ClientParticipant(client)
    page, _ = p.answer_words(p.onboard(), lambda w: "B2")
    assert page.path == "/done"
    assert 'id="completion-code">C1AB2CD3<' in page.text
    assert 'href="https://app.prolific.com/submissions/complete?cc=C1AB2CD3"' in page.text
    frame = participants_frame(tmp_path / "collect.sqlite3")
    assert frame.loc[0, ["platformPid", "studyId", "sessionId"]].tolist() == [
        "5f1a2b3c4d5e6f7a8b9c0d1e",
        "study42",
        "sess9",
    ]
    # the same platform id cannot take part twice
    again = app.test_client()
    again.get("/?PROLIFIC_PID=5f1a2b3c4d5e6f7a8b9c0d1e")
    page = ClientParticipant(again).get("/start")  # checked on the landing page, before any form
    assert page.status == 409 and "already completed" in page.text and "C1AB2CD3" in page.text
    assert n_participants(tmp_path) == 1
    assert app.test_client().get("/?PROLIFIC_PID=<script>").status_code == 400


def test_instructions_tell_phone_users_to_turn_the_phone(tmp_path):
    p = ClientParticipant(make_app(tmp_path).test_client())
    page = post_start(p)
    assert page.path == "/instructions" and "turn it sideways (landscape)" in page.text


def test_another_platform_id_in_the_same_browser_is_another_participant(tmp_path):
    """A shared computer: p003's link after p002 onboarded starts p003's own onboarding; p002 resumes with theirs."""
    app = make_app(tmp_path, words_per_participant=3)
    p = ClientParticipant(app.test_client())
    links = {pid: f"/?PROLIFIC_PID={pid}&STUDY_ID=st1&SESSION_ID=se-{pid}" for pid in ("p002", "p003")}
    p.get(links["p002"])
    _, first = p.answer_words(p.onboard(), lambda w: "B2", limit=1)
    p.get(links["p003"])
    assert p.get("/").path == "/start"  # not p002's next word
    _, second = p.answer_words(p.onboard(), lambda w: "C3", limit=1)
    assert p.get(links["p002"]).path == "/words"  # p002 again: re-attached to their session
    _, third = p.answer_words(p.get("/"), lambda w: "D4", limit=1)
    frame = participants_frame(tmp_path / "collect.sqlite3")
    owner = dict(zip(frame["userId"], frame["platformPid"]))
    answers = word_answers_frame(tmp_path / "collect.sqlite3", include_unfinished=True)
    assert sorted(zip(answers["userId"].map(owner), answers["coordinate"])) == [
        ("p002", "B2"),
        ("p002", "D4"),
        ("p003", "C3"),
    ]


def test_no_completion_details_without_configuration(tmp_path):
    app = make_app(tmp_path)
    p = ClientParticipant(app.test_client())
    page, _ = p.answer_words(p.onboard(), lambda w: "B2")
    assert "completion-code" not in page.text and "You can close this page" in page.text


# -- English and Spanish ------------------------------------------------------------------------------
PO = i18n.TRANSLATIONS / "es" / "LC_MESSAGES" / "messages.po"
MO = PO.with_suffix(".mo")


def _catalogue():
    from babel.messages.pofile import read_po

    with PO.open("rb") as fh:
        return read_po(fh, locale="es")


def _messages() -> set[str]:
    """Every message id the templates and the views pass to gettext, found by Babel's extractors."""
    from babel.messages.extract import extract_from_dir

    package = Path(i18n.__file__).resolve().parent
    method_map = [("**/templates/**.html", "jinja2"), ("**.py", "python")]
    found: set[str] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(package, method_map):
        found.update([message] if isinstance(message, str) else [m for m in message if m])
    found |= {
        "Brown",
        "Red",
        "Orange",
        "Yellow",
        "Green",
        "Blue",
        "Purple",
        "Pink",
        "white",
    }  # dynamic labels
    return found


def test_every_message_has_a_spanish_translation():
    messages = _messages()
    assert len(messages) > 60
    catalogue = _catalogue()
    translated = {m.id if isinstance(m.id, str) else m.id[0]: m for m in catalogue if m.id and m.string}
    plural_ids = {m.id[1] for m in catalogue if isinstance(m.id, tuple)}
    missing = sorted(m for m in messages if m not in translated and m not in plural_ids)
    assert not missing, missing
    for entry in translated.values():  # same placeholders in both
        ids = [entry.id] if isinstance(entry.id, str) else list(entry.id)
        strings = [entry.string] if isinstance(entry.string, str) else list(entry.string)
        for english, spanish in zip(ids + ids[-1:] * 3, strings):
            assert sorted(re.findall(r"%\((\w+)\)s", english)) == sorted(
                re.findall(r"%\((\w+)\)s", spanish)
            ), english


def test_compiled_catalogue_matches_its_source():
    """``messages.mo`` (what Flask-Babel loads) holds exactly the ``.po``'s translations (pybabel compile)."""
    from babel.support import Translations

    with MO.open("rb") as fh:
        compiled = Translations(fh)
    for entry in _catalogue():
        if not entry.id:
            continue
        if isinstance(entry.id, str):
            assert compiled.gettext(entry.id) == (entry.string or entry.id), entry.id
        else:
            assert compiled.ngettext(entry.id[0], entry.id[1], 1) == entry.string[0], entry.id
            assert compiled.ngettext(entry.id[0], entry.id[1], 2) == entry.string[1], entry.id


def test_gca_objects_and_colours_have_spanish_names():
    from huesenv.probes.gca.stimuli import gca_stimuli

    pool = gca_stimuli(seed=0)
    translated = {m.id for m in _catalogue() if m.string}
    missing = sorted(({s.subject for s in pool} | {s.colour for s in pool}) - translated)
    assert not missing, missing


def test_spanish_interface_from_the_browser_or_a_link(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    text = client.get("/start", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert (
        "Le damos la bienvenida" in text
        and "Bienvenida" not in text
        and 'lang="es"' in text
        and "Welcome" not in text
    )
    client = app.test_client()
    assert "Welcome" in client.get("/start").get_data(as_text=True)
    client.get("/start?lang=es")
    p = ClientParticipant(client)
    page = p.onboard(language="spanish")
    assert "Palabra 1 de 2" in page.text and "Pista actual" in page.text
    bad = p.post("/words", {"csrf_token": page.token, "word": page.word, "coordinate": "Z99"})
    assert bad.status == 400 and "Escriba una letra de fila" in bad.text
    client.get("/words?lang=en")
    assert "Word 1 of 2" in p.get("/words").text


def test_words_are_shown_correctly_spelt_but_stored_as_in_the_paper(tmp_path):
    app = make_app(tmp_path, vocabulary=[Word("HAPINESS", "Subjective"), Word("SHRECK", "Pop Culture")])
    p = ClientParticipant(app.test_client())
    page = p.onboard()
    shown = []
    while page.path == "/words":
        cue = re.search(r'id="cue">([^<]+)<', page.text).group(1)
        shown.append(cue)
        assert page.word in ("HAPINESS", "SHRECK")  # the identity posted back
        page = p.post("/words", {"csrf_token": page.token, "word": page.word, "coordinate": "C3"})
        assert re.search(r'id="cue">([^<]+)<', page.text).group(1) == cue  # the feedback page too
        page = p.post("/words/feedback", {"csrf_token": page.token})
    assert sorted(shown) == ["HAPPINESS", "SHREK"]
    assert sorted(word_answers_frame(tmp_path / "collect.sqlite3")["word"]) == ["HAPINESS", "SHRECK"]


# -- GCA introspection page and the painter ---------------------------------------------------------
def _png_source(rng, n_trials, n_attention):
    import io

    from PIL import Image

    from huesenv.collect.tasks.gca import GCAServedStimulus

    buf = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buf, format="PNG")
    return [
        GCAServedStimulus(f"s{k}", "apple", "prior", "red", 50.0, "blue", buf.getvalue())
        for k in range(n_trials + n_attention)
    ]


def test_gca_introspection_has_no_preset_and_no_missing_image(tmp_path):
    app = make_app(
        tmp_path,
        task="gca",
        gca_trials=2,
        gca_attention_positions=(),
        gca_source=_png_source,
        gca_introspection="first",
    )
    p = ClientParticipant(app.test_client())
    page = p.onboard()
    assert 'name="threshold"' in page.text and "<img" not in page.text
    assert "the object in the image" not in page.text and "an object in an image" in page.text
    field = re.search(r'<input type="number" name="threshold"[^>]*>', page.text).group(0)
    assert "value=" not in field and "required" in field
    slider = re.search(r'<input type="range"[^>]*>', page.text).group(0)
    assert "value=" not in slider and "name=" not in slider and 'class="unset"' in slider
    position = re.search(r'name="position" value="(\d+)"', page.text).group(1)
    unanswered = p.post("/gca", {"csrf_token": page.token, "position": position})
    assert unanswered.status == 400
    page = p.post("/gca", {"csrf_token": page.token, "position": position, "threshold": "0"})
    assert "Item 2 of 3" in page.text


def test_gca_page_in_spanish(tmp_path):
    app = make_app(
        tmp_path,
        task="gca",
        gca_trials=2,
        gca_attention_positions=(),
        gca_source=_png_source,
        gca_introspection="last",
    )
    client = app.test_client()
    client.get("/start?lang=es")
    page = ClientParticipant(client).onboard()
    assert "¿De qué color es el objeto de la imagen (manzana)?" in page.text
    assert "> blanco</label>" in page.text and 'value="white"' in page.text  # label translated, value kept


def test_painter_offers_fill_eraser_and_undo(tmp_path):
    app = make_app(tmp_path, task="tessellation")
    page = ClientParticipant(app.test_client()).onboard()
    for element in ('id="tool-fill"', 'id="tool-brush"', 'id="eraser"', 'id="undo"'):
        assert element in page.text
    js = (TEMPLATES.parent / "static" / "paint.js").read_text()
    assert "function line(" in js and "function fill(" in js and "function undo(" in js
