"""PPO with RLlib (new API stack): the guesser on ``Guesser-v1`` (bundled), or every seat of ``hues_cues_v1``.

:func:`guesser_ppo_config` (what :func:`train_rllib` runs by default) trains one guesser
against replayed-human cue givers and guessers on ``huesenv/Guesser-v1`` (RLlib's
single-agent path, :func:`huesenv.envs.rllib.rllib_guesser_env`; registered as
``huesenv_guesser_v1``); ``benchmarks/rllib_learns.py`` measures its curve against the random
masked guesser.  :func:`ppo_config` (``game="selfplay"``) is the multi-agent config: every
seat maps to one shared policy ``"shared"`` (observations are seat-relative, so one network
plays every seat and role) over :func:`huesenv.envs.rllib.rllib_aec_env` (registered as
``huesenv_hues_cues_v1``).  Both use RLlib's own action-masking PPO module.

Here (2 cores): ``train_rllib(out, iterations=20)`` runs in the driver process
(``num_env_runners=0``).  On a cluster: ``ray.init(address="auto")`` (or ``RAY_ADDRESS``) and
``guesser_ppo_config(num_env_runners=64, num_envs_per_env_runner=8, num_gpus=1)`` — the number
of env runners and GPUs are the only parameters that change.  The checkpoint written
(``algo.save_to_path``) is what ``policy:PATH`` of the agent registry loads
(:func:`load_rllib_policy`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.agents.policy_net import PolicySettings, env_settings
from huesenv.envs.rllib import ENV_NAME, GUESSER_ENV_NAME, MASK_KEY, OBS_KEY, rllib_aec_env, rllib_guesser_env

POLICY_ID = "shared"
GUESSER_POLICY_ID = "default_policy"  # RLlib's single-agent module id
EVAL_SEED0 = 1_000_000  # evaluation games 1_000_000 + i, as benchmarks/guesser_learns.py


def rllib_env(config: dict[str, Any] | None = None) -> Any:
    """RLlib's ``PettingZooEnv`` around the env in RLlib's observation shape (``config``: env keyword arguments)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(rllib_aec_env(**dict(config or {})))


def guesser_env(config: dict[str, Any] | None = None) -> Any:
    """``Guesser-v1`` in the action-masking module's observation shape (``config``: its keyword arguments)."""
    return rllib_guesser_env(**dict(config or {}))


def register() -> str:
    """Register ``huesenv_hues_cues_v1`` and ``huesenv_guesser_v1`` with Ray Tune (idempotent); the first's name."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, rllib_env)
    register_env(GUESSER_ENV_NAME, guesser_env)
    return ENV_NAME


def _ppo_on(
    name: str, env_config: dict[str, Any] | None, num_env_runners: int, envs_per_runner: int, num_gpus: int
) -> Any:
    """PPO on the registered env ``name``, its runners and learners: what both configs share."""
    from ray.rllib.algorithms.ppo import PPOConfig

    register()
    return (
        PPOConfig()
        # RLlib's own env pre-check samples actions without the mask (an illegal move ends a game here);
        # the envs are checked in the suite instead (pettingzoo.test.api_test, the guesser's mask tests)
        .environment(name, env_config=dict(env_config or {}), disable_env_checking=True)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_runner)
        .learners(num_learners=0 if num_gpus <= 1 else num_gpus, num_gpus_per_learner=1 if num_gpus else 0)
    )


def _masking_module(hidden: tuple[int, ...]) -> Any:
    """RLlib's action-masking PPO module with ``hidden`` layers and no extra head layers."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"fcnet_hiddens": list(hidden), "head_fcnet_hiddens": []},
    )


