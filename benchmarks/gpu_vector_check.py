"""The vectorised game's torch path on a GPU at 65,536 games, beside the numpy path on the CPU, in one run.

    .venv/bin/python -P benchmarks/gpu_vector_check.py [--num-games 65536] [--seconds 5] [--equivalence 300]
        [--device cuda]

Prints agent steps per second (wall; random legal actions, every seat played
by the caller) of :class:`~huesenv.envs.vector_game.game.HuesCuesVectorGame`
with ``xp=torch, device=--device`` at ``--num-games`` games: the core (masks,
seat on turn, rewards), with the sparse ``(index, value)`` observation and
with the dense flat observation (fresh each step, and in place with
``copy=False``), next to numpy on the CPU at 4,096 games (core and sparse);
then replays ``--equivalence`` device games through the rules state machine
(:mod:`huesenv.envs.vector_game.check`, observations included) and requires
every mask, reward, score and observation to match.  Exits 2 with one line
when the device is CUDA and none is present.  Never a test; ``--device cpu
--num-games 512 --seconds 0.5 --equivalence 20`` checks the script itself
without a GPU.
"""

from __future__ import annotations

import argparse
import sys
import time

FORMS = {
    "core": None,
    "sparse": {"observation_mode": "sparse"},
    "dense": {"observation_mode": "flat"},
    "dense_inplace": {"observation_mode": "flat", "copy": False},
}


def rate(num_games: int, seconds: float, form: str, xp=None, device=None) -> float:
    from huesenv.envs.vector_game.gym import SelfPlayVectorEnv

    options = FORMS[form]
    env = SelfPlayVectorEnv(
        num_games, [3 + i % 8 for i in range(num_games)], xp=xp, device=device, seed=0, **(options or {})
    )
    g = env.game
    step = env.step if options is not None else g.step
    env.reset(seed=0) if options is not None else g.reset(seed=0)
    cuda = xp is not None and str(device).startswith("cuda")
    sync = (lambda: xp.cuda.synchronize()) if cuda else (lambda: None)
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
    p.add_argument("--device", default="cuda", help="torch device (cuda, cuda:1, cpu)")
    p.add_argument("--cpu-games", type=int, default=4096, help="games of the numpy baseline")
    args = p.parse_args()
    import torch

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("gpu_vector_check: no CUDA device (torch.cuda.is_available() is False)", file=sys.stderr)
        return 2
    if args.device == "cpu":
        torch.set_num_threads(
            1
        )  # as the numpy baseline: one thread (no oversubscription on a shared machine)
    name = torch.cuda.get_device_name(args.device) if args.device.startswith("cuda") else "cpu (torch)"
    print(f"device: {name}, torch {torch.__version__}", flush=True)
    cpu = {form: rate(args.cpu_games, args.seconds, form) for form in ("core", "sparse")}
    for form, r in cpu.items():
        print(f"  numpy CPU, {args.cpu_games} games, {form:14s} {r:14,.0f} agent steps/s", flush=True)
    for form in FORMS:
        r = rate(args.num_games, args.seconds, form, xp=torch, device=args.device)
        ref = form if form in cpu else "core"
        print(
            f"  torch {args.device}, {args.num_games} games, {form:14s} {r:14,.0f} agent steps/s"
            f"   vs numpy CPU {ref}: {r / cpu[ref]:.2f}x",
            flush=True,
        )
    if args.equivalence:
        from huesenv.envs.vector_game.check import run_lockstep
        from huesenv.envs.vector_game.game import HuesCuesVectorGame

        game = HuesCuesVectorGame(256, [3 + i % 8 for i in range(256)], xp=torch, device=args.device, seed=3)
        lock = run_lockstep(game, args.equivalence, seed=3, check_obs=args.equivalence // 3)
        print(
            f"  equivalence on {args.device}: {len(lock.finished)} games, {lock.compared_masks:,} masks "
            "identical (observations checked for the first third)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
