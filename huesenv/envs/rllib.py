"""``hues_cues_v1`` and ``Guesser-v1`` for RLlib (new API stack) with no adapter code of your own.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.envs.rllib``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

from huesenv.envs.hues_cues.env import env as hues_cues_env
from huesenv.envs.wrappers import GuesserEnv

ENV_NAME = "huesenv_hues_cues_v1"
GUESSER_ENV_NAME = "huesenv_guesser_v1"
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


class RLlibGuesser(gymnasium.Wrapper):
    """``Guesser-v1`` with observations ``{"observations": flat float32, "action_mask": float32 (480,)}``.

    The mask is the learner's legal cells (``action_masks()``), float32 as RLlib's module
    takes ``log(mask)``; after the last step of a game it is all zeros (no action is asked).
    """

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        mode = getattr(env.unwrapped, "observation_mode", "flat")
        if mode != "flat":
            raise ValueError(f"RLlib observations: expected observation_mode='flat', got {mode!r}")
        n = int(env.action_space.n)  # type: ignore[attr-defined]
        self.observation_space = spaces.Dict(
            {OBS_KEY: env.observation_space, MASK_KEY: spaces.Box(0, 1, (n,), np.float32)}
        )
        self._masks = env.unwrapped.action_masks  # type: ignore[attr-defined]

    def _obs(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return {OBS_KEY: obs, MASK_KEY: self._masks().astype(np.float32)}

    def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        return self._obs(obs), info

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], Any, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._obs(obs), reward, terminated, truncated, info


def rllib_guesser_env(**kwargs: Any) -> RLlibGuesser:
    """``Guesser-v1`` (its defaults: replayed-human opponents, flat observations) in RLlib's shape."""
    kwargs.setdefault("observation_mode", "flat")
    return RLlibGuesser(GuesserEnv(**kwargs))
