"""Each trainer's path to the game, measured in one process so the ratios hold on a shared machine.

    .venv/bin/python benchmarks/bench_trainers.py [--sb3-steps 200000] [--seconds 3] [--only sb3,obs,aec,torchrl]
        [--pgx-python /tmp/pgxvenv/bin/python]

* ``sb3``: sb3-contrib MaskablePPO through :class:`~huesenv.experiments.rl.sb3_vec.SB3VecEnv` on 64
  batched games vs ``make_vec_env`` over the single ``Guesser-v1`` (64 envs), the same settings for both
  (:data:`SB3_SETTINGS`, what a user picks for a fast env: a rollout of 64 x 64 = 4,096 steps, minibatches
  of 512, two epochs; the first layer :data:`~huesenv.experiments.rl.sb3_vec.SparseFlatExtractor`):
  learner steps per wall second and per CPU second with updates, then each policy's points per game
  (deterministic, masked) over ``--eval-games`` games of a fresh seed, mean ± 95 % t interval.  The
  baseline runs ``--sb3-baseline-steps`` (default 50,000, a prefix, so the section takes minutes; 0: as
  many as the adapter), and the adapter is also scored at that many steps.  ``--sb3-obs sparse``: the
  adapter reads the batched env's sparse observation (the same network function).
* ``obs``: env steps per CPU second of ``make_vec`` defaults (flat observation, replayed people) at
  ``--num-envs``, each observation mode's cost relative to the cheapest, and the ratio to single
  ``Guesser-v1`` (its own loop, :func:`bench_env.guesser_rate`).
  With ``--pgx-python`` (a separate venv: ``pip install pgx jax``; never a dependency of huesenv), also
  PGX's ``connect_four`` (``jit(vmap(step))``, random legal moves, :func:`bench_vector_game.pgx_rate`) at
  the same number of games, per CPU second of its process (XLA may use several threads) and per wall second.
* ``aec``: ``hues_cues_v1`` vs PettingZoo's ``tictactoe_v3``, ``step`` and ``last`` both timed.
* ``torchrl``: torchrl's ``GymWrapper`` over ``make_vec`` vs its ``PettingZooWrapper`` over
  ``hues_cues_v1`` (parallel), env steps per CPU second.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.dirname(__file__))

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

import huesenv  # noqa: E402, F401  (registers the ids)

ID = "huesenv/Guesser-v1"


def _vec(num_envs: int, **kwargs):
    return gymnasium.make_vec(ID, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)


def ci(points: list[float]) -> str:
    a = np.asarray(points, dtype=float)
    half = stats.t.ppf(0.975, len(a) - 1) * stats.sem(a)
    return f"{a.mean():.2f} ± {half:.2f} (n={len(a)})"


def evaluate(model, games: int, seed: int = 10_000, **env_kwargs) -> list[float]:
    """Learner points of the first game in each of ``games`` batched slots (one fresh seed, not a training
    one; the default game), the policy deterministic and masked."""
    env = _vec(games, **env_kwargs)
    obs, _ = env.reset(seed=seed)
    points: dict[int, float] = {}
    while len(points) < games:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, _, term, _, info = env.step(action)
        for i in np.flatnonzero(term):
            points.setdefault(int(i), float(info["final_info"]["learner_points"][i]))
    return list(points.values())


#: MaskablePPO's settings for a fast env, the same for both paths: a rollout of 64 x 64 = 4,096 steps,
#: minibatches of 512, two epochs (so SB3's update stays a small share of a step), a learning rate
#: that learns in 100k steps (3e-3: 11.1 ± 0.8 points per game at 102k steps, where 1e-3 gave 2.2 and
#: 3e-4 with 4 epochs 1.2, measured 2026-12-04); the first layer reads the flat observation's ~50
#: non-zero entries (SparseFlatExtractor: the same function as a Linear layer)
SB3_SETTINGS = {"n_steps": 64, "batch_size": 512, "n_epochs": 2, "learning_rate": 3e-3, "seed": 0}


def _sb3_model(env, observation_mode: str = "flat"):
    import torch
    from sb3_contrib import MaskablePPO

    from huesenv.experiments.rl.sb3_vec import SparseFlatExtractor

    torch.distributions.Distribution.set_default_validate_args(False)  # argument checks: ~10 % of a step
    policy = "MultiInputPolicy" if observation_mode == "sparse" else "MlpPolicy"
    kwargs = {"features_extractor_class": SparseFlatExtractor, "net_arch": [64]}
    return MaskablePPO(policy, env, policy_kwargs=kwargs, device="cpu", **SB3_SETTINGS)


def _learn(model, steps: int) -> float:
    """Train ``model`` until it has ``steps`` learner steps in all; the wall seconds it took."""
    t0 = time.perf_counter()
    model.learn(total_timesteps=steps - model.num_timesteps, reset_num_timesteps=model.num_timesteps == 0)
    return time.perf_counter() - t0


def bench_sb3(
    steps: int, baseline_steps: int, eval_games: int, num_envs: int = 64, obs: str = "flat"
) -> None:
    """The adapter trained ``steps`` learner steps, ``make_vec_env`` over the single env ``baseline_steps``
    (all of ``steps`` when they are equal, else a prefix), the same settings; each policy's points, and
    the adapter's also at ``baseline_steps`` (the same steps as the baseline)."""
    import torch
    from stable_baselines3.common.env_util import make_vec_env

    from huesenv.experiments.rl.sb3_vec import sb3_vec_env

    torch.set_num_threads(1)
    print(f"  settings (both): {num_envs} envs, {SB3_SETTINGS}, SparseFlatExtractor + net_arch [64]")
    base = _sb3_model(make_vec_env(ID, n_envs=num_envs, seed=0))
    c0 = time.process_time()  # both clocks around learn() alone (not building the envs and models)
    wall_b = _learn(base, baseline_steps)
    cpu_b = time.process_time() - c0
    rate_b = base.num_timesteps / wall_b
    points_b = evaluate(base, eval_games)
    model = _sb3_model(sb3_vec_env(ID, num_envs, seed=0, observation_mode=obs), obs)
    c0 = time.process_time()
    wall_a = _learn(model, baseline_steps)
    cpu_a = time.process_time() - c0
    same_steps = model.num_timesteps  # whole rollouts: the baseline's count
    points_same = evaluate(model, eval_games, observation_mode=obs) if baseline_steps < steps else None
    c0 = time.process_time()
    wall_a += _learn(model, steps) if steps > model.num_timesteps else 0.0
    cpu_a += time.process_time() - c0
    rate_a = model.num_timesteps / wall_a
    points_a = evaluate(model, eval_games, observation_mode=obs)
    prefix = "" if baseline_steps >= steps else f" (a prefix of the adapter's {steps:,})"
    print(
        f"  make_vec_env, {num_envs} single  {base.num_timesteps:8,} steps{prefix}: {rate_b:7,.0f} learner"
        f" steps/wall-s ({base.num_timesteps / cpu_b:,.0f}/CPU-s)   points/game {ci(points_b)}"
    )
    if points_same is not None:
        print(f"  adapter at the same {same_steps:,} steps: points/game {ci(points_same)}")
    print(
        f"  adapter ({obs}), {num_envs} batched {model.num_timesteps:8,} steps: {rate_a:7,.0f} learner"
        f" steps/wall-s ({model.num_timesteps / cpu_a:,.0f}/CPU-s)   points/game {ci(points_a)}"
    )
    print(
        f"  adapter / make_vec_env = {rate_a / rate_b:.1f}x per wall-s (goal >= 10x),"
        f" {model.num_timesteps / cpu_a / (base.num_timesteps / cpu_b):.1f}x per CPU-s"
    )


