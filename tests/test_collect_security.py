"""Collection app security: cookies, headers, the signing key, file modes, read-only export, validation,
rate limit, idempotent onboarding, no 5xx on bad input, images outside write transactions, the private log."""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
import sqlite3
import stat
import threading

import numpy as np
import pytest

pytest.importorskip("flask")

from huesenv.board import load_board  # noqa: E402
from huesenv.cli import main  # noqa: E402
from huesenv.collect.app import CollectConfig, create_app  # noqa: E402
from huesenv.collect.db import SECRET_KEY_ENV, open_readonly  # noqa: E402
from huesenv.collect.export import word_answers_frame  # noqa: E402
from huesenv.collect.security import RateLimiter, parse_rate  # noqa: E402
from huesenv.collect.tasks.gca import GCAServedStimulus  # noqa: E402
from huesenv.collect.testing import ClientParticipant, onboarding_form  # noqa: E402


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch):
    monkeypatch.delenv(SECRET_KEY_ENV, raising=False)


def make_app(tmp_path, **kw):
    kw.setdefault("words_per_participant", 3)
    return create_app(CollectConfig(db_path=tmp_path / "collect.sqlite3", **kw))


def count(db, table: str) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def _png(k: int = 0) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (k % 256, 0, 0)).save(buf, format="PNG")
    return buf.getvalue()


# -- cookies and headers ---------------------------------------------------------------------------
def _session_cookie(resp) -> str:
    cookies = [h for h in resp.headers.getlist("Set-Cookie") if h.startswith("session=")]
    assert cookies, resp.headers
    return cookies[0]


def test_session_cookie_flags(tmp_path):
    client = make_app(tmp_path).test_client()
    cookie = _session_cookie(client.get("/start"))
    assert "; Secure" in cookie and "; HttpOnly" in cookie and "SameSite=Lax" in cookie
    (tmp_path / "plain").mkdir()
    plain = make_app(tmp_path / "plain", secure_cookies=False).test_client()
    cookie = _session_cookie(plain.get("/start"))
    assert "Secure" not in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_security_headers_on_every_kind_of_response(tmp_path):
    client = make_app(tmp_path).test_client()
    for path, status in [("/start", 200), ("/", 302), ("/nowhere", 404), ("/static/style.css", 200)]:
        resp = client.get(path)
        assert resp.status_code == status, path
        csp = resp.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "default-src 'self'" in csp
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert resp.headers["Referrer-Policy"] == "same-origin"
        assert resp.headers["X-Frame-Options"] == "DENY"
        assert "Strict-Transport-Security" not in resp.headers  # plain http: browsers ignore it
    https = client.get("/start", base_url="https://study.example")
    assert https.headers["Strict-Transport-Security"].startswith("max-age=")


def test_pages_need_no_inline_script_under_the_csp(tmp_path):
    """The CSP allows scripts only from this origin: no page may carry inline code or event handlers."""
    pages = []
    for task in ("words", "gca", "tessellation"):
        folder = tmp_path / task
        folder.mkdir()
        kw = (
            {"gca_trials": 2, "gca_attention_positions": (), "gca_source": _bytes_source}
            if task == "gca"
            else {}
        )
        p = ClientParticipant(make_app(folder, task=task, **kw).test_client())
        pages.append(p.get("/start").text)
        page = p.onboard()
        pages.append(page.text)
    for text in pages:
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text), text[:300]
        assert not re.search(r"\son[a-z]+\s*=", text), re.search(r"\son[a-z]+\s*=.{0,60}", text)


def test_forms_work_over_https_with_the_referrer_policy(tmp_path):
    """Over HTTPS the CSRF check wants a same-origin Referer, which ``same-origin`` lets browsers send."""
    app = make_app(tmp_path)
    base = "https://study.example"
    client = app.test_client()
    page = client.get("/start", base_url=base).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    form = {"csrf_token": token, **onboarding_form()}
    refused = client.post("/start", data=form, base_url=base)  # no Referer: what no-referrer would cause
    assert refused.status_code == 400
    ok = client.post("/start", data=form, base_url=base, headers={"Referer": base + "/start"})
    assert ok.status_code == 302 and ok.headers["Location"].endswith("/instructions")
    assert count(tmp_path / "collect.sqlite3", "participants") == 1


