"""Masking a log record's strings for secrets: once-per-record secret lookup against once per string.

Run: ``.venv/bin/python -P benchmarks/bench_mask.py [--records 500] [--cells 100]``

Writers mask every record (:func:`huesenv.secrets.mask`, e.g. the Parquet log
writer).  The baseline, measured in the same run, masks each string with
:func:`huesenv.secrets.mask_text`, which looks the secrets up in the environment
on every call (what ``mask`` did per string before).  Goal: ``mask`` at least
10x faster on sampled-agent records (100 answer cells each).
"""

from __future__ import annotations

import argparse
import time

from huesenv.board import format_coord
from huesenv.logs import LogRecord
from huesenv.secrets import mask, mask_text


def per_string(value):
    if isinstance(value, dict):
        return {k: per_string(v) for k, v in value.items()}
    if isinstance(value, list):
        return [per_string(v) for v in value]
    return mask_text(value) if isinstance(value, str) else value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=500)
    parser.add_argument("--cells", type=int, default=100)
    args = parser.parse_args()
    cells = [format_coord(i % 480) for i in range(args.cells)]
    records = [
        LogRecord.create(
            kind="word_query", run_id="r", agent_id="vlm:x", word="BANANA", cells=cells
        ).to_dict()
        for _ in range(args.records)
    ]
    start = time.perf_counter()
    fast = [mask(r, by_key=False) for r in records]
    t_mask = time.perf_counter() - start
    start = time.perf_counter()
    slow = [per_string(r) for r in records]
    t_base = time.perf_counter() - start
    assert fast == slow, "the two ways must mask alike"
    print(
        f"{args.records} records x {args.cells} cells: mask {t_mask / args.records * 1e6:.0f} us/record, "
        f"per-string baseline {t_base / args.records * 1e6:.0f} us/record, speed-up {t_base / t_mask:.1f}x "
        "(goal >= 10x)"
    )


if __name__ == "__main__":
    main()
