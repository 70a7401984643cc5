"""Play whole games with protocol agents and record every step: the tournaments' game loop.

:func:`play_game` drives the AEC env (never a shortcut around it), asks each
agent through the adapters, and writes one ``LogRecord`` (kind
``"game_step"``) per decision plus one per seat at each reveal, with the
``extra`` fields documented in :mod:`huesenv.logs.schema`.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.envs.hues_cues.play``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from huesenv.board import N_CELLS, format_coord, parse_coord
from huesenv.envs.hues_cues.adapters import (
    Decision,
    answer_to_action,
    cue_decision,
    guess_decision,
    query_for,
    target_decision,
)
from huesenv.envs.hues_cues.env import raw_env
from huesenv.game.observer import forbidden_cues
from huesenv.game.phase import Phase
from huesenv.game.protocol import Agent, Answer, CueQuery, GuessQuery
from huesenv.game.rules import HuesCuesRules, RoundResult, score_round
from huesenv.logs.schema import LogRecord
from huesenv.vocabulary import category_of, is_known


@dataclass
class GameResult:
    """One finished game: final scores per seat, its records, and points split by role."""

    scores: dict[str, int]
    records: list[LogRecord]
    points_by_role: dict[str, dict[str, int]]
    rounds: list[RoundResult] = field(default_factory=list)
    seed: int | None = None
    game_index: int = 0
    num_players: int = 0


class Driver:
    """Turns the acting agent's answer into a legal env action (with the documented fallback)."""

    def __init__(self, env: raw_env, rng: np.random.Generator | int, game: int | None = None) -> None:
        """``rng``: the generator of the fallback draws, or a seed for ``default_rng``, made at the first
        fallback (why: a game whose answers are all usable draws nothing, and envs make a driver per episode)."""
        self.env = env
        self._rng = rng
        self.game = game
        self._pending_cue: Answer | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The fallback draws' generator (made from the seed at its first use)."""
        if not isinstance(self._rng, np.random.Generator):
            self._rng = np.random.default_rng(self._rng)
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value

    def _random_action(self, mask: np.ndarray, phase: Phase) -> Any:
        layout = self.env.layout
        if phase is Phase.CUE_2 and mask[layout.pass_action]:
            return layout.pass_action
        legal = np.flatnonzero(mask)
        if not legal.size:  # e.g. cue 1 with every vocabulary word used: the game cannot go on
            raise ValueError(
                f"no legal action for the fallback in phase {phase.value!r}: the vocabulary "
                f"({len(layout.vocabulary)} words) has no cue left for this game; give a larger vocabulary"
            )
        if layout.cue_mode == "text" and phase is Phase.CUE_1:
            s = self.env.state_obj
            words = [w for w in layout.vocabulary if self.env.rules.cue_problem(w, 1, s.used_cues) is None]
            return {"action": layout.text_action, "cue": words[int(self.rng.integers(len(words)))]}
        return int(legal[int(self.rng.integers(legal.size))])

    def decide(
        self, agent_name: str, agent: Agent
    ) -> tuple[Any, Decision, Answer, CueQuery | GuessQuery, float]:
        """``(action, decision, answer, query, seconds)`` for the acting agent."""
        env = self.env
        phase = env.state_obj.phase
        query = query_for(env, agent_name, game=self.game)
        mask = env.action_mask(agent_name)
        answer: Answer
        t0 = time.perf_counter()
        if phase is Phase.CUE_1 and self._pending_cue is not None:
            answer, self._pending_cue = self._pending_cue, None
        else:
            try:
                answer = agent.act(query)
            except NotImplementedError as err:
                answer = Answer(valid=False, raw_text=f"{type(err).__name__}: {err}")
        seconds = time.perf_counter() - t0
        action, decision = self._to_action(answer, query, mask.astype(bool), phase)
        return action, decision, answer, query, seconds

    def _to_action(
        self, answer: Answer, query: CueQuery | GuessQuery, mask: np.ndarray, phase: Phase
    ) -> tuple[Any, Decision]:
        """The answer as an env action (the documented fallback when unusable); keeps a target pick's cue 1."""
        env = self.env
        decision = answer_to_action(answer, query, mask, env.layout, env.rules, env.used_cues())
        if phase is Phase.PICK_TARGET:
            self._keep_cue(decision, answer)
        return self._settle(decision, lambda: mask, phase), decision

    def _keep_cue(self, decision: Decision, answer: Answer, copy: bool = True) -> None:
        """After a target pick: a valid pick's cue is the cue giver's cue 1 (asked once for both).

        ``copy``: keep the cue, raw text and validity in a new answer (what the
        records of cue 1 show); ``False``: the answer itself, where only its cue
        is read (the fast opponents' path).
        """
        if not (decision.valid and answer.cue):
            self._pending_cue = None
        elif copy:
            self._pending_cue = Answer(cue=answer.cue, raw_text=answer.raw_text, valid=answer.valid)
        else:
            self._pending_cue = answer

    def _settle(self, decision: Decision, mask: Callable[[], np.ndarray], phase: Phase) -> Any:
        """The decision's action, or the documented fallback drawn from ``mask()`` (the acting agent's
        mask, asked only then)."""
        return self._random_action(mask(), phase) if decision.action is None else decision.action

    def action(self, agent_name: str, agent: Agent, *, fast: bool = True) -> Any:
        """Only the env action of :meth:`decide`: what the single-learner envs need of their opponents.

        With ``fast``, an agent with the narrow methods of
        :class:`~huesenv.agents.HumanReplayAgent` is asked through them, with
        what its query would carry and no query or view built: a guesser's
        ``guess_cells(legal, cues, game=, top_k=)`` (or its ``guess_cell``, the
        first cell alone, where it has one: :meth:`_guess_action`); in
        vocabulary mode a cue giver's ``give_cue_among(targets, cue_index,
        vocabulary, forbidden, offered)`` (:meth:`_cue_action`).  Why: building
        queries and views was most of an opponent's cost in ``Guesser-v1``.
        The answers, the fallback and the random draws are :meth:`decide`'s, so
        an episode is the same either way (``tests/test_wrappers_fast_opponents.py``
        plays both); anything else is asked through :meth:`decide`.
        """
        if fast:
            phase = self.env.state_obj.phase
            if phase.is_guess and hasattr(agent, "guess_cells"):
                return self._guess_action(agent_name, agent, phase)
            if (
                phase.is_cue_giver_turn
                and hasattr(agent, "give_cue_among")
                and self.env.cue_mode == "vocabulary"
            ):
                return self._cue_action(agent_name, agent, phase)
        return self.decide(agent_name, agent)[0]

    def _guess_action(self, agent_name: str, agent: Any, phase: Phase) -> Any:
        """A cone from the agent's narrow guess, asked with the free cells and the cues a query would carry.

        The free cells are the rules' own (``GameState.legal_cells``: what the
        env's mask allows a cone on), so no mask is built for a guess that is
        legal, as a replayed person's always is; the fallback takes the mask.
        An agent whose ``guess_cell`` gives the first cell of its
        ``guess_cells`` with no answer built is asked that: its class says so
        with ``guess_cell_mirrors = guess_cells`` (the function itself, so a
        subclass or a patch that replaces ``guess_cells`` alone, or an
        instance attribute of that name, is asked ``guess_cells`` again).  The
        cell is checked as :func:`guess_decision` checks a ranked cell.
        """
        s = self.env.state_obj
        legal = s.legal_cells()
        given = s.cues
        # the query's cues: passes left out
        cues = tuple(given) if None not in given else tuple(c for c in given if c is not None)
        cls = type(agent)
        mirrored = getattr(cls, "guess_cell_mirrors", None)
        if (
            mirrored is not None
            and mirrored is getattr(cls, "guess_cells", None)
            and "guess_cells" not in getattr(agent, "__dict__", ())
        ):
            cell = agent.guess_cell(legal, cues, game=self.game)
            if type(cell) is int:  # the common case: no answer built
                action = cell if 0 <= cell < N_CELLS and legal[cell] else None
            else:  # a numpy int or another scalar: read as guess_decision reads a ranked cell
                action = (
                    None if cell is None else guess_decision(Answer(cells=np.asarray([cell])), legal).action
                )
        else:
            action = guess_decision(agent.guess_cells(legal, cues, game=self.game, top_k=1), legal).action
        return self._random_action(self._mask(agent_name), phase) if action is None else action

    def _cue_action(self, agent_name: str, agent: Any, phase: Phase) -> Any:
        """A target or cue from ``agent.give_cue_among``, asked with what its query would carry.

        A target pick is checked against the card's cells (what the env's mask allows at a pick),
        a cue against the parts of the env's mask: its allowed words (the
        words the query offers, forbidding the rest) and whether a pass is
        allowed.  No query or mask is built (the fallback alone takes the
        mask): the decisions are :func:`target_decision` and
        :func:`cue_decision`, the parts of :func:`answer_to_action` a query would pick.
        """
        env, s = self.env, self.env.state_obj
        layout = env.layout
        cue_index = phase.cue_index
        if phase is Phase.PICK_TARGET:
            forbidden = forbidden_cues(s.used_cues, env.rules, cue_index)
            answer = agent.give_cue_among(list(s.card), cue_index, layout.vocabulary, forbidden)
            decision = target_decision(answer, s.card)  # the card's cells: the mask of a pick
            self._keep_cue(decision, answer, copy=False)  # only its cue is read on this path
        else:
            # the mask's words: read-only int8 0/1, viewed as the same truth values
            offered = env.allowed_words(copy=False).view(bool)
            if phase is Phase.CUE_1 and self._pending_cue is not None:
                answer, self._pending_cue = self._pending_cue, None
            else:
                if not offered[offered.argmax()]:  # a query would offer no word (an edge case)
                    return self.decide(agent_name, agent)[0]
                forbidden = forbidden_cues(s.used_cues, env.rules, cue_index)
                target = cast(int, s.target)  # set at the pick, before any cue
                answer = agent.give_cue_among([target], cue_index, layout.vocabulary, forbidden, offered)
            decision = cue_decision(
                answer, cue_index, offered, s.can_pass(), layout, env.rules, env.used_cues()
            )
        return self._settle(decision, lambda: self._mask(agent_name), phase)

    def _mask(self, agent_name: str) -> np.ndarray:
        """The acting agent's action mask (the env's int8 copy: read as truth values, as :meth:`decide`'s bools)."""
        return self.env.action_mask(agent_name)


