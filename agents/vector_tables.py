"""Agents as tables for the vectorised game (:class:`huesenv.envs.vector_game.opponents.TableOpponent`).

The environment layer plays opponents from arrays and never imports an agent;
this module (the agents layer) builds those arrays from the agents themselves:

* :func:`human_replay_table` — the cohort's answers per vocabulary word
  (``pool``, drawn without replacement per seat and game, as
  :class:`~huesenv.agents.human_replay.HumanReplayAgent` does) and, for cue
  giving, that agent's own frame shares ``P(frame(t) | w)`` (``cue_value``;
  words nobody answered: ``-inf``, never given).
* :func:`scoring_table` — a scoring agent (text embedding, CLIP): its
  ``cell_scores`` of every vocabulary word (``guess_scores``: the cone goes on
  the best free cell for the mean of the round's cues, the agent's guess rule)
  and, for cue giving, the literal listener's ``log P(frame(t) | w)`` over the
  whole board.  *(Choice: the agent's default "pragmatic" cue rule also
  subtracts the best frame of the card's other cells and sees only free
  cells; a static table cannot, so the table's cue giver is the pragmatic rule
  with ``contrast = 0`` and an empty board.)*
* :func:`policy_table` — a trained policy (``policy:PATH``): its guesser's cell
  log-probabilities of every word on an empty board and, for cue giving, its
  probability mass inside each target's frame (the same empty-board choice).
* :func:`random_table` — uniform legal play (random cells, random cue 1, pass).
* :func:`table_for` — one of these by agent spec (``"human-replay[:PATH]"``,
  ``"text-embedding"``, ``"policy:PATH"``, ``"random"``); replayed people can
  be one part of a participant split (``holdout="participants"``, ``part=``),
  so a score is held out from the answers a learner trained with.
* :func:`seat_table` — what the batched env asks for a spec string or the
  default (``None``: :data:`~huesenv.agents.registry.DEFAULT_OPPONENT`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from scipy.special import logsumexp

from huesenv.agents.human_replay import HumanReplayAgent
from huesenv.agents.registry import DEFAULT_OPPONENT, make_agent
from huesenv.board import N_CELLS
from huesenv.envs.vector_game.opponents import RANDOM, TableOpponent, pad_pool
from huesenv.game.protocol import GuessQuery
from huesenv.game.rules import DEFAULT_RULES, HuesCuesRules
from huesenv.humans.splits import DataSplit
from huesenv.vocabulary import normalise_word, word_texts


def _vocabulary(vocabulary: Sequence[str] | None) -> tuple[str, ...]:
    return tuple(normalise_word(w) for w in (vocabulary if vocabulary is not None else word_texts()))


def human_replay_table(
    humans: Any = None, vocabulary: Sequence[str] | None = None, rules: HuesCuesRules | None = None
) -> TableOpponent:
    """Replayed people (``humans``: a cohort from :func:`huesenv.humans.load_humans`; default the packaged one)."""
    return _replay_table(HumanReplayAgent(humans, rules=rules or DEFAULT_RULES), vocabulary)


def _replay_table(agent: HumanReplayAgent, vocabulary: Sequence[str] | None) -> TableOpponent:
    words = _vocabulary(vocabulary)
    pool = pad_pool([agent._pool.get(w, np.zeros(0, np.int64)) for w in words])
    known, shares = agent.frame_shares()
    row = {w: i for i, w in enumerate(known)}
    value = np.full((len(words), N_CELLS), -np.inf, dtype=np.float32)
    for i, w in enumerate(words):
        if w in row:
            value[i] = shares[row[w]]
    return TableOpponent(agent.agent_id, pool=pool, cue_value=value)


def replay_table_from_cells(
    vocabulary: Sequence[str],
    cells: Sequence[np.ndarray],
    rules: HuesCuesRules | None = None,
    name: str = "human-replay",
) -> TableOpponent:
    """Replayed people from per-word answer cells (e.g. one part of a participant split): the same table as
    :func:`human_replay_table` (pool and frame shares ``P(frame(t) | w)``) built from ``cells[i]`` for word ``i``."""
    words = _vocabulary(vocabulary)
    if len(cells) != len(words):
        raise ValueError(f"cells: expected one array per vocabulary word ({len(words)}), got {len(cells)}")
    arrays = [np.asarray(c, dtype=np.int64).ravel() for c in cells]
    in_frame = np.asarray((rules or DEFAULT_RULES).in_frame_matrix, dtype=np.float64)  # [target, cell]
    value = np.full((len(words), N_CELLS), -np.inf, dtype=np.float32)
    for i, a in enumerate(arrays):
        if a.size:
            value[i] = (np.bincount(a, minlength=N_CELLS) / a.size) @ in_frame.T
    return TableOpponent(name, pool=pad_pool(arrays), cue_value=value)


def scoring_table(
    agent: Any, vocabulary: Sequence[str] | None = None, rules: HuesCuesRules | None = None
) -> TableOpponent:
    """A scoring agent (``cell_scores`` / ``listener_logits``) as a table (see the module docstring)."""
    words = _vocabulary(vocabulary)
    scores = np.asarray(agent.cell_scores(list(words)), dtype=np.float64)
    logits = np.asarray(agent.listener_logits(scores), dtype=np.float64)
    logp = logits - logsumexp(logits, axis=1, keepdims=True)  # (V, 480) log P(c | w)
    in_frame = np.asarray((rules or DEFAULT_RULES).in_frame_matrix)  # [target, cell]
    value = np.empty((len(words), N_CELLS), dtype=np.float32)
    for t in range(N_CELLS):
        value[:, t] = logsumexp(logp[:, in_frame[t]], axis=1)
    return TableOpponent(agent.agent_id, guess_scores=scores.astype(np.float32), cue_value=value)


def policy_table(
    agent: Any, vocabulary: Sequence[str] | None = None, rules: HuesCuesRules | None = None
) -> TableOpponent:
    """A trained policy (:class:`~huesenv.agents.policy.PolicyAgent`) as a table (see the module docstring)."""
    words = _vocabulary(vocabulary)
    free = np.ones(N_CELLS, dtype=bool)
    try:
        logp, _ = agent._guess_logits([GuessQuery(cues=(w,), legal=free) for w in words])
    except NotImplementedError as err:
        raise ValueError(f"opponent {agent.agent_id}: {err}") from None
    share = np.exp(logp) @ np.asarray((rules or DEFAULT_RULES).in_frame_matrix, dtype=np.float64).T
    return TableOpponent(
        agent.agent_id, guess_scores=logp.astype(np.float32), cue_value=share.astype(np.float32)
    )


def random_table() -> TableOpponent:
    return RANDOM


def _split_part(
    agent: HumanReplayAgent, holdout: str, split_seed: int, eval_fraction: float, part: str
) -> Any:
    """The cohort of ``agent`` or, with ``holdout="participants"``, one part of its seeded participant split."""
    if holdout == "none":
        return agent.humans
    if holdout != "participants":
        raise ValueError(f"holdout: expected 'participants' or 'none', got {holdout!r}")
    split = DataSplit.of(agent.humans, seed=int(split_seed), eval_fraction=float(eval_fraction))
    return split.part(agent.humans, part)


def table_for(
    spec: str,
    vocabulary: Sequence[str] | None = None,
    rules: HuesCuesRules | None = None,
    *,
    holdout: str = "none",
    split_seed: int = 0,
    eval_fraction: float = 0.5,
    part: str = "train",
    **kwargs: Any,
) -> TableOpponent:
    """The table of an agent spec: ``"random"``, ``"human-replay[:PATH]"`` (``holdout``/``split_seed``/
    ``eval_fraction``/``part``: one part of a participant split), ``"text-embedding"``/``"clip:..."``
    (a scoring agent) or ``"policy:PATH"``."""
    if not isinstance(spec, str):
        raise ValueError(f"opponent: expected an agent spec string, got {type(spec).__name__}")
    kind = spec.strip().partition(":")[0]
    if kind == "random":
        return random_table()
    if kind == "human-replay":
        humans = kwargs.get("humans")
        agent = cast(HumanReplayAgent, make_agent(spec)) if humans is None else HumanReplayAgent(humans)
        humans = _split_part(agent, holdout, split_seed, eval_fraction, part)
        return human_replay_table(humans, vocabulary, rules)
    if kind in ("text-embedding", "clip"):
        return scoring_table(make_agent(spec, **kwargs), vocabulary, rules)
    if kind == "policy":
        return policy_table(make_agent(spec, **kwargs), vocabulary, rules)
    raise ValueError(
        f"opponent {spec!r}: expected 'random', 'human-replay', 'text-embedding', 'clip:...' or "
        "'policy:PATH' for a table opponent"
    )


def seat_table(
    spec: str | None, *, vocabulary: Sequence[str], rules: HuesCuesRules | None = None
) -> TableOpponent:
    """The batched env's table factory (:mod:`huesenv.envs.hues_cues.defaults`): ``None`` is the default opponent."""
    return table_for(DEFAULT_OPPONENT if spec is None else spec, vocabulary, rules)