# -- the signing key -------------------------------------------------------------------------------
def test_signing_key_is_outside_the_database_in_a_private_file(tmp_path):
    app = make_app(tmp_path)
    db = tmp_path / "collect.sqlite3"
    key_file = tmp_path / "collect.sqlite3.key"
    key = app.config["SECRET_KEY"]
    assert key_file.read_text().strip() == key and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    ClientParticipant(app.test_client()).onboard()
    dump = "\n".join(sqlite3.connect(db).iterdump())
    assert key not in dump and "secret_key" not in dump
    # the key in the file survives restarts; a key readable by others is refused
    assert make_app(tmp_path).config["SECRET_KEY"] == key
    os.chmod(key_file, 0o644)
    with pytest.raises(ValueError, match="readable by others"):
        make_app(tmp_path)


def test_signing_key_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(SECRET_KEY_ENV, "k" * 40)
    app = make_app(tmp_path)
    assert app.config["SECRET_KEY"] == "k" * 40 and not (tmp_path / "collect.sqlite3.key").exists()
    monkeypatch.setenv(SECRET_KEY_ENV, "short")
    with pytest.raises(ValueError, match="at least 32"):
        make_app(tmp_path)


def test_a_copy_of_the_database_cannot_forge_a_session(tmp_path):
    """Whatever is in the database, signing a cookie with it does not open another participant's survey."""
    from flask.sessions import SecureCookieSessionInterface

    app = make_app(tmp_path)
    victim = ClientParticipant(app.test_client())
    victim.onboard()
    with sqlite3.connect(tmp_path / "collect.sqlite3") as conn:
        pid = conn.execute("SELECT id FROM participants").fetchone()[0]
        candidates = [str(v) for (v,) in conn.execute("SELECT value FROM meta").fetchall()]
    for candidate in candidates:
        forger = create_app(CollectConfig(db_path=tmp_path / "other.sqlite3", words_per_participant=3))
        forger.config["SECRET_KEY"] = candidate
        serializer = SecureCookieSessionInterface().get_signing_serializer(forger)
        forged = serializer.dumps({"pid": pid})
        client = app.test_client()
        client.set_cookie("session", forged)
        resp = client.get("/words")
        assert resp.status_code == 302 and resp.headers["Location"].endswith("/start"), candidate


def test_schema_1_database_is_upgraded_and_its_key_moved_out(tmp_path):
    db = tmp_path / "old.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.executescript(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO meta VALUES ('schema_version', '1'), ('secret_key', 'feedbeef' || hex(randomblob(16))),"
            " ('seed', '5');"
            "CREATE TABLE gca_stimuli (stimulus_id TEXT PRIMARY KEY, object TEXT NOT NULL, condition TEXT NOT NULL,"
            " colour TEXT NOT NULL, tau REAL NOT NULL, png BLOB NOT NULL);"
        )
        conn.execute("INSERT INTO gca_stimuli VALUES ('s1', 'apple', 'prior', 'red', 50, ?)", (_png(),))
        old_key = conn.execute("SELECT value FROM meta WHERE key = 'secret_key'").fetchone()[0]
    os.chmod(db, 0o644)
    app = create_app(CollectConfig(db_path=db, words_per_participant=3))
    assert app.config["SECRET_KEY"] == old_key  # running sessions stay valid
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "3"
        assert conn.execute("SELECT value FROM meta WHERE key = 'secret_key'").fetchone() is None
        assert conn.execute("SELECT png FROM gca_images WHERE stimulus_id = 's1'").fetchone()[0] == _png()
        assert "png" not in [r[1] for r in conn.execute("PRAGMA table_info(gca_stimuli)")]
    assert stat.S_IMODE(db.stat().st_mode) == 0o600


# -- file modes and the read-only export ------------------------------------------------------------
def test_database_files_are_private(tmp_path):
    old = os.umask(0o022)
    try:
        app = make_app(tmp_path)
        ClientParticipant(app.test_client()).onboard()
        conn = app.extensions["huesenv_collect"].db.connect()  # an open connection keeps -wal and -shm
        conn.execute("SELECT COUNT(*) FROM participants").fetchone()
        files = [p for p in tmp_path.iterdir() if p.name.startswith("collect.sqlite3")]
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in files}
        conn.close()
    finally:
        os.umask(old)
    assert set(modes) == {
        "collect.sqlite3",
        "collect.sqlite3.key",
        "collect.sqlite3-wal",
        "collect.sqlite3-shm",
    }
    assert set(modes.values()) == {0o600}, modes
    # an existing world-readable database is tightened when the app opens it
    os.chmod(tmp_path / "collect.sqlite3", 0o644)
    make_app(tmp_path)
    assert stat.S_IMODE((tmp_path / "collect.sqlite3").stat().st_mode) == 0o600


