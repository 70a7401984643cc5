"""``huesenv collect serve|export`` from the command line."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request

import pandas as pd
import pytest

pytest.importorskip("flask")

from huesenv.cli import main  # noqa: E402
from huesenv.collect.app import CollectConfig, create_app  # noqa: E402
from huesenv.collect.testing import ClientParticipant  # noqa: E402


def _db_with_answers(tmp_path):
    app = create_app(CollectConfig(db_path=tmp_path / "c.sqlite3", words_per_participant=2))
    for coord in ("A5", "K20"):
        p = ClientParticipant(app.test_client())
        p.answer_words(p.onboard(), lambda w, c=coord: c)
    return tmp_path / "c.sqlite3"


def test_export_command(tmp_path, capsys):
    from huesenv.humans import load_humans

    db = _db_with_answers(tmp_path)
    out = tmp_path / "out" / "answers.csv.gz"
    assert main(["collect", "export", "--db", str(db), "-o", str(out)]) == 0
    assert "wrote 4 rows" in capsys.readouterr().out
    assert len(load_humans(out)) == 4
    assert main(["collect", "export", "--db", str(db), "-o", str(tmp_path / "x.csv"), "--finished-only"]) == 0
    assert main(["collect", "export", "--db", str(db), "-o", str(tmp_path / "g.csv"), "--task", "gca"]) == 0
    assert (tmp_path / "g.csv").read_text().startswith("userId,condition,item")


@pytest.mark.parametrize("name", ["a.csv", "a.csv.gz", "a.parquet"])
def test_export_is_private_like_the_database(tmp_path, name):
    import stat

    db = _db_with_answers(tmp_path)
    out = tmp_path / "out" / name
    out.parent.mkdir()
    out.write_bytes(b"old")
    out.chmod(0o644)  # an earlier export, readable by everyone
    assert main(["collect", "export", "--db", str(db), "-o", str(out), "--task", "participants"]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    fresh = tmp_path / "fresh" / name
    assert main(["collect", "export", "--db", str(db), "-o", str(fresh)]) == 0
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


def test_export_errors(tmp_path, capsys):
    assert (
        main(["collect", "export", "--db", str(tmp_path / "missing.sqlite3"), "-o", str(tmp_path / "a.csv")])
        == 2
    )
    assert "no such collection database" in capsys.readouterr().err
    db = _db_with_answers(tmp_path)
    assert main(["collect", "export", "--db", str(db), "-o", str(tmp_path / "a.xlsx")]) == 2
    assert "expected .csv, .csv.gz or .parquet" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flags", "secure"),
    [
        ([], False),  # plain http on this machine
        (["--trust-proxy", "1"], True),  # loopback behind an HTTPS reverse proxy (the deployment guide)
        (["--host", "0.0.0.0"], True),
        (["--trust-proxy", "1", "--no-secure-cookies"], False),
    ],
)
def test_serve_marks_cookies_secure_behind_a_proxy(tmp_path, monkeypatch, flags, secure):
    from flask import Flask

    seen = []
    monkeypatch.setattr(Flask, "run", lambda self, **kw: seen.append(self.config["SESSION_COOKIE_SECURE"]))
    argv = ["collect", "serve", "--pilot", "--db", str(tmp_path / "c.sqlite3"), "--no-gca-prerender", *flags]
    assert main(argv) == 0
    assert seen == [secure]


def test_serve_needs_an_information_sheet_or_pilot_and_marks_a_pilot(tmp_path, monkeypatch, capsys):
    from flask import Flask

    monkeypatch.setattr(Flask, "run", lambda self, **kw: None)
    db = tmp_path / "c.sqlite3"
    assert main(["collect", "serve", "--db", str(db)]) == 2
    assert "--information FILE" in capsys.readouterr().err and not db.exists()
    assert main(["collect", "serve", "--pilot", "--db", str(db)]) == 0
    assert "pilot" in capsys.readouterr().out
    p = ClientParticipant(create_app(CollectConfig(db_path=db, pilot=True)).test_client())
    p.answer_words(p.onboard(), lambda w: "B2", limit=1)
    for task in ("participants", "words"):
        out = tmp_path / f"{task}.csv"
        assert (
            main(
                ["collect", "export", "--db", str(db), "-o", str(out), "--task", task, "--include-unfinished"]
            )
            == 0
        )
        assert "pilot data" in capsys.readouterr().out
        marks = pd.read_csv(out)["pilot"]
        assert len(marks) == 1 and marks.str.startswith("pilot since").all()
    with pytest.raises(ValueError, match="pilot"):  # a study never shares a pilot's database
        create_app(CollectConfig(db_path=db))


def test_serve_says_which_language_has_no_information_file(tmp_path, monkeypatch, capsys):
    from flask import Flask

    monkeypatch.setattr(Flask, "run", lambda self, **kw: None)
    (tmp_path / "info.en.txt").write_text("Our approved information sheet.")
    argv = [
        "collect",
        "serve",
        "--db",
        str(tmp_path / "c.sqlite3"),
        "--information",
        str(tmp_path / "info.{lang}.txt"),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "info.es.txt: no such file" in out and "placeholder" in out and "info.en.txt" not in out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.integration
def test_serve_command_listens_on_loopback(tmp_path):
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "huesenv",
            "collect",
            "serve",
            "--pilot",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "s.sqlite3"),
            "--words-per-participant",
            "5",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as resp:
                    assert json.loads(resp.read()) == {"ok": True, "task": "words"}
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(
                        f"server did not start: {proc.stdout.read() if proc.poll() is not None else ''}"
                    ) from None
                time.sleep(0.2)
        # bound to the loopback address only
        conns = subprocess.run(["ss", "-ltn"], capture_output=True, text=True).stdout if _has("ss") else ""
        if conns:
            listening = [line for line in conns.splitlines() if f":{port} " in line]
            assert listening and all("127.0.0.1:" in line for line in listening), listening
    finally:
        proc.terminate()
        proc.wait(15)
    assert (tmp_path / "s.sqlite3").is_file()


@pytest.mark.integration
def test_killed_server_loses_no_acknowledged_answer(tmp_path):
    """SIGKILL the server right after answers were acknowledged: every one of them is in the database."""
    import signal

    from huesenv.collect.export import word_answers_frame
    from huesenv.collect.testing import HttpParticipant

    port = _free_port()
    db = tmp_path / "k.sqlite3"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "huesenv",
            "collect",
            "serve",
            "--pilot",
            "--port",
            str(port),
            "--db",
            str(db),
            "--no-feedback",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        p = HttpParticipant(f"http://127.0.0.1:{port}")
        _, answers = p.answer_words(p.onboard(), lambda w: "C3", limit=4)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(15)
    frame = word_answers_frame(db, include_unfinished=True)  # 4 of 15 words answered
    assert list(zip(frame["word"], frame["coordinate"])) == answers and len(answers) == 4


def _has(cmd: str) -> bool:
    import shutil

    return shutil.which(cmd) is not None


def test_serve_rejects_bad_options(tmp_path, capsys):
    assert (
        main(
            [
                "collect",
                "serve",
                "--pilot",
                "--db",
                str(tmp_path / "s.sqlite3"),
                "--words-per-participant",
                "200",
            ]
        )
        == 2
    )
    assert "fewer than the 200" in capsys.readouterr().err
    assert not (tmp_path / "s.sqlite3").exists()  # nothing is created for a refused configuration
    assert main(["collect", "serve", "--pilot", "--db", str(tmp_path / "nofolder" / "s.sqlite3")]) == 2


def test_app_from_env(tmp_path, monkeypatch):
    from huesenv.collect.app import app_from_env

    monkeypatch.delenv("HUESENV_COLLECT_DB", raising=False)
    with pytest.raises(ValueError, match="HUESENV_COLLECT_DB"):
        app_from_env()
    monkeypatch.setenv("HUESENV_COLLECT_DB", str(tmp_path / "e.sqlite3"))
    with pytest.raises(ValueError, match="HUESENV_COLLECT_INFORMATION"):
        app_from_env()  # no approved information sheet
    monkeypatch.setenv("HUESENV_COLLECT_PILOT", "1")
    monkeypatch.setenv("HUESENV_COLLECT_WORDS", "2")
    p = ClientParticipant(app_from_env().test_client())
    page, answers = p.answer_words(p.onboard(), lambda w: "D4")
    assert page.path == "/done" and len(answers) == 2


HOSTILE = [
    ["serve", "--port", "99999"],
    ["serve", "--port", "-1"],
    ["serve", "--port", ""],
    ["serve", "--host", "300.1.1.1"],
    ["serve", "--host", "; rm -rf /"],
    ["serve", "--task", "quiz"],
    ["serve", "--task", "gca", "--gca-trials", "0"],
    ["serve", "--task", "gca", "--gca-trials", "100000"],
    ["serve", "--task", "gca", "--gca-attention", "1,x"],
    ["serve", "--task", "gca", "--gca-attention", "-5"],
    ["serve", "--words-per-participant", "0"],
    ["serve", "--words-per-participant", "1e9"],
    ["serve", "--seed", "abc"],
    ["serve", "--languages", ","],
    ["serve", "--languages", "x" * 100],
    ["serve", "--vocabulary", "/nonexistent.csv"],
    ["serve", "--information", "/nonexistent.txt"],
    ["serve", "--start-limit", "0/10"],
    ["serve", "--start-limit", "10/-1"],
    ["serve", "--age-policy", "children"],
    ["serve", "--adult-age", "12"],
    ["serve", "--completion-url", "javascript:alert(1)"],
    ["serve", "--completion-code", "<b>"],
    ["serve", "--trust-proxy", "-1"],
    ["serve", "--assignment", "random"],
    ["export", "-o", "x.csv"],
    ["export", "--db", "/nonexistent.sqlite3", "-o", "x.csv"],
    ["export", "--db", ".", "-o", "x.csv"],
    ["export", "--db", "JUNK", "-o", "x.csv"],
    ["export", "--db", "GOOD", "-o", "x.xlsx"],
    ["export", "--db", "GOOD", "-o", "GOOD"],
    ["export", "--db", "GOOD", "-o", "x.csv", "--task", "everything"],
]


@pytest.fixture(scope="module")
def good_db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("good")
    create_app(CollectConfig(db_path=folder / "GOOD", words_per_participant=2))
    return folder


@pytest.mark.parametrize("args", HOSTILE, ids=[" ".join(a)[:40] for a in HOSTILE])
def test_collect_cli_hostile_inputs_end_in_one_line(tmp_path, capsys, monkeypatch, args, good_db):
    """Every bad input: exit status 2, one line on stderr naming it, no traceback, nothing created."""
    import shutil

    monkeypatch.chdir(tmp_path)
    (tmp_path / "JUNK").write_bytes(b"not a database at all" * 10)
    good = tmp_path / "GOOD"
    for name in ("GOOD", "GOOD.key"):
        shutil.copy2(good_db / name, tmp_path / name)
    before = sorted(p.name for p in tmp_path.iterdir())
    args = [str(good) if a == "GOOD" else a for a in args]
    if args[0] == "serve":
        args = [*args, "--pilot", "--db", str(tmp_path / "new.sqlite3")]
    try:
        rc = main(["collect", *args])
    except SystemExit as exit_:
        rc = exit_.code
    err = capsys.readouterr().err.strip()
    assert rc == 2, (rc, err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "error" in err, err
    # (SQLite's -wal/-shm sidecars may appear next to a database opened read-only: they are not the database)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))) == before


def test_prerender_fills_the_image_cache_with_a_progress_bar(tmp_path, monkeypatch, capsys):
    import io

    from PIL import Image

    import huesenv.collect.gca_probes as gca_probes

    def png(k):
        buf = io.BytesIO()
        Image.new("RGB", (4, 4), (k, 0, 0)).save(buf, format="PNG")
        return buf.getvalue()

    def small_source():
        def source(rng, n_trials, n_attention):  # pragma: no cover - not drawn here
            raise AssertionError

        source.stimulus_ids = ("a/1", "b/2", "c/3")
        source.render_png = lambda sid: lambda: png(len(sid))
        return source

    monkeypatch.setattr(gca_probes, "make_probes_source", small_source)
    db = tmp_path / "g.sqlite3"
    create_app(CollectConfig(db_path=db, words_per_participant=2))  # a collection database
    assert main(["collect", "prerender", "--db", str(db)]) == 0
    assert "rendered 3 of 3 GCA images" in capsys.readouterr().out
    assert len(list((tmp_path / "g.sqlite3.gca-images").glob("*.png"))) == 3
    assert main(["collect", "prerender", "--db", str(db)]) == 0
    assert "rendered 0 of 3" in capsys.readouterr().out  # already there
    assert main(["collect", "prerender", "--db", str(tmp_path / "none.sqlite3")]) == 2
