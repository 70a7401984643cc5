"""``huesenv train guesser`` / ``huesenv train cue-giver``: sb3-contrib MaskablePPO on ``Guesser-v1`` / ``CueGiver-v1``.

The env is the id's batched game as a user would make it for SB3
(:func:`~huesenv.experiments.rl.sb3_vec.sb3_vec_env`: ``gymnasium.make_vec(env_id,
num_envs, vectorization_mode="vector_entry_point", **env_kwargs)`` in an SB3
``VecEnv``; defaults: flat observations, ``action_masks()``, replayed-human
opponents, the same game as ``gymnasium.make(env_id)``), so what is trained here
is what the README promises.  ``n_steps`` counts the env steps of one rollout
over all ``num_envs`` games.  Each episode is one game; the learning curve is
the learner's points per game (its role's points) against environment steps.

**Checkpoints and resume.** Training runs one rollout (``n_steps`` env steps
and its PPO update) per ``model.learn`` call, in segments of
``checkpoint_every`` steps.  Each segment starts by reseeding everything SB3
draws from (``model.set_random_seed(SeedSequence([seed, steps]))``: Python,
numpy, torch, the action space and the env) and resetting the env, and ends
with a checkpoint; so a run resumed from a checkpoint continues exactly as the
uninterrupted run did (same seed → same weights and curve on the same device).
A run stopped by its time budget saves where it stopped; resuming it starts a
new segment there, so it is reproducible from that checkpoint on but not
byte-equal to a run that never stopped.

The checkpoint is ``run_dir/model.zip`` (an SB3 zip, written to a temporary
file and renamed) with the trainer state inside it as the member
``huesenv_trainer_state.json`` (steps, clocks, config, the curve's episode
window), so the model and its state are one atomic unit.  ``trainer_state.json``
is a readable copy.  Resuming never unpickles anything: the model is rebuilt
from the config and its weights and optimiser are read with
``set_parameters`` (``torch.load(weights_only=True)``), so a planted
``model.zip`` runs no code; one without the state member is refused.  The zip
records its observation settings as ``huesenv_settings`` (``policy:run_dir/model.zip``
plays it and refuses a mismatching env).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, field_validator, model_validator

import huesenv  # noqa: F401 - registers the env ids
from huesenv.agents.policy_net import PolicySettings, check_settings
from huesenv.agents.sb3_zip import read_sb3_zip, settings_of
from huesenv.atomic import write_with
from huesenv.experiments.rl.harness import (
    Clock,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    TimeBudget,
    UnitFloat,
    positive,
    require,
    start_run,
    write_json,
    write_summary,
)
from huesenv.experiments.rl.human_data import HumanSplitConfig, make_split, write_parts
from huesenv.experiments.rl.logger import TrainLogger
from huesenv.experiments.rl.ppo_fast import segment_seed
from huesenv.experiments.rl.sb3_vec import sb3_vec_env
from huesenv.humans import load_humans
from huesenv.humans.splits import describe_training, training_record
from huesenv.trust import MAX_TENSOR_BYTES, UnsafeTensorFile, check_tensor_archive, read_at_most

ROLE_ENVS = {"guesser": "huesenv/Guesser-v1", "cue_giver": "huesenv/CueGiver-v1"}


class SB3Config(HumanSplitConfig):
    role: str = "guesser"
    total_steps: int = 30_000
    num_envs: int = 16
    n_steps: int = 512
    batch_size: int = 128
    n_epochs: int = 4
    learning_rate: PositiveFloat = 3e-4
    ent_coef: NonNegativeFloat = 0.0
    gamma: UnitFloat = 0.99
    net_arch: tuple[PositiveInt, ...] = (256, 256)
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    checkpoint_every: int = 5_000
    # the replayed humans the learner plays with are the training part of a seeded participant split
    # (the evaluation part is left for the tournament and the metrics): HumanSplitConfig's fields

    RESUME_FIXED: ClassVar[tuple[str, ...]] = (
        "seed",
        "role",
        "num_envs",
        "n_steps",
        "batch_size",
        "n_epochs",
        "net_arch",
        "env_kwargs",
        "checkpoint_every",
        *HumanSplitConfig.SPLIT_FIELDS,
    )

    @field_validator("net_arch", mode="before")
    @classmethod
    def _arch(cls, value: Any) -> Any:
        return tuple(value) if isinstance(value, list) else value

    @model_validator(mode="after")
    def _check(self) -> SB3Config:
        if self.role not in ROLE_ENVS:
            raise ValueError(f"role: expected one of {sorted(ROLE_ENVS)}, got {self.role!r}")
        for name in ("total_steps", "checkpoint_every", "num_envs", "n_steps", "batch_size", "n_epochs"):
            positive(name, getattr(self, name))
        if self.n_steps % self.num_envs:
            raise ValueError(
                f"n_steps: expected a multiple of num_envs ({self.num_envs}: one rollout over every game), got {self.n_steps}"
            )
        return self

    @property
    def env_id(self) -> str:
        return ROLE_ENVS[self.role]


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


def vector_policy_settings(env: Any, role: str, env_id: str) -> dict[str, Any]:
    """:func:`env_policy_settings` of the batched env (:class:`~huesenv.envs.vector_game.gym.HuesCuesVectorEnv`):
    the same settings as the single env of the same id and options."""
    game = env.game
    return {
        "env_id": env_id,
        "role": role,
        "cue_encoding": env.encoder.cue_encoding,
        "observation_mode": env.observation_mode,
        "vocabulary": list(game.vocabulary),
        "extra": {
            "include_board": False,
            "num_players": int(game.ops.to_numpy(game.n).max()),
            "flat_cue_weight": float(env.encoder.weight),
        },
    }


def human_opponents(cfg: SB3Config, run_dir: Path) -> tuple[str | None, dict[str, Any] | None]:
    """The replayed-human opponent spec of the training part (written to ``run_dir/split/``) and the
    training record a checkpoint keeps; ``(None, record of every answer)`` for ``holdout="none"`` and
    ``(None, None)`` when ``env_kwargs`` chooses the opponents itself."""
    if "opponents" in cfg.env_kwargs:
        return None, None
    humans = load_humans()
    split = make_split(cfg, humans)
    if split is None:
        return None, training_record(None, humans)
    parts = write_parts(cfg, run_dir / "split", humans)
    assert parts is not None  # holdout is not "none" here
    return f"human-replay:{parts['train']}", training_record(split, humans)


def make_env(cfg: SB3Config, opponents: str | None = None, vector: bool = False):
    """The single env of ``cfg`` (``gymnasium.make``), or with ``vector`` its batched game in an SB3 ``VecEnv``."""
    import gymnasium

    kwargs = dict(cfg.env_kwargs)
    if opponents is not None:
        kwargs["opponents"] = opponents
    try:
        if vector:
            return sb3_vec_env(cfg.env_id, cfg.num_envs, seed=cfg.seed, **kwargs)
        return gymnasium.make(cfg.env_id, **kwargs)
    except TypeError as err:  # an env_kwargs key the env does not take is the user's input
        raise ValueError(f"env_kwargs {dict(cfg.env_kwargs)}: {cfg.env_id} refused them ({err})") from None


STATE_MEMBER = "huesenv_trainer_state.json"
MAX_STATE_BYTES = 16 << 20  # a state is a few kB (config, counters, recent returns)
CURVE_WINDOW = 20  # the curve's points: the mean of the last 20 games


def train_sb3(
    cfg: SB3Config, run_dir: str | Path, *, logger: Any = None, resume: bool = True, progress: bool = True
) -> dict[str, Any]:
    """Train (or resume) MaskablePPO; returns the summary also written to ``train.json``."""
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.callbacks import BaseCallback
    except ImportError:
        raise ValueError("huesenv train (SB3) needs the rl extra: pip install 'huesenv[rl]'") from None

    run_dir, device = start_run(run_dir, cfg)
    opponents, human_data = human_opponents(cfg, run_dir)
    env = make_env(cfg, opponents, vector=True)
    settings = vector_policy_settings(env.env, cfg.role, cfg.env_id)
    model_path = run_dir / "model.zip"
    model = MaskablePPO(
        "MlpPolicy",
        env,
        seed=cfg.seed,
        n_steps=cfg.n_steps // cfg.num_envs,
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
    if human_data is not None:  # the human answers it learned from: read by the evaluation's refusal check
        model.huesenv_human_data = human_data  # type: ignore[attr-defined]
    state: dict[str, Any] = {"steps": 0, "wall_s": 0.0, "cpu_s": 0.0, "episodes": 0, "recent": []}
    if resume and model_path.exists():
        state = _restore(model, model_path, cfg, settings, device)
    own_logger = logger is None
    if own_logger:
        logger = TrainLogger(run_dir, tracker="none", resume_step=state["steps"], quiet=not progress)
    clock = Clock(state["wall_s"], state["cpu_s"])
    budget = TimeBudget.of(cfg, clock)
    recent: list[float] = [float(x) for x in state["recent"]]
    episodes = int(state["episodes"])
    start_steps = int(state["steps"])

    class Episodes(BaseCallback):
        """Adds each finished game's points (its role's points, penalties aside) to the curve's window."""

        def _on_step(self) -> bool:
            nonlocal episodes
            for info, d in zip(self.locals["infos"], self.locals["dones"]):
                if d:
                    recent.append(float(info["learner_points"]))
                    del recent[:-CURVE_WINDOW]
                    episodes += 1
            return True

    def save() -> None:
        _save(model, model_path, cfg, clock, {"episodes": episodes, "recent": list(recent)})

    callback = Episodes()
    segment_start = True
    next_ckpt = (int(model.num_timesteps) // cfg.checkpoint_every + 1) * cfg.checkpoint_every
    while int(model.num_timesteps) < cfg.total_steps:
        if segment_start:  # reseed everything SB3 draws from, and start a fresh game
            model.set_random_seed(segment_seed(cfg.seed, int(model.num_timesteps)))
            model._last_obs = None  # noqa: SLF001 - makes learn() reset the (reseeded) env
            segment_start = False
        model.learn(total_timesteps=cfg.n_steps, callback=callback, reset_num_timesteps=False)
        steps = int(model.num_timesteps)
        done, over = steps >= cfg.total_steps, budget.exhausted()
        if recent:
            logger.log(
                steps,
                {
                    "points": sum(recent) / len(recent),
                    "episodes": float(episodes),
                    "sps": (steps - start_steps) / max(clock.session_wall, 1e-9),
                    "wall_s": clock.wall,
                },
                force_print=done or over,
            )
        if steps >= next_ckpt or done or over:
            save()
            next_ckpt = (steps // cfg.checkpoint_every + 1) * cfg.checkpoint_every
            segment_start = True
        if over and not done:
            break
    save()  # the final checkpoint (also when this session trained nothing: the state and its copy agree)
    steps = int(model.num_timesteps)
    summary = {
        "trainer": "sb3_maskable_ppo",
        "env_id": cfg.env_id,
        "role": cfg.role,
        "steps": steps,
        "wall_s": clock.wall,
        "cpu_s": clock.cpu,
        "device": device,
        "stopped_by_time_budget": budget.stopped and steps < cfg.total_steps,
        "episodes_this_session": episodes - int(state["episodes"]),
        "config": cfg.to_dict(),
        "policy": str(model_path),
        "human_data": describe_training(human_data) if human_data else None,
    }
    summary = write_summary(run_dir, summary)
    env.close()
    if own_logger:
        logger.close()
    return summary


def _save(model: Any, model_path: Path, cfg: SB3Config, clock: Clock, curve: dict[str, Any]) -> None:
    """``model.zip`` with the trainer state inside (one atomic unit), then the readable ``trainer_state.json``."""
    state = {
        "steps": int(model.num_timesteps),
        "wall_s": clock.wall,
        "cpu_s": clock.cpu,
        "config": cfg.to_dict(),
        **curve,
    }

    def write(tmp: Path) -> None:
        model.save(str(tmp.with_suffix(".zip")))
        tmp.with_suffix(".zip").replace(tmp)
        with zipfile.ZipFile(tmp, "a") as archive:
            archive.writestr(STATE_MEMBER, json.dumps(state))

    write_with(model_path, write)
    write_json(model_path.with_name("trainer_state.json"), state)


def read_state(model_path: Path) -> dict[str, Any]:
    """The trainer state inside a run's ``model.zip`` (one line naming the file when it is absent or torn)."""
    try:
        with zipfile.ZipFile(model_path) as archive, archive.open(STATE_MEMBER) as member:
            raw = read_at_most(member, MAX_STATE_BYTES)
    except KeyError:
        raise ValueError(
            f"{model_path}: holds no huesenv trainer state ({STATE_MEMBER}): not a checkpoint of this "
            "trainer (or one from an older huesenv); use --fresh or a new --out"
        ) from None
    except (OSError, zipfile.BadZipFile) as err:
        raise ValueError(f"{model_path}: not a readable zip ({err}); use --fresh to start over") from None
    if raw is None:
        raise ValueError(
            f"{model_path}: {STATE_MEMBER} is larger than the {MAX_STATE_BYTES:,} bytes allowed; use --fresh"
        )
    try:
        state = json.loads(raw)
    except ValueError as err:  # also Python's int digit limit
        raise ValueError(
            f"{model_path}: {STATE_MEMBER} is not JSON ({str(err)[:200]}); use --fresh"
        ) from None
    except RecursionError:
        raise ValueError(f"{model_path}: {STATE_MEMBER} is JSON nested too deeply; use --fresh") from None
    require(state, ("steps", "wall_s", "cpu_s", "config", "episodes", "recent"), model_path)
    return state


def check_pth_members(model_path: Path) -> None:
    """Every ``.pth`` member of the zip passes :func:`huesenv.trust.check_tensor_archive` (``torch.load`` next)."""
    try:
        with zipfile.ZipFile(model_path) as archive:
            for info in archive.infolist():
                if not info.filename.endswith(".pth"):
                    continue
                if info.file_size > MAX_TENSOR_BYTES:
                    raise UnsafeTensorFile(f"more than {MAX_TENSOR_BYTES:,} bytes")
                with archive.open(info) as fh:
                    blob = read_at_most(fh, MAX_TENSOR_BYTES)
                if blob is None:
                    raise UnsafeTensorFile(f"more than {MAX_TENSOR_BYTES:,} bytes")
                try:
                    check_tensor_archive(io.BytesIO(blob))
                except UnsafeTensorFile as err:
                    raise UnsafeTensorFile(f"{info.filename!r}: {err}") from None
    except UnsafeTensorFile as err:
        raise ValueError(f"{model_path}: {err}; use --fresh to start over") from None
    except (OSError, zipfile.BadZipFile) as err:
        raise ValueError(f"{model_path}: not a readable zip ({err}); use --fresh to start over") from None


def _restore(model: Any, model_path: Path, cfg: SB3Config, settings: dict[str, Any], device: str) -> dict:
    """Load weights and optimiser into the freshly built ``model`` (nothing unpickled) and return the state."""
    state = read_state(model_path)
    cfg.check_resume(state["config"], model_path)
    data, weights = read_sb3_zip(model_path)  # plain JSON and tensors: checks the settings before loading
    check_settings(
        PolicySettings.from_dict(
            settings_of(data, int(weights["action_net.weight"].shape[0]), str(model_path))
        ),
        settings,
        source=f"resume {model_path}",
    )
    check_pth_members(model_path)  # set_parameters torch.loads the optimiser's file too
    try:
        model.set_parameters(str(model_path), exact_match=True, device=device)
    except Exception as err:  # noqa: BLE001 - shapes or names that do not fit this config
        raise ValueError(f"{model_path}: does not fit this run ({str(err).splitlines()[0]})") from None
    model.num_timesteps = int(state["steps"])
    return state
