"""Memory of ``huesenv logs import-answers`` against the size of the answer table: it must stay flat.

Run: ``.venv/bin/python -P benchmarks/bench_import_answers.py [--small-mb 2] [--large-mb 100]``

Two tables of the same shape (rows of ``Palabra, Answer1..Answer2000``, the
vocabulary's words repeated) are written, one ``--small-mb`` and one
``--large-mb`` big.  Each is imported in a fresh process (peak RSS from
``getrusage``), and, as the baseline measured in the same run, read with
``pandas.read_csv(dtype=str)`` — the first step of the import before it
streamed.  Goal: streaming peak(large) / peak(small) ≤ 1.3 while pandas' ratio
grows with the file.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ANSWERS = 2000

IMPORT = """
import resource, sys
from huesenv.logs.answers import write_answers
s = write_answers(sys.argv[1], sys.argv[2], "vlm:bench")
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, s.words)
"""
PANDAS = """
import resource, sys
import pandas as pd
t = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, len(t))
"""


def write_table(path: Path, megabytes: float) -> int:
    from huesenv.board import format_coord
    from huesenv.vocabulary import words as vocabulary

    words = [w.text for w in vocabulary()]
    header = "Palabra," + ",".join(f"Answer{i}" for i in range(1, ANSWERS + 1)) + "\n"
    rows = 0
    target = int(megabytes * 1e6)
    with open(path, "w") as fh:
        fh.write(header)
        size = len(header)
        while size < target:
            cells = ",".join(format_coord((rows * 7 + i * 13) % 480) for i in range(ANSWERS))
            line = f"{words[rows % len(words)]},{cells}\n"
            fh.write(line)
            size += len(line)
            rows += 1
    return rows


def peak(code: str, *args: str) -> tuple[float, str, float]:
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-P", "-c", code, *args], capture_output=True, text=True, check=True
    )
    kb, count = out.stdout.split()
    return int(kb) / 1024, count, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small-mb", type=float, default=2.0)
    ap.add_argument("--large-mb", type=float, default=100.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for label, mb in (("small", args.small_mb), ("large", args.large_mb)):
            table = Path(tmp) / f"{label}.csv"
            rows = write_table(table, mb)
            imp = peak(IMPORT, str(table), str(Path(tmp) / f"{label}.jsonl"))
            pdr = peak(PANDAS, str(table))
            results[label] = (imp, pdr)
            print(
                f"{label:5s} {table.stat().st_size / 1e6:7.1f} MB, {rows} rows: import peak {imp[0]:7.0f} MiB "
                f"({imp[2]:.1f} s); pandas read_csv peak {pdr[0]:7.0f} MiB ({pdr[2]:.1f} s)"
            )
        imp_ratio = results["large"][0][0] / results["small"][0][0]
        pd_ratio = results["large"][1][0] / results["small"][1][0]
        print(f"peak large/small: import {imp_ratio:.2f} (goal <= 1.3), pandas baseline {pd_ratio:.2f}")


if __name__ == "__main__":
    main()
