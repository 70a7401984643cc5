"""``huesenv train cue-giver --fast``: a cue giver trained with PPO on the full vectorised game (torch).

The env is :class:`~huesenv.envs.vector_game.gym.HuesCuesVectorEnv` with the
learner the cue giver of seat 0 (``num_envs`` complete games of
``num_players``); the guessers, the other cue givers and the learner's own
cones are played by ``opponents`` from a table (default replayed humans, so the
learner learns which words send *people* to its target).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.rl.ppo_fast_cue``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import Field

from huesenv.agents.policy_net import PolicySettings, build_speaker_net, save_checkpoint, speaker_forward
from huesenv.agents.vector_tables import table_for
from huesenv.board import N_CELLS
from huesenv.envs.vector_game.gym import HuesCuesVectorEnv
from huesenv.experiments.rl.harness import (
    Clock,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    TimeBudget,
    start_run,
    write_summary,
)
from huesenv.experiments.rl.human_data import HumanSplitConfig, make_split, write_split_files
from huesenv.experiments.rl.logger import TrainLogger
from huesenv.experiments.rl.ppo_fast import masked_logits, ppo_update
from huesenv.humans import load_humans
from huesenv.humans.splits import describe_training, training_record
from huesenv.vocabulary import word_texts

ENV_ID = "huesenv/CueGiverVector-v0"


class FastCueConfig(HumanSplitConfig):
    total_steps: PositiveInt = 400_000  # cue-giver decisions (targets and cues)
    num_envs: PositiveInt = 512
    num_players: Annotated[int, Field(ge=3, le=10)] = 4
    opponents: str = "human-replay"
    batch_decisions: PositiveInt = 4096  # cue decisions per update
    learning_rate: PositiveFloat = 1e-3
    update_epochs: PositiveInt = 4
    num_minibatches: PositiveInt = 4
    clip_coef: PositiveFloat = 0.2
    ent_coef: NonNegativeFloat = 0.003
    vf_coef: NonNegativeFloat = 0.5
    max_grad_norm: PositiveFloat = 0.5
    hidden: PositiveInt = 128
    eval_games: PositiveInt = 256  # whose answers the replayed humans give: HumanSplitConfig's fields


def make_env(cfg: FastCueConfig, vocabulary: tuple[str, ...], n: int, humans: Any = None, seed: int = 0):
    table = table_for(cfg.opponents, vocabulary, humans=humans)
    return HuesCuesVectorEnv(
        n,
        cfg.num_players,
        role="cue_giver",
        opponents=table,
        vocabulary=vocabulary,
        observation_mode="compact",
        seed=seed,
    )


def choose(net, env, device: str, sample: bool):
    """The learner's actions now: (actions, is_cue, targets, word index, logp, value, allowed words)."""
    import torch

    g = env.game
    V = g.V
    mask = torch.as_tensor(env.action_masks(), device=device)
    words_ok = mask[:, N_CELLS : N_CELLS + V]
    phase = torch.as_tensor(g.phase, device=device)
    card = torch.as_tensor(g.card, device=device)
    target = torch.as_tensor(g.target, device=device)
    pick = phase == 0
    with torch.no_grad():
        # the target: the card cell whose best allowed word is most probable
        b, c = card.shape
        logits_card, _ = speaker_forward(net, card.reshape(-1))
        allowed = torch.as_tensor(g.allowed_words(g.rows), device=device)  # cue-1 words at pick_target
        lp = torch.log_softmax(
            logits_card.reshape(b, c, V).masked_fill(~allowed[:, None, :], float("-inf")), -1
        )
        best = lp.amax(-1)  # (B, C)
        pick_cell = card[torch.arange(b, device=device), best.argmax(-1)]
        tgt = torch.where(pick, pick_cell, target.clamp(min=0))
        logits, value = speaker_forward(net, tgt)
        masked = logits.masked_fill(~words_ok, float("-inf"))
        has = words_ok.any(-1)
        masked = torch.where(has[:, None], masked, torch.zeros_like(masked))
        dist = torch.distributions.Categorical(logits=masked)
        word = dist.sample() if sample else masked.argmax(-1)
        logp = dist.log_prob(word)
    cue_action = torch.where(has, N_CELLS + word, torch.full_like(word, N_CELLS + V))
    actions = torch.where(pick, pick_cell, cue_action)
    is_cue = ~pick & has
    return actions.cpu().numpy(), is_cue, tgt, word, logp, value, words_ok


def evaluate(net, cfg: FastCueConfig, vocabulary, device: str, humans: Any = None) -> float:
    """Greedy cue-giver points per round over ``eval_games`` whole games (fixed seed)."""
    env = make_env(cfg, vocabulary, cfg.eval_games, humans, seed=123_457)
    env.reset(seed=123_457)
    done = np.zeros(cfg.eval_games, dtype=bool)
    points = np.zeros(cfg.eval_games)
    while not done.all():
        actions, *_ = choose(net, env, device, sample=False)
        _, reward, term, _, _ = env.step(actions)
        points += np.where(done, 0.0, reward)
        done |= term
    rounds = env.game.rules.num_rounds(cfg.num_players) // cfg.num_players  # rounds each seat gives cues
    return float(points.mean() / rounds)


