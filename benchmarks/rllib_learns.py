"""Must-show of issue 38: the bundled RLlib config trains the guesser past random, on 2 cores in <= 10 minutes.

    .venv/bin/python benchmarks/rllib_learns.py [--iterations 20] [--eval-episodes 200] [--seed 0] [--out DIR]

Trains :func:`huesenv.experiments.rl.rllib_train.guesser_ppo_config` (the config
``train_rllib`` runs; ``Guesser-v1`` with replayed-human opponents, RLlib's
action-masking module, the env runner in the driver) and after every iteration
plays ``--eval-episodes`` fresh games (seeds 1_000_000 + i, never drawn by the
training) with the greedy masked policy; then the uniform random legal guesser on
the same games.  Prints iteration → env steps, wall and CPU seconds, RLlib's own
``episode_return_mean`` (its window of the last 100 training episodes, exploring) and the
evaluation's points per game ± the 95% interval; exit status 1 when the last
iteration's interval does not lie above the random one.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
warnings.filterwarnings("ignore")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--eval-episodes", type=int, default=200)
    parser.add_argument(
        "--seed", type=int, default=0, help="RLlib's seed (the evaluation games stay the same)"
    )
    parser.add_argument("--out", default=None, help="checkpoint folder (default: a temporary one)")
    args = parser.parse_args()

    import ray
    import torch

    from huesenv.experiments.rl.rllib_train import (
        GUESSER_POLICY_ID,
        evaluate_guesser,
        guesser_ppo_config,
        interval,
    )

    torch.set_num_threads(1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    algo = guesser_ppo_config(seed=args.seed).build_algo()
    print(f"built in {time.perf_counter() - wall0:.1f} s wall")
    rows = []
    print("iter  env_steps   wall_s    cpu_s  rllib_return_mean  eval points/game (greedy, 95% CI)")
    eval_cpu = 0.0
    for _ in range(args.iterations):
        r = algo.train()
        c = time.process_time()
        ev = interval(evaluate_guesser(algo.get_module(GUESSER_POLICY_ID), args.eval_episodes))
        eval_cpu += time.process_time() - c
        env = r.get("env_runners", {})
        row = {
            "iteration": r["training_iteration"],
            "env_steps": int(env.get("num_env_steps_sampled_lifetime", 0)),
            "wall_s": time.perf_counter() - wall0,
            "cpu_s": time.process_time() - cpu0 - eval_cpu,
            "rllib": env.get("episode_return_mean", float("nan")),
            **ev,
        }
        rows.append(row)
        print(
            f"{row['iteration']:4d} {row['env_steps']:10,d} {row['wall_s']:8.0f} {row['cpu_s']:8.0f}"
            f" {row['rllib']:18.2f}  {ev['eval_mean']:6.2f} ± {ev['eval_ci95']:.2f}",
            flush=True,
        )
    if args.out:
        algo.save_to_path(os.path.abspath(args.out))
    algo.stop()
    ray.shutdown()
    rand = interval(evaluate_guesser(None, args.eval_episodes))
    print(f"random legal guesser, same games: {rand['eval_mean']:.2f} ± {rand['eval_ci95']:.2f} points/game")
    last = rows[-1]
    print(
        f"wall {time.perf_counter() - wall0:.0f} s in all (evaluations included; training CPU {last['cpu_s']:.0f} s"
        " of this process, the driver, which samples and learns)"
    )
    above = last["eval_mean"] - last["eval_ci95"] > rand["eval_mean"] + rand["eval_ci95"]
    print("above random with its interval:", above)
    return 0 if above else 1


if __name__ == "__main__":
    with tempfile.TemporaryDirectory():
        sys.exit(main())
