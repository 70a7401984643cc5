"""Held-out check of a learned guesser: train on half of the cohort's participants, score against the other half.

Why: a guesser trained on the cohort's answers and scored against the same
cohort is partly scored on its training data.  Splitting participants (not
answers) gives a test cohort none of whose people the learner ever saw; the
word-level metrics (:func:`huesenv.metrics.word_level`) are then computed
against the held-out half, and against the training half for comparison.

    python -P -m huesenv.experiments.rl.heldout --out runs/heldout --minutes 6
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from huesenv import metrics
from huesenv.agents import evaluate_words, make_agent
from huesenv.experiments.rl.ppo_fast import FastPPOConfig, train_fast
from huesenv.humans import HumanResponses, load_humans
from huesenv.vocabulary import evaluation_inputs


def split_participants(humans: HumanResponses, seed: int = 0) -> tuple[HumanResponses, HumanResponses]:
    """Two cohorts of (as near as possible) half the participants each, drawn with ``seed``."""
    ids = np.array(sorted(humans.frame["user_id"].astype(str).unique()))
    rng = np.random.default_rng(seed)
    first = set(rng.permutation(ids)[: len(ids) // 2])
    mask = humans.frame["user_id"].astype(str).isin(first)
    halves = []
    for keep, tag in ((mask, "train"), (~mask, "test")):
        halves.append(
            replace(
                humans,
                frame=humans.frame[keep].reset_index(drop=True),
                source=f"{humans.source} [{tag} half, seed {seed}]",
            )
        )
    return halves[0], halves[1]


def run(
    out: Path, minutes: float, seed: int = 0, agents: tuple[str, ...] = ("text-embedding",)
) -> dict[str, Any]:
    humans = load_humans()
    train_half, test_half = split_participants(humans, seed)
    cfg = FastPPOConfig(num_envs=1024, total_steps=3_000_000, time_budget_s=minutes * 60, seed=seed)
    summary = train_fast(cfg, out / "train", humans=train_half, progress=True)
    result: dict[str, Any] = {
        "participants": {"train": train_half.n_participants, "test": test_half.n_participants},
        "train_steps": summary["steps"],
        "train_wall_s": summary["wall_s"],
        "train_cpu_s": summary["cpu_s"],
        "scores": {},
    }
    words = [w for w in evaluation_inputs() if w.category != "Nonsense"]
    for spec in (f"policy:{out / 'train' / 'policy.pt'}", *agents):
        agent = make_agent(spec)
        records = evaluate_words(agent, inputs=words, top_k=5, seed=seed)
        for name, half in (("heldout", test_half), ("train_half", train_half)):
            row = metrics.agent_level(metrics.word_level(records, half)).iloc[0]
            result["scores"].setdefault(agent.agent_id, {})[name] = {
                k: float(row[k])
                for k in (
                    "mahalanobis_fail_rate",
                    "hotelling_fail_rate",
                    "colour_match_rate",
                    "human_fail_rate",
                )
            }
    (out / "heldout.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="runs/heldout")
    p.add_argument("--minutes", type=float, default=6.0)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    print(json.dumps(run(Path(args.out), args.minutes, args.seed), indent=1))


if __name__ == "__main__":
    main()
