"""Hotelling T² fail rates of the published VLM answer tables: top-k distinct answers vs every sample.

    python -P scripts/hotelling_topk_vlm.py [TABLES_DIR] [--top-k 5] [--humans PATH]

``TABLES_DIR`` defaults to ``../shared/data/vlm_replays`` (the answer tables of
Rietta5/HC_VLM: 100 sampled coordinates per word).  Each table is imported as a
sampled agent (:func:`huesenv.logs.answers.import_answers`) and scored on the
paper's 100 words against the human cohort (default: the packaged
reconstruction) with :func:`huesenv.metrics.word_level`, once with the
Hotelling cloud = the k most frequent distinct answers and once with all
answers.  Prints one row per table (fail rates over the scored words) and the
Mahalanobis top-1 fail rate, which is the same in both modes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from huesenv.humans import consistency_table, load_humans
from huesenv.logs.answers import import_answers
from huesenv.metrics import word_level

DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "vlm_replays"


def fail_rates(tables: list[Path], humans, top_k: int) -> pd.DataFrame:
    table = consistency_table(humans)
    rows = []
    for path in tables:
        records = import_answers(path, agent=f"vlm:{path.stem}")
        by_mode = {
            mode: word_level(records, humans, top_k=top_k, human_table=table, sampled_cloud=mode)
            for mode in ("top-k", "all")
        }
        top, every = by_mode["top-k"], by_mode["all"]
        rows.append(
            {
                "table": path.stem,
                "words": int(top["hotelling_fail"].notna().sum()),
                f"hotelling_top{top_k}": float(top["hotelling_fail"].astype(float).mean()),
                "hotelling_all": float(every["hotelling_fail"].astype(float).mean()),
                "mean_cloud_top_k": float(top["n_cloud"].mean()),
                "mean_cloud_all": float(every["n_cloud"].mean()),
                "mahalanobis_top1": float(top["mahalanobis_outlier"].astype(float).mean()),
            }
        )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="?", default=str(DEFAULT_DIR), help="folder of answer tables (*.csv)")
    parser.add_argument("--top-k", type=int, default=5, help="distinct answers in the cloud (default 5)")
    parser.add_argument("--humans", default=None, help="human export (default: the packaged cohort)")
    args = parser.parse_args(argv)
    if args.top_k < 1:
        print(f"--top-k: expected a positive integer, got {args.top_k}", file=sys.stderr)
        return 2
    folder = Path(args.tables)
    tables = sorted(folder.glob("*.csv"))
    if not tables:
        print(f"{folder}: no answer tables (*.csv) found", file=sys.stderr)
        return 2
    humans = load_humans(args.humans)
    frame = fail_rates(tables, humans, args.top_k)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(frame.to_string(index=False, float_format=lambda x: f"{x:.2f}"))
    print(
        f"\nHotelling fail rate, range over {len(frame)} tables: top-{args.top_k} distinct "
        f"{frame[f'hotelling_top{args.top_k}'].min():.2f}–{frame[f'hotelling_top{args.top_k}'].max():.2f}, "
        f"all answers {frame['hotelling_all'].min():.2f}–{frame['hotelling_all'].max():.2f}"
        + ("  (humans: reconstructed cohort)" if humans.is_reconstruction else "")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
