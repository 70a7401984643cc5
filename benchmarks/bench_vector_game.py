"""Agent steps/s of the vectorised full game against the AEC env and PGX's connect_four, in one run.

    .venv/bin/python -P benchmarks/bench_vector_game.py [--num-games 4096] [--seconds 3]
        [--pgx-python /tmp/pgxenv/bin/python] [--equivalence 2000] [--torch]

* AEC: ``hues_cues_v1`` (4 players), random legal actions from the mask, the
  loop of ``benchmarks/bench_env.py``; agent steps per CPU second.
* Vector: :class:`~huesenv.envs.vector_game.game.HuesCuesVectorGame` with
  ``--num-games`` games (3-10 players, one per slot in turn), every seat
  played by the caller with random legal actions (one agent step per game per
  step); "core" returns masks, the seat on turn and per-seat rewards; "+obs"
  also builds the flat ``hues_cues_v1`` observation of every seat on turn
  (:class:`SelfPlayVectorEnv`).  Agent steps per CPU second (this process).
* PGX: ``connect_four``, ``jit(vmap(step))`` over ``--num-games`` games,
  random legal moves, run in the interpreter given by ``--pgx-python`` (a
  separate venv with ``pip install pgx jax``; not a project dependency).
  Reported per CPU second of that process (XLA uses several threads) and per
  wall second.  Without ``--pgx-python`` the PGX line says it was skipped.
* Memory per game of the numpy state (every array of the game object) and of
  one step's outputs (mask, rewards; with observations, the flat observation).
* The equivalence count: ``--equivalence N`` games replayed through the rules
  state machine (:mod:`huesenv.envs.vector_game.check`) with every mask,
  reward and final score compared.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

PGX_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    import jax, jax.numpy as jnp, pgx
    n, seconds = int(sys.argv[1]), float(sys.argv[2])
    env = pgx.make("connect_four")
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))

    @jax.jit
    def act(key, state):
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits, axis=-1)

    @jax.jit
    def advance(key, state):
        k1, k2 = jax.random.split(key)
        state = step(state, act(k1, state))
        # auto-reset finished games (PGX leaves them terminated)
        fresh = init(jax.random.split(k2, n))
        done = state.terminated | state.truncated
        return jax.tree_util.tree_map(
            lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), b, a), state, fresh
        )

    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, n))
    for _ in range(3):  # compile
        key, k = jax.random.split(key)
        state = advance(k, state)
    jax.block_until_ready(state)
    steps, c0, w0 = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - w0 < seconds:
        key, k = jax.random.split(key)
        state = advance(k, state)
        steps += n
    jax.block_until_ready(state)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    print(json.dumps({"steps": steps, "cpu": cpu, "wall": wall, "jax": jax.__version__, "pgx": pgx.__version__}))
    """
)


def aec_steps_per_cpu_s(seconds: float) -> float:
    from bench_env import aec_rate

    from huesenv import hues_cues_v1

    runs = [aec_rate(lambda: hues_cues_v1.env(num_players=4), seconds / 3)[0] for _ in range(3)]
    return max(runs)


def players(n: int) -> list[int]:
    return [3 + i % 8 for i in range(n)]


def vector_steps_per_cpu_s(num_games: int, seconds: float, observe: bool, xp=None, device=None) -> float:
    from huesenv.envs.vector_game.gym import SelfPlayVectorEnv

    env = SelfPlayVectorEnv(num_games, players(num_games), xp=xp, device=device, seed=0)
    g = env.game
    step = env.step if observe else g.step
    env.reset(seed=0) if observe else g.reset(seed=0)
    for _ in range(5):
        step(g.random_actions())
    steps, start, wall = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - wall < seconds:
        step(g.random_actions())
        steps += num_games
    if xp is not None and getattr(xp, "cuda", None) is not None and device not in (None, "cpu"):
        xp.cuda.synchronize()
    return steps / (time.process_time() - start)


