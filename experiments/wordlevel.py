"""The paper's word-level evaluation as an experiment: every agent on the 100 words + 16 nonsense inputs.

One unit per agent (so a 162-model sweep resumes model by model and spreads
over Ray workers); each unit is ``evaluate_words`` (top-k word→cell queries,
batched through the agent's ``act_batch``) and its records are scored by the
metrics package (Mahalanobis top-1, Hotelling top-k, categories, nonsense).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from huesenv import metrics
from huesenv.agents.evaluate import evaluate_words
from huesenv.agents.registry import make_agent
from huesenv.experiments.config import ExperimentConfig
from huesenv.experiments.tournament import derive_seed
from huesenv.experiments.weights import check_checkpoint, local_spec
from huesenv.stats import wilson_interval
from huesenv.vocabulary import evaluation_inputs


def run_wordlevel_unit(
    config: ExperimentConfig, agent_name: str, agent_factory: Callable[..., Any] | None = None
) -> list:
    """Build one agent, ask it every evaluation input, and return its ``word_query`` records."""
    if agent_factory is None:
        agent_factory = make_agent
    spec = config.agent(agent_name)
    agent = agent_factory(resolved_spec(config, spec.spec), **dict(spec.kwargs))
    seed = derive_seed(config["seed"], 1_000_003, sorted(config["agents"]).index(agent_name))
    agent.reset(seed=seed)
    records = evaluate_words(
        agent,
        inputs=evaluation_inputs(),
        top_k=int(config["wordlevel"]["top_k"]),
        run_id=config.run_id,
        seed=seed,
    )
    for rec in records:
        rec.extra.setdefault("config_agent", agent_name)
    del agent
    gc.collect()
    return list(records)


def resolved_spec(config: ExperimentConfig, spec: str) -> str:
    """A CLIP spec pointed at a local checkpoint file when ``weights.dir`` holds one (else unchanged)."""
    weights_dir = config["weights"].get("dir")
    if not weights_dir or not spec.startswith("clip:") or spec.startswith("clip:hf-hub:"):
        return spec

    return local_spec(check_checkpoint(spec.split(":", 1)[1], weights_dir), weights_dir) or spec


def score_wordlevel(
    records: Sequence[Any], humans: Any, alpha: float = 0.05, top_k: int = 5
) -> dict[str, Any]:
    """The metrics package's tables for word-level records: per word, per agent, per category, nonsense."""
    out: dict[str, Any] = {}
    if not records:
        return out
    word_df = metrics.word_level(list(records), humans, alpha=alpha, top_k=top_k)
    out["word"] = word_df
    out["agent"] = metrics.agent_level(word_df)
    out["category"] = category_by_agent(word_df)
    try:
        out["nonsense"] = metrics.nonsense_table(list(records))
    except ValueError:  # agents with no nonsense answers (e.g. a custom vocabulary)
        pass
    return out


def category_by_agent(word_df: pd.DataFrame) -> pd.DataFrame:
    """Per agent and semantic category: fail rates over the category's words with Wilson intervals.

    Why per agent: a fail rate pooled over the replayed humans, the random agent and a model means
    nothing; the paper's Table 3 pools over models of one architecture family, which is what
    ``huesenv metrics`` reports for a model sweep.  ``human_fail_rate`` is people's own leave-one-out
    rate on the same words (the floor an agent can reach).
    """
    table = metrics.category_level(word_df, by="agent")
    if table.empty:
        return table
    out = table[["agent", "category", "n_words", "human_fail_rate"]].copy()
    scored = [  # words a fail rate rests on: those with enough human answers to be scored
        int(
            word_df.loc[(word_df["agent"] == a) & (word_df["category"] == c), "mahalanobis_outlier"]
            .notna()
            .sum()
        )
        for a, c in zip(table["agent"], table["category"])
    ]
    out.insert(out.columns.get_loc("n_words") + 1, "n_scored", scored)
    for flag, stat in (
        ("mahalanobis_outlier", "mahalanobis_fail_rate"),
        ("hotelling_fail", "hotelling_fail_rate"),
    ):
        rates, lows, highs = [], [], []
        for agent, category in zip(table["agent"], table["category"]):
            flags = word_df.loc[(word_df["agent"] == agent) & (word_df["category"] == category), flag]
            flags = flags.dropna().astype(float)
            rate = float(flags.mean()) if len(flags) else float("nan")
            lo, hi = wilson_interval(float(flags.sum()), len(flags))
            rates.append(rate)
            lows.append(lo)
            highs.append(hi)
        out[stat], out[f"{stat}_ci_low"], out[f"{stat}_ci_high"] = rates, lows, highs
    return out.sort_values(["agent", "category"], ignore_index=True)
