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

# batched versions (``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")``):
# the full game vectorised, :mod:`huesenv.envs.vector_game`
VECTOR_ENTRY_POINTS: dict[str, str] = {
    "huesenv/Guesser-v1": "huesenv.envs.vector_game.gym:make_guesser_vector",
    "huesenv/CueGiver-v1": "huesenv.envs.vector_game.gym:make_cue_giver_vector",
}


def register_envs() -> None:
    """Register the game envs' Gymnasium ids; calling it again is a no-op."""
    from gymnasium.envs.registration import register, registry

    for env_id, entry_point in ENV_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=entry_point, vector_entry_point=VECTOR_ENTRY_POINTS.get(env_id))