def memory_per_game(num_games: int) -> tuple[float, float, float]:
    from huesenv.envs.vector_game.gym import SelfPlayVectorEnv

    env = SelfPlayVectorEnv(num_games, players(num_games), seed=0)
    g = env.game
    state = sum(
        v.nbytes for v in vars(g).values() if isinstance(v, np.ndarray) and v.shape[:1] == (num_games,)
    )
    ts = env.reset(seed=0)
    outputs = ts.action_mask.nbytes + ts.rewards.nbytes + ts.current_player.nbytes + ts.terminated.nbytes
    return state / num_games, outputs / num_games, ts.observation.nbytes / num_games


def pgx_rate(python: str, num_games: int, seconds: float) -> dict | None:
    try:
        out = subprocess.run(
            [python, "-c", PGX_SCRIPT, str(num_games), str(seconds)],
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "JAX_PLATFORMS": "cpu"},
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        print(f"  PGX run failed: {err}")
        return None
    if out.returncode != 0:
        print(f"  PGX run failed ({python}): {out.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def equivalence(games: int) -> tuple[int, int]:
    from huesenv.envs.vector_game.check import run_lockstep
    from huesenv.envs.vector_game.game import HuesCuesVectorGame

    game = HuesCuesVectorGame(512, players(512), seed=1)
    lock = run_lockstep(game, games, seed=1)
    return len(lock.finished), lock.compared_masks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-games", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--pgx-python", default=None, help="interpreter of a venv with pgx and jax")
    parser.add_argument(
        "--equivalence", type=int, default=2000, help="games replayed through the rules (0: skip)"
    )
    parser.add_argument("--torch", action="store_true", help="also time the torch path on the CPU")
    args = parser.parse_args()

    load = os.getloadavg()
    aec = aec_steps_per_cpu_s(args.seconds)
    core = vector_steps_per_cpu_s(args.num_games, args.seconds, observe=False)
    full = vector_steps_per_cpu_s(args.num_games, args.seconds, observe=True)
    torch_core = None
    if args.torch:
        import torch

        torch.set_num_threads(1)
        torch_core = vector_steps_per_cpu_s(
            args.num_games, args.seconds, observe=False, xp=torch, device="cpu"
        )
    pgx = pgx_rate(args.pgx_python, args.num_games, args.seconds) if args.pgx_python else None
    state_b, out_b, obs_b = memory_per_game(args.num_games)

    print(f"load average before the run: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} CPUs)")
    print("Agent steps per CPU second (random legal actions):")
    print(f"  AEC hues_cues_v1 (4 players)           {aec:12,.0f}")
    print(
        f"  vector core, {args.num_games} games (3-10 pl.)  {core:12,.0f}   vector/AEC = {core / aec:5.1f}x"
    )
    print(f"  vector + flat observations           {full:12,.0f}   vector/AEC = {full / aec:5.1f}x")
    if torch_core is not None:
        print(
            f"  vector core, torch on the CPU        {torch_core:12,.0f}   torch/numpy = {torch_core / core:.2f}"
        )
    if pgx is None:
        print("  PGX connect_four: skipped (give --pgx-python PATH of a venv with `pip install pgx jax`)")
    else:
        per_cpu, per_wall = pgx["steps"] / pgx["cpu"], pgx["steps"] / pgx["wall"]
        print(
            f"  PGX connect_four jit(vmap(step))     {per_cpu:12,.0f}   vector core/PGX = {core / per_cpu:.2f}, "
            f"+obs/PGX = {full / per_cpu:.2f}  (per wall s: {per_wall:,.0f}; pgx {pgx['pgx']}, jax {pgx['jax']})"
        )
    print(
        f"Memory per game (numpy): state {state_b:,.0f} B, step outputs {out_b:,.0f} B, flat observation {obs_b:,.0f} B"
    )
    if args.equivalence:
        t0 = time.perf_counter()
        n, masks = equivalence(args.equivalence)
        print(
            f"Equivalence: {n} games replayed through GameState, {masks:,} masks, every mask/reward/score identical "
            f"({time.perf_counter() - t0:.0f} s)"
        )


if __name__ == "__main__":
    main()
