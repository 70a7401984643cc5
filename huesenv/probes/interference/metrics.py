"""Text-interference metrics (paper §IV-B): accuracy, Hallucination-1, Hallucination-2, in %.

* **Accuracy** — types 1–2: the answer is the text's colour; types 3–4: the set of
  colours named equals the set the text is drawn in (order free).
* **Hallucination-1** — the answer names a colour the text names (S(Text(I))).
* **Hallucination-2** — the answer names the question's colour (S(Q)).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.interference.metrics``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from huesenv.probes.frame import probe_frame


def reported(subset: str, type_: int) -> tuple[bool, bool, bool]:
    """(acc, h1, h2) reported for a cell, as in the paper's Tables II–IV."""
    return True, subset != "simple", int(type_) in (2, 4)


REPORTED = {(s, t): reported(s, t) for s in ("color", "simple", "mask") for t in (1, 2, 3, 4)}


def _split(v: Any) -> list[str]:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return []
    if isinstance(v, (list, tuple, np.ndarray)):
        return [str(x) for x in v]
    return [x for x in str(v).split(",") if x]


def score_trial(answer: Any, valid: bool, type_: int, truth: Any, named: Any, question_colour: str) -> dict:
    """Correct / h1 / h2 flags of one answer (see module docstring)."""
    got = _split(answer) if valid else []
    want = _split(truth)
    if int(type_) in (1, 2):
        correct = len(got) == 1 and got == want
    else:
        correct = bool(got) and set(got) == set(want)
    return {
        "correct": bool(correct),
        "h1": bool(set(got) & set(_split(named))),
        "h2": bool(question_colour in got) if int(type_) in (2, 4) else False,
    }


def score_frame(data: Any) -> pd.DataFrame:
    """Per-trial flags (``correct``, ``h1``, ``h2``) added to the flat interference frame."""
    df = probe_frame(data, task="interference")
    if df.empty:
        return df.assign(correct=pd.Series(dtype=bool), h1=pd.Series(dtype=bool), h2=pd.Series(dtype=bool))
    flags = [
        score_trial(r.answer, bool(r.valid), r.type, r.text_colour, r.named_colours, r.question_colour)
        for r in df.itertuples(index=False)
    ]
    return pd.concat([df, pd.DataFrame(flags, index=df.index)], axis=1)


def interference_table(data: Any) -> pd.DataFrame:
    """One row per (agent, subset, type): n, accuracy, h1, h2, invalid — all in % (NaN where not reported)."""
    df = score_frame(data)
    cols = ["agent_id", "subset", "type", "n", "accuracy", "h1", "h2", "invalid"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for (agent, subset, type_), g in df.groupby(["agent_id", "subset", "type"], sort=True):
        _, has_h1, has_h2 = reported(subset, type_)
        rows.append(
            {
                "agent_id": agent,
                "subset": subset,
                "type": int(type_),
                "n": len(g),
                "accuracy": 100.0 * g["correct"].mean(),
                "h1": 100.0 * g["h1"].mean() if has_h1 else np.nan,
                "h2": 100.0 * g["h2"].mean() if has_h2 else np.nan,
                "invalid": 100.0 * (~g["valid"]).mean(),
            }
        )
    return pd.DataFrame(rows, columns=cols)


def paper_layout(table: pd.DataFrame, subset: str) -> pd.DataFrame:
    """A Table II/III/IV-shaped view of one subset: rows agents, columns (type, metric) as in the paper."""
    t = table[table["subset"] == subset]
    out = {}
    for type_ in (1, 2, 3, 4):
        _, has_h1, has_h2 = reported(subset, type_)
        metrics = ["accuracy"] + (["h1"] if has_h1 else []) + (["h2"] if has_h2 else [])
        for m in metrics:
            s = t[t["type"] == type_].set_index("agent_id")[m]
            out[(f"type-{type_}", {"accuracy": "acc"}.get(m, m))] = s
    return pd.DataFrame(out)


__all__ = ["REPORTED", "interference_table", "paper_layout", "reported", "score_frame", "score_trial"]
