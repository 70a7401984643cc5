"""``from huesenv import hues_cues_v1``: the PettingZoo Hues and Cues env (PettingZoo's ``<name>_v<N>`` module style)."""

from huesenv.envs.hues_cues.env import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
