"""Local VLM agent on a tiny randomly initialised Llava built here (tokenizer + processor saved to a temp dir)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

transformers: Any = None  # set by _model_libraries

from huesenv.agents import CueQuery, GuessQuery, ProbeQuery, evaluate_words, make_agent  # noqa: E402
from huesenv.agents.chat import ATTEMPT_SEPARATOR  # noqa: E402
from huesenv.agents.parsing import parse_coordinate, parse_coordinates, parse_cue, parse_probe  # noqa: E402
from huesenv.board import parse_coord  # noqa: E402
from huesenv.vocabulary import Word  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _model_libraries():
    """Import torch and transformers when these tests run, not when they are collected (collection stays fast)."""
    global transformers
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tiny_vlm(tmp_path_factory):
    from huesenv.agents.tiny_models import build_tiny_llava

    path = tmp_path_factory.mktemp("tiny_vlm")
    return path, build_tiny_llava(path)


def bias(ids, pairs):
    """sequence_bias forcing the given token sequence (a way to constrain the random model's output)."""
    return {"sequence_bias": [[[ids[a] for a in seq], b] for seq, b in pairs]}


def test_parse_coordinates():
    assert parse_coordinates("I'd say I18, maybe c5 or row B column 7; a 5x5 frame; Q5, A31, P 30") == [
        parse_coord("I18"),
        parse_coord("C5"),
        parse_coord("B7"),
        parse_coord("P30"),
    ]
    assert parse_coordinate("nothing here") is None and parse_coordinate(None) is None
    legal = np.ones(480, bool)
    legal[parse_coord("I18")] = False
    assert parse_coordinate("I18 then J19", legal) == parse_coord("J19")
    assert parse_cue("I pick Banana!", ("APPLE", "BANANA")) == "BANANA"
    assert parse_cue("sunshine", None, forbidden={"SUN"}) == "sunshine"
    assert parse_probe("It is reddish.", ("white", "red", "green")) == (1, "red")
    assert parse_probe("no idea", ("white", "red")) == (None, None)


def test_loads_through_real_path_and_answers(tiny_vlm):
    path, ids = tiny_vlm
    agent = make_agent(
        f"vlm:{path}",
        device="cpu",
        max_new_tokens=2,
        retries=0,
        generate_kwargs=bias(ids, [(("I",), 50.0), (("I", "18"), 100.0)]),
    )
    answers = agent.act_batch([GuessQuery(cues=("SKY",)), GuessQuery(cues=("APPLE", "RED"), top_k=3)])
    for ans in answers:
        assert ans.valid and ans.cell == parse_coord("I18") and ans.raw_text.replace(" ", "") == "I18"
    assert agent.agent_id == f"vlm:{path.name}"


def test_malformed_output_is_invalid_with_raw_text(tiny_vlm):
    """Must show: unparsable model text counts as invalid and every attempt's raw text is kept."""
    path, ids = tiny_vlm
    agent = make_agent(
        f"vlm:{path}",
        device="cpu",
        max_new_tokens=3,
        retries=1,
        generate_kwargs=bias(ids, [(("banana",), 100.0)]),
    )
    recs = evaluate_words(agent, inputs=[Word("SKY", "Environment"), Word("5", "Nonsense")], top_k=5)
    for r in recs:
        assert r.valid is False and r.cells is None and r.kind == "word_query"
        assert r.raw_text.split(ATTEMPT_SEPARATOR) == ["banana banana banana"] * 2
        assert r.extra["attempts"] == 2


def test_probe_and_cue(tiny_vlm):
    path, ids = tiny_vlm
    agent = make_agent(
        f"vlm:{path}",
        device="cpu",
        max_new_tokens=1,
        retries=0,
        generate_kwargs=bias(ids, [(("red",), 100.0)]),
    )
    img = np.full((20, 20, 3), 90, np.uint8)
    probe = agent.act(
        ProbeQuery(image=img, question="What colour is the apple?", options=("white", "red"), subject="apple")
    )
    assert probe.valid and probe.option == 1 and probe.text == "red"
    agent.generate_kwargs = bias(ids, [(("apple",), 100.0)])
    cue = agent.act(CueQuery(card=(10, 20, 30, 40), target=None, vocabulary=("APPLE", "BANANA")))
    assert cue.valid and cue.cue == "APPLE" and cue.target in (10, 20, 30, 40)
    bad = agent.act(CueQuery(card=(10, 20, 30, 40), target=20, vocabulary=("BANANA",)))
    assert not bad.valid and bad.raw_text == "apple" and bad.target == 20


def test_text_only_queries_are_generated_without_an_image(tiny_vlm):
    path, ids = tiny_vlm
    agent = make_agent(
        f"vlm:{path}",
        device="cpu",
        max_new_tokens=1,
        retries=0,
        generate_kwargs=bias(ids, [(("red",), 100.0)]),
    )
    img = np.full((20, 20, 3), 90, np.uint8)
    queries = [
        ProbeQuery(image=None, question="What colour is an apple?", answer_kind="colour"),
        ProbeQuery(image=img, question="What colour is the apple?", answer_kind="colour"),
        ProbeQuery(image=None, question="What colour is a cherry?", answer_kind="colour"),
    ]
    answers = agent.act_batch(queries)
    assert [a.text for a in answers] == ["red", "red", "red"] and all(a.valid for a in answers)
    assert "<image>" not in agent._render("q", image=False) and "<image>" in agent._render("q", image=True)