def test_export_opens_its_input_read_only(tmp_path):
    app = make_app(tmp_path)
    p = ClientParticipant(app.test_client())
    p.answer_words(p.onboard(), lambda w: "C4")
    del app
    db = tmp_path / "collect.sqlite3"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    # a read-only copy in a read-only folder, without -wal/-shm files
    ro = tmp_path / "ro"
    ro.mkdir()
    copy = ro / "copy.sqlite3"
    copy.write_bytes(db.read_bytes())
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    os.chmod(copy, 0o444)
    os.chmod(ro, 0o555)
    try:
        for task in ("words", "gca", "tessellation-raw", "participants"):
            out = tmp_path / f"out-{task}.csv"
            assert main(["collect", "export", "--db", str(copy), "-o", str(out), "--task", task]) == 0
        if os.geteuid() != 0:  # root may write into a read-only folder; SQLite then adds its -shm file
            assert sorted(p.name for p in ro.iterdir()) == ["copy.sqlite3"]
        assert hashlib.sha256(copy.read_bytes()).hexdigest() == before  # not one byte written
    finally:
        os.chmod(ro, 0o755)
        os.chmod(copy, 0o644)
    assert len(word_answers_frame(copy)) == 3
    # a file that is not a collection database is named, not written to
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).close()
    size = other.stat().st_size
    with pytest.raises(ValueError, match="not a collection database"):
        open_readonly(other)
    assert other.stat().st_size == size


# -- validation of numbers and paths ----------------------------------------------------------------
@pytest.mark.parametrize(
    "args, expected",
    [
        (["--port", "99999"], "--port"),
        (["--port", "0"], "--port"),
        (["--port", "http"], "--port"),
        (["--task", "gca", "--gca-trials", "0"], "--gca-trials"),
        (["--task", "gca", "--gca-trials", "-3"], "--gca-trials"),
        (["--words-per-participant", "0"], "--words-per-participant"),
        (["--seed", "-1"], "--seed"),
        (["--start-limit", "5"], "--start-limit"),
        (["--trust-proxy", "9"], "--trust-proxy"),
        (["--adult-age", "5"], "--adult-age"),
        (["--host", "example.org"], "--host"),
        (["--task", "gca", "--gca-attention", "0,5"], "--gca-attention"),
        (["--completion-url", "http://evil.example/"], "--completion-url"),
        (["--completion-code", "a b"], "--completion-code"),
        (["--completion-url", "https://x.example/?cc={code}"], "--completion-code"),
        (["--information", "missing-{lang}.txt"], "--information"),
        (["--vocabulary", "missing.csv"], "--vocabulary"),
    ],
)
def test_serve_refuses_bad_numbers_and_paths(tmp_path, capsys, args, expected):
    db = tmp_path / "s.sqlite3"
    try:
        rc = main(["collect", "serve", "--pilot", "--db", str(db), *args])
    except SystemExit as exit_:  # argparse's own refusal
        rc = exit_.code
    assert rc == 2
    err = capsys.readouterr().err
    assert expected in err and len(err.strip().splitlines()) == 1, err
    assert not db.exists()


