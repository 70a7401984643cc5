"""``hues_cues_v1`` for RLlib (new API stack) with no adapter code of your own.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.envs.rllib``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

from huesenv.envs.hues_cues.env import env as hues_cues_env

ENV_NAME = "huesenv_hues_cues_v1"
OBS_KEY = "observations"
MASK_KEY = "action_mask"


class RLlibObservation(BaseWrapper):
    """Observations ``{"observations": float32 flat vector, "action_mask": int8 (A,)}`` (module docstring)."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        inner = env.unwrapped
        if inner.observation_mode != "flat":
            raise ValueError(
                f"RLlib observations: expected observation_mode='flat', got {inner.observation_mode!r}"
            )
        self._spaces = {
            a: spaces.Dict(
                {
                    OBS_KEY: inner.observation_space(a)["observation"],
                    MASK_KEY: spaces.Box(0, 1, (inner.layout.n,), np.int8),
                }
            )
            for a in inner.possible_agents
        }

    def observation_space(self, agent: str) -> spaces.Space:
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        obs = super().observe(agent)
        if obs is None:
            return None
        return {
            OBS_KEY: np.asarray(obs["observation"], dtype=np.float32),
            MASK_KEY: np.asarray(obs["action_mask"], dtype=np.int8),
        }


def rllib_aec_env(**kwargs: Any) -> RLlibObservation:
    """The AEC env with RLlib's observation shape (flat observations; vocabulary cues)."""
    kwargs.setdefault("observation_mode", "flat")
    return RLlibObservation(hues_cues_env(**kwargs))
