"""Env state → agent query and agent answer → env action, for ``hues_cues_v1``.

Why adapters: agents speak :mod:`huesenv.game.protocol` (queries in, answers
out) so that one agent plays the game, the probes and the word evaluation.
Queries come from the observer (:mod:`huesenv.game.observer`), the same view
the observation encodes; only this module knows the env's action layout.

Illegal answers are never silently "fixed" here: :func:`answer_to_action`
returns the action together with ``valid`` and the reason, and the caller
(:func:`huesenv.envs.play_game`, the Gymnasium wrappers) decides the fallback.
A guess answer's ranked cells are scanned for the first legal one, so agents
asked for ``top_k > 1`` cells degrade gracefully when their favourite is taken.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from huesenv.board import cell_index
from huesenv.envs.hues_cues.env import ActionLayout
from huesenv.game.cues import is_pass
from huesenv.game.observer import cue_query, guess_query
from huesenv.game.protocol import Answer, CueQuery, GuessQuery
from huesenv.game.rules import HuesCuesRules
from huesenv.vocabulary import normalise_word


class Decision(NamedTuple):
    """An env action decoded from an answer: ``valid`` False means the answer was unusable (``reason`` says why).

    A named tuple (immutable, built on every opponent move, so cheap to build).
    """

    action: Any
    valid: bool
    reason: str = ""
    cell: int | None = None
    cue: str | None = None
    passed: bool = False


def query_for(env: Any, agent: str, *, game: int | None = None, top_k: int = 1) -> GuessQuery | CueQuery:
    """The query ``agent`` (the acting one) must answer now, from the observer's view of the env's state.

    In vocabulary mode a cue giver is offered the words the action mask allows
    (the rest are forbidden); in text mode the rules check its free text.
    """
    view = env.view(agent)
    if view.phase.is_guess:
        return guess_query(view, player=agent, game=game, top_k=top_k)
    if view.phase.is_cue_giver_turn:
        vocab_mode = env.layout.cue_mode == "vocabulary"
        return cue_query(
            view,
            env.rules,
            vocabulary=env.layout.vocabulary if vocab_mode else None,
            allowed=env.allowed_words() if vocab_mode and view.phase.is_cue else None,
            player=agent,
            game=game,
        )
    raise ValueError(f"no decision to make in phase {view.phase.value!r}")


def guess_decision(answer: Answer, mask: np.ndarray) -> Decision:
    """A guess answer's first legal ranked cell as the action.

    ``mask``: the guesser's bool action mask, or just its first 480 entries
    (the free cells): only cells are read.  Each ranked entry is read by
    :func:`~huesenv.board.cell_index`; a list is read entry by entry (an
    array of it would turn ``[True, 5]`` into cells 1 and 5, ``[12, "x"]``
    into two strings), an array or tensor as its flat values, and a single
    cell is a ranking of one.
    """
    cells = answer.cells
    if cells is None:
        return Decision(None, False, answer.raw_text or "answer has no cell")
    if isinstance(cells, (list, tuple)):
        ranked: list[Any] = list(cells)
    else:
        try:
            ranked = np.asarray(cells).ravel().tolist()  # Python scalars: cheaper to test than numpy's
        except (TypeError, ValueError) as err:
            return Decision(None, False, f"answer cells are not cell indices ({err})")
    if not ranked:
        return Decision(None, False, answer.raw_text or "answer has no cell")
    for value in ranked:
        c = cell_index(value)
        if c is not None and mask[c]:
            return Decision(
                c, bool(answer.valid), "" if answer.valid else "agent marked its answer invalid", cell=c
            )
    return Decision(None, False, "no ranked cell is legal (occupied, off the board or not a cell index)")


def answer_to_action(
    answer: Answer,
    query: GuessQuery | CueQuery,
    action_mask: np.ndarray,
    layout: ActionLayout,
    rules: HuesCuesRules | None = None,
    used_cues: tuple[str, ...] = (),
) -> Decision:
    """Turn an agent's answer into an env action, checking it against the acting agent's mask and the cue rules."""
    mask = np.asarray(action_mask, dtype=bool)
    if isinstance(query, GuessQuery):
        return guess_decision(answer, mask)
    if query.target is None:
        return target_decision(answer, query.card, mask)
    words = (
        mask[layout.cue_offset : layout.cue_offset + len(layout.vocabulary)]
        if layout.cue_offset >= 0
        else None
    )
    can_pass = layout.pass_action < len(mask) and bool(mask[layout.pass_action])  # a short mask: no pass
    return cue_decision(answer, query.cue_index, words, can_pass, layout, rules, used_cues)


def target_decision(answer: Answer, card: tuple[int, ...], mask: np.ndarray | None = None) -> Decision:
    """A target pick's answer as the action.

    ``mask``: the cue giver's bool mask, or its first 480 entries; ``None``:
    the cells of ``card``, which are what the env's mask allows at a pick.
    """
    t = cell_index(answer.target)
    if t is None or not (t in card if mask is None else mask[t]):
        return Decision(None, False, f"target {answer.target!r} is not a cell of the card {card}")
    return Decision(t, True, cell=t)


def cue_decision(
    answer: Answer,
    cue_index: int,
    words_ok: np.ndarray | None,
    can_pass: bool,
    layout: ActionLayout,
    rules: HuesCuesRules | None = None,
    used_cues: tuple[str, ...] = (),
) -> Decision:
    """A cue answer (cue ``cue_index``) as the action: a pass, a vocabulary word's action or a text cue.

    Checked against the cue giver's mask, given as its parts: ``words_ok``, the
    vocabulary words' entries (vocabulary mode; ``None`` in text mode, where the
    cue rules check the text), and ``can_pass``, the pass action's.  Why the
    parts: the envs' fast opponents have the env's allowed words at hand and
    need no mask built (:meth:`~huesenv.envs.hues_cues.play.Driver.action`).
    """
    cue = answer.cue
    if is_pass(cue):
        if can_pass:
            return Decision(layout.pass_action, True, passed=True)
        return Decision(None, False, "cue 1 cannot be passed")
    try:
        word = normalise_word(cue)
    except ValueError as err:
        return Decision(None, False, str(err))
    if layout.cue_mode == "vocabulary":
        i = layout.word_index.get(word)
        if i is None:
            return Decision(None, False, f"cue {word!r} is not in the vocabulary")
        if words_ok is None or not words_ok[i]:
            return Decision(None, False, f"cue {word!r} is not allowed now")
        return Decision(layout.cue_offset + i, True, cue=word)
    if rules is not None:
        why = rules.cue_problem(word, cue_index, used_cues)
        if why is not None:
            return Decision(None, False, why)
    return Decision({"action": layout.text_action, "cue": word}, True, cue=word)