def _check_agents(agents: Mapping[str, Agent], seats: list[str]) -> None:
    missing = [s for s in seats if s not in agents]
    extra = sorted(set(agents) - set(seats))
    if missing or extra:
        raise ValueError(f"agents: expected one agent per seat {seats}; missing {missing}, unknown {extra}")


def play_game(
    agents: Mapping[str, Agent],
    *,
    num_players: int,
    seed: int | None,
    game_index: int = 0,
    run_id: str = "",
    cue_mode: str = "vocabulary",
    rules: HuesCuesRules | None = None,
    on_record: Callable[[LogRecord], None] | None = None,
    vocabulary: tuple[str, ...] | None = None,
    deck: list[tuple[int, ...]] | None = None,
) -> GameResult:
    """Play one full game of ``hues_cues_v1``; ``agents`` maps seat names (``"player_0"``...) to agents.

    ``deck``: the cards of rounds 0, 1, ... as dealt (default: drawn from ``seed``).
    """
    env = raw_env(num_players=num_players, cue_mode=cue_mode, rules=rules, vocabulary=vocabulary)
    seats = list(env.possible_agents)
    _check_agents(agents, seats)
    env.reset(seed=seed, options=None if deck is None else {"deck": deck})
    entropy = [game_index] if seed is None else [int(seed), game_index]
    driver = Driver(env, np.random.default_rng(np.random.SeedSequence(entropy)), game=game_index)
    run = run_id or "play"
    records: list[LogRecord] = []

    def emit(rec: LogRecord) -> None:
        records.append(rec)
        if on_record is not None:
            on_record(rec)

    step = 0
    for name in env.agent_iter():
        if env.terminations[name] or env.truncations[name]:
            env.step(None)
            continue
        s = env.state_obj
        phase, rnd = s.phase, s.round
        agent = agents[name]
        action, decision, answer, query, seconds = driver.decide(name, agent)
        cues = list(env.cue_texts())
        env.step(action)
        cell, cue, passed = None, None, False
        if phase is Phase.PICK_TARGET or phase.is_guess:
            cell = int(action)
        elif isinstance(action, dict):
            cue = action["cue"]
        elif action == env.layout.pass_action:
            passed = True
        else:
            cue = env.layout.vocabulary[int(action) - env.layout.cue_offset]
        if phase.is_cue:
            word = cue
        else:
            given = [c for c in cues if c is not None]
            word = given[-1] if given else None
        is_giver = phase.is_cue_giver_turn
        target = (
            s.target
            if is_giver and phase is not Phase.PICK_TARGET
            else (cell if phase is Phase.PICK_TARGET else None)
        )
        extra: dict[str, Any] = {
            "game": game_index,
            "round": rnd,
            "player": name,
            "role": "cue_giver" if is_giver else "guesser",
            "phase": phase.value,
            "cue_index": phase.cue_index,
            "cell": format_coord(cell) if cell is not None else None,
            "target": format_coord(target) if target is not None else None,
            "points": 0,
            "passed": passed,
            "cues": cues,
        }
        if not decision.valid:
            extra["fallback"] = decision.reason or "invalid answer"
        own = (answer.info or {}).get("fallback") if answer is not None else None
        if isinstance(own, str) and own:
            extra["agent_fallback"] = (
                own  # the agent's own stand-in (e.g. a cue outside its vocabulary): never silent
            )
        timings = dict(answer.timings)
        timings.setdefault("act_s", seconds)
        emit(
            LogRecord.create(
                kind="game_step",
                run_id=run,
                agent_id=agent.agent_id,
                seed=seed,
                episode=game_index,
                step=step,
                word=word,
                category=category_of(word) if word and is_known(word) else None,
                cells=[format_coord(cell)] if cell is not None else None,
                answer=format_coord(cell)
                if cell is not None
                else (cue if cue is not None else ("" if passed else None)),
                raw_text=answer.raw_text,
                valid=bool(decision.valid),
                timings=timings,
                extra=extra,
            )
        )
        step += 1
        result = env.last_reveal
        if result is not None:
            for k, seat_name in enumerate(seats):
                mine = [c for c in result.cones if c.seat == k]
                emit(
                    LogRecord.create(
                        kind="game_step",
                        run_id=run,
                        agent_id=agents[seat_name].agent_id,
                        seed=seed,
                        episode=game_index,
                        step=step,
                        cells=[format_coord(c.cell) for c in mine] or None,
                        extra={
                            "game": game_index,
                            "round": result.round,
                            "player": seat_name,
                            "role": "cue_giver" if k == result.cue_giver else "guesser",
                            "phase": Phase.REVEAL.value,
                            "cue_index": None,
                            "cell": None,
                            "target": format_coord(result.target),
                            "points": int(result.points[k]),
                            "passed": result.cues[-1] is None,
                            "cues": list(result.cues),
                            "cone_indices": [c.cue_index for c in mine],
                        },
                    )
                )
                step += 1
    s = env.state_obj
    env.close()
    return GameResult(
        scores={a: int(s.scores[i]) for i, a in enumerate(seats)},
        records=records,
        points_by_role={a: dict(s.points_by_role[i]) for i, a in enumerate(seats)},
        rounds=list(s.history),
        seed=seed,
        game_index=game_index,
        num_players=num_players,
    )