def guesser_ppo_config(
    *,
    num_env_runners: int = 0,
    num_envs_per_env_runner: int = 8,
    num_gpus: int = 0,
    env_config: dict[str, Any] | None = None,
    train_batch_size: int = 2048,
    minibatch_size: int = 256,
    num_epochs: int = 4,
    lr: float = 1e-3,
    gamma: float = 0.9,
    lambda_: float = 0.95,
    entropy_coeff: float = 0.0,
    hidden: tuple[int, ...] = (256,),
    seed: int | None = 0,
) -> Any:
    """The bundled PPO config: a guesser on ``Guesser-v1`` (replayed humans), the action mask honoured.

    Why these values (RLlib's defaults, lr 5e-5 and 30 epochs of 128, learned nothing in
    minutes): a guess's points arrive within a round (``gamma`` 0.9 is enough and
    lowers the variance), and a larger ``lr`` with a few epochs over 2,048 steps learns
    within the 2-core budget; ``benchmarks/rllib_learns.py`` measured the curve.
    """
    return (
        _ppo_on(GUESSER_ENV_NAME, env_config, num_env_runners, num_envs_per_env_runner, num_gpus)
        .rl_module(rl_module_spec=_masking_module(hidden))
        .training(
            train_batch_size=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
            gamma=gamma,
            lambda_=lambda_,
            entropy_coeff=entropy_coeff,
            vf_clip_param=100.0,  # returns reach tens of points; RLlib's 10 would clip the value loss
        )
        .debugging(seed=seed)
    )