def test_serve_refuses_a_folder_as_database(tmp_path, capsys):
    assert main(["collect", "serve", "--db", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_export_refuses_overwriting_its_input(tmp_path, capsys):
    make_app(tmp_path)
    db = tmp_path / "collect.sqlite3"
    assert main(["collect", "export", "--db", str(db), "-o", str(db)]) == 2
    assert "is the database" in capsys.readouterr().err


def test_image_ids_are_validated(tmp_path):
    app = make_app(tmp_path, task="gca", gca_trials=2, gca_attention_positions=(), gca_source=_bytes_source)
    p = ClientParticipant(app.test_client())
    p.onboard()
    for path in [
        "/gca/image/" + "9" * 40 + ".png",
        "/gca/image/-1.png",
        "/gca/image/x.png",
        "/gca/image/7.png",
    ]:
        assert p.client.get(path).status_code == 404, path
    assert p.client.get("/gca/image/1.png").status_code == 200


# -- rate limit and idempotent onboarding -----------------------------------------------------------
def test_rate_limiter_window():
    now = [0.0]
    lim = RateLimiter(2, 60, clock=lambda: now[0])
    assert lim.hit("a") is None and lim.hit("a") is None
    assert lim.hit("a") == pytest.approx(60) and lim.hit("b") is None
    now[0] = 61
    assert lim.hit("a") is None
    assert parse_rate("off") is None and parse_rate("20/600") == (20, 600.0)
    with pytest.raises(ValueError):
        parse_rate("0/10")
    small = RateLimiter(1, 10, max_keys=4, clock=lambda: now[0])
    for k in range(20):
        small.hit(str(k))
    assert len(small._hits) <= 4


def test_start_is_rate_limited_per_client(tmp_path):
    app = make_app(tmp_path, start_rate=(2, 600))
    for _ in range(2):
        ClientParticipant(app.test_client()).onboard()
    c = app.test_client()
    page = ClientParticipant(c).get("/start")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    resp = c.post("/start", data={"csrf_token": token, **onboarding_form()})
    assert resp.status_code == 429 and int(resp.headers["Retry-After"]) > 0
    assert count(tmp_path / "collect.sqlite3", "participants") == 2
    other = app.test_client()  # another address is not affected
    other.environ_base["REMOTE_ADDR"] = "192.0.2.7"
    ClientParticipant(other).onboard()
    assert count(tmp_path / "collect.sqlite3", "participants") == 3


def test_replayed_onboarding_creates_no_duplicate(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    page = ClientParticipant(client).get("/start")
    old_cookie = client.get_cookie("session").value
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    form = {"csrf_token": token, **onboarding_form()}
    first = client.post("/start", data=form)
    assert first.status_code == 302 and first.headers["Location"].endswith("/instructions")
    for _ in range(3):  # the same request replayed (same cookie, same form)
        replay = app.test_client()
        replay.set_cookie("session", old_cookie)
        resp = replay.post("/start", data=form)
        assert resp.status_code == 302
    assert count(tmp_path / "collect.sqlite3", "participants") == 1
    assert count(tmp_path / "collect.sqlite3", "word_assignments") == 3


def test_a_kept_pre_consent_cookie_is_no_credential(tmp_path):
    """Issue 40 item 3: a pre-consent cookie planted on a shared computer and replayed after the victim
    onboarded (outside the retry window) starts a fresh session, not the victim's."""
    app = make_app(tmp_path)
    victim = app.test_client()
    page = ClientParticipant(victim).get("/start")
    planted = victim.get_cookie("session").value
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    assert victim.post("/start", data={"csrf_token": token, **onboarding_form()}).status_code == 302
    with sqlite3.connect(tmp_path / "collect.sqlite3") as conn:  # the victim consented an hour ago
        conn.execute("UPDATE onboardings SET consent_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 hour')")
    attacker = app.test_client()
    attacker.set_cookie("session", planted)
    resp = attacker.post("/start", data={"csrf_token": token, **onboarding_form()}, follow_redirects=True)
    assert resp.request.path == "/start" and 'id="onboarding"' in resp.get_data(as_text=True)
    assert attacker.get("/instructions", follow_redirects=True).request.path == "/start"
    assert count(tmp_path / "collect.sqlite3", "participants") == 1


# -- no 5xx on bad input -------------------------------------------------------------------------------
def _bytes_source(rng, n_trials, n_attention):
    return [
        GCAServedStimulus(f"s{k}", "apple", "prior", "red", 50.0, "blue", _png(k))
        for k in range(n_trials + n_attention)
    ]


BAD_VALUES = ["", "x" * 5000, "\x00", "-1", "9" * 40, "1e308", "NaN", "<script>", "A1" * 3, "é" * 50]


@pytest.mark.parametrize(
    "task",
    [
        "gca",
        pytest.param("words", marks=pytest.mark.integration),
        pytest.param("tessellation", marks=pytest.mark.integration),
    ],
)
def test_bad_input_never_gives_a_server_error(tmp_path, task):
    kw = (
        {"gca_trials": 2, "gca_attention_positions": (2,), "gca_source": _bytes_source}
        if task == "gca"
        else {}
    )
    app = make_app(tmp_path, task=task, start_rate=None, **kw)
    paths = [
        "/",
        "/start",
        "/instructions",
        "/words",
        "/words/feedback",
        "/gca",
        "/gca/image/0.png",
        "/gca/image/" + "9" * 30 + ".png",
        "/tessellation",
        "/tessellation/consensus",
        "/done",
        "/healthz",
        "/static/../app.py",
        "/%00",
        "/start?lang=" + "x" * 300,
        "/start?PROLIFIC_PID=" + "%3Cscript%3E",
        "/start?PROLIFIC_PID=" + "a" * 200,
    ]
    statuses = []
    for stage in ("anonymous", "onboarded"):
        client = app.test_client()
        p = ClientParticipant(client)
        if stage == "onboarded":
            p.onboard()
        token = re.search(r'name="csrf_token" value="([^"]+)"', p.get("/").text)
        token = token.group(1) if token else ""
        for path in paths:
            statuses.append((path, "GET", client.get(path).status_code))
            for value in BAD_VALUES:
                data = {
                    "csrf_token": token,
                    **{
                        f: value
                        for f in (
                            "language",
                            "gender",
                            "age_range",
                            "color_blind",
                            "consent",
                            "word",
                            "coordinate",
                            "position",
                            "choice",
                            "confidence",
                            "threshold",
                            "categories",
                        )
                    },
                }
                statuses.append((path, f"POST {value[:10]!r}", client.post(path, data=data).status_code))
            statuses.append((path, "PUT", client.put(path).status_code))
        with client.session_transaction() as sess:  # a tampered-with but validly signed session
            sess["feedback"] = "9" * 40
            sess["shown"] = ["w0", "not a time"]
            sess["onboarding"] = 12345
            sess["platform"] = "junk"
        for path in paths:
            statuses.append((path, "GET tampered", client.get(path).status_code))
    errors = [s for s in statuses if s[2] >= 500]
    assert not errors, errors[:10]


# -- GCA images: never rendered inside a write transaction ------------------------------------------
def test_gca_images_are_rendered_outside_write_transactions(tmp_path):
    db = tmp_path / "collect.sqlite3"
    calls: list[bool] = []
    lock = threading.Lock()

    def render(k):
        def fn():
            # the write lock is free while rendering: another connection can take it at once
            probe = sqlite3.connect(db, timeout=0, isolation_level=None)
            try:
                probe.execute("BEGIN IMMEDIATE")
                probe.execute("ROLLBACK")
                free = True
            except sqlite3.OperationalError:
                free = False
            finally:
                probe.close()
            with lock:
                calls.append(free)
            return _png(k)

        return fn

    def source(rng, n_trials, n_attention):
        return [
            GCAServedStimulus(f"r{k}", "apple", "prior", "red", 50.0, "blue", render(k))
            for k in range(n_trials + n_attention)
        ]

    app = make_app(
        tmp_path,
        task="gca",
        gca_trials=3,
        gca_attention_positions=(),
        gca_source=source,
        gca_introspection="last",
    )
    p = ClientParticipant(app.test_client())
    page = p.onboard()
    assert calls == []  # onboarding renders nothing
    position = re.search(r'name="position" value="(\d+)"', page.text).group(1)
    results = []

    cookie = p.client.get_cookie("session").value

    def fetch():
        client = app.test_client()
        client.set_cookie("session", cookie)
        results.append(client.get(f"/gca/image/{position}.png"))

    threads = [threading.Thread(target=fetch) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert [r.status_code for r in results] == [200] * 6, [r.get_data()[:300] for r in results]
    assert all(r.data.startswith(b"\x89PNG") for r in results)
    assert calls == [True]  # rendered once for six simultaneous requests, with the write lock free
    assert count(db, "gca_images") == 0  # images are not kept in the participant database
    assert len(list((tmp_path / "collect.sqlite3.gca-images").glob("*.png"))) == 1


def test_gca_prerender_fills_the_image_cache_outside_the_database(tmp_path):
    def source(rng, n_trials, n_attention):
        return [
            GCAServedStimulus(f"p{k}", "apple", "prior", "red", 50.0, "blue", (lambda k=k: _png(k)))
            for k in range(n_trials + n_attention)
        ]

    source.stimulus_ids = tuple(f"p{k}" for k in range(5))
    source.render_png = lambda sid: lambda: _png(int(sid[1:]))
    app = make_app(
        tmp_path, task="gca", gca_trials=2, gca_attention_positions=(), gca_source=source, gca_prerender=True
    )
    for t in threading.enumerate():
        if t.name == "gca-prerender":
            t.join(30)
    cache = tmp_path / "collect.sqlite3.gca-images"
    assert len(list(cache.glob("*.png"))) == 5 and count(tmp_path / "collect.sqlite3", "gca_images") == 0
    images = app.extensions["huesenv_collect"].task_data["images"]
    assert images.cache_dir == cache
    # a damaged cache file is not served: the image is rendered again
    victim = sorted(cache.glob("*.png"))[0]
    victim.write_bytes(b"not a png")
    sid = next(s for s in source.stimulus_ids if images.path(s) == victim)
    with sqlite3.connect(tmp_path / "collect.sqlite3") as conn:
        assert images.png(conn, sid) == _png(int(sid[1:]))
    assert victim.read_bytes().startswith(b"\x89PNG")


# -- the access log -----------------------------------------------------------------------------------
@pytest.mark.integration
def test_access_log_has_no_addresses_or_query_strings(tmp_path):
    import urllib.request

    from werkzeug.serving import make_server

    from huesenv.collect.accesslog import PrivateRequestHandler

    app = make_app(tmp_path, secure_cookies=False)
    records: list[str] = []

    class Capture(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logger = logging.getLogger("werkzeug")
    handler, old_level = Capture(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    srv = make_server("127.0.0.1", 0, app, threaded=True, request_handler=PrivateRequestHandler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        for path in (
            "/start?PROLIFIC_PID=secretpid123&STUDY_ID=s1",
            "/healthz",
            "/nowhere",
            "/x%0d%0aForged:%20line",
        ):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{srv.server_port}{path}", timeout=10).close()
            except OSError:
                pass
        import socket

        for raw in (  # malformed request lines carrying a platform id in their query
            b"GET /start?PROLIFIC_PID=rawsecret456 HTTP/1.1?PROLIFIC_PID=rawsecret456\r\n\r\n",
            b"GET /start?PROLIFIC_PID=rawsecret456 HTTP/9.9 extra words\r\n\r\n",
        ):
            with socket.create_connection(("127.0.0.1", srv.server_port), timeout=10) as sock:
                sock.sendall(raw)
                sock.recv(4096)
    finally:
        srv.shutdown()
        thread.join(10)
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    text = "\n".join(records)
    assert "GET /start" in text and "GET /healthz" in text
    assert "127.0.0.1" not in text and "secretpid123" not in text and "PROLIFIC_PID" not in text
    assert "rawsecret456" not in text and "(bad request line)" in text
    assert not any(line.startswith("Forged") for line in text.splitlines())  # no injected log line
    assert '"GET /x%0d%0aForged:%20line HTTP/1.1" 400' in text  # control characters refused with 400


# -- the consensus page cache -------------------------------------------------------------------------
def test_consensus_page_is_cached_and_stays_correct(tmp_path):
    from huesenv.collect.tasks.tessellation import consensus_table

    app = make_app(tmp_path, task="tessellation", start_rate=None)
    base = list(load_board().categories)
    rng = np.random.default_rng(1)
    colours = sorted(set(base))
    paintings = []
    client = app.test_client()
    for _ in range(4):
        painting = [colours[int(rng.integers(len(colours)))] if rng.random() < 0.3 else c for c in base]
        paintings.append(painting)
        p = ClientParticipant(app.test_client())
        page = p.onboard()
        assert (
            p.post("/tessellation", {"csrf_token": page.token, "categories": ",".join(painting)}).path
            == "/done"
        )
        resp = client.get("/tessellation/consensus")
        table = consensus_table(paintings)
        for coord, cat in zip(table["coord"][:40], table["category"][:40]):
            assert f'title="{coord}: {cat} (' in resp.get_data(as_text=True)
    etag = resp.headers["ETag"]
    again = client.get("/tessellation/consensus", headers={"If-None-Match": etag})
    assert again.status_code == 304
