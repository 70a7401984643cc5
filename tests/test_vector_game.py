"""The vectorised game against the rules state machine (huesenv.game.rules.GameState), the single definition.

Every move the vectorised game makes (caller and opponent moves) is replayed,
as it happens, through one ``GameState`` per game slot; every caller mask,
the seat on turn, every step's rewards per seat and every final score must be
identical.  ≥ 10,000 games over 3-10 players: random legal play, a
policy-driven run (actions from a fixed random linear policy on the flat
observations, which are compared with the AEC encoder's), and table opponents.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from huesenv.board import N_CELLS
from huesenv.envs.hues_cues.encoding import ObservationEncoder
from huesenv.envs.vector_game.encode import FlatEncoder
from huesenv.envs.vector_game.game import HuesCuesVectorGame
from huesenv.envs.vector_game.opponents import TableOpponent, pad_pool
from huesenv.game.observer import player_view
from huesenv.game.rules import Action, GameState, HuesCuesRules

PLAYERS = list(range(3, 11))


class _SlotDeck(Sequence):
    """Round ``r`` of the replayed game uses the card the vectorised game dealt (read when the round starts)."""

    def __init__(self, game: HuesCuesVectorGame, slot: int) -> None:
        self.game, self.slot = game, slot

    def __len__(self) -> int:
        return 10_000

    def __getitem__(self, i):  # type: ignore[override]
        g = self.game
        assert int(g.ops.to_numpy(g.round)[self.slot]) == i
        return tuple(int(c) for c in g.ops.to_numpy(g.card)[self.slot])


class Lockstep:
    """Replays every move of ``game`` through GameState and checks masks, turns, rewards and scores."""

    def __init__(self, game: HuesCuesVectorGame, check_obs: int = 0, full_cue_check: int = 0) -> None:
        self.g = game
        self.states: list[GameState | None] = [None] * game.num_games
        self.points = np.zeros((game.num_games, game.S), dtype=np.int64)
        self.finished: list[list[int]] = []
        self.compared_masks = 0
        self.check_obs = check_obs
        self.full_cue_check = full_cue_check
        self.encoder = FlatEncoder(game) if check_obs else None
        self.reference = ObservationEncoder(game.rules, game.vocabulary) if check_obs else None
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
                self.points[slot, : s.num_players] += result.points
            if s.done:
                assert s.scores == [sum(r.points[k] for r in s.history) for k in range(s.num_players)]
                self.finished.append(list(s.scores))

    def reference_mask(self, s: GameState, full: bool) -> np.ndarray:
        g = self.g
        mask = np.zeros(g.A, dtype=bool)
        mask[:N_CELLS] = s.legal_cells()
        if s.phase.is_cue:
            if full:  # every word through the rules' own legality check
                mask[N_CELLS : N_CELLS + g.V] = [s.problem(Action("cue", cue=w)) is None for w in g.vocabulary]
            else:
                ok = self.static_ok[s.cue_index].copy()
                ok[[self.word_index[w] for w in s.used_cues]] = False
                mask[N_CELLS : N_CELLS + g.V] = ok
            mask[g.pass_action] = s.can_pass()
        return mask

    def check(self, ts, rewards_expected: bool = True) -> None:
        g, o = self.g, self.g.ops
        masks = o.to_numpy(ts.action_mask)
        current = o.to_numpy(ts.current_player)
        rewards = o.to_numpy(ts.rewards)
        if rewards_expected:
            np.testing.assert_array_equal(rewards, self.points.astype(np.float32))
        self.points[:] = 0
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


def _players(num_games: int) -> list[int]:
    return [PLAYERS[i % len(PLAYERS)] for i in range(num_games)]


@pytest.mark.parametrize(
    "games", [pytest.param(6000, marks=pytest.mark.integration, id="6000"), pytest.param(400, id="400")]
)
def test_random_legal_games_match_the_rules(games):
    g = HuesCuesVectorGame(512, _players(512), seed=7)
    lock = Lockstep(g, full_cue_check=60)
    lock.check(g.reset(seed=7))
    while len(lock.finished) < games:
        ts = g.step(g.random_actions())
        lock.check(ts)
        fin = g.ops.to_numpy(ts.final_scores)[g.ops.to_numpy(ts.terminated)]
        assert fin.shape[0] == 0 or fin.sum() >= 0
    assert g.games_finished == len(lock.finished) >= games
    assert lock.compared_masks > 80 * games


@pytest.mark.parametrize(
    "games", [pytest.param(4000, marks=pytest.mark.integration, id="4000"), pytest.param(300, id="300")]
)
def test_policy_driven_games_and_observations_match(games):
    g = HuesCuesVectorGame(400, _players(400), seed=11)
    enc = FlatEncoder(g)
    lock = Lockstep(g, check_obs=80)
    rng = np.random.default_rng(0)
    sl = slice(enc.offset["cues"], enc.size)  # everything but the cones block (cheap and obs-driven)
    w1 = rng.standard_normal((enc.size - enc.offset["cues"], 16)).astype(np.float32)
    w2 = rng.standard_normal((16, g.A)).astype(np.float32)
    ts = g.reset(seed=11)
    lock.check(ts)
    while len(lock.finished) < games:
        obs = enc.encode(g.rows, g.current)
        logits = np.tanh(obs[:, sl] @ w1) @ w2 + obs[:, :N_CELLS].sum(1, keepdims=True)
        mask = ts.action_mask
        actions = np.where(mask, logits, -np.inf).argmax(1)
        ts = g.step(actions)
        lock.check(ts)
    assert len(lock.finished) >= games


def _tables(v: int) -> list[TableOpponent]:
    rng = np.random.default_rng(3)
    pool = pad_pool([rng.integers(N_CELLS, size=rng.integers(0, 30)) for _ in range(v)])
    value = rng.standard_normal((v, N_CELLS)).astype(np.float32)
    value[rng.random((v, N_CELLS)) < 0.3] = -np.inf
    return [
        TableOpponent("replay", pool=pool, cue_value=value),
        TableOpponent("scores", guess_scores=rng.standard_normal((v, N_CELLS)), cue_value=value),
        TableOpponent("random"),
    ]


def test_table_opponents_play_legal_games_by_the_rules():
    v = 100
    kinds = _tables(v)
    opponents = [kinds[i % 3] for i in range(10)]
    caller = np.zeros((10, 2), dtype=bool)
    caller[0, 1] = True  # the caller is seat 0's guesser; everything else is played by tables
    g = HuesCuesVectorGame(256, _players(256), caller=caller, opponents=opponents, seed=5)
    lock = Lockstep(g)
    lock.check(g.reset(seed=5))
    while len(lock.finished) < 600:
        ts = g.step(g.random_actions())
        lock.check(ts)
        assert (g.ops.to_numpy(g.current) == 0).all()
        assert (g.ops.to_numpy(g.seat_role(g.rows)) == 1).all()


def test_replayed_humans_draw_without_replacement_within_a_game():
    v = 100
    pool = np.full((v, 5), -1, dtype=np.int64)
    pool[:, :3] = [10, 11, 12]  # every word: three answers
    caller = np.zeros((10, 2), dtype=bool)
    caller[0, 0] = True  # the caller gives cues at seat 0; two replayed guessers
    g = HuesCuesVectorGame(64, 3, caller=caller, opponents=TableOpponent("replay", pool=pool), seed=1)
    seen: dict[tuple[int, int], list[int]] = {}

    def record(rows, actions, *_):
        for r, a in zip(rows.tolist(), actions.tolist()):
            seat = int(g.ops.to_numpy(g.current)[r])  # after the move; fine for counting per game below
            del seat

    g.listeners.append(record)
    g.reset(seed=1)
    # seat 0 gives the same-scored cues every round: each guesser may use answer 10/11/12 once per word
    for _ in range(3):
        g.step(g.random_actions())
    used = g.ops.to_numpy(g.n_used)
    assert used[:, 1:3].max() <= 3 * 2
    words = g.ops.to_numpy(g.used_word)
    idx = g.ops.to_numpy(g.used_idx)
    for b in range(64):
        for s in (1, 2):
            pairs = [(w, i) for w, i in zip(words[b, s], idx[b, s]) if w >= 0]
            assert len(pairs) == len(set(pairs))
    del seen


def test_same_seed_same_games():
    def run(seed):
        g = HuesCuesVectorGame(32, _players(32), seed=seed)
        g.reset(seed=seed)
        out = []
        for _ in range(300):
            ts = g.step(g.random_actions())
            out.append(g.ops.to_numpy(ts.rewards).copy())
        return np.stack(out)

    np.testing.assert_array_equal(run(3), run(3))
    assert not np.array_equal(run(3), run(4))


def test_illegal_caller_action_ends_that_game():
    g = HuesCuesVectorGame(4, 4, seed=0)
    ts = g.reset(seed=0)
    actions = g.random_actions()
    actions[1] = g.pass_action  # passing at pick_target is illegal
    ts = g.step(actions)
    assert ts.terminated.tolist() == [False, True, False, False]
    assert ts.illegal[1] and ts.rewards[1, 0] == -1.0
    assert int(g.phase[1]) == 0 and int(g.round[1]) == 0


def test_explicit_deck_and_reveal_after_pass_rules():
    rules = HuesCuesRules(deck=((1, 2, 3, 4), (100, 200, 300, 400)), second_cone_after_pass=False)
    g = HuesCuesVectorGame(64, _players(64), rules=rules, seed=2)
    lock = Lockstep(g)
    lock.check(g.reset(seed=2))
    while len(lock.finished) < 200:
        lock.check(g.step(g.random_actions()))


def test_bad_configuration_is_one_clear_error():
    with pytest.raises(ValueError, match="num_players"):
        HuesCuesVectorGame(2, [4])
    with pytest.raises(ValueError, match="caller"):
        HuesCuesVectorGame(2, 4, caller=[7])
    with pytest.raises(ValueError, match="guess_scores"):
        HuesCuesVectorGame(2, 4, opponents=TableOpponent("x", guess_scores=np.zeros((3, 480))))
    with pytest.raises(ValueError, match="device"):
        HuesCuesVectorGame(2, 4, device="cuda")


def test_torch_path_matches_the_rules_on_cpu():
    torch = pytest.importorskip("torch")
    g = HuesCuesVectorGame(128, _players(128), xp=torch, device="cpu", seed=9)
    lock = Lockstep(g, check_obs=20)
    lock.check(g.reset(seed=9))
    while len(lock.finished) < 300:
        lock.check(g.step(g.random_actions()))
