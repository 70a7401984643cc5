"""Many simultaneous participants against a real server thread on loopback; nothing lost, nothing logged."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("flask")
from werkzeug.serving import make_server  # noqa: E402

from huesenv.collect.app import CollectConfig, create_app  # noqa: E402
from huesenv.collect.export import export  # noqa: E402
from huesenv.collect.testing import HttpParticipant, onboarding_form  # noqa: E402
from huesenv.vocabulary import word_texts  # noqa: E402

pytestmark = pytest.mark.integration  # a real server under concurrent clients

N_PARTICIPANTS = 24
WORDS_EACH = 5
TIME_LIMIT_S = 240


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def server(tmp_path):
    app = create_app(CollectConfig(db_path=tmp_path / "collect.sqlite3", words_per_participant=WORDS_EACH))
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}", tmp_path / "collect.sqlite3"
    finally:
        srv.shutdown()
        thread.join(10)


@pytest.mark.integration
def test_simultaneous_participants_lose_nothing(server, tmp_path):
    from huesenv.humans import load_humans

    base, db = server
    capture = _Capture()
    loggers = [logging.getLogger("werkzeug"), logging.getLogger("huesenv.collect")]
    old_levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(capture)
        lg.setLevel(logging.INFO)
    barrier = threading.Barrier(N_PARTICIPANTS, timeout=60)
    coords = ["A1", "C7", "F12", "H20", "K25", "P30"]

    def run(k: int) -> list[tuple[str, str]]:
        p = HttpParticipant(base, timeout=60)
        page = p.get("/")
        barrier.wait()  # everyone onboards at the same moment: contended word assignment
        page = p.post(
            "/start",
            {
                "csrf_token": page.token,
                **onboarding_form("spanish" if k % 2 else "english", "other", "30-39", "no"),
            },
        )
        page = p.post("/instructions", {"csrf_token": page.token})
        page, answers = p.answer_words(page, lambda w: coords[(k + len(w)) % len(coords)])
        assert page.path == "/done", page.path
        return answers

    start = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=N_PARTICIPANTS) as pool:
            futures = [pool.submit(run, k) for k in range(N_PARTICIPANTS)]
            results = [f.result(timeout=TIME_LIMIT_S) for f in futures]
    finally:
        for lg, level in zip(loggers, old_levels):
            lg.removeHandler(capture)
            lg.setLevel(level)
    elapsed = time.monotonic() - start
    print(f"{N_PARTICIPANTS} participants x {WORDS_EACH} words in {elapsed:.1f} s")
    assert elapsed < TIME_LIMIT_S

    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT COUNT(*), COUNT(DISTINCT participant_id) FROM word_answers").fetchone()
        ids = [r[0] for r in conn.execute("SELECT id FROM participants")]
        counts = [r[0] for r in conn.execute("SELECT COUNT(*) FROM word_assignments GROUP BY word")]
    assert stored == (N_PARTICIPANTS * WORDS_EACH, N_PARTICIPANTS)
    assert sum(len(r) for r in results) == N_PARTICIPANTS * WORDS_EACH
    # balanced assignment held under contention: 120 assignments over 100 words -> 1 or 2 each
    assert len(counts) == 100 and max(counts) - min(counts) <= 1

    out = tmp_path / "answers.csv"
    export(db, out)
    humans = load_humans(out)
    assert humans.n_participants == N_PARTICIPANTS and len(humans) == N_PARTICIPANTS * WORDS_EACH

    # the request log saw traffic but no participant data: no ids, words, demographics or answers in it
    text = "\n".join(capture.lines)
    assert "POST /words" in text
    for secret in (
        ids + [w for w in word_texts() if len(w) > 3] + ["spanish", "english", "30-39", "coordinate="]
    ):
        assert secret not in text, secret
