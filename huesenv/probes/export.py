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

from huesenv.probes.gca.questions import colour_options
from huesenv.probes.gca.stimuli import gca_stimuli
from huesenv.probes.interference.stimuli import interference_stimuli

GCA_COLUMNS = (
    "file",
    "stimulus_id",
    "object",
    "base",
    "kind",
    "condition",
    "colour",
    "tau",
    "coverage",
    "eligible_pixels",
    "mask_pixels",
    "options",
    "distractor",
    "seed",
)
INTERFERENCE_COLUMNS = (
    "file",
    "stimulus_id",
    "subset",
    "type",
    "text_words",
    "text_colours",
    "char_colours",
    "named_colours",
    "question",
    "question_colour",
    "masked",
    "truth",
    "seed",
)


def _save_png(image, path: Path) -> None:
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
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stims: list[Any]  # GCA or interference stimuli, by task
    stim: Any
    columns: tuple[str, ...]
    if task == "gca":
        stims = list(stimuli) if stimuli is not None else gca_stimuli(seed=seed, **kwargs)
        columns = GCA_COLUMNS
    elif task == "interference":
        stims = list(stimuli) if stimuli is not None else interference_stimuli(seed=seed, **kwargs)
        columns = INTERFERENCE_COLUMNS
    else:
        raise ValueError(f"task: {task!r} is not one of ('gca', 'interference')")
    if limit is not None:
        stims = stims[: int(limit)]
    manifest = out / "manifest.csv"
    with manifest.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for stim in stims:
            row = dict(stim.ground_truth())
            rel = Path(stim.stimulus_id + ".png")
            row["file"] = rel.as_posix()
            if task == "gca":
                opts, distractor = colour_options(stim, seed)
                row["options"] = "|".join(opts)
                row["distractor"] = distractor
            else:
                row["question"] = stim.question
            _save_png(stim.image(), out / rel)
            writer.writerow(row)
    return manifest


__all__ = ["GCA_COLUMNS", "INTERFERENCE_COLUMNS", "export_stimuli"]
