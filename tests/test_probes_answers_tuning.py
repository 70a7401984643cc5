"""parse_answer on the tuning reply corpus, with an accuracy floor per kind.

The tuning corpus (``tests/data/reply_corpus_tuning.jsonl``) is no longer held
out: its misses were used to fix the parser (the rules they led to are cases of
``huesenv/probes/answer_rules.yaml``).  It was written by a
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

from huesenv.colour_names import CANONICAL_COLOURS
from huesenv.probes import KINDS, parse_answer, same_reading

TUNING = Path(__file__).parent / "data" / "reply_corpus_tuning.jsonl"
FLOORS = {
    "colour": 0.98,
    "colours": 0.97,
    "option": 0.97,
    "threshold": 0.97,
    "coverage": 0.96,
    "yes_no": 0.96,
}


def _rows() -> list[dict]:
    return [json.loads(line) for line in TUNING.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_tuning_corpus_is_well_formed():
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


def test_tuning_accuracy_per_kind_is_above_its_floor():
    totals = defaultdict(lambda: [0, 0])
    wrong = defaultdict(list)
    for r in _rows():
        got = parse_answer(r["kind"], r["text"], **r["kwargs"])
        ok = same_reading(r["kind"], got, r["expected"])
        totals[r["kind"]][0] += 1
        totals[r["kind"]][1] += ok
        if not ok:
            wrong[r["kind"]].append((r["text"], r["expected"], got))
    assert set(totals) == set(KINDS)
    for kind, (n, ok) in totals.items():
        assert ok / n >= FLOORS[kind], (kind, ok, n, wrong[kind])
