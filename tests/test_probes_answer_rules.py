"""Every case of the parser's rule table (huesenv/probes/answer_rules.yaml) reads as the table says."""

from __future__ import annotations

from importlib.resources import files

import pytest

from huesenv.probes import KINDS, parse_answer
from huesenv.validation import load_yaml

TABLE = files("huesenv.probes") / "answer_rules.yaml"


def _cases() -> list:
    table = load_yaml(TABLE.read_text(encoding="utf-8"), "answer_rules.yaml")
    return [
        pytest.param(*case, id=f"{section['section']}|{case[1][:40]}")
        for section in table
        for rule in section["rules"]
        for case in rule["cases"]
    ]


def test_every_rule_says_what_it_does_and_has_a_case():
    table = load_yaml(TABLE.read_text(encoding="utf-8"), "answer_rules.yaml")
    rules = [rule for section in table for rule in section["rules"]]
    assert len(rules) >= 40
    for rule in rules:
        assert set(rule) == {"rule", "cases"} and rule["rule"].endswith(".") and rule["cases"], rule
        for case in rule["cases"]:
            assert len(case) in (3, 4) and case[0] in KINDS, case
    assert {case[0] for rule in rules for case in rule["cases"]} == set(KINDS)


@pytest.mark.parametrize(
    "kind,reply,reading,kwargs", [p.values + ({},) * (4 - len(p.values)) for p in _cases()]
)
def test_case_reads_as_the_table_says(kind, reply, reading, kwargs):
    got = parse_answer(kind, reply, **kwargs)
    if kind == "colours" and got is not None:
        got = sorted(got)
    if kind in ("threshold", "coverage") and got is not None and reading is not None:
        assert abs(got - reading) <= 0.5, got
    else:
        assert got == reading
