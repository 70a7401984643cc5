"""The vectorised game's torch path on a GPU at 65,536 games, beside the numpy path on the CPU, in one run.

    .venv/bin/python -P benchmarks/gpu_vector_check.py [--num-games 65536] [--seconds 5] [--equivalence 300]

Prints agent steps per second (wall; random legal actions, every seat played
by the caller) of :class:`~huesenv.envs.vector_game.game.HuesCuesVectorGame`
with ``xp=torch, device="cuda"`` at ``--num-games`` games, with and without
the flat observations, next to numpy on the CPU at 4,096 games; then replays
``--equivalence`` GPU games through the rules state machine
(:mod:`huesenv.envs.vector_game.check`) and requires every mask, reward and
score to match.  Exits 2 with one line when no CUDA device is present.  Never a test.
"""

from __future__ import annotations

import argparse
import sys
import time


def rate(num_games: int, seconds: float, observe: bool, xp=None, device=None) -> float:
    from huesenv.envs.vector_game.gym import SelfPlayVectorEnv

    env = SelfPlayVectorEnv(num_games, [3 + i % 8 for i in range(num_games)], xp=xp, device=device, seed=0)
    g = env.game
    step = env.step if observe else g.step
    env.reset(seed=0) if observe else g.reset(seed=0)
    sync = (lambda: xp.cuda.synchronize()) if device not in (None, "cpu") else (lambda: None)
    for _ in range(5):
        step(g.random_actions())
    sync()
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        step(g.random_actions())
        steps += num_games
    sync()
    return steps / (time.perf_counter() - t0)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-games", type=int, default=65_536)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--equivalence", type=int, default=300)
    args = p.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("gpu_vector_check: no CUDA device (torch.cuda.is_available() is False)", file=sys.stderr)
        return 2
    name = torch.cuda.get_device_name(0)
    cpu = rate(4096, args.seconds, observe=False)
    gpu = rate(args.num_games, args.seconds, observe=False, xp=torch, device="cuda")
    gpu_obs = rate(min(args.num_games, 16_384), args.seconds, observe=True, xp=torch, device="cuda")
    print(f"device: {name}")
    print(f"  numpy CPU, 4096 games            {cpu:14,.0f} agent steps/s")
    print(
        f"  torch {name[:18]:18s} {args.num_games} games {gpu:14,.0f} agent steps/s   GPU/CPU = {gpu / cpu:.1f}x"
    )
    print(f"  torch + flat observations (16,384 games) {gpu_obs:14,.0f} agent steps/s")
    if args.equivalence:
        from huesenv.envs.vector_game.check import run_lockstep
        from huesenv.envs.vector_game.game import HuesCuesVectorGame

        game = HuesCuesVectorGame(256, [3 + i % 8 for i in range(256)], xp=torch, device="cuda", seed=3)
        lock = run_lockstep(game, args.equivalence, seed=3)
        print(
            f"  equivalence on the GPU: {len(lock.finished)} games, {lock.compared_masks:,} masks identical"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
