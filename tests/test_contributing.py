"""CONTRIBUTING.md stays accurate: every module, object and file it names outside its examples exists."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
PROSE = re.sub(r"```.*?```", "", TEXT, flags=re.S)  # fenced blocks are worked examples of new code
CODE_SPANS = re.findall(r"`([^`]+)`", PROSE)


def dotted_names() -> list[str]:
    names = set()
    for span in CODE_SPANS:
        for match in re.finditer(
            r"\bhuesenv(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?::[A-Za-z_][A-Za-z0-9_.]*)?", span
        ):
            names.add(match.group(0))
    return sorted(names)


def paths() -> list[str]:
    found = set()
    for span in CODE_SPANS:
        for token in span.split():
            token = token.strip("(),;:")
            if (
                "<" in token
                or "*" in token
                or "/" not in token
                or token.startswith(("-", "http", ".gates", ".."))
            ):
                continue
            if re.fullmatch(r"[\w./-]+\.(py|sh|toml|md|yaml)|[\w-]+/(?:[\w-]+/)*", token):
                found.add(token)
    return sorted(found)


def resolves(name: str) -> bool:
    module, _, attr = name.partition(":")
    parts = module.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:] + (attr.split(".") if attr else []):
            if not hasattr(obj, part):
                return False
            obj = getattr(obj, part)
        return True
    return False


def test_the_scan_finds_names():
    assert "huesenv.envs.hues_cues.defaults" in dotted_names() and "tests/test_architecture.py" in paths()
    assert resolves("huesenv.agents.registry.make_agent") and not resolves("huesenv.hues_cues_v0")
    assert not resolves("huesenv.probes.registry:no_such_name")


@pytest.mark.parametrize("name", dotted_names())
def test_named_modules_and_objects_exist(name):
    assert resolves(name), f"CONTRIBUTING.md names {name}, which does not exist"


@pytest.mark.parametrize("path", paths())
def test_named_files_exist(path):
    # the layout section names the core's files relative to huesenv/
    assert (ROOT / path).exists() or (ROOT / "huesenv" / path).exists(), (
        f"CONTRIBUTING.md names {path}, which does not exist"
    )


def test_the_layer_table_names_existing_packages():
    table = TEXT[TEXT.index("| layer | packages |") :].split("\n\n")[0]
    names = {n for row in table.splitlines()[2:] for n in re.findall(r"`([a-z_0-9]+)`", row.split("|")[2])}
    assert {"board", "secrets", "reports", "probes", "hues_cues_v1"} <= names
    missing = [n for n in names if importlib.util.find_spec(f"huesenv.{n}") is None]
    assert not missing, f"the layer table names packages that do not exist: {missing}"
