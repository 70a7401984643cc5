"""Word→cell task over Flask's test client: onboarding, validation, no changing answers, feedback, export."""

from __future__ import annotations

import re
import sqlite3

import numpy as np
import pytest

pytest.importorskip("flask")
pytest.importorskip("flask_wtf")

from huesenv.board import parse_coord  # noqa: E402
from huesenv.collect.app import CollectConfig, create_app  # noqa: E402
from huesenv.collect.export import EXPORT_COLUMNS, WORD_EXTRA_COLUMNS, export, word_answers_frame  # noqa: E402
from huesenv.collect.testing import ClientParticipant  # noqa: E402
from huesenv.vocabulary import Word, word_texts  # noqa: E402


def make_app(tmp_path, **kw):
    kw.setdefault("words_per_participant", 3)
    return create_app(CollectConfig(db_path=tmp_path / "collect.sqlite3", **kw))


def participant(app) -> ClientParticipant:
    return ClientParticipant(app.test_client())


def count(tmp_path, table: str) -> int:
    with sqlite3.connect(tmp_path / "collect.sqlite3") as conn:
        return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_full_flow_shows_progress_and_exports_loader_format(tmp_path):
    from huesenv.humans import load_humans

    app = make_app(tmp_path)
    p = participant(app)
    page = p.onboard(language="spanish", gender="male", age_range="18-19", color_blind="no")
    assert page.path == "/words" and "Word 1 of 3" in page.text
    seen = []
    while page.path == "/words":
        assert f"Word {len(seen) + 1} of 3" in page.text
        word = page.word
        seen.append(word)
        page = p.post("/words", {"csrf_token": page.token, "word": word, "coordinate": " b-7 "})
        assert page.path == "/words/feedback" and "B7" in page.text
        page = p.post("/words/feedback", {"csrf_token": page.token})
    assert page.path == "/done" and "Thank you" in page.text
    assert len(set(seen)) == 3 and set(seen) <= set(word_texts())

    out = tmp_path / "answers.csv"
    assert export(tmp_path / "collect.sqlite3", out) == 3
    header = out.read_text().splitlines()[0].split(",")
    assert header[: len(EXPORT_COLUMNS)] == list(
        EXPORT_COLUMNS
    )  # the loader's columns, then extras it ignores
    assert header[len(EXPORT_COLUMNS) :] == list(WORD_EXTRA_COLUMNS)
    timing = word_answers_frame(tmp_path / "collect.sqlite3")["responseMs"]
    assert timing.notna().all() and (timing >= 0).all()  # every word answer has its response time
    humans = load_humans(out)
    assert len(humans.frame) == 3 and humans.skipped.empty
    assert list(humans.frame["word"]) == seen
    assert (humans.frame["cell"] == parse_coord("B7")).all()
    assert set(humans.frame["language"]) == {"spanish"} and set(humans.frame["age_range"]) == {
        "18-19"
    }  # as shown
    assert not humans.frame["colorblind"].any()


@pytest.mark.parametrize("suffix", [".csv.gz", ".parquet"])
def test_export_other_formats_round_trip(tmp_path, suffix):
    from huesenv.humans import load_humans

    app = make_app(tmp_path)
    p = participant(app)
    p.answer_words(p.onboard(color_blind="yes"), lambda w: "P30")
    out = tmp_path / f"answers{suffix}"
    export(tmp_path / "collect.sqlite3", out)
    assert len(load_humans(out, exclude_cvd=False).frame) == 3
    assert len(load_humans(out).frame) == 0  # self-reported CVD is excluded by default, as in the paper


def test_onboarding_validates_every_field(tmp_path):
    app = make_app(tmp_path)
    p = participant(app)
    good = {"language": "english", "gender": "female", "age_range": "20-29", "color_blind": "no"}
    for field, bad in [
        ("language", "klingon"),
        ("gender", "x" * 500),
        ("age_range", "200"),
        ("color_blind", "maybe"),
        ("language", ""),
    ]:
        page = p.get("/start")
        page = p.post("/start", {"csrf_token": page.token, **good, field: bad})
        assert page.status == 400 and f"field {field}" in page.text, (field, page.text[:200])
    assert count(tmp_path, "participants") == 0


