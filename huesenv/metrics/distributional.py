"""Distributional alignment: do the agent's top-k cells (or all its samples) share the humans' centroid?

Hotelling's two-sample T² in CIE xy with the pooled covariance (floored, see
:mod:`huesenv.stats`) and its F-distribution p-value; the agent *fails* the word
when p < α.  When the top-k cells are fewer than k or repeat (a sampled agent
that always answers the same cell), the test still runs: the agent sample
contributes a zero covariance and the floor keeps the pooled one invertible.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from huesenv.stats import hotelling_two_sample


@dataclass(frozen=True)
class DistributionalResult:
    t2: float
    f: float
    p_value: float
    fail: bool
    n_agent: int


def hotelling_cloud(
    agent_xy: np.ndarray, human_xy: np.ndarray, alpha: float = 0.05, floor: float | None = None
) -> DistributionalResult:
    """Hotelling T² of the agent's cloud (m, 2) against the human answers (n, 2); fail if p < α."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    agent_xy = np.atleast_2d(np.asarray(agent_xy, dtype=np.float64))
    result = hotelling_two_sample(agent_xy, np.asarray(human_xy, dtype=np.float64), floor)
    return DistributionalResult(
        t2=result.t2,
        f=result.f,
        p_value=result.p_value,
        fail=bool(result.p_value < alpha),
        n_agent=len(agent_xy),
    )
