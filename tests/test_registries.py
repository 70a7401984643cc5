"""Adding a probe or an agent kind is one module plus one registration.

The toy probe and the toy agent kind below are each their own piece of code and
one registration call; everything else (``run_probe``, ``write_report``,
``export_stimuli``, ``huesenv probe``, the Gymnasium id, ``make_agent``,
``--device``, the envs' seat factory) picks them up from the registries.
"""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path

import gymnasium
import numpy as np
import pandas as pd
import pytest

import huesenv
from huesenv.agents import registry as agent_registry
from huesenv.agents.devices import with_device
from huesenv.agents.protocol import Answer, BaseAgent
from huesenv.agents.registry import AgentKind, kinds_with, make_agent, register_agent, seat_agent
from huesenv.cli import main
from huesenv.envs import GuesserEnv
from huesenv.probes import registry as probe_registry
from huesenv.probes.env_base import ProbeEnv
from huesenv.probes.export import export_stimuli
from huesenv.probes.registry import get_probe, register_probe
from huesenv.probes.report import write_report
from huesenv.probes.run import run_probe
from huesenv.probes.trials import ParsedAnswer, ProbeTrial


# -- the toy probe: one module's worth of code ---------------------------------------------------
class _Swatch:
    """A stimulus: a flat colour square."""

    def __init__(self, name: str, rgb: tuple[int, int, int]) -> None:
        self.stimulus_id, self.name, self.rgb = f"swatch_{name}", name, rgb

    def image(self) -> np.ndarray:
        return np.full((512, 512, 3), self.rgb, dtype=np.uint8)

    def ground_truth(self) -> dict:
        return {"stimulus_id": self.stimulus_id, "truth": self.name}


SWATCHES = (_Swatch("red", (220, 20, 20)), _Swatch("blue", (20, 20, 220)))


class ToyProbe:
    name = "toy"
    title = "toy swatches: which colour is the square?"
    stimulus_columns = ("file", "stimulus_id", "truth", "options")
    reply_kinds = ("option",)

    def trials(self, *, seed: int, **kwargs) -> list[ProbeTrial]:
        swatches = [s for s in SWATCHES if s.name in kwargs.get("colours", ("red", "blue"))]
        return [
            ProbeTrial(
                task="toy",
                trial_id=f"toy/{s.stimulus_id}",
                question="Which colour is the square?",
                options=("red", "blue"),
                truth=s.name,
                subject="square",
                answer_kind="option",
                fields={},
                render=s.image,
            )
            for s in swatches
        ]

    def stimuli(self, *, seed: int, **kwargs) -> list:
        return list(SWATCHES)

    def manifest_row(self, stimulus, seed: int) -> dict:
        return {"options": "red|blue"}

    def report_tables(self, records) -> dict:
        rows = [{"trial_id": r.extra["trial_id"], "correct": r.answer == r.extra["truth"]} for r in records]
        return {"accuracy": pd.DataFrame(rows)}

    def figures(self, tables, out: Path) -> list[Path]:
        return []

    def add_arguments(self, parser: argparse.ArgumentParser, count) -> None:
        parser.add_argument("--colours", nargs="+", default=None, choices=["red", "blue"])

    def task_kwargs(self, args: argparse.Namespace) -> tuple[dict, dict]:
        kw = {"colours": args.colours} if args.colours else {}
        return kw, {}


class ToyEnv(ProbeEnv):
    task = "toy"

    def __init__(self, render_mode=None) -> None:
        super().__init__(ToyProbe().trials(seed=0), render_mode=render_mode)

    def reward(self, trial: ProbeTrial, parsed: ParsedAnswer) -> float:
        return float(parsed.answer == trial.truth)


# -- the toy agent kind: one module's worth of code ------------------------------------------------
class ToyAgent(BaseAgent):
    """Always names its colour; knows the device and vocabulary it was given."""

    name = "toy"

    def __init__(self, colour: str = "red", *, device: str = "cpu", vocabulary=None) -> None:
        self.colour, self.device, self.vocabulary = colour, device, vocabulary

    def answer_probe(self, query) -> Answer:
        return Answer(text=self.colour, raw_text=self.colour)

    def guess(self, query) -> Answer:
        legal = np.flatnonzero(query.legal_mask())
        return Answer(cells=legal[:1])


@pytest.fixture
def registries(monkeypatch):
    """Fresh copies of both registries, so the registrations below vanish after the test."""
    monkeypatch.setattr(probe_registry, "_PROBES", dict(probe_registry._PROBES))
    monkeypatch.setattr(agent_registry, "_EXTRA", dict(agent_registry._EXTRA))
    yield
    gymnasium.registry.pop("huesenv/Toy-v0", None)


