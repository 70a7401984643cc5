"""API VLM agent against a loopback chat-completions server: good, slow, failing and malformed replies."""

from __future__ import annotations

import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

pytest.importorskip("httpx")

from huesenv.agents import CueQuery, GuessQuery, ProbeQuery, evaluate_words, make_agent  # noqa: E402
from huesenv.agents.api_vlm import RequestPacer  # noqa: E402
from huesenv.agents.chat import ATTEMPT_SEPARATOR  # noqa: E402
from huesenv.board import parse_coord  # noqa: E402
from huesenv.vocabulary import Word  # noqa: E402

pytestmark = pytest.mark.integration  # answers come from a local HTTP server

SECRET = "sk-test-DO-NOT-LEAK-1234567890"


class Server:
    """Replies from a script: each entry is (status, body text, delay seconds); the last entry repeats."""

    def __init__(self) -> None:
        self.script: list[tuple[int, str, float]] = []
        self.requests: list[dict] = []
        self.auth: list[str | None] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                outer.requests.append(json.loads(self.rfile.read(length)))
                outer.auth.append(self.headers.get("Authorization"))
                i = min(len(outer.requests) - 1, len(outer.script) - 1)
                status, body, delay = outer.script[i]
                time.sleep(delay)
                data = body.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def reply(self, content: str) -> str:
        return json.dumps(
            {
                "id": "x",
                "object": "chat.completion",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
            }
        )


@pytest.fixture(autouse=True)
def _allow_test_key_var(monkeypatch):
    """The tests' key variable is not named *_API_KEY: allow it explicitly, as a user would."""
    monkeypatch.setenv("HUESENV_API_KEY_VARS", "HUESENV_TEST_KEY")


@pytest.fixture
def server():
    s = Server()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


def agent_for(server, **kw):
    kw.setdefault("requests_per_minute", None)
    kw.setdefault("backoff", 0.01)
    kw.setdefault("timeout", 2.0)
    return make_agent("api-vlm:test-model", base_url=server.url, api_key_env="HUESENV_TEST_KEY", **kw)


def test_good_reply_and_request_format(server, monkeypatch):
    monkeypatch.setenv("HUESENV_TEST_KEY", SECRET)
    server.script = [(200, server.reply("I think it is **I18**."), 0.0)]
    ans = agent_for(server).act(GuessQuery(cues=("SKY",)))
    assert ans.valid and ans.cell == parse_coord("I18") and ans.raw_text == "I think it is **I18**."
    req = server.requests[0]
    assert req["model"] == "test-model"
    parts = req["messages"][0]["content"]
    assert parts[0]["type"] == "text" and '"sky"' in parts[0]["text"]
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert server.auth[0] == f"Bearer {SECRET}"


def test_malformed_and_unparsable_replies_are_invalid_with_raw_text(server):
    server.script = [(200, server.reply("I cannot see any board, sorry."), 0.0)]
    ans = agent_for(server, retries=1).act(GuessQuery(cues=("SKY",)))
    assert not ans.valid and ans.cells is None
    assert ans.raw_text == ATTEMPT_SEPARATOR.join(["I cannot see any board, sorry."] * 2)
    assert "previous answer could not be read" in server.requests[1]["messages"][0]["content"][0]["text"]

    server.requests.clear()
    server.script = [(200, "{this is not json", 0.0)]
    ans = agent_for(server, retries=0, max_retries=1).act(GuessQuery(cues=("SKY",)))
    assert not ans.valid and ans.raw_text == "{this is not json" and len(server.requests) == 2

    server.requests.clear()
    server.script = [(200, json.dumps({"choices": []}), 0.0)]
    recs = evaluate_words(agent_for(server, retries=0, max_retries=0), inputs=[Word("SKY", "Environment")])
    assert (
        recs[0].valid is False and recs[0].raw_text == json.dumps({"choices": []}) and recs[0].cells is None
    )


def test_server_errors_are_retried_with_backoff(server):
    sleeps: list[float] = []
    server.script = [(503, "overloaded", 0.0), (500, "oops", 0.0), (200, server.reply("C5"), 0.0)]
    agent = agent_for(server, sleep=sleeps.append, backoff=0.5, max_retries=3)
    ans = agent.act(GuessQuery(cues=("APPLE",)))
    assert ans.valid and ans.cell == parse_coord("C5")
    assert sleeps == [0.5, 1.0] and agent.stats["http_retries"] == 2

    server.requests.clear()
    server.script = [(500, "still broken", 0.0)]
    agent = agent_for(server, sleep=lambda s: None, max_retries=2, retries=0)
    ans = agent.act(GuessQuery(cues=("APPLE",)))
    assert not ans.valid and "HTTP 500" in ans.raw_text and len(server.requests) == 3

    server.requests.clear()
    server.script = [(401, "bad key", 0.0)]
    ans = agent_for(server, sleep=lambda s: None, max_retries=3, retries=0).act(GuessQuery(cues=("APPLE",)))
    assert not ans.valid and len(server.requests) == 1  # client errors are not retried


