"""parse_answer on a fresh held-out reply set, scored once and never used to fix the parser.

``tests/data/reply_corpus_heldout_fresh.jsonl`` (248 replies, 6 kinds, 11-14
reply styles each) was written on 2026-12-03 by an author who had not read the
parser, its rule table or the earlier corpora, only the probes' questions. It
was scored once, before any change: 227/248 correct (colour 56/62, colours
31/37, threshold 36/37, coverage 32/36, yes_no 38/41, option 34/35). The
floors below allow one more miss per kind than that. Don't fix the parser
against this file: once its misses guide a fix it is a tuning corpus, as
``reply_corpus_tuning.jsonl`` became, and a new held-out set is needed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from huesenv.probes import KINDS, parse_answer, same_reading

FRESH = Path(__file__).parent / "data" / "reply_corpus_heldout_fresh.jsonl"
MIN_CORRECT = {"colour": 55, "colours": 30, "threshold": 35, "coverage": 31, "yes_no": 37, "option": 33}


def test_fresh_heldout_accuracy_per_kind_stays_at_its_first_score():
    rows = [json.loads(line) for line in FRESH.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) == 248
    correct: dict[str, int] = defaultdict(int)
    for r in rows:
        correct[r["kind"]] += same_reading(
            r["kind"], parse_answer(r["kind"], r["text"], **r["kwargs"]), r["expected"]
        )
    assert set(correct) == set(KINDS)
    for kind, floor in MIN_CORRECT.items():
        assert correct[kind] >= floor, (kind, correct[kind], floor)
