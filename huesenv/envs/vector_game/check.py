"""Check the vectorised game against the rules state machine (:class:`huesenv.game.rules.GameState`).

:class:`Lockstep` replays every move a :class:`~huesenv.envs.vector_game.game.HuesCuesVectorGame`
makes (caller and opponent moves), as it happens, through one ``GameState``
per game slot, and :meth:`Lockstep.check` compares each step's caller masks,
the seat on turn, the rewards per seat and (optionally) the flat observations
with the rules' and the AEC encoder's; final scores are checked against the
rounds' history.  ``GameState.apply`` raises on any move the rules reject.
Used by the tests and by ``benchmarks/bench_vector_game.py`` (the equivalence count).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from huesenv.board import N_CELLS
from huesenv.envs.hues_cues.encoding import ObservationEncoder
from huesenv.envs.vector_game.encode import FlatEncoder
from huesenv.envs.vector_game.game import HuesCuesVectorGame
from huesenv.game.observer import player_view
from huesenv.game.rules import Action, GameState


class _SlotDeck(Sequence):
    """Round ``r`` of the replayed game uses the card the vectorised game dealt (read when the round starts)."""

    def __init__(self, game: HuesCuesVectorGame, slot: int) -> None:
        self.game, self.slot = game, slot

    def __len__(self) -> int:
        return 10_000

    def __getitem__(self, i: Any) -> Any:
        g = self.game
        assert int(g.ops.to_numpy(g.round)[self.slot]) == i
        return tuple(int(c) for c in g.ops.to_numpy(g.card)[self.slot])


class Lockstep:
    """Replays every move of ``game`` through GameState and checks masks, turns, rewards and scores."""

    def __init__(self, game: HuesCuesVectorGame, check_obs: int = 0, full_cue_check: int = 0) -> None:
        self.g = game
        self.states: list[GameState | None] = [None] * game.num_games
        self.points = np.zeros((game.num_games, game.S), dtype=np.int64)
        # points of a game that began since the last check (or before the first): due at the next check,
        # the step of the caller's first decision in it (HuesCuesVectorGame.step)
        self.carry = np.zeros_like(self.points)
        self.fresh = np.ones(game.num_games, dtype=bool)
        self.finished: list[list[int]] = []
        self.compared_masks = 0
        self.check_obs = check_obs
        self.full_cue_check = full_cue_check
        self.encoder = FlatEncoder(game)
        self.reference = ObservationEncoder(game.rules, game.vocabulary)
        # the rules' own cue check, once per word and cue (the used-cue part per game below)
        self.static_ok = {
            k: np.array([game.rules.cue_problem(w, k) is None for w in game.vocabulary]) for k in (1, 2)
        }
        self.word_index = {w: i for i, w in enumerate(game.vocabulary)}
        game.listeners.append(self.on_move)

    def state(self, slot: int) -> GameState:
        s = self.states[slot]
        if s is None or s.done:
            n = int(self.g.ops.to_numpy(self.g.n)[slot])
            s = GameState.from_deck(n, _SlotDeck(self.g, slot), self.g.rules)
            self.states[slot] = s
        return s

    def on_move(self, rows: np.ndarray, actions: np.ndarray, *_: np.ndarray) -> None:
        g = self.g
        for slot, a in zip(rows.tolist(), actions.tolist()):
            s = self.state(slot)
            due = self.carry if self.fresh[slot] else self.points
            if s.phase.value == "pick_target":
                act = Action("target", cell=a)
            elif s.phase.is_guess:
                act = Action("cone", cell=a)
            elif a == g.pass_action:
                act = Action("cue", cue=None)
            else:
                act = Action("cue", cue=g.vocabulary[a - N_CELLS])
            result = s.apply(act)  # raises IllegalActionError on any disagreement about legality
            if result is not None:
                due[slot, : s.num_players] += result.points
            if s.done:
                self.fresh[slot] = True
                assert s.scores == [sum(r.points[k] for r in s.history) for k in range(s.num_players)]
                self.finished.append(list(s.scores))

    def reference_mask(self, s: GameState, full: bool) -> np.ndarray:
        g = self.g
        mask = np.zeros(g.A, dtype=bool)
        mask[:N_CELLS] = s.legal_cells()
        if s.phase.is_cue:
            if full:  # every word through the rules' own legality check
                mask[N_CELLS : N_CELLS + g.V] = [
                    s.problem(Action("cue", cue=w)) is None for w in g.vocabulary
                ]
            else:
                ok = self.static_ok[s.cue_index].copy()
                ok[[self.word_index[w] for w in s.used_cues]] = False
                mask[N_CELLS : N_CELLS + g.V] = ok
            mask[g.pass_action] = s.can_pass()
        return mask

    def check(self, ts: Any, rewards_expected: bool = True) -> None:
        g, o = self.g, self.g.ops
        masks = o.to_numpy(ts.action_mask)
        current = o.to_numpy(ts.current_player)
        rewards = o.to_numpy(ts.rewards)
        if rewards_expected:
            np.testing.assert_array_equal(rewards, self.points.astype(np.float32))
        self.points, self.carry = self.carry, np.zeros_like(self.carry)
        self.fresh[:] = False
        obs = None
        if self.check_obs and len(self.finished) < self.check_obs:
            obs = o.to_numpy(self.encoder.encode(g.rows, g.current))
        full = len(self.finished) < self.full_cue_check
        expected = np.empty_like(masks)
        turns = np.empty_like(current)
        for slot in range(g.num_games):
            s = self.state(slot)
            turns[slot] = s.current
            expected[slot] = self.reference_mask(s, full)
            if obs is not None:
                ref = self.reference.encode_flat(player_view(s, s.current))
                np.testing.assert_array_equal(obs[slot], ref)
        np.testing.assert_array_equal(current, turns)
        if not np.array_equal(masks, expected):
            bad = int(np.flatnonzero((masks != expected).any(1))[0])
            np.testing.assert_array_equal(masks[bad], expected[bad], err_msg=f"game slot {bad}")
        self.compared_masks += g.num_games


def run_lockstep(
    game: HuesCuesVectorGame, games: int, policy: Any = None, seed: int = 0, **kwargs: Any
) -> Lockstep:
    """Play ``game`` (``policy(game, timestep)`` → actions; default random legal) until ``games`` games
    have ended, checking every step; returns the checker (``len(.finished)`` games, ``.compared_masks``)."""
    lock = Lockstep(game, **kwargs)
    ts = game.reset(seed=seed)
    lock.check(ts)
    while len(lock.finished) < games:
        actions = game.random_actions() if policy is None else policy(game, ts)
        ts = game.step(actions)
        lock.check(ts)
    return lock
