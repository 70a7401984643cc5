"""Turning per-cell scores into ranked legal cells (shared by every scoring agent)."""

from __future__ import annotations

import numpy as np

from huesenv.agents.protocol import Answer


def top_k_cells(scores: np.ndarray, legal: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best legal cells, best first; ties broken by the lower cell index (stable, deterministic)."""
    scores = np.asarray(scores, dtype=np.float64)
    idx = np.flatnonzero(np.asarray(legal, dtype=bool))
    if idx.size == 0:
        return np.zeros(0, np.int64), np.zeros(0)
    order = idx[np.argsort(-scores[idx], kind="stable")][: max(1, min(int(k), idx.size))]
    return order.astype(np.int64), scores[order]


def ranked_answer(scores: np.ndarray, legal: np.ndarray, k: int, **info) -> Answer:
    cells, top = top_k_cells(scores, legal, k)
    if cells.size == 0:
        return Answer(valid=False, raw_text="no legal cell", info=dict(info))
    return Answer(cells=cells, scores=top, info=dict(info))


def l2_normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)
