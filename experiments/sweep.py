"""Agent sweeps: each agent against the replayed humans in its own run, then one merged leaderboard.

``huesenv tournament --agents a,b,c`` builds, from the base config, one
experiment per agent spec: the agent in seat 0 and replayed humans in the other
seats (rotated like any lineup), plus its word-level evaluation.  Why one run
per agent and not one run with three lineups: a run's identity includes its
lineups, so adding an agent later would be refused; separate runs resume (or are
skipped) one by one, and ``huesenv leaderboard`` merges them with intervals.

Run folders are ``<output>/<base name>-<agent slug>``; the merged leaderboard
goes to ``<output>/<base name>-sweep/``.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

from huesenv.experiments.config import ExperimentConfig

HUMAN = "human"


def slug(text: str) -> str:
    """A folder-safe name for an agent spec (``clip:ViT-B-32/openai`` -> ``clip-ViT-B-32-openai``)."""
    out = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")
    if not out:
        raise ValueError(f"--agents: {text!r} is not an agent spec")
    return out


def parse_agents(text: str) -> list[str]:
    specs = [s.strip() for s in text.split(",")]
    if not specs or any(not s for s in specs):
        raise ValueError(
            f"--agents {text!r}: expected comma-separated agent specs, e.g. random,text-embedding"
        )
    if len(set(specs)) != len(specs):
        raise ValueError(f"--agents {text!r}: an agent is listed twice")
    return specs


def sweep_configs(base: ExperimentConfig, specs: list[str]) -> list[ExperimentConfig]:
    """One config per agent: the agent against ``num_players - 1`` replayed humans.

    A spec that names an agent of the base config uses that entry (its kwargs);
    anything else is taken as a ``make_agent`` spec.
    """
    out = []
    for spec in specs:
        data = copy.deepcopy(base.data)
        if spec == HUMAN:
            raise ValueError(
                "--agents: 'human' is the replayed-human opponent of every run, not a contestant"
            )
        entry = base.data["agents"].get(spec, {"spec": spec})
        human = base.data["agents"].get(HUMAN, {"spec": "human-replay"})
        data["name"] = f"{base.name}-{slug(spec)}"
        data["agents"] = {spec: copy.deepcopy(entry), HUMAN: copy.deepcopy(human)}
        data["lineups"] = [[spec] + [HUMAN] * (int(base["num_players"]) - 1)]
        data["wordlevel"] = {**data["wordlevel"], "agents": [spec]}
        out.append(ExperimentConfig.from_dict(data, source=f"{base.source} (--agents {spec})"))
    return out


def sweep_dir(base: ExperimentConfig) -> Path:
    return Path(base["output"]) / f"{base.name}-sweep"
