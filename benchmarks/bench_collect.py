"""Collection app: the public consensus page and GCA onboarding, against baselines measured in the same run.

Run: ``.venv/bin/python -P benchmarks/bench_collect.py [--paintings 5000]``

1. **Consensus page** with ``--paintings`` stored tessellations: the baseline
   recomputes the map from every painting on each request (what the page did
   before it was cached: read all paintings, :func:`consensus_table`, render);
   the app's page (``GET /tessellation/consensus``) is measured cold (first
   request: reads everything once) and warm (cached; one new painting since the
   last request).  Goal: warm ≥ 20× faster than the baseline.
2. **GCA onboarding write lock**: the time one onboarding holds SQLite's write
   lock with the paper's 90-trial survey and real stimuli, against the baseline
   of rendering the survey's images inside that transaction (the old design).
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import statistics
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

from huesenv.board import load_board
from huesenv.collect.app import CollectConfig, create_app
from huesenv.collect.db import utc_now
from huesenv.collect.gca_probes import make_probes_source
from huesenv.collect.tasks.tessellation import consensus_table, load_paintings
from huesenv.collect.testing import ClientParticipant


def _best(fn, repeat: int = 5) -> float:
    """Best of ``repeat`` single runs, in seconds (timeit's timer; the garbage collector off while timed)."""
    return min(timeit.repeat(fn, number=1, repeat=repeat))


def consensus(folder: Path, n: int) -> None:
    db = folder / "tess.sqlite3"
    app = create_app(CollectConfig(db_path=db, task="tessellation", start_rate=None))
    base = list(load_board().categories)
    colours = sorted(set(base))
    rng = np.random.default_rng(0)
    with sqlite3.connect(db) as conn:
        for k in range(n):
            pid = f"bench-{k:08d}"
            painting = [colours[int(rng.integers(len(colours)))] if rng.random() < 0.2 else c for c in base]
            conn.execute(
                "INSERT INTO participants (id, task, language, gender, age_range, color_blind, created_at)"
                " VALUES (?, 'tessellation', 'english', 'other', '20-29', 0, ?)",
                (pid, utc_now()),
            )
            conn.execute(
                "INSERT INTO tessellations (participant_id, categories, submitted_at) VALUES (?, ?, ?)",
                (pid, ",".join(painting), utc_now()),
            )
    client = app.test_client()

    def baseline() -> None:
        conn = sqlite3.connect(db)
        paintings = [cats for _, cats in load_paintings(conn)]
        conn.close()
        table = consensus_table(paintings)
        with app.test_request_context("/tessellation/consensus"):
            from flask import render_template

            render_template(
                "consensus.html",
                n=len(paintings),
                consensus=list(zip(table["coord"], table["category"], table["agreement"])),
            )

    base_s = _best(baseline, 3)
    t0 = time.perf_counter()
    assert client.get("/tessellation/consensus").status_code == 200
    cold = time.perf_counter() - t0
    warm_same = _best(lambda: client.get("/tessellation/consensus"), 20)
    p = ClientParticipant(app.test_client())
    page = p.onboard()

    def one_more() -> None:
        nonlocal page
        p.post("/tessellation", {"csrf_token": page.token, "categories": ",".join(base)})

    one_more()
    t0 = time.perf_counter()
    client.get("/tessellation/consensus")
    warm_new = time.perf_counter() - t0
    print(
        f"consensus page, {n} paintings: baseline {base_s * 1000:.0f} ms/request; app cold {cold * 1000:.0f} ms, "
        f"warm (nothing new) {warm_same * 1000:.1f} ms = {base_s / warm_same:.0f}x faster, "
        f"warm (1 new painting) {warm_new * 1000:.1f} ms = {base_s / warm_new:.0f}x faster"
    )


def gca_lock(folder: Path, participants: int) -> None:
    import logging

    db = folder / "gca.sqlite3"
    records: list[str] = []

    class Capture(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    log = logging.getLogger("huesenv.collect")
    log.addHandler(Capture())
    log.setLevel(logging.INFO)
    app = create_app(CollectConfig(db_path=db, task="gca", start_rate=None))
    for _ in range(participants):
        ClientParticipant(app.test_client()).onboard()
    held = [float(x) for x in re.findall(r"write lock held ([0-9.]+) ms", "\n".join(records))]
    source = make_probes_source()
    stimuli = source(np.random.default_rng(1), 90, 5)
    t0 = time.perf_counter()
    for s in stimuli:
        s.png_bytes()
    render = time.perf_counter() - t0
    median = statistics.median(held)
    print(
        f"GCA onboarding (90 trials + 5 checks): write lock held median {median:.1f} ms over {len(held)} "
        f"participants; baseline (rendering the survey's 95 images inside it) {render * 1000:.0f} ms "
        f"= {render * 1000 / median:.0f}x longer"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paintings", type=int, default=5000)
    parser.add_argument("--gca-participants", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        consensus(Path(tmp), args.paintings)
        gca_lock(Path(tmp), args.gca_participants)


if __name__ == "__main__":
    main()
