"""Reference lines for learning curves: what fixed agents score in the *same* env the learner trains on.

* Vector guesser env (``huesenv train guesser --fast``): points per decision of
  each agent's best legal cell on the fixed evaluation batch the trainer's
  greedy evaluation uses (same seed, same decisions, drawn from the split's
  evaluation part), so the learned policy's ``eval_points`` and the references
  are paired.
* ``Guesser-v1`` / ``CueGiver-v1`` (SB3): points per game (the learner's role's
  points) with the agent in the learner's seat, over ``episodes`` seeded games
  (``reset(seed=seed + i)``); the agent acts through the env's own driver, exactly
  as opponents do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from huesenv.agents import make_agent
from huesenv.agents.protocol import GuessQuery
from huesenv.agents.registry import seat_agent
from huesenv.experiments.rl import sb3_train
from huesenv.experiments.rl.human_data import guesser_data
from huesenv.experiments.rl.ppo_fast import EVAL_TAG, make_env, random_legal_actions, segment_seed
from huesenv.vocabulary import word_texts

DEFAULT_REFERENCES = ("random", "text-embedding", "human-replay")


def vector_references(
    agents: Sequence[str], cfg: Any, vocabulary: Sequence[str] | None = None, humans: Any = None
) -> dict[str, float]:
    """Points per decision of each agent spec on the fast trainer's evaluation batch."""

    data = guesser_data(cfg, vocabulary if vocabulary is not None else word_texts(), humans)
    vocab = data.eval_words  # the trainer's evaluation batch: the split's evaluation part
    env = make_env(cfg, vocab, data.eval_cells, cfg.eval_decisions)
    out = {}
    for spec in agents:
        obs, _ = env.reset(seed=segment_seed(cfg.seed, EVAL_TAG))
        agent = make_agent(spec)
        agent.reset(seed=cfg.seed)
        queries = [
            GuessQuery(cues=(vocab[int(c)],), legal=m.astype(bool), game=i)
            for i, (c, m) in enumerate(zip(obs["cue"], obs["action_mask"]))
        ]
        answers = agent.act_batch(queries)
        actions = np.array(
            [
                next((int(c) for c in (a.cells if a.cells is not None else []) if q.legal_mask()[int(c)]), -1)
                for a, q in zip(answers, queries)
            ]
        )
        rng = np.random.default_rng(cfg.seed)
        bad = actions < 0
        if bad.any():  # an unusable answer plays a random legal cell, as in the game's fallback
            actions[bad] = random_legal_actions(obs["action_mask"][bad], rng)
        _, reward, *_ = env.step(actions)
        out[spec] = float(np.mean(reward))
    return out


def gym_references(
    agents: Sequence[str], sb3_cfg: Any, episodes: int = 20, seed: int = 10_000
) -> dict[str, float]:
    """Points per game of each agent spec in the learner's seat of the SB3 trainer's env."""

    out = {}
    for spec in agents:
        env = sb3_train.make_env(sb3_cfg)
        base = env.unwrapped
        agent = seat_agent(spec, vocabulary=base.game.layout.vocabulary)  # kinds that take it get the words
        total = 0.0
        for i in range(episodes):
            env.reset(seed=seed + i)
            agent.reset(seed=seed + i)
            done = False
            while not done:
                action, *_ = base._driver.decide(base.learner, agent)
                _, reward, term, trunc, _ = env.step(action)
                total += reward
                done = term or trunc
        env.close()
        out[spec] = total / episodes
    return out
