"""Game environments: Hues and Cues as PettingZoo AEC/parallel envs, single-agent Gymnasium wrappers, and
the whole game vectorised (:mod:`huesenv.envs.vector_game`: ``HuesCuesVectorEnv``, ``SelfPlayVectorEnv``).

Heavy pieces (PettingZoo) load on first attribute access, so ``import huesenv``
(which registers the Gymnasium ids) does not import PettingZoo.
"""

from __future__ import annotations

from huesenv.envs.registration import ENV_IDS, register_envs
from huesenv.lazy import lazy_exports

_LAZY = {
    "HuesCuesRules": "huesenv.game.rules",
    "GameState": "huesenv.game.rules",
    "IllegalActionError": "huesenv.game.rules",
    "score_cones": "huesenv.game.rules",
    "score_round": "huesenv.game.rules",
    "play_game": "huesenv.envs.hues_cues.play",
    "GameResult": "huesenv.envs.hues_cues.play",
    "recompute_from_records": "huesenv.envs.hues_cues.play",
    "query_for": "huesenv.envs.hues_cues.adapters",
    "answer_to_action": "huesenv.envs.hues_cues.adapters",
    "GuesserEnv": "huesenv.envs.wrappers",
    "CueGiverEnv": "huesenv.envs.wrappers",
    "HuesCuesVectorGame": "huesenv.envs.vector_game.game",
    "HuesCuesVectorEnv": "huesenv.envs.vector_game.gym",
    "SelfPlayVectorEnv": "huesenv.envs.vector_game.gym",
    "TableOpponent": "huesenv.envs.vector_game.opponents",
}

__all__ = ["ENV_IDS", "register_envs", *_LAZY]

__getattr__ = lazy_exports(__name__, _LAZY)
