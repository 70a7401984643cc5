"""How much the sampled agents' tie rule moves the Hotelling results.

A sampled agent's top-k cloud (:mod:`huesenv.metrics.collect`) is its k most
frequent distinct cells; when the k-th and (k+1)-th are equally frequent the
stated rule (first sampled in log order wins) decides which enters.  This module
re-draws the order of tied cells ``draws`` times from ``default_rng(seed)`` and
re-runs the Hotelling test on the words whose cut lies in a tie, so the rule's
weight can be reported next to the rates it produced: the share of tied words'
flags that flip, and the largest move of each agent's Hotelling fail rate.
The top-1 cell is affected only when the mode itself is tied; this reports both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from huesenv.board import cells_to_xy
from huesenv.logs.schema import LogRecord
from huesenv.metrics.collect import answer_sets, as_records
from huesenv.metrics.distributional import hotelling_cloud
from huesenv.vocabulary import normalise_word

MIN_HUMAN_ANSWERS = 3
TIE_COLUMNS = [
    "agent",
    "n_words",
    "n_cut_in_tie",
    "n_mode_tied",
    "hotelling_fail_rate",
    "flip_share",
    "max_rate_move",
    "draws",
    "seed",
]


def tie_sensitivity(
    records_or_frame: Sequence[LogRecord] | pd.DataFrame,
    humans: Any,
    *,
    top_k: int = 5,
    alpha: float = 0.05,
    draws: int = 20,
    seed: int = 0,
) -> pd.DataFrame:
    """Per sampled agent: words scored, words cut in a tie, the stated rule's Hotelling fail rate, and under
    ``draws`` seeded random tie orders the mean share of tied words whose flag flips and the largest
    change of the fail rate (columns :data:`TIE_COLUMNS`)."""
    if draws < 1:
        raise ValueError(f"draws must be at least 1, got {draws}")
    rng = np.random.default_rng(seed)
    human_words = {normalise_word(w) for w in humans.words}
    per_agent: dict[str, list[tuple[bool, bool, bool, list[bool]]]] = {}
    for (agent, word), entry in sorted(answer_sets(as_records(records_or_frame)).items()):
        if not entry.is_sampled or word not in human_words:
            continue
        human_xy = np.asarray(humans.xy(word), dtype=np.float64)
        if len(human_xy) < MIN_HUMAN_ANSWERS:
            continue
        ranking = entry.frequency_ranking()
        stated = bool(hotelling_cloud(cells_to_xy(ranking[:top_k]), human_xy, alpha).fail)
        tied = entry.cut_in_tie(top_k)
        counts = pd.Series(entry.sampled).value_counts()
        mode_tied = bool(len(counts) > 1 and counts.iloc[0] == counts.iloc[1])
        redrawn: list[bool] = []
        for _ in range(draws):
            if tied:
                cloud = entry.frequency_ranking(rng)[:top_k]
                redrawn.append(bool(hotelling_cloud(cells_to_xy(cloud), human_xy, alpha).fail))
            else:
                redrawn.append(stated)
        per_agent.setdefault(agent, []).append((stated, tied, mode_tied, redrawn))
    rows = []
    for agent, words in per_agent.items():
        fails = np.array([w[0] for w in words], dtype=float)
        cut = np.array([w[1] for w in words], dtype=bool)
        draws_fail = np.array([w[3] for w in words], dtype=float)  # (words, draws)
        flips = draws_fail != fails[:, None]
        rows.append(
            {
                "agent": agent,
                "n_words": len(words),
                "n_cut_in_tie": int(cut.sum()),
                "n_mode_tied": int(sum(w[2] for w in words)),
                "hotelling_fail_rate": float(fails.mean()),
                "flip_share": float(flips[cut].mean()) if cut.any() else 0.0,
                "max_rate_move": float(np.abs(draws_fail.mean(axis=0) - fails.mean()).max()),
                "draws": draws,
                "seed": seed,
            }
        )
    return pd.DataFrame(rows, columns=TIE_COLUMNS)


__all__ = ["TIE_COLUMNS", "tie_sensitivity"]
