"""Write a probe's stimuli as PNG files plus ``manifest.csv`` with every stimulus's ground truth.

Why: people (and other tools) can look at and reuse exactly the images the
agents saw; the manifest is the answer key.  PNG encoding is lossless, so the
pixel guarantees (coverage, colours) hold in the exported files too.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.probes.gca.probe import GCA_COLUMNS
from huesenv.probes.interference.probe import INTERFERENCE_COLUMNS
from huesenv.probes.registry import get_probe


def _save_png(image: np.ndarray, path: Path) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(image).save(path, format="PNG", optimize=False)


def export_stimuli(
    task: str,
    out_dir: str | Path,
    *,
    seed: int = 0,
    stimuli: Sequence[Any] | None = None,
    limit: int | None = None,
    **kwargs: Any,
) -> Path:
    """Export ``task``'s seeded stimuli (or the given ones) to ``out_dir``; returns the manifest path."""
    probe = get_probe(task)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stims = list(stimuli) if stimuli is not None else probe.stimuli(seed=seed, **kwargs)
    if limit is not None:
        stims = stims[: int(limit)]
    manifest = out / "manifest.csv"
    with manifest.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(probe.stimulus_columns), extrasaction="ignore")
        writer.writeheader()
        for stim in stims:
            row = dict(stim.ground_truth())
            rel = Path(stim.stimulus_id + ".png")
            row["file"] = rel.as_posix()
            row.update(probe.manifest_row(stim, seed))
            _save_png(stim.image(), out / rel)
            writer.writerow(row)
    return manifest


__all__ = ["GCA_COLUMNS", "INTERFERENCE_COLUMNS", "export_stimuli"]
