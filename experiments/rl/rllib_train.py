"""Multi-agent PPO on ``hues_cues_v1`` with RLlib (new API stack): one config, local or on a cluster.

Every seat maps to one shared policy ``"shared"`` (observations are seat-relative, so one
network plays every seat and role); the module is RLlib's own action-masking PPO module, the
env :mod:`huesenv.envs.rllib` (registered as ``huesenv_hues_cues_v1``).

Here (2 cores): ``train_rllib(out, iterations=2)`` runs in the driver process
(``num_env_runners=0``).  On a cluster: ``ray.init(address="auto")`` (or ``RAY_ADDRESS``) and
``ppo_config(num_env_runners=64, num_envs_per_env_runner=4, num_gpus=1)`` — the number of env
runners and GPUs are the only parameters that change.  The checkpoint written
(``algo.save_to_path``) is what ``policy:PATH`` of the agent registry loads
(:func:`load_rllib_policy`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from huesenv.agents.policy_net import PolicySettings, env_settings
from huesenv.envs.rllib import ENV_NAME, rllib_aec_env

POLICY_ID = "shared"


def rllib_env(config: dict[str, Any] | None = None) -> Any:
    """RLlib's ``PettingZooEnv`` around the env in RLlib's observation shape (``config``: env keyword arguments)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(rllib_aec_env(**dict(config or {})))


def register() -> str:
    """Register ``huesenv_hues_cues_v1`` with Ray Tune (idempotent) and return the name."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, rllib_env)
    return ENV_NAME


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
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    name = register()
    return (
        PPOConfig()
        # RLlib's own env pre-check samples actions without the mask (an illegal move ends a game here);
        # the env is checked by pettingzoo.test.api_test in the suite instead
        .environment(name, env_config=dict(env_config or {}), disable_env_checking=True)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner)
        .learners(num_learners=0 if num_gpus <= 1 else num_gpus, num_gpus_per_learner=1 if num_gpus else 0)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=lambda agent_id, *args, **kwargs: POLICY_ID)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    POLICY_ID: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": list(hidden), "head_fcnet_hiddens": []},
                    )
                }
            )
        )
        .training(train_batch_size=train_batch_size, minibatch_size=minibatch_size, num_epochs=num_epochs)
        .debugging(seed=seed)
    )


def train_rllib(out: str | Path, *, iterations: int = 2, local: bool = True, **config: Any) -> dict[str, Any]:
    """Build PPO from :func:`ppo_config`, train ``iterations`` times, save a checkpoint to ``out``."""
    import ray

    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = False
    if not ray.is_initialized():
        ray.init(num_cpus=2 if local else None, include_dashboard=False, log_to_driver=False)
        started = True
    try:
        algo = ppo_config(**config).build_algo()
        results: list[dict[str, Any]] = []
        for _ in range(int(iterations)):
            r = algo.train()
            results.append(
                {
                    "iteration": int(r.get("training_iteration", len(results) + 1)),
                    "env_steps": int(r.get("num_env_steps_sampled_lifetime", 0) or 0),
                    "episode_return_mean": _get(r, "env_runners", "episode_return_mean"),
                }
            )
        checkpoint = out / "checkpoint"
        algo.save_to_path(str(checkpoint))
        algo.stop()
        write_settings(checkpoint, config.get("env_config"))
    finally:
        if started:
            ray.shutdown()
    summary = {"trainer": "rllib-ppo", "iterations": results, "checkpoint": str(checkpoint)}
    (out / "train.json").write_text(json.dumps(summary, indent=1, default=str) + "\n")
    return summary


def write_settings(checkpoint: Path, env_config: dict[str, Any] | None) -> Path:
    """``huesenv_settings.json`` beside the checkpoint: what ``policy:PATH`` needs to build observations."""
    kwargs = dict(env_config or {})
    env = rllib_aec_env(**kwargs)
    found = env_settings(env)
    settings = PolicySettings(
        env_id="hues_cues_v1",
        role="selfplay",
        cue_encoding=found.get("cue_encoding", "index"),
        observation_mode="flat",
        vocabulary=tuple(found.get("vocabulary", ())),
        extra={"trainer": "rllib-ppo", "num_players": int(env.unwrapped.num_players)},
    )
    path = checkpoint / "huesenv_settings.json"
    path.write_text(json.dumps({**settings.to_dict(), "policy_id": POLICY_ID}, indent=1) + "\n")
    return path


def _get(d: dict[str, Any], *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d