def ppo_config(
    *,
    num_env_runners: int = 0,
    num_envs_per_env_runner: int = 1,
    num_gpus: int = 0,
    env_config: dict[str, Any] | None = None,
    train_batch_size: int = 4000,
    minibatch_size: int = 256,
    num_epochs: int = 4,
    hidden: tuple[int, ...] = (256, 256),
    seed: int | None = 0,
) -> Any:
    """The one PPO config: local with the defaults; scale with ``num_env_runners`` and ``num_gpus``."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    return (
        _ppo_on(ENV_NAME, env_config, num_env_runners, num_envs_per_env_runner, num_gpus)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=lambda agent_id, *args, **kwargs: POLICY_ID)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: _masking_module(hidden)}))
        .training(train_batch_size=train_batch_size, minibatch_size=minibatch_size, num_epochs=num_epochs)
        .debugging(seed=seed)
    )


def train_rllib(
    out: str | Path,
    *,
    iterations: int = 2,
    local: bool = True,
    game: str = "guesser",
    eval_episodes: int = 0,
    **config: Any,
) -> dict[str, Any]:
    """Build PPO, train ``iterations`` times, save a checkpoint to ``out``.

    ``game``: ``"guesser"`` (:func:`guesser_ppo_config`) or ``"selfplay"`` (:func:`ppo_config`).
    ``eval_episodes`` > 0 (guesser only): after each iteration the greedy masked policy plays that
    many fresh games (:func:`evaluate_guesser`), recorded as mean and 95% interval.
    """
    if game not in ("guesser", "selfplay"):
        raise ValueError(f"game: expected 'guesser' or 'selfplay', got {game!r}")
    if eval_episodes and game != "guesser":
        raise ValueError("eval_episodes: only the guesser (game='guesser') is evaluated")
    import ray

    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = False
    if not ray.is_initialized():
        ray.init(num_cpus=2 if local else None, include_dashboard=False, log_to_driver=False)
        started = True
    make = guesser_ppo_config if game == "guesser" else ppo_config
    try:
        algo = make(**config).build_algo()
        results: list[dict[str, Any]] = []
        for _ in range(int(iterations)):
            r = algo.train()
            row = {
                "iteration": int(r.get("training_iteration", len(results) + 1)),
                "env_steps": int(_get(r, "env_runners", "num_env_steps_sampled_lifetime") or 0),
                "episode_return_mean": _get(r, "env_runners", "episode_return_mean"),
                # a guesser's game is 2 cones a round it guesses; one illegal cone would end it sooner
                "episode_len_mean": _get(r, "env_runners", "episode_len_mean"),
            }
            if eval_episodes:
                module = algo.get_module(GUESSER_POLICY_ID)
                row.update(interval(evaluate_guesser(module, eval_episodes, seed=EVAL_SEED0)))
            results.append(row)
        checkpoint = out / "checkpoint"
        algo.save_to_path(str(checkpoint))
        algo.stop()
        write_settings(checkpoint, config.get("env_config"), game=game)
    finally:
        if started:
            ray.shutdown()
    summary = {"trainer": "rllib-ppo", "game": game, "iterations": results, "checkpoint": str(checkpoint)}
    (out / "train.json").write_text(json.dumps(summary, indent=1, default=str) + "\n")
    return summary


def evaluate_guesser(
    module: Any | None, episodes: int, *, seed: int = EVAL_SEED0, env_config: dict[str, Any] | None = None
) -> list[float]:
    """Points per game of ``module``'s greedy masked guess (``None``: a uniform random legal cell).

    Games ``seed``, ``seed + 1``, ... of ``Guesser-v1`` (seeds the training never drew: RLlib seeds
    its envs from the config's seed), all played in lockstep so one forward pass serves them.
    """
    envs = [rllib_guesser_env(**dict(env_config or {})) for _ in range(int(episodes))]
    obs = [e.reset(seed=seed + i)[0] for i, e in enumerate(envs)]
    returns = [0.0] * len(envs)
    live = list(range(len(envs)))
    rng = np.random.default_rng(seed)
    while live:
        masks = np.stack([obs[i][MASK_KEY] for i in live])
        if module is None:
            logits = np.where(masks > 0, rng.random(masks.shape), -np.inf)
        else:
            logits = _module_logits(module, np.stack([obs[i][OBS_KEY] for i in live]), masks)
        actions = np.argmax(np.where(masks > 0, logits, -np.inf), axis=1)
        still = []
        for i, a in zip(live, actions):
            obs[i], reward, terminated, truncated, _ = envs[i].step(int(a))
            returns[i] += float(reward)
            if not (terminated or truncated):
                still.append(i)
        live = still
    for e in envs:
        e.close()
    return returns


def interval(values: list[float]) -> dict[str, float]:
    """Mean and the half-width of its normal 95% interval (1.96 standard errors)."""
    v = np.asarray(values, dtype=np.float64)
    half = 1.96 * float(v.std(ddof=1)) / np.sqrt(len(v)) if len(v) > 1 else float("nan")
    return {"eval_mean": float(v.mean()), "eval_ci95": half, "eval_episodes": len(v)}


def _module_logits(module: Any, obs: Any, masks: Any) -> Any:
    import torch
    from ray.rllib.core.columns import Columns

    batch = {Columns.OBS: {OBS_KEY: torch.as_tensor(obs), MASK_KEY: torch.as_tensor(masks)}}
    with torch.no_grad():
        out = module.forward_inference(batch)
    return out[Columns.ACTION_DIST_INPUTS].cpu().numpy()


def write_settings(checkpoint: Path, env_config: dict[str, Any] | None, *, game: str = "selfplay") -> Path:
    """``huesenv_settings.json`` beside the checkpoint: what ``policy:PATH`` needs to build observations."""
    kwargs = dict(env_config or {})
    env: Any = rllib_aec_env(**kwargs) if game == "selfplay" else rllib_guesser_env(**kwargs)
    found = env_settings(env)
    guesser = game == "guesser"
    settings = PolicySettings(
        env_id="huesenv/Guesser-v1" if guesser else "hues_cues_v1",
        role="guesser" if guesser else "selfplay",
        cue_encoding=found.get("cue_encoding", "index"),
        observation_mode="flat",
        vocabulary=tuple(found.get("vocabulary", ())),
        extra={
            "trainer": "rllib-ppo",
            "num_players": int(env.unwrapped.game.num_players if guesser else env.unwrapped.num_players),
        },
    )
    path = checkpoint / "huesenv_settings.json"
    policy_id = GUESSER_POLICY_ID if guesser else POLICY_ID
    path.write_text(json.dumps({**settings.to_dict(), "policy_id": policy_id}, indent=1) + "\n")
    return path


def _get(d: dict[str, Any], *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d
