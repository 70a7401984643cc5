"""``probe_trial`` records → one flat DataFrame (the ``extra`` fields become columns).

Why here and not in :mod:`huesenv.logs`: the probe metrics need the task fields
as columns; accepting records, a frame with an ``extra`` column of dicts, or an
already-flat frame lets them run on live records, JSONL logs and Parquet alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

_TOP = ("run_id", "agent_id", "seed", "episode", "answer", "raw_text", "valid")


def probe_frame(data: Any, task: str | None = None) -> pd.DataFrame:
    """Flatten probe records (``LogRecord`` list, dict list, or DataFrame), keeping only ``task`` if given."""
    if isinstance(data, pd.DataFrame):
        df = data.copy()
        if "extra" in df.columns:
            extra = pd.DataFrame([e if isinstance(e, dict) else {} for e in df["extra"]], index=df.index)
            df = pd.concat(
                [df.drop(columns=["extra"]), extra.drop(columns=[c for c in extra if c in df])], axis=1
            )
    else:
        rows = []
        for r in data if isinstance(data, Iterable) else []:
            d = r.to_dict() if hasattr(r, "to_dict") else dict(r)
            if d.get("kind", "probe_trial") != "probe_trial":
                continue
            row = {k: d.get(k) for k in _TOP}
            row.update(d.get("extra") or {})
            rows.append(row)
        df = pd.DataFrame(rows)
    if "kind" in df.columns:
        df = df[df["kind"] == "probe_trial"]
    if task is not None and "task" in df.columns:
        df = df[df["task"] == task]
    if "agent_id" not in df.columns:
        df["agent_id"] = "agent"
    if "valid" in df.columns:
        df["valid"] = df["valid"].astype(bool)
    return df.reset_index(drop=True)


__all__ = ["probe_frame"]
