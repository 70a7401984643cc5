"""parse_answer: the documented rules, the reply corpus, and the synthetic interference agent."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from huesenv.agents.protocol import Answer
from huesenv.probes import parse_answer, run_probe, same_reading
from huesenv.probes.interference.metrics import interference_table
from huesenv.probes.interference.questions import interference_trials
from huesenv.probes.interference.stimuli import interference_stimuli

CORPUS = Path(__file__).parent / "data" / "reply_corpus.jsonl"


def _rows():
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_corpus_covers_every_kind_and_several_families():
    rows = _rows()
    assert len(rows) >= 500
    by_kind = defaultdict(set)
    for r in rows:
        by_kind[r["kind"]].add(r["family"])
    assert set(by_kind) == {"colour", "colours", "threshold", "coverage", "yes_no", "option"}
    assert all(len(fams) >= 5 for fams in by_kind.values())


def test_corpus_accuracy_per_kind():
    totals = defaultdict(lambda: [0, 0])
    wrong = []
    for r in _rows():
        got = parse_answer(r["kind"], r["text"], **r["kwargs"])
        ok = same_reading(r["kind"], got, r["expected"])
        totals[r["kind"]][0] += 1
        totals[r["kind"]][1] += ok
        if not ok:
            wrong.append((r["text"], r["expected"], got))
    for kind, (n, ok) in totals.items():
        assert ok / n >= 0.97, (kind, ok, n, wrong)


def test_no_reply_is_unreadable():
    """The rules themselves, case by case, are tests/test_probes_answer_rules.py."""
    assert parse_answer("colour", None) is None


def test_bad_kind_and_missing_options_raise():
    with pytest.raises(ValueError, match="kind"):
        parse_answer("colour-ish", "red")
    with pytest.raises(ValueError, match="options"):
        parse_answer("option", "red")


class SaysWrittenIn:
    """Answers every interference trial 'The word "X" is written in Y.' with the true Y (the acceptance agent)."""

    name = "says-written-in"

    def __init__(self, stimuli):
        self.by_id = {f"interference/{s.stimulus_id}": s for s in stimuli}

    def act_batch(self, queries):
        out = []
        for q in queries:
            s = self.by_id[q.trial_id]
            ys = list(s.text_colours)
            y = ys[0] if len(ys) == 1 else ", ".join(ys[:-1]) + " and " + ys[-1]
            if len(s.words) == 1:
                text = f'The word "{s.words[0]}" is written in {y}.'
            else:
                text = f'The words "{s.words[0]}" and "{s.words[1]}" are written in {y}.'
            out.append(Answer(raw_text=text))
        return out


def test_written_in_agent_scores_accuracy_one_and_no_hallucination():
    stimuli = interference_stimuli(seed=0, per_type=8)
    records = run_probe(SaysWrittenIn(stimuli), interference_trials(stimuli), run_id="accept")
    table = interference_table(records)
    assert len(table) == 12 and (table["n"] == 8).all()
    assert (table["accuracy"] == 100.0).all()
    assert np.nan_to_num(table["h1"]).max() == 0.0 and np.nan_to_num(table["h2"]).max() == 0.0
    assert (table["invalid"] == 0.0).all()
    # the same reply read by "the first colour mentioned" would name the shown word: the test can fail
    colour_subset = [r for r in records if r.extra["subset"] == "color" and r.extra["type"] == 1]
    assert all(r.raw_text.split('"')[1].lower() != r.answer for r in colour_subset)