def train_fast_cue(
    cfg: FastCueConfig,
    run_dir: str | Path,
    *,
    vocabulary: tuple[str, ...] | None = None,
    humans: Any = None,
    logger: Any = None,
    progress: bool = True,
) -> dict[str, Any]:
    import torch

    run_dir, device = start_run(run_dir, cfg)
    vocab = tuple(vocabulary if vocabulary is not None else word_texts())
    human_data: dict[str, Any] | None = None
    split = cohort = None
    if humans is None and cfg.opponents == "human-replay":  # the packaged cohort, split as the guesser's
        cohort = load_humans()
        split = make_split(cfg, cohort)
        humans = cohort if split is None else split.train(cohort)  # the learner never meets the other part
        human_data = training_record(split, cohort)
    torch.manual_seed(cfg.seed)
    arch = {"vocab_size": len(vocab), "hidden": int(cfg.hidden)}
    net = build_speaker_net(**arch).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    settings = PolicySettings(
        env_id=ENV_ID,
        role="cue_giver",
        cue_encoding="index",
        observation_mode="vector-dict",
        vocabulary=vocab,
        extra={"env": "game", "num_players": cfg.num_players, "opponents": cfg.opponents},
    )
    own_logger = logger is None
    if own_logger:
        logger = TrainLogger(run_dir, tracker="none", quiet=not progress)
    env = make_env(cfg, vocab, cfg.num_envs, humans, seed=cfg.seed)
    env.reset(seed=cfg.seed)
    B = cfg.num_envs
    pending: list[tuple[Any, ...] | None] = [None] * B  # this round's cue-1 sample per game
    clock = Clock()
    budget = TimeBudget.of(cfg, clock)
    steps = updates = 0
    while steps < cfg.total_steps:
        samples: list[tuple[Any, ...]] = []
        round_points: list[float] = []
        while len(samples) < cfg.batch_decisions:
            phase = np.asarray(env.game.phase).copy()
            actions, is_cue, tgt, word, logp, value, ok = choose(net, env, device, sample=True)
            _, reward, term, _, _ = env.step(actions)
            steps += B
            cue = is_cue.cpu().numpy()
            for i in np.flatnonzero(cue | (phase == 3)):
                entry = (tgt[i], word[i], logp[i], value[i], ok[i]) if cue[i] else None
                if phase[i] == 1:
                    pending[i] = entry
                elif phase[i] == 3:  # cue 2: the round is revealed within this step
                    r = float(reward[i])
                    round_points.append(r)
                    for e in (pending[i], entry):
                        if e is not None:
                            samples.append((*e, r))
                    pending[i] = None
            for i in np.flatnonzero(term):
                pending[i] = None
        t = torch.stack([s[0] for s in samples])
        w = torch.stack([s[1] for s in samples])
        old_logp = torch.stack([s[2] for s in samples])
        old_v = torch.stack([s[3] for s in samples])
        ok = torch.stack([s[4] for s in samples])
        ret = torch.as_tensor([s[5] for s in samples], dtype=torch.float32, device=device)
        n = len(samples)

        def policy(idx: Any, t: Any = t, ok: Any = ok) -> tuple[Any, Any]:
            logits, v = speaker_forward(net, t[idx])
            return torch.distributions.Categorical(logits=masked_logits(logits, ok[idx])), v

        ppo_update(cfg, net, optimizer, n, policy, w, old_logp, ret - old_v, ret)
        updates += 1
        logger.log(
            steps,
            {
                "round_points": float(np.mean(round_points)) if round_points else 0.0,
                "decisions": n,
                "wall_s": clock.wall,
            },
        )
        if budget.exhausted():
            break
    train = {"steps": steps, "updates": updates, "seed": cfg.seed, "trainer": "ppo_fast_cue"}
    if human_data is not None:
        train["human_data"] = human_data  # read by the evaluation's refusal check
    policy_path = save_checkpoint(run_dir / "policy.pt", settings, {"speaker": net}, {"speaker": arch}, train)
    final = evaluate(net, cfg, vocab, device, humans)
    summary = {
        "trainer": "ppo_fast_cue",
        "env_id": ENV_ID,
        "env": "game",
        "steps": steps,
        "updates": updates,
        "wall_s": clock.wall,
        "cpu_s": clock.cpu,
        "device": device,
        "stopped_by_time_budget": budget.stopped and steps < cfg.total_steps,
        "final_eval_points": final,
        "eval_unit": "greedy cue-giver points per round given",
        "config": cfg.to_dict(),
        "policy": str(policy_path),
        "human_data": describe_training(human_data) if human_data else None,
        "torch_threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(),
    }
    if split is not None and cohort is not None:  # the parts as exports (see the guesser trainer)
        summary["split_files"] = write_split_files(split, cohort, run_dir / "split")
    summary = write_summary(run_dir, summary)
    if own_logger:
        logger.close()
    return summary
