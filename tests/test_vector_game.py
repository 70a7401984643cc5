"""The vectorised game against the rules state machine (huesenv.game.rules.GameState), the single definition.

Every move the vectorised game makes (caller and opponent moves) is replayed,
as it happens, through one ``GameState`` per game slot; every caller mask,
the seat on turn, every step's rewards per seat and every final score must be
identical.  ≥ 10,000 games over 3-10 players: random legal play, a
policy-driven run (actions from a fixed random linear policy on the flat
observations, which are compared with the AEC encoder's), and table opponents.
"""

from __future__ import annotations

import numpy as np
import pytest

from huesenv.board import N_CELLS
from huesenv.envs.vector_game.check import Lockstep
from huesenv.envs.vector_game.encode import FlatEncoder
from huesenv.envs.vector_game.game import HuesCuesVectorGame
from huesenv.envs.vector_game.opponents import TableOpponent, pad_pool
from huesenv.game.rules import HuesCuesRules

PLAYERS = list(range(3, 11))


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
        lock.check(ts)  # masks, rewards and final scores against the rules' own
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
    pool[:, :3] = [10, 11, 12]  # every word: the same three answers
    caller = np.zeros((10, 2), dtype=bool)
    caller[0, 0] = True  # the caller gives cues at seat 0; two replayed guessers
    g = HuesCuesVectorGame(64, 3, caller=caller, opponents=TableOpponent("replay", pool=pool), seed=1)
    cones: dict[tuple[int, int], list[int]] = {}

    def record(rows, actions, seats, phases, cards):
        for r, a, s, p in zip(rows.tolist(), actions.tolist(), seats.tolist(), phases.tolist()):
            if p in (2, 4):
                cones.setdefault((r, s), []).append(a)

    g.pre_listeners.append(record)
    g.reset(seed=1)
    g.step(g.random_actions())  # targets
    g.step(g.random_actions())  # cue 1: guesser 1 then 2 place cone 1 from the same word's three answers
    g.step(np.full(64, g.pass_action))  # pass: cone 2 by guesser 2 then 1, again from cue 1's answers
    for r in range(64):
        a1, b1 = cones[(r, 1)][0], cones[(r, 2)][0]
        b2, a2 = cones[(r, 2)][1], cones[(r, 1)][1]
        assert {a1, b1} < {10, 11, 12} and a1 != b1
        # seat 2 may not reuse its own answer b1 and a1 is taken: the third answer
        assert b2 == ({10, 11, 12} - {a1, b1}).pop()
        # seat 1: its own answer is used up, the other two cells are taken: a random free cell
        assert a2 not in (10, 11, 12)


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


def test_a_replay_pool_with_padding_before_answers_is_refused_naming_the_row():
    """``-1`` pads the end of a pool row (the game reads the first as many entries as the row has cells):
    a hand-built row with an answer after its padding is a one-line error, not a failed move later."""
    pool = pad_pool([np.array([3, 4]), np.array([5])])
    TableOpponent("replay", pool=pool).check(2)  # pad_pool's rows: fine
    bad = pool.copy()
    bad[1] = [-1, 5]
    with pytest.raises(ValueError, match=r"pool: row 1: expected the -1 padding at the end"):
        TableOpponent("replay", pool=bad).check(2)
