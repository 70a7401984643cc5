"""``huesenv train guesser --fast``: single-file, CleanRL-style PPO (torch) on the vectorised full game.

The env is :class:`~huesenv.envs.vector_game.gym.HuesCuesVectorEnv`: ``num_envs``
complete games of ``num_players`` stepped together in numpy, the learner the
guesser of seat 0, every other decision played by ``opponents`` from a table
(:mod:`huesenv.agents.vector_tables`; default replayed humans); reward = each
cone's 3/2/1 points when it is placed (``reward_timing="decision"``: the same
total per game as at the reveal).  ``cue_source="uniform"`` trains without the
human split (every word; opponents from the whole table), a control.

The algorithm follows CleanRL's ``ppo.py`` (rollout of ``num_steps`` × ``num_envs``,
GAE, advantage normalisation, clipped surrogate and value loss, entropy bonus,
gradient clipping, linear learning-rate annealing); illegal cells get ``-inf``
logits, so they are never sampled.

**Determinism and resume.** Training runs in segments of ``checkpoint_every``
updates, each starting by reseeding torch and resetting the env from
``SeedSequence([seed, update])``, so a resumed run continues exactly as the
uninterrupted one (with ``anneal_lr`` the schedule follows ``total_steps``, so
*extending* a finished run changes the learning rate from the resume point on).
``time_budget_s`` stops at the update boundary where one more update would end
past the budget (:class:`~huesenv.experiments.rl.harness.TimeBudget`).

Files in ``run_dir``: ``policy.pt`` (playable as ``policy:run_dir/policy.pt``),
``trainer_state.pt`` (network, optimizer, counters), ``curve.csv``, ``train.json``,
``split/`` (the split's parts as exports: ``lookup:<run>/split/train.csv.gz``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import model_validator

from huesenv.agents.policy_net import (
    PolicySettings,
    build_guesser_net,
    check_settings,
    guesser_forward,
    load_checkpoint,
    save_checkpoint,
)
from huesenv.agents.text_encoders import make_text_encoder
from huesenv.agents.vector_tables import replay_table_from_cells, table_for
from huesenv.envs.vector_game.gym import HuesCuesVectorEnv
from huesenv.experiments.rl.harness import (
    Clock,
    NonNegativeFloat,
    PositiveFloat,
    TimeBudget,
    UnitFloat,
    load_state,
    positive,
    require,
    save_state,
    start_run,
    write_summary,
)
from huesenv.experiments.rl.human_data import HumanSplitConfig, cue_lookup, guesser_data, write_split_files
from huesenv.experiments.rl.logger import TrainLogger
from huesenv.humans import load_humans
from huesenv.vocabulary import word_texts

ENV_ID = "huesenv/GuesserVector-v0"
CUE_SOURCES = ("humans", "uniform")
EVAL_GAME_STEPS = 24  # greedy decisions per evaluation game slot (two rounds' cones and more at 4 players)
CUE_ENCODINGS = ("index", "embedding")
EVAL_TAG = 999_999_937  # the seed part of the fixed evaluation batch (never an update number)
N_CELLS = 480


class FastPPOConfig(HumanSplitConfig):
    """The run's arguments (CleanRL's ``Args``; its names where they exist)."""

    total_steps: int = 2_000_000
    num_envs: int = 2048
    num_steps: int = 1
    learning_rate: PositiveFloat = 2.5e-3
    anneal_lr: bool = True
    gamma: UnitFloat = 0.99
    gae_lambda: UnitFloat = 0.95
    update_epochs: int = 4
    num_minibatches: int = 4
    norm_adv: bool = True
    clip_coef: PositiveFloat = 0.2
    clip_vloss: bool = True
    ent_coef: NonNegativeFloat = 0.003
    vf_coef: NonNegativeFloat = 0.5
    max_grad_norm: PositiveFloat = 0.5
    hidden: int = 256
    cue_source: str = "humans"
    env: Literal["game"] = "game"  # recorded, so a run of the removed one-decision env is never resumed
    num_players: int = 4
    opponents: str = "human-replay"
    checkpoint_every: int = 25
    eval_every: int = 25
    eval_decisions: int = 4096
    cue_encoding: str = "index"  # and the split's fields: huesenv.experiments.rl.human_data
    text_encoder: str = "minilm"

    RESUME_FIXED: ClassVar[tuple[str, ...]] = (
        "num_envs",
        "num_steps",
        "hidden",
        "seed",
        "cue_source",
        "checkpoint_every",
        "env",
        "num_players",
        "opponents",
        "cue_encoding",
        "text_encoder",
        *HumanSplitConfig.SPLIT_FIELDS,
    )

    @model_validator(mode="after")
    def _check(self) -> FastPPOConfig:
        if self.cue_source not in CUE_SOURCES:
            raise ValueError(f"cue_source: expected one of {CUE_SOURCES}, got {self.cue_source!r}")
        if self.cue_encoding not in CUE_ENCODINGS:
            raise ValueError(f"cue_encoding: expected one of {CUE_ENCODINGS}, got {self.cue_encoding!r}")
        for name in (
            "total_steps",
            "num_envs",
            "num_steps",
            "update_epochs",
            "num_minibatches",
            "hidden",
            "checkpoint_every",
            "eval_every",
            "eval_decisions",
        ):
            positive(name, getattr(self, name))
        if self.batch_size % self.num_minibatches:
            raise ValueError(
                f"num_minibatches: {self.num_minibatches} does not divide the batch "
                f"({self.num_envs} envs × {self.num_steps} steps = {self.batch_size})"
            )
        return self

    @property
    def batch_size(self) -> int:
        return int(self.num_envs * self.num_steps)

    @property
    def num_updates(self) -> int:
        return max(1, int(self.total_steps) // self.batch_size)


def segment_seed(seed: int, update: int) -> int:
    return int(np.random.SeedSequence([int(seed), int(update)]).generate_state(1)[0] & 0x7FFFFFFF)


def make_env(
    cfg: FastPPOConfig,
    vocabulary: Sequence[str],
    cue_cells: Sequence[np.ndarray] | None,
    n: int,
    humans: Any = None,
) -> HuesCuesVectorEnv:
    if cfg.opponents == "human-replay" and cue_cells is not None:
        table = replay_table_from_cells(vocabulary, cue_cells)  # the part of the people this env may see
    else:
        table = table_for(cfg.opponents, vocabulary, humans=humans)
    return HuesCuesVectorEnv(
        n,
        cfg.num_players,
        role="guesser",
        opponents=table,
        vocabulary=vocabulary,
        observation_mode="compact",
        reward_timing="decision",
    )


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal cell per row of a ``(B, A)`` mask (the largest uniform draw among legal ones)."""
    return np.argmax(np.where(np.asarray(mask, dtype=bool), rng.random(np.shape(mask)), -1.0), axis=1)


