"""Secrets never reach a file: a CR-terminated key, an echoing server, W&B's console and command line."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from huesenv.cli import main
from huesenv.secrets import check_key_value, key_destination_problem, mask_text

pytest.importorskip("httpx")

KEY = "sk-trust-DO-NOT-LEAK-0123456789abcdef"


class EchoServer:
    """A chat-completions endpoint that answers 401 with the Authorization header it got (and 'key' URL)."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                body = json.dumps(
                    {"error": {"message": f"invalid key {self.headers.get('Authorization')} for {self.path}"}}
                ).encode()
                self.send_response(401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def echo():
    s = EchoServer()
    yield s
    s.close()


def _leaks(folder: Path, secret: str) -> list[str]:
    needles = [secret.encode(), secret.strip().encode()]
    return [
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and any(n in p.read_bytes() for n in needles)
    ]


def _config(tmp_path: Path, url: str) -> Path:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "agents:\n"
        "  api:\n"
        "    spec: api-vlm:echo-model\n"
        f"    kwargs: {{base_url: '{url}', api_key_env: TRUST_API_KEY, requests_per_minute: null,"
        " max_retries: 0, retries: 0}\n"
        "  r: random\n"
        "lineups: [[api, r, r]]\nnum_players: 3\ngames: 1\nwordlevel: {enabled: false}\n"
    )
    return cfg


def test_key_with_a_control_character_is_refused_naming_the_variable():
    with pytest.raises(ValueError, match=r"\$TRUST_API_KEY: the key holds whitespace") as err:
        check_key_value("TRUST_API_KEY", KEY + "\r")
    assert KEY not in str(err.value)
    check_key_value("TRUST_API_KEY", KEY)


def test_masking_finds_a_key_as_httpx_quotes_it():
    assert KEY not in mask_text(f"Illegal header value b'Bearer {KEY}\\r'", {"TRUST_API_KEY": KEY + "\r"})
    assert "pw" not in mask_text("https://me:pw-secret@host/v1?key=abc123456&x=1".replace("pw", "pw"))
    assert "abc123456" not in mask_text("https://host/v1?api_key=abc123456")


def test_a_provider_key_goes_only_to_its_provider_unless_listed(monkeypatch):
    monkeypatch.delenv("HUESENV_API_KEY_VARS", raising=False)
    assert key_destination_problem("OPENAI_API_KEY", "api.openai.com", loopback=False) is None
    problem = key_destination_problem("OPENAI_API_KEY", "evil.example", loopback=False)
    assert problem and "HUESENV_API_KEY_VARS" in problem
    assert key_destination_problem("MYLAB_API_KEY", "llm.mylab.org", loopback=False)
    monkeypatch.setenv("HUESENV_API_KEY_VARS", "MYLAB_API_KEY")
    assert key_destination_problem("MYLAB_API_KEY", "llm.mylab.org", loopback=False) is None


def test_config_cannot_send_openai_key_elsewhere(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("HUESENV_API_KEY_VARS", raising=False)
    code = main(["agents", "guess", "api-vlm:m", "BANANA", "--opt", "base_url=https://collector.example/v1"])
    out, err = capsys.readouterr()
    assert code == 2 and "refusing to send $OPENAI_API_KEY" in err and KEY not in out + err


@pytest.mark.integration
def test_cr_key_leaves_no_trace(tmp_path, monkeypatch, capsys, echo):
    monkeypatch.setenv("TRUST_API_KEY", KEY + "\r")
    out_dir = tmp_path / "out"
    code = main(["tournament", str(_config(tmp_path, echo.url)), "-o", str(out_dir), "--wandb", "offline"])
    out, err = capsys.readouterr()
    assert code == 2 and "$TRUST_API_KEY" in err, err
    assert KEY not in out + err
    assert not out_dir.exists() or _leaks(out_dir, KEY) == []


@pytest.mark.integration
def test_echoing_server_leaves_no_key_in_the_run_folder_or_wandb(tmp_path, monkeypatch, capsys, echo):
    pytest.importorskip("wandb")
    monkeypatch.setenv("TRUST_API_KEY", KEY)
    monkeypatch.setenv("HUESENV_API_KEY_VARS", "TRUST_API_KEY")
    out_dir = tmp_path / "out"
    url = echo.url + "?key=" + KEY  # a key pasted into the URL too
    code = main(
        [
            "tournament",
            str(_config(tmp_path, url)),
            "-o",
            str(out_dir),
            "--wandb",
            "offline",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert KEY not in out + err
    games = (out_dir).rglob("games.jsonl")
    assert any("invalid key" in p.read_text() for p in games)  # the echo was logged, masked
    assert list(out_dir.rglob("wandb"))  # W&B wrote its offline files
    assert _leaks(out_dir, KEY) == []
