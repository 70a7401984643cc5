"""The one observer: every view of a game is derived here from the rules state.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.game.observer``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import compress
from typing import Any

import numpy as np

from huesenv.board import N_CELLS
from huesenv.game.phase import Phase
from huesenv.game.protocol import CueQuery, GuessQuery
from huesenv.game.rules import GameState, HuesCuesRules, RoundResult
from huesenv.game.view import PlayerView, RenderView


def player_view(state: GameState, seat: int) -> PlayerView:
    """What ``seat`` knows now: public state plus, for the cue giver, its card and target."""
    phase = state.phase
    done = phase is Phase.DONE
    giver = seat == state.cue_giver and not done
    return PlayerView(  # positional, in the field order (built on every observation)
        seat,
        state.num_players,
        phase,
        state.round,
        state.num_rounds,
        state.cue_giver,
        None if done else state.current,
        tuple(state.cues),
        tuple(state.used_cues),
        tuple(state.cones),
        tuple(state.scores),
        tuple(state.card) if giver else (),
        state.target if giver else None,
    )


def guess_query(
    view: PlayerView,
    legal: np.ndarray | None = None,
    *,
    player: str | None = None,
    game: int | None = None,
    top_k: int = 1,
) -> GuessQuery:
    """The guesser's query: the words given so far (passes in ``given``) and the free cells."""
    if not view.phase.is_guess:
        raise ValueError(f"guess_query: no cone to place in phase {view.phase.value!r}")
    mask = ~view.occupied() if legal is None else np.asarray(legal, dtype=bool)[:N_CELLS].copy()
    return GuessQuery(
        cues=view.given_cues,
        legal=mask,
        top_k=top_k,
        **_context(view, player, game),
    )


def _context(view: PlayerView, player: str | None, game: int | None) -> dict[str, Any]:
    """The fields every query carries about where it was asked."""
    return {
        "player": player,
        "game": game,
        "phase": view.phase,
        "round": view.round,
        "seat": view.seat,
        "given": view.cues,
        "view": view,
    }


def forbidden_cues(used: Iterable[str], rules: HuesCuesRules, cue_index: int) -> set[str]:
    """The words the rules forbid as cue ``cue_index``: the game's used cues, the rules' colour names and,
    for cue 2, the relative words (the one statement of it, for queries and the envs' fast opponents)."""
    forbidden = set(_static_forbidden(rules.forbidden_words, rules.relative_words if cue_index == 2 else ()))
    forbidden.update(used)
    return forbidden


@lru_cache(maxsize=16)
def _static_forbidden(colour_names: tuple[str, ...], relative: tuple[str, ...]) -> frozenset[str]:
    """The rules' part of :func:`forbidden_cues`, built once (asked on every cue turn)."""
    return frozenset(colour_names) | frozenset(relative)


def cue_query(
    view: PlayerView,
    rules: HuesCuesRules,
    *,
    vocabulary: Sequence[str] | None = None,
    allowed: np.ndarray | None = None,
    player: str | None = None,
    game: int | None = None,
) -> CueQuery:
    """The cue giver's query.

    ``forbidden`` holds the used cues, the rules' colour names and (cue 2) the
    relative words; with an action ``vocabulary`` (the env's vocabulary mode)
    and its per-word ``allowed`` mask, the query offers the allowed words and
    forbids the rest (at ``pick_target`` the whole vocabulary is offered: the
    cue comes later).
    """
    if not view.phase.is_cue_giver_turn:
        raise ValueError(f"cue_query: the cue giver does not act in phase {view.phase.value!r}")
    cue_index = view.phase.cue_index
    forbidden = forbidden_cues(view.used_cues, rules, cue_index)
    offered: tuple[str, ...] | None = None
    if vocabulary is not None:
        words = tuple(vocabulary)
        if view.phase is Phase.PICK_TARGET or allowed is None:
            offered = words
        else:
            ok = np.asarray(allowed, dtype=bool)
            offered = tuple(compress(words, ok.tolist()))
            forbidden.update(compress(words, (~ok).tolist()))
    return CueQuery(
        card=tuple(int(c) for c in view.card),
        target=None if view.phase is Phase.PICK_TARGET else view.target,
        cue_index=cue_index,
        forbidden=frozenset(forbidden),
        vocabulary=offered,
        occupied=view.occupied(),
        **_context(view, player, game),
    )


def render_view(
    state: GameState,
    players: Sequence[str],
    reveal: RoundResult | None = None,
    message: str = "",
    labels: Sequence[str] = (),
) -> RenderView:
    """The table as drawn: the round in play, or ``reveal`` (the round just scored, target shown).

    At the end of the game the last round is shown revealed.
    """
    if reveal is None and state.done and state.history:
        reveal = state.history[-1]
    if reveal is not None:
        return RenderView(
            players=tuple(players),
            cones={c.cell: c.seat for c in reveal.cones},
            cone_cues={c.cell: c.cue_index for c in reveal.cones},
            gains=tuple(reveal.points),
            cues=tuple("(pass)" if c is None else c for c in reveal.cues),
            cue_giver=reveal.cue_giver,
            current=None if state.done else state.current,
            phase=Phase.DONE.value if state.done else Phase.REVEAL.value,
            scores=tuple(state.scores),
            round=reveal.round,
            target=reveal.target,
            message=message,
            labels=tuple(labels),
        )
    return RenderView(
        players=tuple(players),
        cones={c.cell: c.seat for c in state.cones},
        cone_cues={c.cell: c.cue_index for c in state.cones},
        cues=tuple("(pass)" if c is None else c for c in state.cues),
        cue_giver=state.cue_giver,
        current=state.current,
        phase=state.phase.value,
        scores=tuple(state.scores),
        round=state.round,
        target=None,
        message=message,
        labels=tuple(labels),
    )
