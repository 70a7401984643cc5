"""The trainers' time budget on the wall clock or the CPU clock (``budget_clock``, ``--budget-clock``)."""

from __future__ import annotations

import pytest

from huesenv.cli import main
from huesenv.experiments.rl.harness import TimeBudget
from huesenv.experiments.rl.ppo_fast_cue import FastCueConfig


class FakeClock:
    """Wall time runs four times faster than CPU time (a process sharing its cores)."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def tick(self, cpu: float) -> None:
        self.cpu += cpu
        self.wall += 4 * cpu


def units_until_stop(measure: str, budget: float = 10.0) -> int:
    clock = FakeClock()
    budget_ = TimeBudget(budget, clock, measure)  # type: ignore[arg-type]
    for n in range(1, 1000):
        clock.tick(1.0)
        if budget_.exhausted():
            return n
    raise AssertionError("never stopped")


def test_cpu_budget_reads_the_cpu_clock_and_wall_the_wall_clock():
    # one unit costs 1 CPU second and 4 wall seconds; a unit never runs past the budget
    assert units_until_stop("cpu") == 10  # 10 CPU s done: an 11th would end at 11 > 10
    assert units_until_stop("wall") == 2  # 8 wall s done: a third would end at 12 > 10


def test_budget_clock_is_a_checked_config_field():
    assert FastCueConfig(budget_clock="cpu").budget_clock == "cpu"
    assert FastCueConfig().budget_clock == "wall"
    with pytest.raises(ValueError, match="budget_clock"):
        FastCueConfig.from_dict({"budget_clock": "gpu"})
    with pytest.raises(ValueError, match="budget_clock"):
        TimeBudget(1.0, FakeClock(), "gpu")  # type: ignore[arg-type]


def test_cli_budget_clock_flag_and_its_set_twin_refused(tmp_path, capsys):
    args = ["train", "cue-giver", "--fast", "--out", str(tmp_path / "r"), "--tracker", "none"]
    assert main([*args, "--set", "budget_clock=cpu"]) == 2
    assert "--budget-clock" in capsys.readouterr().err
    assert main([*args, "--budget-clock", "sundial"]) == 2
