"""The word task's Human Consistency per display stratum: does the display change people's answers?

The main paper's Appendix B found that answers depend on the display.  With the
display facts the app records (:mod:`huesenv.collect.display`),
:func:`consistency_by_display` splits the finished participants by one fact —
forced colours, colour gamut, orientation at the start, the screen check
passed or not — and computes the paper's leave-one-out Human Consistency
(:func:`huesenv.humans.consistency.consistency_table`, pooled with
:func:`~huesenv.humans.consistency.overall_consistency`) within each stratum,
through the same export and loader as any other analysis.  Participants whose
browser did not report the fact form the stratum ``unknown``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd

from huesenv.collect.display import TARGET_TILES
from huesenv.collect.export import word_answers_frame, write_table
from huesenv.humans import load_humans
from huesenv.humans.consistency import consistency_table, overall_consistency

STRATA: dict[str, str] = {
    "forced-colors": "forcedColors",
    "gamut": "colorGamut",
    "screen-check": "screenCheck",
}


def _stratum_column(frame: pd.DataFrame, by: str) -> pd.Series:
    if by == "screen-check":
        passed = (frame["screenCheckHits"] == len(TARGET_TILES)) & (frame["screenCheckFalseAlarms"] == 0)
        known = frame["screenCheckHits"].notna()
        return passed.map({True: "passed", False: "failed"}).where(known, "unknown")
    column = frame[STRATA[by]]
    return column.astype("object").where(column.notna(), "unknown").astype(str)


def consistency_by_display(db_path: str | Path, by: str, *, alpha: float = 0.05) -> pd.DataFrame:
    """One row per stratum: ``stratum, participants, answers, words_scored, consistency`` (pooled HC)."""
    if by not in STRATA:
        raise ValueError(f"--by {by!r}: expected one of {', '.join(STRATA)}")
    frame = word_answers_frame(db_path)
    strata = _stratum_column(frame, by)
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="huesenv-strata-") as tmp:
        for value in sorted(strata.unique()):
            part = frame[strata == value]
            path = Path(tmp) / f"{len(rows)}.csv"
            write_table(part, path)
            humans = load_humans(path, vocabulary="any")  # CVD participants left out, as in the paper
            table = consistency_table(humans, alpha=alpha)
            rows.append(
                {
                    "stratum": value,
                    "participants": int(part["userId"].nunique()),
                    "answers": len(part),
                    "words_scored": int(table["consistency"].notna().sum()),
                    "consistency": overall_consistency(table),
                }
            )
    return pd.DataFrame(rows, columns=["stratum", "participants", "answers", "words_scored", "consistency"])
