"""parse_answer on the held-out reply corpus, with an accuracy floor per kind, and the rules it led to.

The held-out corpus (``tests/data/reply_corpus_heldout.jsonl``) was written by a
second author from the prompts and the papers only, before reading the parser;
each batch was scored before the parser was changed for it: ``h1`` (486
replies) 443/486; ``h2`` (154, written after the first round of fixes) 149/154;
``h3`` (95 long-form and adversarial replies, after the second round) 87/95.
The floors sit below the measured accuracy (734/735 after the fixes) with room
for one or two misses per kind, so a rule that breaks several real replies fails.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from huesenv.colour_names import CANONICAL_COLOURS
from huesenv.probes import KINDS, parse_answer

HELDOUT = Path(__file__).parent / "data" / "reply_corpus_heldout.jsonl"
FLOORS = {
    "colour": 0.98,
    "colours": 0.97,
    "option": 0.97,
    "threshold": 0.97,
    "coverage": 0.96,
    "yes_no": 0.96,
}


def _rows() -> list[dict]:
    return [json.loads(line) for line in HELDOUT.read_text(encoding="utf-8").splitlines() if line.strip()]


def _same(kind: str, got, expected) -> bool:
    if expected is None or got is None:
        return got is None and expected is None
    if kind == "colours":
        return set(got) == set(expected)
    if kind in ("threshold", "coverage"):
        return abs(float(got) - float(expected)) <= 0.5
    return got == expected


def test_heldout_corpus_is_well_formed():
    rows = _rows()
    assert len(rows) >= 400
    families = defaultdict(set)
    for r in rows:
        assert set(r) >= {"kind", "text", "kwargs", "expected", "family", "note"}, r
        assert r["kind"] in KINDS
        assert set(r["kwargs"]) <= {"subject", "shown_word", "options"}
        families[r["kind"]].add(r["family"])
        e = r["expected"]
        if r["kind"] == "colour" and e is not None:
            assert e in CANONICAL_COLOURS, r
        if r["kind"] == "colours" and e is not None:
            assert e and set(e) <= set(CANONICAL_COLOURS), r
        if r["kind"] == "option" and e is not None:
            assert 0 <= e < len(r["kwargs"]["options"]), r
    assert all(len(f) >= 8 for f in families.values()), families
    assert sum(r["expected"] is None for r in rows) >= 30  # unreadable replies are part of the test


def test_heldout_accuracy_per_kind_is_above_its_floor():
    totals = defaultdict(lambda: [0, 0])
    wrong = defaultdict(list)
    for r in _rows():
        got = parse_answer(r["kind"], r["text"], **r["kwargs"])
        ok = _same(r["kind"], got, r["expected"])
        totals[r["kind"]][0] += 1
        totals[r["kind"]][1] += ok
        if not ok:
            wrong[r["kind"]].append((r["text"], r["expected"], got))
    assert set(totals) == set(KINDS)
    for kind, (n, ok) in totals.items():
        assert ok / n >= FLOORS[kind], (kind, ok, n, wrong[kind])


TEXT = {"subject": "text"}


@pytest.mark.parametrize(
    "kind,text,kwargs,expected",
    [
        # reasoning blocks are not the answer
        ("colour", "<think>red? no, blue</think>\nPurple", {**TEXT, "shown_word": "GREEN"}, "purple"),
        # a table row keeps its label: the question row is the question
        ("colour", "| Part | Colour |\n|--|--|\n| Question | Red |\n| Word | Blue |", TEXT, "blue"),
        # foreign basic terms
        ("colour", "Le mot est en vert.", {**TEXT, "shown_word": "RED"}, "green"),
        ("colours", "Rot, blau und grün.", {**TEXT, "shown_word": "PINK"}, ["blue", "green", "red"]),
        # answer fields and corrections outrank earlier mentions
        ("colour", "Mostly white, some red. Final answer: red", {"subject": "apple"}, "red"),
        ("colour", "Blue. Actually, looking closer, it is purple.", TEXT, "purple"),
        ("colour", "Answer: red or orange", TEXT, None),
        ("colour", "Pink, or possibly brown.", TEXT, None),
        # what objects usually are is not the answer
        ("colour", "Lemons are normally yellow; this lemon is white.", {"subject": "lemon"}, "white"),
        # background clause, "none of", labels
        ("colours", "The letters are red and blue. The background is white.", TEXT, ["blue", "red"]),
        (
            "colours",
            "None of the letters is pink: red, green.",
            {**TEXT, "shown_word": "PINK"},
            ["green", "red"],
        ),
        ("colours", "pink = red; house = blue", {**TEXT, "shown_word": "PINK HOUSE"}, ["blue", "red"]),
        ("colours", '{"w": [{"text": "PINK", "color": "red"}, {"color": "blue"}]}', TEXT, ["blue", "red"]),
        # numbers
        ("coverage", "30% white, 70% green", {}, 70),
        ("coverage", "The rest (80%) is blank; green covers 20%.", {}, 20),
        ("threshold", "35 out of 100", {}, 35),
        ("threshold", "Sesenta por ciento.", {}, 60),
        ("coverage", "Not a single pixel is red.", {}, 0),
        # yes / no
        ("yes_no", "I suppose so.", {}, True),
        ("yes_no", "I don't believe so.", {}, False),
        ("yes_no", "It's not.", {}, False),
        ("yes_no", "They are.", {}, True),
        ("yes_no", "Oui, c'est rouge.", {}, True),
        ("yes_no", "That's correct.", {}, True),
        ("yes_no", "Partly, but overall no.", {}, False),
        # round 3: doubts, colour nouns after the subject, runs of colour words, the question's colour
        ("colour", "Is it purple? No -- it is brown.", TEXT, "brown"),
        ("colour", "The lime is a lime color.", {"subject": "lime"}, "green"),
        ("colours", "pink grey black", {**TEXT, "shown_word": "RIVER"}, ["black", "grey", "pink"]),
        ("colour", "The colour of the question is green; the word is yellow.", TEXT, "yellow"),
    ],
)
def test_rules_found_by_the_heldout_corpus(kind, text, kwargs, expected):
    got = parse_answer(kind, text, **kwargs)
    if kind == "colours" and got is not None:
        got = sorted(got)
    if kind in ("threshold", "coverage") and got is not None:
        assert expected is not None and abs(got - expected) <= 0.5
    else:
        assert got == expected
