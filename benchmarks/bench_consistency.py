"""Closed-form leave-one-out Mahalanobis (rank-one downdate) against the naive N refits.

Run: ``OMP_NUM_THREADS=1 python benchmarks/bench_consistency.py [--repeats R]``

For N = 50 and N = 5000 answers to one word (realistic answers: a discretised
cluster on the board plus scattered cells, in CIE xy) it checks that both give
the same squared distances to 1e-9 (relative, and absolute near zero) and the
same consistency, and prints the best-of-R time of each and the speed ratio
(naive / closed form), both measured in this run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from huesenv.board import load_board, parse_coord
from huesenv.humans.reconstruct import discretised_gaussian
from huesenv.stats import chi2_threshold, loo_mahalanobis_d2, loo_mahalanobis_d2_naive


def answers(n: int, seed: int = 0) -> np.ndarray:
    """n answers in CIE xy: 85 % around A13 (σ = 1.2 cells), 15 % uniform over the board."""
    rng = np.random.default_rng(seed)
    core = discretised_gaussian(parse_coord("A13"), n, 1.2, rng)
    scattered = rng.integers(0, 480, size=n)
    cells = np.where(rng.random(n) < 0.85, core, scattered)
    return load_board().xy[cells]


def best_time(fn, points: np.ndarray, repeats: int) -> tuple[float, np.ndarray]:
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(points)
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    _ = load_board().xy  # colour conversions outside the timings
    threshold = chi2_threshold(0.05)
    print(
        f"{'N':>6} {'closed form (s)':>16} {'naive refit (s)':>16} {'ratio':>8} {'max |Δ D²|':>11} "
        f"{'max rel Δ':>10} {'consistency':>12}"
    )
    ok = True
    for n in (50, 5000):
        points = answers(n)
        t_fast, fast = best_time(loo_mahalanobis_d2, points, args.repeats)
        t_slow, slow = best_time(loo_mahalanobis_d2_naive, points, 1 if n > 1000 else args.repeats)
        abs_err = float(np.max(np.abs(fast - slow)))
        rel_err = float(np.max(np.abs(fast - slow) / np.maximum(np.abs(slow), 1e-300)))
        same = np.allclose(fast, slow, rtol=1e-9, atol=1e-9)
        agree = np.array_equal(fast > threshold, slow > threshold)
        ok &= same and agree
        print(
            f"{n:>6} {t_fast:>16.6f} {t_slow:>16.6f} {t_slow / t_fast:>7.0f}x {abs_err:>11.2e} {rel_err:>10.2e} "
            f"{np.mean(fast <= threshold):>12.4f}  {'identical to 1e-9' if same and agree else 'MISMATCH'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