def test_slow_reply_times_out_then_retries(server):
    server.script = [(200, server.reply("A1"), 1.5), (200, server.reply("B2"), 0.0)]
    agent = agent_for(server, timeout=0.3, max_retries=2)
    ans = agent.act(GuessQuery(cues=("APPLE",)))
    assert ans.valid and ans.cell == parse_coord("B2")
    assert agent.stats["http_retries"] == 1


def test_key_never_logged_or_stored(server, monkeypatch, caplog):
    monkeypatch.setenv("HUESENV_TEST_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    server.script = [(500, "fail", 0.0), (200, server.reply("nonsense"), 0.0), (200, server.reply("D4"), 0.0)]
    agent = agent_for(server, max_retries=2)
    recs = evaluate_words(agent, inputs=[Word("SKY", "Environment")])
    assert server.auth[-1] == f"Bearer {SECRET}"
    dumped = json.dumps([r.to_dict() for r in recs]) + json.dumps(agent.config()) + repr(agent)
    dumped += repr(vars(agent)) + caplog.text
    assert SECRET not in dumped and "DO-NOT-LEAK" not in dumped
    with pytest.raises(ValueError):
        make_agent("api-vlm:m", api_key="sk-x")


def test_probe_cue_and_concurrency(server):
    server.script = [(200, server.reply("The apple is Red."), 0.0)]
    agent = agent_for(server, concurrency=4)
    img = np.full((8, 8, 3), 200, np.uint8)
    probes = [
        ProbeQuery(
            image=img,
            question="What colour is the apple?",
            options=("white", "red", "green"),
            subject="apple",
        )
    ] * 6
    answers = agent.act_batch(probes)
    assert all(a.valid and a.option == 1 and a.text == "red" for a in answers)
    server.script = [(200, server.reply("banana"), 0.0)]
    cue = agent.act(CueQuery(card=(1, 2, 3, 4), target=2, vocabulary=("APPLE", "BANANA")))
    assert cue.valid and cue.cue == "BANANA" and cue.target == 2


def test_rate_limiter_spacing():
    now = [0.0]
    slept: list[float] = []

    def sleep(s):
        slept.append(s)
        now[0] += s

    limiter = RequestPacer(120, clock=lambda: now[0], sleep=sleep)
    for _ in range(4):
        limiter.wait()
    assert slept == pytest.approx([0.5, 0.5, 0.5])
    with pytest.raises(ValueError):
        RequestPacer(0)


class _RecordingTransport:
    """An httpx transport that records requests instead of sending them (nothing must reach it)."""

    def __init__(self):
        self.requests = []

    def handle_request(self, request):
        import httpx

        self.requests.append(request)
        return httpx.Response(200, json={"choices": [{"message": {"content": "A1"}}]})

    def close(self):
        pass


@pytest.mark.parametrize(
    "url", ["http://api.example.com/v1", "http://10.0.0.5:8000/v1", "HTTP://example.org"]
)
def test_key_is_never_sent_over_plain_http_to_a_remote_host(url, monkeypatch):
    monkeypatch.setenv("HUESENV_TEST_KEY", SECRET)
    with pytest.raises(
        ValueError, match="refusing to send the API key .*over plain http to a non-loopback host"
    ):
        make_agent("api-vlm:m", base_url=url, api_key_env="HUESENV_TEST_KEY")
    # the key appearing only after construction is refused at request time, before anything is sent
    monkeypatch.delenv("HUESENV_TEST_KEY")
    transport = _RecordingTransport()
    agent = make_agent(
        "api-vlm:m",
        base_url=url,
        api_key_env="HUESENV_TEST_KEY",
        transport=transport,
        requests_per_minute=None,
    )
    monkeypatch.setenv("HUESENV_TEST_KEY", SECRET)
    with pytest.raises(ValueError, match="refusing to send the API key"):
        agent.act(GuessQuery(cues=("SKY",)))
    assert transport.requests == []
    monkeypatch.delenv("HUESENV_TEST_KEY")  # a keyless remote http server is allowed
    assert agent.act(GuessQuery(cues=("SKY",))).cell == parse_coord("A1")
    assert "authorization" not in transport.requests[-1].headers


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/v1",
        "http://localhost:8000/v1",
        "http://127.0.0.1:9/v1",
        "http://127.8.0.1/v1",
        "http://[::1]:8000/v1",
    ],
)
def test_key_goes_over_https_and_to_loopback_http(url, monkeypatch):
    monkeypatch.setenv("HUESENV_TEST_KEY", SECRET)
    transport = _RecordingTransport()
    agent = make_agent(
        "api-vlm:m",
        base_url=url,
        api_key_env="HUESENV_TEST_KEY",
        transport=transport,
        requests_per_minute=None,
    )
    assert agent.act(GuessQuery(cues=("SKY",))).cell == parse_coord("A1")
    assert transport.requests[0].headers["authorization"] == f"Bearer {SECRET}"


@pytest.mark.parametrize("url", ["ftp://example.com/v1", "api.example.com/v1", "http:///v1"])
def test_base_url_must_be_http_or_https_with_a_host(url):
    with pytest.raises(ValueError, match="expected an http:// or https:// URL with a host"):
        make_agent("api-vlm:m", base_url=url)
