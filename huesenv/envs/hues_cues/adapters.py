"""Observation → agent query and agent answer → env action, for ``hues_cues_v0``.

Why adapters: agents speak :mod:`huesenv.agents.protocol` (queries in, answers
out) so that one agent plays the game, the probes and the word evaluation;
only this module knows the env's space layout.

Illegal answers are never silently "fixed" here: :func:`answer_to_action`
returns the action together with ``valid`` and the reason, and the caller
(:func:`huesenv.envs.play_game`, the Gymnasium wrappers) decides the fallback.
A guess answer's ranked cells are scanned for the first legal one, so agents
asked for ``top_k > 1`` cells degrade gracefully when their favourite is taken.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from huesenv.agents.protocol import Answer, CueQuery, GuessQuery
from huesenv.board import N_CELLS
from huesenv.envs.hues_cues.rules import PHASES, HuesCuesRules
from huesenv.vocabulary import normalise_word


@dataclass(frozen=True)
class Decision:
    """An env action decoded from an answer: ``valid`` False means the answer was unusable (``reason`` says why)."""

    action: Any
    valid: bool
    reason: str = ""
    cell: int | None = None
    cue: str | None = None
    passed: bool = False


def cue_texts(obs: Mapping[str, Any], layout) -> tuple[str | None, ...]:
    """The cues given so far this round as text (``None`` for a pass), from an observation."""
    inner = obs["observation"]
    phase = PHASES[int(inner["phase"])]
    given = {"pick_target": 0, "cue_1": 0, "guess_1": 1, "cue_2": 1, "guess_2": 2, "done": 0}[phase]
    out: list[str | None] = []
    for k in range(given):
        raw = inner["cues"][k]
        if layout.cue_mode == "vocabulary":
            v = int(raw)
            out.append(None if v == len(layout.vocabulary) + 1 else layout.vocabulary[v - 1])
        else:
            text = "".join(chr(c) for c in np.asarray(raw) if c)
            out.append(text or None)
    return tuple(out)


def observation_to_query(
    obs: Mapping[str, Any],
    layout,
    *,
    info: Mapping[str, Any] | None = None,
    rules: HuesCuesRules | None = None,
    player: str | None = None,
    game: int | None = None,
    top_k: int = 1,
) -> GuessQuery | CueQuery:
    """The query an agent must answer for this observation (the agent must be the acting one)."""
    inner, mask = obs["observation"], np.asarray(obs["action_mask"], dtype=bool)
    phase = PHASES[int(inner["phase"])]
    if phase in ("guess_1", "guess_2"):
        cues = tuple(c for c in cue_texts(obs, layout) if c is not None)
        return GuessQuery(cues=cues, legal=mask[:N_CELLS].copy(), top_k=top_k, player=player, game=game)
    if phase in ("pick_target", "cue_1", "cue_2"):
        card = tuple(int(c) for c in inner["card"])
        target = None if phase == "pick_target" else int(inner["target"][0])
        cue_index = 2 if phase == "cue_2" else 1
        used = frozenset((info or {}).get("used_cues", ()))
        r = rules
        forbidden = set(used)
        if r is not None:
            forbidden |= set(r.forbidden_words)
            if cue_index == 2:
                forbidden |= set(r.relative_words)
        vocab = None
        if layout.cue_mode == "vocabulary":
            if phase == "pick_target":
                vocab = layout.vocabulary
            else:
                allowed = mask[layout.cue_offset : layout.cue_offset + len(layout.vocabulary)]
                vocab = tuple(w for w, ok in zip(layout.vocabulary, allowed) if ok)
                forbidden |= {w for w, ok in zip(layout.vocabulary, allowed) if not ok}
        return CueQuery(
            card=card,
            target=target,
            cue_index=cue_index,
            forbidden=frozenset(forbidden),
            vocabulary=vocab,
            occupied=np.asarray(inner["occupied"], dtype=bool),
            player=player,
            game=game,
        )
    raise ValueError(f"no decision to make in phase {phase!r}")


def answer_to_action(
    answer: Answer,
    query: GuessQuery | CueQuery,
    obs: Mapping[str, Any],
    layout,
    rules: HuesCuesRules | None = None,
    used_cues: tuple[str, ...] = (),
) -> Decision:
    """Turn an agent's answer into an env action, checking it against the observation's mask and the cue rules."""
    mask = np.asarray(obs["action_mask"], dtype=bool)
    if isinstance(query, GuessQuery):
        if answer.cells is None or len(answer.cells) == 0:
            return Decision(None, False, answer.raw_text or "answer has no cell")
        for c in np.asarray(answer.cells).ravel():
            c = int(c)
            if 0 <= c < N_CELLS and mask[c]:
                return Decision(
                    c, bool(answer.valid), "" if answer.valid else "agent marked its answer invalid", cell=c
                )
        return Decision(None, False, "no ranked cell is legal (occupied or off the board)")
    if query.target is None:
        t = answer.target
        if t is None or not (0 <= int(t) < N_CELLS) or not mask[int(t)]:
            return Decision(None, False, f"target {t!r} is not a cell of the card {query.card}")
        return Decision(int(t), True, cell=int(t))
    cue = answer.cue
    if cue is None or (isinstance(cue, str) and not cue.strip()):
        if mask[layout.pass_action]:
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
        a = layout.cue_offset + i
        if not mask[a]:
            return Decision(None, False, f"cue {word!r} is not allowed now")
        return Decision(a, True, cue=word)
    if rules is not None:
        why = rules.cue_problem(word, query.cue_index, used_cues)
        if why is not None:
            return Decision(None, False, why)
    return Decision({"action": layout.text_action, "cue": word}, True, cue=word)
