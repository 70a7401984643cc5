"""Agents: one protocol (:mod:`huesenv.agents.protocol`) and a registry of implementations.

Only light modules are imported here; model agents (torch, open_clip,
transformers, httpx) load when :func:`make_agent` creates them.
"""

from huesenv.agents.evaluate import evaluate_words
from huesenv.agents.protocol import Agent, Answer, BaseAgent, CueQuery, GuessQuery, ProbeQuery, Query
from huesenv.agents.random_agent import RandomAgent
from huesenv.agents.registry import (
    ENTRY_POINT_GROUP,
    available_agents,
    describe_agents,
    make_agent,
    register_agent,
    split_spec,
)
from huesenv.lazy import lazy_exports
from huesenv.vocabulary import evaluation_inputs

__all__ = [
    "Agent",
    "Answer",
    "BaseAgent",
    "CueQuery",
    "ENTRY_POINT_GROUP",
    "GuessQuery",
    "ProbeQuery",
    "Query",
    "RandomAgent",
    "available_agents",
    "describe_agents",
    "evaluate_words",
    "evaluation_inputs",
    "make_agent",
    "register_agent",
    "split_spec",
]


# model agents' classes without importing torch at package import
__getattr__ = lazy_exports(
    __name__,
    {
        "HumanReplayAgent": "huesenv.agents.human_replay",
        "TextEmbeddingAgent": "huesenv.agents.text_embedding",
        "ClipAgent": "huesenv.agents.clip_agent",
        "TransformersVLMAgent": "huesenv.agents.vlm",
        "ApiVLMAgent": "huesenv.agents.api_vlm",
        "PolicyAgent": "huesenv.agents.policy",
    },
)
