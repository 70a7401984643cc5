"""The random agent as a chance baseline on the probes: every free-text trial gets a parsable answer."""

import numpy as np
import pytest

from huesenv.agents import RandomAgent
from huesenv.agents.protocol import ProbeQuery
from huesenv.colour_names import CANONICAL_COLOURS
from huesenv.probes import parse_answer, run_probe

_IMG = np.full((8, 8, 3), 255, dtype=np.uint8)


@pytest.mark.parametrize(
    "task,limit",
    [("interference", 24), pytest.param("gca", 40, marks=pytest.mark.integration)],  # gca: ~5 s of rendering
)
def test_all_probe_trials_valid_and_deterministic(task, limit):
    a = run_probe(RandomAgent(seed=0), task, limit=limit)
    b = run_probe(RandomAgent(seed=0), task, limit=limit)
    assert len(a) == limit
    assert all(r.valid for r in a), [(r.extra["trial_id"], r.raw_text) for r in a if not r.valid]
    assert [(r.raw_text, r.answer) for r in a] == [(r.raw_text, r.answer) for r in b]


def test_gca_every_question_kind_answered():
    records = run_probe(RandomAgent(seed=0), "gca", objects=["apple"], conditions=["prior"], taus=[50])
    kinds = {r.extra["answer_kind"] for r in records}
    assert kinds == {"colour", "threshold", "threshold+colour", "coverage"}  # colour: the open model prompt
    assert all(r.valid for r in records)


def test_free_text_answers_by_question():
    agent = RandomAgent(seed=3)
    colours = {
        agent.answer_probe(ProbeQuery(_IMG, "Answer the question shown in the image.")).text
        for _ in range(200)
    }
    assert colours <= set(CANONICAL_COLOURS) and len(colours) > 5  # drawn from the whole vocabulary
    numbers = [
        parse_answer(
            "coverage", agent.answer_probe(ProbeQuery(_IMG, "What percent of pixels are red?")).raw_text
        )
        for _ in range(200)
    ]
    assert all(n is not None and 0 <= n <= 100 and n == int(n) for n in numbers) and len(set(numbers)) > 50
    q = "What color is the apple in the image? Choose white or red. Reply with the format: threshold=x%, color=<color>."
    replies = [agent.answer_probe(ProbeQuery(_IMG, q)) for _ in range(100)]
    assert {r.text for r in replies} == {"white", "red"}  # the offered choices only
    assert all(r.raw_text.startswith("threshold=") and ", color=" in r.raw_text for r in replies)


def test_seed_changes_and_reset_repeats_answers():
    q = ProbeQuery(_IMG, "Answer the question shown in the image.")
    a, b = RandomAgent(seed=0), RandomAgent(seed=1)
    ra = [a.answer_probe(q).text for _ in range(30)]
    assert ra != [b.answer_probe(q).text for _ in range(30)]
    a.reset()
    assert ra == [a.answer_probe(q).text for _ in range(30)]


def test_options_still_uniform_over_options():
    agent = RandomAgent(seed=0)
    opts = ("white", "red", "blue")
    picks = [agent.answer_probe(ProbeQuery(_IMG, "What color?", options=opts)) for _ in range(90)]
    assert {p.option for p in picks} == {0, 1, 2} and all(opts[p.option] == p.text for p in picks)