def _tensors(obs: dict[str, np.ndarray], device: str):
    import torch

    return (
        torch.as_tensor(obs["cue"], dtype=torch.long, device=device),
        torch.as_tensor(obs["occupied"], device=device).bool(),
        torch.as_tensor(obs["action_mask"], device=device).bool(),
    )


def masked_logits(logits, mask):
    return logits.masked_fill(~mask, float("-inf"))


def evaluate_greedy(net, env, device: str, seed: int, lookup=None, steps: int = 1) -> dict[str, float]:
    """Greedy points per decision of ``net`` over ``steps`` decisions of every env slot (fixed seed: comparable).

    ``lookup`` maps the env's cue indices to the network's cue input (:func:`~huesenv.experiments.rl.human_data.cue_lookup`).
    """
    import torch

    obs, _ = env.reset(seed=seed)
    total = hits = 0.0
    for _ in range(steps):
        cue, occ, mask = _tensors(obs, device)
        if lookup is not None:
            cue = lookup[cue]
        with torch.no_grad():
            logits, _ = guesser_forward(net, cue, occ)
            action = masked_logits(logits, mask).argmax(dim=-1).cpu().numpy()
        obs, reward, _, _, _ = env.step(action)
        total += float(np.sum(reward))
        hits += float(np.sum(reward == 3))
    n = steps * len(reward)
    return {"eval_points": total / n, "eval_hit": hits / n}


@dataclass
class Rollout:
    """One rollout's ``(num_steps, num_envs, ...)`` buffers (CleanRL's ``obs``, ``actions``, ``logprobs`` ...)."""

    cue: Any
    occupied: Any
    mask: Any
    action: Any
    logprob: Any
    reward: Any
    done: Any
    value: Any

    @classmethod
    def empty(cls, steps: int, envs: int, device: str) -> Rollout:
        import torch

        kinds = {"cue": torch.long, "action": torch.long, "occupied": torch.bool, "mask": torch.bool}

        def zeros(name: str) -> Any:
            shape = (steps, envs, N_CELLS) if name in ("occupied", "mask") else (steps, envs)
            return torch.zeros(shape, dtype=kinds.get(name, torch.float32), device=device)

        return cls(*(zeros(f.name) for f in fields(cls)))

    def flat(self) -> Rollout:
        """The buffers with the step and env axes merged: the batch PPO's minibatches index."""
        return Rollout(*(getattr(self, f.name).flatten(0, 1) for f in fields(self)))