def bench_obs(num_envs: int, seconds: float, pgx_python: str | None = None) -> None:
    from bench_env import guesser_rate

    rates = {}
    for mode in ("flat", "sparse", "compact"):
        env = _vec(num_envs, observation_mode=mode)
        env.reset(seed=0)
        n, t0 = 0, time.process_time()
        while time.process_time() - t0 < seconds:
            env.step(env.game.random_actions())
            n += 1
        rates[mode] = n * num_envs / (time.process_time() - t0)
    single = guesser_rate(seconds)[0]
    best = max(rates.values())
    for mode, r in rates.items():
        print(f"  make_vec {mode:8s} {r:11,.0f} steps/CPU-s   cheapest/this = {best / r:.2f}")
    print(f"  Guesser-v1 single {single:9,.0f} steps/CPU-s (goal >= 10,000)")
    print(f"  default batched / single = {rates['flat'] / single:.0f}x (goal >= 50x); at {num_envs} games")
    if not pgx_python:
        print("  PGX connect_four: skipped (--pgx-python: an interpreter with pgx and jax; not a dependency)")
        return
    from bench_vector_game import pgx_rate

    pgx = pgx_rate(pgx_python, num_envs, seconds)  # jit(vmap(step)), random legal moves, its own process
    if pgx is not None:
        per_cpu, per_wall = pgx["steps"] / pgx["cpu"], pgx["steps"] / pgx["wall"]
        print(
            f"  PGX connect_four (pgx {pgx['pgx']}, jax {pgx['jax']}) {per_cpu:11,.0f} steps/CPU-s"
            f" ({per_wall:,.0f}/wall-s); default batched / PGX = {rates['flat'] / per_cpu:.2f} (goal >= 0.5)"
        )


