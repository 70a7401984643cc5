"""Games per second of the default tournament, in-process vs. Ray (local, 2 CPUs), measured in the same run.

    .venv/bin/python benchmarks/bench_tournament.py [--games N] [--num-cpus 2] [--batch-size 4]

Only the game stage is timed (agents built in each worker included: that is
part of what Ray costs); Ray's own start-up is timed and printed separately.
The baseline is the in-process backend; the ratio is Ray's games/s over it.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")


def timed_games(config, backend) -> tuple[float, int]:
    from huesenv.experiments.runner import prepare_run_dir, run_games

    run_dir = prepare_run_dir(config, fresh=True)
    start = time.perf_counter()
    result, _ = run_games(config, backend, run_dir)
    return time.perf_counter() - start, result.ran_now


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=4, help="games per lineup of the default config")
    parser.add_argument("--num-cpus", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=2)
    args = parser.parse_args()

    from huesenv.experiments import load_config
    from huesenv.experiments.backends import InProcessBackend, RayBackend

    with tempfile.TemporaryDirectory() as tmp:
        overrides = [
            f"games={args.games}",
            f"tournament.batch_size={args.batch_size}",
            "wordlevel.enabled=false",
        ]
        local_cfg = load_config("default", overrides + [f"output={Path(tmp) / 'local'}"])
        ray_cfg = load_config("default", overrides + [f"output={Path(tmp) / 'ray'}"])
        backend = InProcessBackend()
        t_local, n = timed_games(local_cfg, backend)
        backend.close()
        t0 = time.perf_counter()
        ray_backend = RayBackend(num_cpus=args.num_cpus, runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}})
        t_init = time.perf_counter() - t0
        try:
            t_ray, n_ray = timed_games(ray_cfg, ray_backend)
        finally:
            ray_backend.close()
    local_rate, ray_rate = n / t_local, n_ray / t_ray
    print(f"default tournament, {n} games ({args.games} per lineup), batch size {args.batch_size}")
    print(f"in-process : {t_local:7.2f} s  {local_rate:6.2f} games/s  (baseline)")
    print(
        f"ray ({args.num_cpus} CPU): {t_ray:7.2f} s  {ray_rate:6.2f} games/s  ratio {ray_rate / local_rate:.2f}x"
        f"  (+ {t_init:.1f} s ray.init, not counted)"
    )


if __name__ == "__main__":
    main()