def test_csrf_token_is_required(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    resp = client.post(
        "/start", data={"language": "english", "gender": "female", "age_range": "20-29", "color_blind": "no"}
    )
    assert resp.status_code == 400
    assert count(tmp_path, "participants") == 0


def test_coordinates_are_validated_server_side(tmp_path):
    app = make_app(tmp_path)
    p = participant(app)
    page = p.onboard()
    word = page.word
    for bad in ["Z99", "A0", "A31", "Q5", "", "I018", "I" * 50]:
        page = p.post("/words", {"csrf_token": page.token, "word": word, "coordinate": bad})
        assert page.status == 400 and "field coordinate" in page.text, bad
    assert count(tmp_path, "word_answers") == 0
    page = p.post("/words", {"csrf_token": page.token, "word": word.lower(), "coordinate": "i18"})
    assert page.status == 200 and page.path == "/words/feedback"
    assert count(tmp_path, "word_answers") == 1


def test_answers_cannot_be_changed_or_given_out_of_order(tmp_path):
    app = make_app(tmp_path)
    p = participant(app)
    page = p.onboard()
    first = page.word
    token = page.token
    page = p.post("/words", {"csrf_token": token, "word": first, "coordinate": "A1"})
    page = p.post("/words/feedback", {"csrf_token": page.token})
    second = page.word
    # replaying the first answer with another cell (e.g. after the back button) is refused
    again = p.post("/words", {"csrf_token": token, "word": first, "coordinate": "P30"})
    assert again.status == 409 and "cannot be changed" in again.text
    # a word that is not the current one (nor assigned) is refused
    other = next(w for w in word_texts() if w not in (first, second))
    refused = p.post("/words", {"csrf_token": token, "word": other, "coordinate": "P30"})
    assert refused.status == 409
    with sqlite3.connect(tmp_path / "collect.sqlite3") as conn:
        rows = conn.execute("SELECT word, cell FROM word_answers").fetchall()
        assert rows == [(first, 0)]
        # the storage layer refuses a second answer on its own (UNIQUE participant, word)
        pid = conn.execute("SELECT id FROM participants").fetchone()[0]
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(
                "INSERT INTO word_answers (participant_id, word, cell, answered_at) VALUES (?, ?, 5, 'x')",
                (pid, first),
            )


def test_feedback_shows_earlier_participants_only(tmp_path):
    vocab = [Word("SKY", "Custom"), Word("GRASS", "Custom")]
    app = make_app(tmp_path, vocabulary=vocab, words_per_participant=2)
    cells = {"SKY": ["C5", "C5", "D9"], "GRASS": ["K3", "K3", "K3"]}
    pages = []
    for k in range(3):
        p = participant(app)
        page = p.onboard()
        while page.path == "/words":
            word = page.word
            page = p.post("/words", {"csrf_token": page.token, "word": word, "coordinate": cells[word][k]})
            pages.append((k, word, page.text))
            page = p.post("/words/feedback", {"csrf_token": page.token})
    for k, word, text in pages:
        n_markers = len(re.findall(r'class="marker"', text))
        if k == 0:
            assert "You are the first participant" in text and n_markers == 0
        else:
            earlier = cells[word][:k]
            assert f"where {k} earlier participant" in text
            assert n_markers == len(set(earlier))
            assert re.search(rf'title="{earlier[0]}: {earlier.count(earlier[0])}"', text)


def test_feedback_can_be_switched_off(tmp_path):
    app = make_app(tmp_path, show_feedback=False)
    p = participant(app)
    page = p.onboard()
    page = p.post("/words", {"csrf_token": page.token, "word": page.word, "coordinate": "A1"})
    assert page.path == "/words" and "Word 2 of 3" in page.text
    assert p.get("/words/feedback").path == "/words"


def test_balanced_assignment_and_seeded_determinism(tmp_path):
    def assignments(folder, n):
        folder.mkdir()
        app = make_app(folder, seed=7, words_per_participant=15)
        for _ in range(n):
            participant(app).onboard()
        with sqlite3.connect(folder / "collect.sqlite3") as conn:
            return conn.execute(
                "SELECT p.serial, a.position, a.word FROM word_assignments a JOIN participants p"
                " ON p.id = a.participant_id ORDER BY p.serial, a.position"
            ).fetchall()

    a = assignments(tmp_path / "a", 14)
    b = assignments(tmp_path / "b", 14)
    assert a == b  # same seed, same arrival order -> same words in the same order
    counts = np.bincount([word_texts().index(w) for _, _, w in a], minlength=100)
    assert counts.max() - counts.min() <= 1  # 14 x 15 = 210 assignments spread over 100 words: 2 or 3 each
    per_person = {}
    for serial, _, w in a:
        per_person.setdefault(serial, []).append(w)
    assert all(len(set(ws)) == 15 for ws in per_person.values())
    assert per_person[1] != sorted(per_person[1])  # presentation order is shuffled


def test_restart_keeps_sessions_and_answers(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    p = ClientParticipant(client)
    page = p.onboard()
    first = page.word
    p.post("/words", {"csrf_token": page.token, "word": first, "coordinate": "E12"})
    # a new server process on the same database: the secret key is stored, so the cookie still works
    app2 = make_app(tmp_path)
    client2 = app2.test_client()
    cookie = client.get_cookie("session")
    client2.set_cookie("session", cookie.value)
    p2 = ClientParticipant(client2)
    page = p2.get("/")
    assert page.path in ("/words", "/words/feedback")
    if page.path == "/words/feedback":
        page = p2.post("/words/feedback", {"csrf_token": page.token})
    assert page.word != first and "Word 2 of 3" in page.text
    assert word_answers_frame(tmp_path / "collect.sqlite3").empty  # unfinished: not exported by default
    frame = word_answers_frame(tmp_path / "collect.sqlite3", include_unfinished=True)
    assert list(frame["word"]) == [first] and list(frame["coordinate"]) == ["E12"]


def test_custom_vocabulary_file(tmp_path):
    from huesenv.humans import load_humans
    from huesenv.vocabulary import read_vocabulary_file

    vocab_file = tmp_path / "vocab.csv"
    vocab_file.write_text("word,category\nmar,Environment\nfuego,Environment\nlimón,Food\n", encoding="utf-8")
    app = make_app(tmp_path, vocabulary=read_vocabulary_file(str(vocab_file)))
    p = participant(app)
    page, answers = p.answer_words(p.onboard(language="spanish"), lambda w: "H10")
    assert page.path == "/done" and {w for w, _ in answers} == {"MAR", "FUEGO", "LIMÓN"}
    out = tmp_path / "out.csv"
    export(tmp_path / "collect.sqlite3", out)
    humans = load_humans(out, vocabulary=str(vocab_file))
    assert sorted(humans.words) == ["FUEGO", "LIMÓN", "MAR"]
    assert humans.category("limón") == "Food"


def test_bad_configuration_is_refused(tmp_path):
    with pytest.raises(ValueError, match="fewer than the 15"):
        make_app(tmp_path, vocabulary=[Word("A", "C"), Word("B", "C")], words_per_participant=15)
    with pytest.raises(ValueError, match="appears twice"):
        make_app(tmp_path, vocabulary=[Word("sky", "C"), Word("SKY ", "C")], words_per_participant=1)
    with pytest.raises(ValueError, match="--task"):
        make_app(tmp_path, task="quiz")


def test_pages_of_other_tasks_and_unknown_sessions(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    assert client.get("/gca").status_code == 404
    assert client.get("/tessellation").status_code == 404
    resp = client.get("/words")
    assert resp.status_code == 302 and resp.headers["Location"].endswith("/start")
    with client.session_transaction() as sess:
        sess["pid"] = "not-a-participant"
    assert client.get("/words").headers["Location"].endswith("/start")


def test_oversized_request_is_refused(tmp_path):
    app = make_app(tmp_path)
    p = participant(app)
    page = p.onboard()
    page = p.post("/words", {"csrf_token": page.token, "word": page.word, "coordinate": "A1" * 40000})
    assert page.status == 413
    assert count(tmp_path, "word_answers") == 0
