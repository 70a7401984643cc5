"""The shared validation helpers: one-line errors with did-you-mean, and YAML without aliases."""

from __future__ import annotations

import time
from typing import Literal

import pytest
from pydantic import Field

from huesenv.validation import (
    StrictModel,
    line_at,
    load_yaml,
    load_yaml_file,
    parse_yaml_value,
    validate,
    yaml_lines,
)


def alias_bomb() -> str:
    """A 'billion laughs' document: nine levels of nine aliases each (9**9 strings once expanded)."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for name in "bcdefghi":
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
        previous = name
    return "\n".join(lines) + "\n"


class Section(StrictModel):
    enabled: bool = True
    batch_size: int = Field(4, ge=1)


class Agent(StrictModel):
    spec: str
    kwargs: dict[str, object] = {}


class Config(StrictModel):
    games: int = Field(12, ge=0, json_schema_extra={"expected": "a non-negative integer"})
    tournament: Section = Section()
    agents: dict[str, Agent] = {}
    mode: Literal["a", "b"] = "a"


@pytest.mark.parametrize(
    "data, message",
    [
        ({"gamez": 3}, "c.yaml: unknown config key 'gamez' (did you mean 'games'?); expected one of games,"),
        (
            {"tournament": {"batchsize": 3}},
            "unknown config key 'tournament.batchsize' (did you mean 'batch_size'?)",
        ),
        ({"agents": {"r": {"sepc": "x"}}}, "unknown config key 'agents.r.sepc' (did you mean 'spec'?)"),
        ({"games": -1}, "c.yaml, field games: expected a non-negative integer, got -1"),
        ({"games": "3"}, "c.yaml, field games: expected a non-negative integer, got '3'"),
        ({"games": True}, "c.yaml, field games: expected a non-negative integer, got True"),
        ({"mode": "c"}, "c.yaml, field mode: expected 'a' or 'b', got 'c'"),
        (
            {"tournament": {"batch_size": 0}},
            "field tournament.batch_size: expected greater than or equal to 1",
        ),
        ({"agents": {"r": {}}}, "field agents.r.spec: expected this required key"),
    ],
)
def test_errors_are_one_line_naming_the_field(data, message):
    with pytest.raises(ValueError) as err:
        validate(Config, data, "c.yaml")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_valid_data_builds_the_model():
    config = validate(Config, {"games": 3, "agents": {"r": {"spec": "random"}}}, "c.yaml")
    assert config.games == 3 and config.agents["r"].spec == "random" and config.tournament.batch_size == 4


def test_alias_bomb_fails_fast_in_one_line(tmp_path):
    text = alias_bomb()
    assert len(text.encode()) < 700
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    start = time.perf_counter()
    with pytest.raises(ValueError) as err:
        load_yaml_file(path)
    assert time.perf_counter() - start < 1.0
    assert str(err.value).startswith(f"{path}, line 1: YAML anchor 'a' refused") and "\n" not in str(
        err.value
    )
    with pytest.raises(ValueError, match="alias 'x' refused|anchor"):
        parse_yaml_value("[*x, *x]", "--set k=[*x, *x]")


def test_yaml_duplicates_nesting_and_plain_values():
    assert load_yaml("a: 1\nb: [1, 2]\nc: null\n", "x") == {"a": 1, "b": [1, 2], "c": None}
    with pytest.raises(ValueError, match=r"x, line 2: .*key 'a' appears twice"):
        load_yaml("a: 1\na: 2\n", "x")
    with pytest.raises(ValueError, match="nested deeper than"):
        load_yaml("[" * 500, "x")
    with pytest.raises(ValueError, match=r"x, line \d: not valid YAML"):
        load_yaml("a: [unclosed\n", "x")
    with pytest.raises(ValueError, match="not valid YAML"):
        load_yaml("!!python/object/apply:os.system ['true']", "x")
    assert parse_yaml_value("", "--set") is None and parse_yaml_value("[1, 2]", "--set") == [1, 2]


def test_yaml_lines_map_every_key_and_item_to_its_own_line():
    text = "name: x\nagents:\n  a: {spec: random}\n  b:\n    spec: 3\nlineups:\n  - [a, b]\n  - [b, a]\n"
    lines = yaml_lines(text)
    assert lines[("agents",)] == 2 and lines[("agents", "b", "spec")] == 5
    assert lines[("lineups", "1", "0")] == 8
    assert line_at(lines, ("agents", "b", "spec")) == ", line 5"
    assert line_at(lines, ("agents", "b", "kwargs", "x")) == ", line 4"  # deepest known part
    assert line_at(lines, ("nosuch",)) == "" and yaml_lines("a: [") == {}


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("name: x\ntournament:\n  enabled: true\n  bogus: 3\n", 4),  # unknown nested key
        ("name: x\nagents:\n  a: {spec: random}\n  b:\n    spec: 3\n", 5),  # bad nested value
        ("name: x\nagents: {a: random}\nlineups: [[a, a, a]]\nmetrics:\n  top_k: 5\n  alpha: abc\n", 6),
    ],
)
def test_config_errors_name_the_line_of_the_key_at_fault(tmp_path, text, line):
    from huesenv.experiments.config import load_config

    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=rf"bad.yaml, line {line}\b") as info:
        load_config(str(path))
    assert "\n" not in str(info.value)


def test_an_overridden_key_is_not_pinned_on_the_file_line(tmp_path):
    from huesenv.experiments.config import load_config

    path = tmp_path / "c.yaml"
    path.write_text(
        "name: x\nagents: {a: random}\nlineups: [[a, a, a]]\nmetrics:\n  alpha: 0.05\n", encoding="utf-8"
    )
    with pytest.raises(ValueError) as info:
        load_config(str(path), ["metrics.alpha=abc"])
    assert ", line" not in str(info.value) and "after the overrides" in str(info.value)
