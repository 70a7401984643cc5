"""Probe prompts per answer kind, no re-asking a well-formed reply, structured output, text-only prior."""

from __future__ import annotations

import json

import pytest

from huesenv.agents import prompts
from huesenv.agents.chat import ChatVLMAgent
from huesenv.probes import run_probe
from huesenv.probes.gca.questions import gca_trials
from huesenv.probes.interference.questions import interference_trials


class ScriptedChat(ChatVLMAgent):
    """A chat agent whose model replies from a list (the last reply repeats); it counts requests."""

    name = "scripted"

    def __init__(self, replies, **kw):
        super().__init__(**kw)
        self.replies = list(replies)
        self.requests = []

    def complete(self, requests):
        out = []
        for r in requests:
            self.requests.append(r)
            out.append(self.replies[min(len(self.requests) - 1, len(self.replies) - 1)])
        return out


def _threshold_trials(n=6):
    trials = gca_trials(
        objects=["apple"], conditions=["prior"], question_types=["introspection"], orderings=["visual-prior"]
    )
    assert all(t.answer_kind == "threshold" for t in trials)
    return trials[:n]


def test_threshold_reply_in_the_requested_format_is_not_re_asked():
    agent = ScriptedChat(["threshold=35%"])
    records = run_probe(agent, _threshold_trials(6), run_id="count")
    assert len(agent.requests) == 6  # one request per trial (the old parser made it 12 + retries)
    assert all(r.valid and r.extra["parsed_value"] == 35.0 for r in records)
    assert all("one color name" not in r.text.lower() for r in agent.requests)


def test_unreadable_reply_is_re_asked_once_then_read():
    agent = ScriptedChat(["I cannot say.", "threshold=40%"])
    records = run_probe(agent, _threshold_trials(1), run_id="count")
    assert len(agent.requests) == 2 and agent.requests[1].text.endswith(prompts.RETRY_SUFFIX)
    assert records[0].valid and records[0].answer == "40"


def test_interference_prompts_follow_the_answer_kind():
    trials = interference_trials(seed=0, subsets=["color"], per_type=1)
    agent = ScriptedChat(["red"])
    run_probe(agent, trials, run_id="p")
    texts = {t.fields["type"]: r.text for t, r in zip(trials, agent.requests)}
    assert "one color name" in texts[1].lower() and "one color name" in texts[2].lower()
    for t in (3, 4):
        assert "one color name" not in texts[t].lower() and "separated by commas" in texts[t]


@pytest.mark.parametrize("kind", ["option", "colour", "colours", "threshold", "coverage", "yes_no"])
def test_structured_prompt_and_schema(kind):
    options = ("white", "red") if kind == "option" else None
    text = prompts.probe_prompt("Q? Reply with the format: threshold=x%.", options, kind, structured=True)
    assert "JSON" in text and "Reply with the format" not in text
    schema = prompts.probe_schema(options, kind)
    assert schema["schema"]["type"] == "object" and schema["schema"]["required"]


def _api_agent(handler, **kw):
    httpx = pytest.importorskip("httpx")
    from huesenv.agents import make_agent

    return make_agent(
        "api-vlm:test-model",
        base_url="http://127.0.0.1:9/v1",
        api_key_env="HUESENV_TEST_UNSET_API_KEY",  # named *_API_KEY: the api_key_env rule
        requests_per_minute=None,
        backoff=0.0,
        transport=httpx.MockTransport(handler),
        **kw,
    )


def _reply(content):
    return {"choices": [{"message": {"role": "assistant", "content": content}}]}


def test_structured_output_is_sent_and_read():
    import httpx

    bodies = []

    def handler(request):
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=_reply('{"threshold": 45}'))

    agent = _api_agent(handler, structured_output=True)
    records = run_probe(agent, _threshold_trials(2), run_id="s")
    assert len(bodies) == 2 and all(r.valid and r.answer == "45" for r in records)
    fmt = bodies[0]["response_format"]
    assert fmt["type"] == "json_schema" and "threshold" in fmt["json_schema"]["schema"]["properties"]


def test_structured_output_falls_back_to_free_text_when_rejected():
    import httpx

    bodies = []

    def handler(request):
        body = json.loads(request.content)
        bodies.append(body)
        if "response_format" in body:
            return httpx.Response(
                400, json={"error": {"message": "response_format json_schema not supported"}}
            )
        return httpx.Response(200, json=_reply("threshold=30%"))

    agent = _api_agent(handler, structured_output=True)
    records = run_probe(agent, _threshold_trials(3), run_id="f")
    assert all(r.valid and r.answer == "30" for r in records)
    assert ["response_format" in b for b in bodies] == [True, False, False, False]
    assert agent.stats["structured_fallbacks"] == 1


def test_text_prior_is_asked_in_text_only_by_default_and_white_image_on_request():
    import httpx

    bodies = []

    def handler(request):
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=_reply("threshold=50%"))

    kw = dict(
        objects=["apple"], conditions=["prior"], question_types=["introspection"], orderings=["text-prior"]
    )
    (text_only,) = gca_trials(**kw)
    assert text_only.text_only and text_only.query().image is None
    (white,) = gca_trials(prior_image="white", **kw)
    assert not white.text_only
    img = white.query().image
    assert img.shape == (512, 512, 3) and (img == 255).all()
    agent = _api_agent(handler)
    records = run_probe(agent, [text_only, white], run_id="t")
    assert all(r.valid and r.answer == "50" for r in records)
    kinds = [[p["type"] for p in b["messages"][0]["content"]] for b in bodies]
    assert kinds == [["text"], ["text", "image_url"]]
    with pytest.raises(ValueError, match="prior_image"):
        gca_trials(prior_image="black", **kw)


def test_gca_colour_question_is_the_papers_open_prompt():
    """§3: "What color is the [OBJECT] in the image?" + the authors' "Answer with one word."; open answers read."""
    trials = gca_trials(objects=["apple"], conditions=["prior"], question_types=["colour"], taus=[0, 100])
    agent = ScriptedChat(["Crimson.", "It is white."])
    records = run_probe(agent, trials, run_id="open")
    assert [r.text for r in agent.requests] == [
        "What color is the apple in the image? Answer with one word."
    ] * 2
    assert "Options" not in agent.requests[0].text
    assert [r.answer for r in records] == ["red", "white"]  # an open colour name is read, not an option