def recompute_from_records(
    records: list[LogRecord], seats: list[str], rules: HuesCuesRules | None = None
) -> dict[str, int]:
    """Final scores recomputed from the recorded cones and revealed targets alone (a log-level check)."""
    index = {s: i for i, s in enumerate(seats)}
    cones: dict[tuple[int, int], list[tuple[int, int]]] = {}
    reveals: dict[tuple[int, int], tuple[int, int]] = {}
    givers: dict[tuple[int, int], int] = {}
    for r in records:
        e = r.extra
        key = (e["game"], e["round"])
        phase = Phase.parse(e["phase"])
        if phase.is_guess:
            cones.setdefault(key, []).append((index[e["player"]], parse_coord(e["cell"])))
        elif phase is Phase.REVEAL and e["role"] == "cue_giver":
            reveals[key] = (parse_coord(e["target"]), index[e["player"]])
        elif phase is Phase.PICK_TARGET:
            givers[key] = index[e["player"]]
    totals = [0] * len(seats)
    for key, (target, giver) in reveals.items():
        pts = score_round(target, cones.get(key, []), giver, len(seats), rules)
        totals = [a + b for a, b in zip(totals, pts)]
    return {s: totals[i] for i, s in enumerate(seats)}


__all__ = ["Decision", "Driver", "GameResult", "play_game", "recompute_from_records"]