def bench_aec(seconds: float) -> None:
    from bench_env import aec_rate
    from pettingzoo.classic import tictactoe_v3

    from huesenv import hues_cues_v1

    hues = max(aec_rate(hues_cues_v1.env, seconds / 3)[0] for _ in range(3))
    ttt = max(aec_rate(tictactoe_v3.env, seconds / 3)[0] for _ in range(3))
    print(
        f"  hues_cues_v1 {hues:9,.0f}  tictactoe_v3 {ttt:9,.0f}  step+last/CPU-s  ratio {hues / ttt:.2f} (goal >= 1.5)"
    )


def bench_torchrl(num_envs: int, seconds: float) -> None:
    import torch
    from torchrl.envs import GymWrapper, PettingZooWrapper

    from huesenv import hues_cues_v1

    torch.set_num_threads(1)

    def rate(env, act) -> float:
        td, n, t0 = env.reset(), 0, time.process_time()
        while time.process_time() - t0 < seconds:
            td = act(td)
            n += int(np.prod(env.batch_size) or 1)
        return n / (time.process_time() - t0)

    vec = _vec(num_envs)
    batched = GymWrapper(vec, categorical_action_encoding=True)

    def act_batched(td):
        td["action"] = torch.as_tensor(vec.game.random_actions())
        return batched.step_and_maybe_reset(td)[1]

    pz = PettingZooWrapper(hues_cues_v1.parallel_env(), use_mask=True, categorical_actions=True)

    def act_pz(td):
        return pz.step_and_maybe_reset(pz.rand_action(td))[1]

    fast, slow = rate(batched, act_batched), rate(pz, act_pz)
    print(
        f"  GymWrapper(make_vec) {fast:9,.0f}  PettingZooWrapper {slow:7,.0f} steps/CPU-s  ratio {fast / slow:.0f}x (goal >= 20x)"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="sb3,obs,aec,torchrl")
    p.add_argument("--sb3-steps", type=int, default=200_000)
    p.add_argument(
        "--sb3-baseline-steps",
        type=int,
        default=50_000,
        help="make_vec_env's steps (0: --sb3-steps; default a prefix)",
    )
    p.add_argument("--sb3-envs", type=int, default=64)
    p.add_argument(
        "--sb3-obs", choices=("flat", "sparse"), default="flat", help="the adapter's observation_mode"
    )
    p.add_argument("--eval-games", type=int, default=100)
    p.add_argument("--num-envs", type=int, default=4096)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument(
        "--pgx-python", help="obs: a Python with pgx and jax (e.g. /tmp/pgxvenv/bin/python) for PGX"
    )
    a = p.parse_args()
    parts = a.only.split(",")
    print(f"bench_trainers ({os.cpu_count()} CPUs visible; share of the machine unknown)")
    for part in parts:
        print(f"[{part}]", flush=True)
        if part == "sb3":
            base = a.sb3_baseline_steps if a.sb3_baseline_steps else a.sb3_steps
            bench_sb3(a.sb3_steps, min(base, a.sb3_steps), a.eval_games, a.sb3_envs, a.sb3_obs)
        elif part == "obs":
            bench_obs(a.num_envs, a.seconds, a.pgx_python)
        elif part == "aec":
            bench_aec(a.seconds)
        elif part == "torchrl":
            bench_torchrl(min(a.num_envs, 1024), a.seconds)
        else:
            raise SystemExit(f"--only: unknown part {part!r} (sb3, obs, aec, torchrl)")


if __name__ == "__main__":
    main()
