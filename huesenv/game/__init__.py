"""The game layer: the rules state machine, phases, the cue grammar, the agent protocol and the observer.

Sits between the core (board, vocabulary) and the environments; imports no RL
framework and nothing from the layers above, not even by name: agents are
objects handed in by the caller.
"""

from huesenv.game.cues import cue_problem, cue_words
from huesenv.game.phase import CUE_PHASES, GUESS_PHASES, PHASES, Phase
from huesenv.game.protocol import Agent, Answer, BaseAgent, CueQuery, GuessQuery, ProbeQuery, Query
from huesenv.game.rules import (
    DEFAULT_RULES,
    Action,
    Cone,
    GameState,
    HuesCuesRules,
    IllegalActionError,
    RoundResult,
    score_cones,
    score_round,
)
from huesenv.game.view import PlayerView, RenderView

__all__ = [
    "CUE_PHASES",
    "DEFAULT_RULES",
    "GUESS_PHASES",
    "PHASES",
    "Action",
    "Agent",
    "Answer",
    "BaseAgent",
    "Cone",
    "CueQuery",
    "GameState",
    "GuessQuery",
    "HuesCuesRules",
    "IllegalActionError",
    "Phase",
    "PlayerView",
    "ProbeQuery",
    "Query",
    "RenderView",
    "RoundResult",
    "cue_problem",
    "cue_words",
    "score_cones",
    "score_round",
]
