"""Writing and reading validated log records against plain JSON of the same records.

Run: ``.venv/bin/python -P benchmarks/bench_logs.py [--games 20] [--repeat 3]``

The tournament writes one validated block per game (:class:`huesenv.logs.LogWriter`:
validate each record, JSON, mask secrets, one ``write`` + ``fsync``) and resumes by
reading the log back (:func:`huesenv.logs.read_records`: JSON, then validation of
every line).  The baseline, measured in the same run on the same records, is the
floor those costs sit on: ``json.dumps`` of the records' plain dicts with one
``write`` + ``fsync`` per game, and ``json.loads`` of every line without validation.
Goal: validation keeps writing within 3x and reading within 8x of plain JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from huesenv.agents import make_agent
from huesenv.envs import play_game
from huesenv.logs import LogWriter, read_records, record_to_json, tag_unit


def games(n: int) -> list[list]:
    out = []
    for g in range(n):
        agents = {f"player_{i}": make_agent("random", seed=g * 10 + i) for i in range(4)}
        result = play_game(agents, num_players=4, seed=g, run_id="bench")
        out.append(tag_unit(result.records, f"game:{g}"))
    return out


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    blocks = games(args.games)
    n = sum(len(b) for b in blocks)
    plain = [[json.loads(record_to_json(r)) for r in block] for block in blocks]
    with tempfile.TemporaryDirectory() as tmp:
        log, raw = Path(tmp) / "log.jsonl", Path(tmp) / "raw.jsonl"

        def write_validated() -> None:
            log.unlink(missing_ok=True)
            with LogWriter(log) as writer:
                for block in blocks:
                    writer.append(block)

        def write_plain() -> None:
            with open(raw, "wb") as fh:
                for block in plain:
                    fh.write(("\n".join(json.dumps(d, sort_keys=True) for d in block) + "\n").encode())
                    fh.flush()
                    os.fsync(fh.fileno())

        def read_validated() -> None:
            assert len(read_records(log).records) == n

        def read_plain() -> None:
            with open(raw, "rb") as fh:
                assert len([json.loads(line) for line in fh]) == n

        t_write, t_write0 = best(write_validated, args.repeat), best(write_plain, args.repeat)
        t_read, t_read0 = best(read_validated, args.repeat), best(read_plain, args.repeat)
    us = 1e6 / n
    print(
        f"{args.games} games, {n} records: write {t_write * us:.1f} us/record "
        f"(plain JSON {t_write0 * us:.1f}, ratio {t_write / t_write0:.2f}x, goal <= 3x); "
        f"read {t_read * us:.1f} us/record (plain JSON {t_read0 * us:.1f}, ratio {t_read / t_read0:.2f}x, "
        "goal <= 8x)"
    )


if __name__ == "__main__":
    main()
