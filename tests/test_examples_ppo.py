"""examples/ppo_vector.py runs as a user runs it, for a few updates (learning it is benchmarked, not tested)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytestmark = pytest.mark.integration  # imports torch and updates a network: seconds

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ppo_vector.py"


def test_ppo_example_runs_a_few_updates_on_make_vec_defaults(capsys):
    assert len(EXAMPLE.read_text().splitlines()) <= 150
    spec = importlib.util.spec_from_file_location("ppo_vector", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    curve = module.train(num_envs=16, steps=16, updates=3, seed=1)
    assert len(curve) == 3 and all(0 <= c <= 36 for c in curve)  # at most 12 cones of 3 points per game
    assert "points/game" in capsys.readouterr().out