def guesser_policy(net, lookup, b: Rollout, mb: Any) -> tuple[Any, Any]:
    """The masked action distribution and the value of samples ``mb`` of the flat rollout ``b``."""
    import torch

    logits, value = guesser_forward(net, lookup[b.cue[mb]], b.occupied[mb])
    return torch.distributions.Categorical(logits=masked_logits(logits, b.mask[mb])), value


def gae(cfg: FastPPOConfig, buf: Rollout, next_value: Any) -> tuple[Any, Any]:
    """Advantages and returns; a game spans many decisions, so the values bootstrap across the rollout
    and from ``next_value`` (the state after its last step), cut where a game ended."""
    import torch

    adv = torch.zeros_like(buf.reward)
    last = torch.zeros_like(next_value)
    steps = buf.reward.shape[0]
    for t in reversed(range(steps)):
        nv = next_value if t == steps - 1 else buf.value[t + 1]
        nonterminal = 1.0 - buf.done[t]
        delta = buf.reward[t] + cfg.gamma * nv * nonterminal - buf.value[t]
        last = delta + cfg.gamma * cfg.gae_lambda * nonterminal * last
        adv[t] = last
    return adv, adv + buf.value


def ppo_update(
    cfg: Any,
    net,
    optimizer,
    n: int,
    policy: Callable[[Any], tuple[Any, Any]],
    action,
    logprob,
    adv,
    ret,
    value: Any = None,
    norm_adv: bool = True,
) -> dict[str, float]:
    """``update_epochs`` passes of clipped-surrogate minibatch steps over ``n`` samples; the last losses.

    ``policy(idx)``: the masked action distribution and the value of samples ``idx``; with ``value``
    (the rollout's) the value loss is clipped (CleanRL's ``clip_vloss``).  The cue-giver trainer shares it.
    """
    import torch
    import torch.nn as nn

    mb_size = max(1, n // cfg.num_minibatches)
    clipfracs, approx_kl, entropy, v_loss, pg_loss = [], 0.0, 0.0, 0.0, 0.0
    for _ in range(cfg.update_epochs):
        perm = torch.randperm(n, device=action.device)
        for start in range(0, n, mb_size):
            mb = perm[start : start + mb_size]
            dist, new_v = policy(mb)
            log_ratio = dist.log_prob(action[mb]) - logprob[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = float(((ratio - 1) - log_ratio).mean())
                clipfracs.append(float(((ratio - 1.0).abs() > cfg.clip_coef).float().mean()))
            mb_adv = adv[mb]
            if norm_adv and mb_adv.numel() > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg = torch.max(
                -mb_adv * ratio, -mb_adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)
            ).mean()
            vl = (new_v - ret[mb]) ** 2
            if value is not None:
                v_clipped = value[mb] + (new_v - value[mb]).clamp(-cfg.clip_coef, cfg.clip_coef)
                vl = torch.max(vl, (v_clipped - ret[mb]) ** 2)
            vl = 0.5 * vl.mean()
            ent = dist.entropy().mean()
            loss = pg - cfg.ent_coef * ent + cfg.vf_coef * vl
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            optimizer.step()
            entropy, v_loss, pg_loss = float(ent.detach()), float(vl.detach()), float(pg.detach())
    return {
        "entropy": entropy,
        "value_loss": v_loss,
        "policy_loss": pg_loss,
        "approx_kl": approx_kl,
        "clipfrac": float(np.mean(clipfracs)),
    }


def policy_settings(
    cfg: FastPPOConfig, vocab: tuple[str, ...], encoder: Any, data: Any
) -> tuple[dict, PolicySettings]:
    """The network's shape and what the checkpoint records about the env it was trained on."""
    arch = {"vocab_size": len(vocab), "hidden": int(cfg.hidden)}
    extra: dict[str, Any] = {"env": "game", "num_players": cfg.num_players, "opponents": cfg.opponents}
    if encoder is not None:
        arch["cue_dim"] = int(encoder.dim)
        extra.update(text_encoder=cfg.text_encoder, cue_dim=int(encoder.dim))
    if data.split is not None:
        extra["split"] = data.split.fingerprint
    settings = PolicySettings(
        env_id=ENV_ID,
        role="guesser",
        cue_encoding=cfg.cue_encoding,
        observation_mode="vector-dict",
        vocabulary=vocab,
        extra=extra,
    )
    return arch, settings


def train_fast(
    cfg: FastPPOConfig,
    run_dir: str | Path,
    *,
    vocabulary: Sequence[str] | None = None,
    humans: Any = None,
    logger: Any = None,
    resume: bool = True,
    progress: bool = True,
    split: Any = None,
) -> dict[str, Any]:
    """Train (or resume) a guesser with PPO; returns the summary also written to ``train.json``.

    It trains on the training part of ``cfg``'s human split (``split``, a
    :class:`~huesenv.humans.splits.DataSplit`, overrides it) and evaluates on the
    evaluation part; see :mod:`huesenv.experiments.rl.human_data`.
    """
    import torch

    run_dir, device = start_run(run_dir, cfg)
    data = guesser_data(cfg, vocabulary if vocabulary is not None else word_texts(), humans, split)
    vocab = data.train_words
    env = make_env(cfg, vocab, data.train_cells, cfg.num_envs, humans)
    eval_env = make_env(cfg, data.eval_words, data.eval_cells, cfg.eval_decisions, humans)
    encoder = make_text_encoder(cfg.text_encoder) if cfg.cue_encoding == "embedding" else None
    train_lookup = cue_lookup(cfg, vocab, vocab, encoder).to(device)
    eval_lookup = cue_lookup(cfg, data.eval_words, vocab, encoder).to(device)
    arch, settings = policy_settings(cfg, vocab, encoder, data)

    torch.manual_seed(cfg.seed)
    net = build_guesser_net(**arch).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    update, global_step, wall_before, cpu_before = 0, 0, 0.0, 0.0
    state_path, policy_path = run_dir / "trainer_state.pt", run_dir / "policy.pt"
    if resume and state_path.exists():
        update, global_step, wall_before, cpu_before = _restore(
            state_path, policy_path, cfg, settings, net, optimizer, device, arch
        )
    own_logger = logger is None
    if own_logger:
        logger = TrainLogger(run_dir, tracker="none", resume_step=global_step, quiet=not progress)

    def evaluate() -> dict[str, float]:
        seed = segment_seed(cfg.seed, EVAL_TAG)
        return evaluate_greedy(net, eval_env, device, seed, eval_lookup, EVAL_GAME_STEPS)

    def save(state: bool = True) -> None:
        _save(
            run_dir, cfg, settings, net, arch, optimizer, update, global_step, clock, state=state, data=data
        )

    buf = Rollout.empty(cfg.num_steps, cfg.num_envs, device)
    clock = Clock(wall_before, cpu_before)
    budget = TimeBudget.of(cfg, clock)
    env_time = 0.0
    obs: dict[str, np.ndarray] | None = None
    while update < cfg.num_updates:
        if obs is None or update % cfg.checkpoint_every == 0:  # a segment starts: what a resume repeats
            s = segment_seed(cfg.seed, update)
            torch.manual_seed(s)
            obs, _ = env.reset(seed=s)
        if cfg.anneal_lr:
            optimizer.param_groups[0]["lr"] = cfg.learning_rate * (1.0 - update / cfg.num_updates)

        points, legal = [], []
        for t in range(cfg.num_steps):
            cue, occ, mask = _tensors(obs, device)
            with torch.no_grad():
                logits, value = guesser_forward(net, train_lookup[cue], occ)
                dist = torch.distributions.Categorical(logits=masked_logits(logits, mask))
                action = dist.sample()
            buf.cue[t], buf.occupied[t], buf.mask[t] = cue, occ, mask
            buf.action[t], buf.logprob[t], buf.value[t] = action, dist.log_prob(action), value
            e0 = time.perf_counter()
            obs, reward, term, trunc, info = env.step(action.cpu().numpy())
            env_time += time.perf_counter() - e0
            buf.reward[t] = torch.as_tensor(reward, dtype=torch.float32, device=device)
            buf.done[t] = torch.as_tensor(np.logical_or(term, trunc), dtype=torch.float32, device=device)
            points.append(float(np.mean(reward)))
            legal.append(float(np.mean(info["legal"])))
        with torch.no_grad():
            cue, occ, _ = _tensors(obs, device)
            _, next_value = guesser_forward(net, train_lookup[cue], occ)
            adv, ret = gae(cfg, buf, next_value)
        b, adv, ret = buf.flat(), adv.flatten(), ret.flatten()
        policy = partial(guesser_policy, net, train_lookup, b)
        old_v = b.value if cfg.clip_vloss else None
        n = cfg.batch_size
        losses = ppo_update(
            cfg, net, optimizer, n, policy, b.action, b.logprob, adv, ret, old_v, cfg.norm_adv
        )

        update += 1
        global_step += cfg.batch_size
        wall = clock.wall
        metrics = {"points": float(np.mean(points)), "legal": float(np.mean(legal)), **losses}
        metrics.update(sps=global_step / max(wall, 1e-9), wall_s=wall)
        last_update = update >= cfg.num_updates
        over_budget = budget.exhausted()
        if update % cfg.eval_every == 0 or last_update or over_budget:
            metrics.update(evaluate())
        logger.log(global_step, metrics, force_print=last_update or over_budget)
        if update % cfg.checkpoint_every == 0 or last_update or over_budget:
            save()
        if over_budget and not last_update:
            break
    # the policy file is an export of the state: rewritten, also when a kill came between the two
    save(state=False)
    wall, cpu = clock.wall, clock.cpu
    final = evaluate()
    summary = {
        "trainer": "ppo_fast",
        "env_id": ENV_ID,
        "env": cfg.env,
        "steps": global_step,
        "updates": update,
        "wall_s": wall,
        "cpu_s": cpu,
        "env_s_this_session": env_time,
        "device": device,
        "sps": global_step / max(wall, 1e-9),
        "stopped_by_time_budget": budget.stopped and update < cfg.num_updates,
        "final_eval_points": final["eval_points"],
        "final_eval_hit": final["eval_hit"],
        "eval_part": data.eval_label,
        "split": data.split.summary() if data.split is not None else None,
        "split_fingerprint": data.split.fingerprint if data.split is not None else "none",
        "config": cfg.to_dict(),
        "policy": str(policy_path),
        "torch_threads": torch.get_num_threads(),
    }
    if data.split is not None:  # the parts as exports: the lookup baseline's table, the evaluation reference
        summary["split_files"] = write_split_files(
            data.split, humans if humans is not None else load_humans(), run_dir / "split"
        )
    summary = write_summary(run_dir, summary)
    if own_logger:
        logger.close()
    return summary


def _save(
    run_dir, cfg, settings, net, arch, optimizer, update, global_step, clock, state=True, data=None
) -> None:
    """The trainer state (one atomic file: network, optimiser, counters), then ``policy.pt`` exported from it."""
    train = {"steps": global_step, "updates": update, "seed": cfg.seed, "trainer": "ppo_fast"}
    if data is not None and data.record is not None:
        train["human_data"] = data.record  # the split: what a held-out evaluation must not score against
    if state:
        save_state(
            run_dir / "trainer_state.pt",
            {
                "update": update,
                "global_step": global_step,
                "wall_s": clock.wall,
                "cpu_s": clock.cpu,
                "config": cfg.to_dict(),
                "optimizer": optimizer.state_dict(),
                "net": {n: t.detach().cpu() for n, t in net.state_dict().items()},
                "arch": dict(arch),
            },
        )
    save_checkpoint(run_dir / "policy.pt", settings, {"guesser": net}, {"guesser": arch}, train)


STATE_KEYS = ("update", "global_step", "wall_s", "cpu_s", "config", "optimizer")


def _restore(
    state_path, policy_path, cfg, settings, net, optimizer, device, arch
) -> tuple[int, int, float, float]:
    """Resume from ``trainer_state.pt`` alone (it holds the network); an older state without one is
    cross-checked against ``policy.pt``'s recorded update, so two halves of different checkpoints never mix."""
    state = load_state(state_path, device)
    require(state, STATE_KEYS, state_path)
    cfg.check_resume(state["config"], state_path)
    if "net" in state:
        weights = state["net"]
        if dict(state.get("arch", {})) != arch:
            raise ValueError(f"{state_path}: network arch {state.get('arch')} does not match this run's")
    else:
        ckpt = load_checkpoint(policy_path)
        check_settings(ckpt.settings, settings.to_dict(), source=f"resume {policy_path}")
        if int(ckpt.train.get("updates", -1)) != int(state["update"]):
            raise ValueError(
                f"{policy_path}: holds update {ckpt.train.get('updates')}, {state_path} update {state['update']} "
                "(a run interrupted between its two files); use --fresh to start over"
            )
        weights = ckpt.nets["guesser"].state_dict()
    try:
        net.load_state_dict(weights)
        optimizer.load_state_dict(state["optimizer"])
    except (RuntimeError, ValueError, KeyError) as err:
        raise ValueError(f"{state_path}: does not fit this run ({str(err).splitlines()[0]})") from None
    net.to(device)
    return int(state["update"]), int(state["global_step"]), float(state["wall_s"]), float(state["cpu_s"])
