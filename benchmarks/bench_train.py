"""Training speed of ``huesenv train guesser --fast`` (the CleanRL-style PPO) on the CPU and, when present, CUDA.

    .venv/bin/python -P benchmarks/bench_train.py [--updates 6] [--num-envs 2048 8192 32768] [--out bench_train.json]

For each device and batch of parallel games, trains from scratch for
``--updates`` PPO updates (rollout + 4 epochs × 4 minibatches) and prints the
training steps/s (env steps consumed by the learner per wall second, first
update excluded as warm-up), next to the env alone (random legal actions on the
same :class:`HuesCuesVectorEnv`, the baseline measured in the same run) and the
CUDA / CPU ratio.  ``benchmarks/gpu_check.py --train`` runs the same.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def env_only_rate(num_envs: int, seconds: float = 1.0) -> float:
    """Steps/s of the vector env alone with random legal actions (the ceiling without learning)."""
    import numpy as np

    from huesenv.experiments.rl.human_data import cells_of
    from huesenv.experiments.rl.ppo_fast import FastPPOConfig, make_env, random_legal_actions
    from huesenv.humans import load_humans
    from huesenv.vocabulary import word_texts

    vocab = word_texts()
    cfg = FastPPOConfig(num_envs=num_envs, num_minibatches=1)
    env = make_env(cfg, vocab, cells_of(vocab, load_humans()), num_envs)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, *_ = env.step(random_legal_actions(obs["action_mask"], rng))
        steps += num_envs
    return steps / (time.perf_counter() - t0)


def train_rate(device: str, num_envs: int, updates: int) -> dict:
    """Steps/s of PPO training (after one warm-up update) on ``device``."""
    from huesenv.experiments.rl.ppo_fast import FastPPOConfig, train_fast

    with tempfile.TemporaryDirectory() as tmp:
        warm = FastPPOConfig(
            total_steps=num_envs,
            num_envs=num_envs,
            device=device,
            checkpoint_every=10**6,
            eval_every=10**6,
            eval_decisions=256,
        )
        train_fast(warm, Path(tmp) / "warm", progress=False)
        cfg = FastPPOConfig(
            total_steps=updates * num_envs,
            num_envs=num_envs,
            device=device,
            checkpoint_every=10**6,
            eval_every=10**6,
            eval_decisions=256,
        )
        t0 = time.perf_counter()
        summary = train_fast(cfg, Path(tmp) / "run", progress=False)
        wall = time.perf_counter() - t0
    return {
        "device": summary["device"],
        "num_envs": num_envs,
        "steps": summary["steps"],
        "wall_s": wall,
        "steps_per_s": summary["steps"] / wall,
        "env_s": summary["env_s_this_session"],
        "torch_threads": summary["torch_threads"],
        "greedy_points_after": summary["final_eval_points"],
    }


def run_all(num_envs: list[int], updates: int) -> dict:
    import torch

    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    out: dict = {
        "torch": torch.__version__,
        "cuda": torch.cuda.is_available(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "cpu_count": os.cpu_count(),
        "rows": [],
    }
    for n in num_envs:
        env_rate = env_only_rate(n)
        by_device = {}
        for device in devices:
            row = train_rate(device, n, updates)
            row["env_only_steps_per_s"] = env_rate
            row["ratio_to_env_only"] = row["steps_per_s"] / env_rate
            by_device[device] = row
            out["rows"].append(row)
            print(
                f"{device:5s} num_envs={n:6d}  train {row['steps_per_s']:10.0f} steps/s  "
                f"(env alone {env_rate:10.0f}/s: training runs at {row['ratio_to_env_only']:.2e} of it)",
                flush=True,
            )
        if "cuda" in by_device:
            ratio = by_device["cuda"]["steps_per_s"] / by_device["cpu"]["steps_per_s"]
            by_device["cuda"]["speedup_over_cpu"] = ratio
            print(f"      num_envs={n:6d}  cuda / cpu = {ratio:.2f}x", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--num-envs", type=int, nargs="+", default=[2048, 8192])
    parser.add_argument("--updates", type=int, default=6)
    parser.add_argument("--out", default=None, help="also write the numbers as JSON")
    args = parser.parse_args()
    results = run_all(args.num_envs, args.updates)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
