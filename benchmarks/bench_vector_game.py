"""Agent steps/s of the vectorised full game against the AEC env and PGX's connect_four, in one run.

    .venv/bin/python -P benchmarks/bench_vector_game.py [--num-games 4096] [--seconds 3]
        [--pgx-python /tmp/pgxenv/bin/python] [--equivalence 2000] [--torch]

* AEC: ``hues_cues_v1`` (4 players), random legal actions from the mask, the
  loop of ``benchmarks/bench_env.py``; agent steps per CPU second.  Every
  line (PGX's too) is the best of three rounds of ``--seconds / 3``.
* Vector: :class:`~huesenv.envs.vector_game.game.HuesCuesVectorGame` with
  ``--num-games`` games (3-10 players, one per slot in turn), every seat
  played by the caller with random legal actions (one agent step per game per
  step); "core" returns masks, the seat on turn and per-seat rewards; the
  other lines also build the observation of every seat on turn
  (:class:`SelfPlayVectorEnv`): "dense flat" the ``hues_cues_v1`` flat vector
  as a fresh array each step (the default), "dense flat, in place" the same
  vector in one persistent array updated in place (``copy=False``), "sparse"
  the same observation as ``(index, value)`` (``observation_mode="sparse"``,
  what an EmbeddingBag first layer reads).  Agent steps per CPU second (this
  process).  ``--torch`` adds the torch path on the CPU (core and sparse).
* PGX: ``connect_four``, ``jit(vmap(step))`` over ``--num-games`` games,
  random legal moves, run in the interpreter given by ``--pgx-python`` (a
  separate venv with ``pip install pgx jax``; not a project dependency).
  Reported per CPU second of that process (XLA uses several threads) and per
  wall second.  Without ``--pgx-python`` the PGX line says it was skipped.
* Memory per game of the numpy state (every per-game array of the game object), of
  one step's outputs (mask, rewards, seat, terminated) and of each observation form.

Results, the goals they meet and why: ``docs/design.md``, section ``benchmarks.bench_vector_game``.
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
from pathlib import Path

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
    best = None
    for _ in range(3):  # the best of three rounds, as every line of the benchmark
        steps, c0, w0 = 0, time.process_time(), time.perf_counter()
        while time.perf_counter() - w0 < seconds / 3:
            key, k = jax.random.split(key)
            state = advance(k, state)
            steps += n
        jax.block_until_ready(state)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        if best is None or steps / cpu > best[0] / best[1]:
            best = (steps, cpu, wall)
    steps, cpu, wall = best
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


FORMS = {  # line -> SelfPlayVectorEnv options (None: the game core without observations)
    "core": None,
    "dense": {"observation_mode": "flat"},
    "dense_inplace": {"observation_mode": "flat", "copy": False},
    "sparse": {"observation_mode": "sparse"},
}


def vector_steps_per_cpu_s(num_games: int, seconds: float, form: str, xp=None, device=None) -> float:
    from huesenv.envs.vector_game.gym import SelfPlayVectorEnv

    observe = FORMS[form] is not None
    env = SelfPlayVectorEnv(
        num_games, players(num_games), xp=xp, device=device, seed=0, **(FORMS[form] or {})
    )
    g = env.game
    step = env.step if observe else g.step
    env.reset(seed=0) if observe else g.reset(seed=0)
    for _ in range(5):
        step(g.random_actions())
    best = 0.0
    for _ in range(3):  # the best of three rounds (as the AEC line): the least disturbed by other jobs
        steps, start, wall = 0, time.process_time(), time.perf_counter()
        while time.perf_counter() - wall < seconds / 3:
            step(g.random_actions())
            steps += num_games
        best = max(best, steps / (time.process_time() - start))
    return best


def fresh_process_rate(num_games: int, seconds: float, form: str) -> float:
    """:func:`vector_steps_per_cpu_s` of ``form`` alone, in a new interpreter (see the module docstring)."""
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        "from bench_vector_game import vector_steps_per_cpu_s; "
        f"print(vector_steps_per_cpu_s({num_games}, {seconds}, {form!r}))"
    )
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"fresh-process run of {form!r} failed: {out.stderr.strip().splitlines()[-1:]}")
    return float(out.stdout.strip().splitlines()[-1])


def memory_per_game(num_games: int) -> dict[str, float]:
    from huesenv.envs.vector_game.gym import SelfPlayVectorEnv

    env = SelfPlayVectorEnv(num_games, players(num_games), seed=0)
    g = env.game
    state = sum(
        v.nbytes for v in vars(g).values() if isinstance(v, np.ndarray) and v.shape[:1] == (num_games,)
    )
    ts = env.reset(seed=0)
    outputs = ts.action_mask.nbytes + ts.rewards.nbytes + ts.current_player.nbytes + ts.terminated.nbytes
    idx, val = env.encoder.sparse(g.rows, g.current)
    return {
        "state": state / num_games,
        "outputs": outputs / num_games,
        "dense": ts.observation.nbytes / num_games,
        "sparse": (idx.nbytes + val.nbytes) / num_games,
        "sparse_width": idx.shape[1],
        "flat_size": ts.observation.shape[1],
    }


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
    rates = {form: vector_steps_per_cpu_s(args.num_games, args.seconds, form) for form in FORMS}
    sparse_alone = fresh_process_rate(args.num_games, args.seconds, "sparse")
    torch_rates = {}
    if args.torch:
        import torch

        torch.set_num_threads(1)
        for form in ("core", "sparse"):
            torch_rates[form] = vector_steps_per_cpu_s(args.num_games, args.seconds, form, torch, "cpu")
    pgx = pgx_rate(args.pgx_python, args.num_games, args.seconds) if args.pgx_python else None
    mem = memory_per_game(args.num_games)

    per_cpu = pgx["steps"] / pgx["cpu"] if pgx else None

    def line(label: str, rate: float) -> str:
        vs_pgx = f"   vs PGX {rate / per_cpu:5.2f}x" if per_cpu else ""
        return f"  {label:44s} {rate:12,.0f}   vs AEC {rate / aec:6.1f}x{vs_pgx}"

    print(f"load average before the run: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} CPUs)")
    print("Agent steps per CPU second (random legal actions; goals: >= 50x AEC, >= 0.5x PGX):")
    print(f"  {'AEC hues_cues_v1 (4 players)':44s} {aec:12,.0f}")
    n = args.num_games
    print(line(f"vector core, {n} games (3-10 players)", rates["core"]))
    print(line("vector + dense flat observation (fresh)", rates["dense"]))
    print(line("vector + dense flat, in place (copy=False)", rates["dense_inplace"]))
    print(line("vector + sparse observation (index, value)", rates["sparse"]))
    print(line("  the same, alone in a fresh process", sparse_alone))
    for form, rate in torch_rates.items():
        print(line(f"torch on the CPU, {form}", rate) + f"   torch/numpy = {rate / rates[form]:.2f}")
    if pgx is None:
        print("  PGX connect_four: skipped (give --pgx-python PATH of a venv with `pip install pgx jax`)")
    else:
        print(
            f"  {'PGX connect_four jit(vmap(step))':44s} {per_cpu:12,.0f}   (per wall s: "
            f"{pgx['steps'] / pgx['wall']:,.0f}; pgx {pgx['pgx']}, jax {pgx['jax']})"
        )
    print(
        f"Memory per game (numpy): state {mem['state']:,.0f} B, step outputs {mem['outputs']:,.0f} B; "
        f"observation: dense flat {mem['dense']:,.0f} B ({mem['flat_size']:,} float32), "
        f"sparse {mem['sparse']:,.0f} B ({mem['sparse_width']} int32 + {mem['sparse_width']} float32)"
    )
    if args.equivalence:
        t0 = time.perf_counter()
        games, masks = equivalence(args.equivalence)
        print(
            f"Equivalence: {games} games replayed through GameState, {masks:,} masks, every mask/reward/score "
            f"identical ({time.perf_counter() - t0:.0f} s)"
        )


if __name__ == "__main__":
    main()