def test_a_toy_probe_is_one_registration(registries, tmp_path, capsys):
    register_probe("toy", ToyProbe(), env_id="huesenv/Toy-v0", env_entry_point=ToyEnv)  # the one line

    records = run_probe(make_agent("random"), "toy", seed=0)
    assert [r.extra["trial_id"] for r in records] == ["toy/swatch_red", "toy/swatch_blue"]
    assert all(r.answer in ("red", "blue") for r in records)
    files = write_report("toy", records, tmp_path / "report")
    assert {f.name for f in files} == {"accuracy.csv", "report.txt"}
    manifest = export_stimuli("toy", tmp_path / "stimuli")
    assert manifest.read_text().splitlines()[0] == "file,stimulus_id,truth,options"
    assert (tmp_path / "stimuli" / "swatch_red.png").is_file()

    huesenv.register_envs()
    env = gymnasium.make("huesenv/Toy-v0")
    assert env.reset(seed=0)[0] is not None

    assert main(["probe", "toy", "--agent", "random", "--colours", "blue", "-o", str(tmp_path / "cli")]) == 0
    assert "2 trials" not in capsys.readouterr().out  # --colours reached the probe: one trial
    assert (tmp_path / "cli" / "toy.jsonl").read_text().count("\n") == 1
    with pytest.raises(ValueError, match="already registered"):
        register_probe("toy", ToyProbe())
    with pytest.raises(ValueError, match=r"task: 'nope' is not one of \('gca', 'interference', 'toy'\)"):
        get_probe("nope")


def test_a_toy_agent_kind_is_one_registration(registries):
    register_agent(  # the one line (with its capabilities)
        AgentKind(
            "toy", ToyAgent, "always names one colour", argument="colour", takes_device=True,
            takes_vocabulary=True, answers_probes=True,
        )
    )  # fmt: skip
    agent = make_agent("toy:blue")
    assert isinstance(agent, ToyAgent) and agent.colour == "blue" and agent.device == "cpu"
    assert with_device("toy:blue", {}, "cpu") == {"device": "cpu"}  # --device reaches it
    assert with_device("random", {}, "cpu") == {}
    assert "toy" in kinds_with("answers_probes") and "toy" in kinds_with("takes_device")
    assert seat_agent("toy", vocabulary=("SEA", "SKY")).vocabulary == ("SEA", "SKY")
    env = GuesserEnv(num_players=3, opponents="toy")
    assert all(isinstance(a, ToyAgent) for a in env.opponents.values())
    with pytest.raises(ValueError, match=r"agent spec 'toy:blue': .*unexpected keyword argument 'shade'"):
        make_agent("toy:blue", shade=3)  # bound with inspect.signature before the call
    assert run_probe(make_agent("toy:blue"), "interference", seed=0, limit=2, per_type=1)


def test_declared_capabilities_match_the_signatures():
    """A kind that declares ``device=`` or ``vocabulary=`` takes it (and the other way round)."""
    for name, kind in agent_registry.BUILTIN.items():
        params = inspect.signature(kind.load()).parameters
        assert kind.takes_device == ("device" in params), name
        assert kind.takes_vocabulary == ("vocabulary" in params), name
    assert set(kinds_with("takes_device")) == {"clip", "policy", "text-embedding", "vlm"}  # policy included
    assert set(kinds_with("needs_weights")) == {"clip", "vlm"}


def test_make_agent_names_the_spec_for_a_wrong_option():
    with pytest.raises(ValueError, match=r"agent spec 'random': .*unexpected keyword argument 'colour'"):
        make_agent("random", colour=1)
    with pytest.raises(ValueError, match=r"agent spec 'human-replay': .*unexpected keyword argument 'bogus'"):
        make_agent("human-replay", bogus=1)  # checked against load_humans, which takes its **kwargs
    with pytest.raises(ValueError, match="needs a model"):
        make_agent("clip")


@pytest.mark.parametrize("name", ["gca", "interference"])
def test_built_in_probes_declare_the_reply_kinds_they_ask_for(name):
    probe = get_probe(name)
    kwargs = {"per_type": 1} if name == "interference" else {"objects": ["lemon"], "conditions": ["prior"]}
    assert {t.answer_kind for t in probe.trials(seed=0, **kwargs)} <= set(probe.reply_kinds)


def test_a_probe_with_an_unknown_reply_kind_is_refused(registries):
    class Odd(ToyProbe):
        name = "odd"
        reply_kinds = ("haiku",)

    register_probe("odd", Odd())
    with pytest.raises(ValueError, match="reply kinds \\['haiku'\\]"):
        get_probe("odd")
