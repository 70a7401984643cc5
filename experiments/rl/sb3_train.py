"""``huesenv train guesser`` / ``huesenv train cue-giver``: sb3-contrib MaskablePPO on ``Guesser-v1`` / ``CueGiver-v1``.

The env is made exactly as a user would (``gymnasium.make(env_id, **env_kwargs)``;
defaults: flat observations, ``action_masks()``, replayed-human opponents), so
what is trained here is what the README promises.  Each episode is one game; the
learning curve is the learner's points per game (its role's points) against
environment steps.

**Checkpoints and resume.** Every ``checkpoint_every`` steps the model is saved
to ``run_dir/model.zip`` (atomically) with its observation settings as the
``huesenv_settings`` attribute (so ``policy:run_dir/model.zip`` plays it and
refuses a mismatching env); rerunning the same command continues from it with
the step counter kept (``reset_num_timesteps=False``).  The env is reseeded from
``SeedSequence([seed, steps])`` at each (re)start, so an interrupted run resumes
deterministically from its last checkpoint.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import huesenv  # noqa: F401 - registers the env ids
from huesenv.agents.devices import resolve_device
from huesenv.agents.policy_net import PolicySettings, check_settings
from huesenv.experiments.rl.logger import TrainLogger
from huesenv.experiments.rl.ppo_fast import segment_seed

ROLE_ENVS = {"guesser": "huesenv/Guesser-v1", "cue_giver": "huesenv/CueGiver-v1"}


@dataclass
class SB3Config:
    role: str = "guesser"
    total_steps: int = 30_000
    seed: int = 0
    device: str = "auto"
    n_steps: int = 512
    batch_size: int = 128
    n_epochs: int = 4
    learning_rate: float = 3e-4
    ent_coef: float = 0.0
    gamma: float = 0.99
    net_arch: tuple[int, ...] = (256, 256)
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    checkpoint_every: int = 5_000
    time_budget_s: float | None = None
    torch_threads: int | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLE_ENVS:
            raise ValueError(f"role: expected one of {sorted(ROLE_ENVS)}, got {self.role!r}")
        if int(self.total_steps) < 1 or int(self.checkpoint_every) < 1:
            raise ValueError("total_steps and checkpoint_every: expected positive integers")
        self.net_arch = tuple(int(x) for x in self.net_arch)
        self.env_kwargs = dict(self.env_kwargs)

    @property
    def env_id(self) -> str:
        return ROLE_ENVS[self.role]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "sb3 config") -> SB3Config:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"{source}: unknown field(s) {unknown}; expected some of {sorted(known)}")
        return cls(**dict(data))


def env_policy_settings(env: Any, role: str, env_id: str) -> dict[str, Any]:
    """The ``PolicySettings`` dict of a ``Guesser-v1``/``CueGiver-v1`` env (what a checkpoint records)."""
    base = env.unwrapped
    game = base.game
    return {
        "env_id": env_id,
        "role": role,
        "cue_encoding": game.cue_encoding,
        "observation_mode": base.observation_mode,
        "vocabulary": list(game.layout.vocabulary),
        "extra": {
            "include_board": bool(game.encoder.include_board),
            "num_players": int(game.num_players),
            "flat_cue_weight": float(game.encoder.flat_cue_weight),
        },
    }


def make_env(cfg: SB3Config):
    import gymnasium

    return gymnasium.make(cfg.env_id, **dict(cfg.env_kwargs))


def train_sb3(
    cfg: SB3Config, run_dir: str | Path, *, logger: Any = None, resume: bool = True, progress: bool = True
) -> dict[str, Any]:
    """Train (or resume) MaskablePPO; returns the summary also written to ``train.json``."""
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
    except ImportError:
        raise ValueError("huesenv train (SB3) needs the rl extra: pip install 'huesenv[rl]'") from None

    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    device = resolve_device(cfg.device)
    if cfg.torch_threads:
        torch.set_num_threads(int(cfg.torch_threads))
    env = make_env(cfg)
    settings = env_policy_settings(env, cfg.role, cfg.env_id)
    model_path = run_dir / "model.zip"
    state_path = run_dir / "trainer_state.json"
    done_steps, wall_before, cpu_before = 0, 0.0, 0.0
    if resume and model_path.exists() and state_path.exists():
        state = json.loads(state_path.read_text())
        for key in ("seed", "role", "n_steps", "batch_size"):
            if state["config"].get(key) != getattr(cfg, key):
                raise ValueError(
                    f"{state_path}: cannot resume with {key}={getattr(cfg, key)!r}, the run was started with "
                    f"{state['config'].get(key)!r} (use a new --out or --fresh)"
                )
        model = MaskablePPO.load(str(model_path), env=env, device=device)
        saved = model.huesenv_settings  # type: ignore[attr-defined]  # set below before each save
        check_settings(PolicySettings.from_dict(saved), settings, source=f"resume {model_path}")
        done_steps, wall_before, cpu_before = int(model.num_timesteps), state["wall_s"], state["cpu_s"]
    else:
        model = MaskablePPO(
            "MlpPolicy",
            env,
            seed=cfg.seed,
            n_steps=cfg.n_steps,
            batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs,
            learning_rate=cfg.learning_rate,
            ent_coef=cfg.ent_coef,
            gamma=cfg.gamma,
            policy_kwargs={"net_arch": list(cfg.net_arch)},
            device=device,
            verbose=0,
        )
    model.huesenv_settings = settings  # type: ignore[attr-defined]  # read by PolicyAgent from the zip
    env.reset(seed=segment_seed(cfg.seed, done_steps))
    own_logger = logger is None
    if own_logger:
        logger = TrainLogger(run_dir, tracker="none", resume_step=done_steps, quiet=not progress)
    wall0, cpu0 = time.perf_counter(), time.process_time()

    def save(steps: int) -> None:
        tmp = run_dir / "model.tmp.zip"
        model.save(str(tmp))
        tmp.replace(model_path)
        state_path.write_text(
            json.dumps(
                {
                    "steps": steps,
                    "wall_s": wall_before + time.perf_counter() - wall0,
                    "cpu_s": cpu_before + time.process_time() - cpu0,
                    "config": asdict(cfg),
                },
                default=list,
            )
        )

    class Progress(BaseCallback):
        """Logs points per episode (game) and saves checkpoints; stops at the time budget."""

        def __init__(self) -> None:
            super().__init__()
            self.episode_points: list[float] = []
            self.running = 0.0
            self.next_ckpt = (done_steps // cfg.checkpoint_every + 1) * cfg.checkpoint_every
            self.stopped = False

        def _on_step(self) -> bool:
            for r, d in zip(self.locals["rewards"], self.locals["dones"]):
                self.running += float(r)
                if d:
                    self.episode_points.append(self.running)
                    self.running = 0.0
            steps = int(self.num_timesteps)
            wall = wall_before + time.perf_counter() - wall0
            if steps >= self.next_ckpt:
                save(steps)
                self.next_ckpt += cfg.checkpoint_every
            if cfg.time_budget_s is not None and wall >= cfg.time_budget_s:
                self.stopped = True
                return False
            return True

        def _on_rollout_end(self) -> None:
            if self.episode_points:
                recent = self.episode_points[-20:]
                wall = wall_before + time.perf_counter() - wall0
                logger.log(
                    int(self.num_timesteps),
                    {
                        "points": sum(recent) / len(recent),
                        "episodes": float(len(self.episode_points)),
                        "sps": (int(self.num_timesteps) - done_steps)
                        / max(time.perf_counter() - wall0, 1e-9),
                        "wall_s": wall,
                    },
                )

    callback = Progress()
    remaining = max(0, int(cfg.total_steps) - done_steps)
    if remaining:
        model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=False)
    steps = int(model.num_timesteps)
    save(steps)
    state = json.loads(state_path.read_text())
    summary = {
        "trainer": "sb3_maskable_ppo",
        "env_id": cfg.env_id,
        "role": cfg.role,
        "steps": steps,
        "wall_s": state["wall_s"],
        "cpu_s": state["cpu_s"],
        "device": device,
        "stopped_by_time_budget": callback.stopped,
        "episodes_this_session": len(callback.episode_points),
        "config": asdict(cfg),
        "policy": str(model_path),
    }
    (run_dir / "train.json").write_text(json.dumps(summary, indent=1, default=list) + "\n")
    env.close()
    if own_logger:
        logger.close()
    return summary
