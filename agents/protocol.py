"""Compatibility re-export: the agent protocol lives in the game layer, :mod:`huesenv.game.protocol`."""

from huesenv.game.protocol import (
    Agent,
    Answer,
    BaseAgent,
    CueQuery,
    GuessQuery,
    ProbeQuery,
    Query,
)

__all__ = ["Agent", "Answer", "BaseAgent", "CueQuery", "GuessQuery", "ProbeQuery", "Query"]
