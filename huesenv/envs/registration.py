"""Gymnasium ids of the game envs, registered once per process by :func:`register_envs` (on ``import huesenv``).

Why entry points as strings: registering must not import the envs (PettingZoo),
so ``import huesenv`` stays light; ``gymnasium.make`` imports them on first
use.  The probes register their own ids (:mod:`huesenv.probes.registry`); the
agents the wrappers play against come from :mod:`huesenv.envs.hues_cues.defaults`.
"""

from __future__ import annotations

ENV_IDS: dict[str, str] = {
    "huesenv/Guesser-v1": "huesenv.envs.wrappers:GuesserEnv",
    "huesenv/CueGiver-v1": "huesenv.envs.wrappers:CueGiverEnv",
}


def register_envs() -> None:
    """Register the game envs' Gymnasium ids; calling it again is a no-op."""
    from gymnasium.envs.registration import register, registry

    for env_id, entry_point in ENV_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point)
