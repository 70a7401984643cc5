"""Agents: one protocol (:mod:`huesenv.agents.protocol`) and a registry of implementations."""

from huesenv.agents.protocol import Agent, Answer, BaseAgent, CueQuery, GuessQuery, ProbeQuery, Query
from huesenv.agents.random_agent import RandomAgent

__all__ = ["Agent", "Answer", "BaseAgent", "CueQuery", "GuessQuery", "ProbeQuery", "Query", "RandomAgent"]
