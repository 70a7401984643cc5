"""The replayed-human guess (``HuesCuesVectorGame._table_guess``) against its direct definition.

The game finds each guesser's answer without gathering the whole ``(R, L)`` board slice: it checks the
best-drawn candidate's cell and looks again only where that cell is taken.  The definition it must
equal, draw for draw: of the latest cue's answers that this seat has not drawn yet and whose cells are
free, the one with the largest uniform draw (first on ties); none: a random free cell.  Pools crowded
onto a few cells make most candidates taken, so the repeated looks and the whole-row fallback run.
"""

from __future__ import annotations

import copy
from types import SimpleNamespace

import numpy as np
import pytest

from huesenv.board import N_CELLS
from huesenv.envs.vector_game.game import HuesCuesVectorGame
from huesenv.envs.vector_game.opponents import TableOpponent, pad_pool


def _reference(g: SimpleNamespace, rows: np.ndarray, pool: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(picks, drawn answer index, both -1 where none is free; rows where >= 8 taken candidates outdrew the
    answer), by the definition, from the game's state and random stream."""
    r, length = len(rows), pool.shape[1]
    cue = g.cue[rows]
    known = (cue >= 1) & (cue <= g.V)
    word = np.where(known, cue - 1, 0)
    has_answers = (pool >= 0).any(1)
    k1, k2 = known[:, 0] & has_answers[word[:, 0]], known[:, 1] & has_answers[word[:, 1]]
    w = np.where(k2, word[:, 1], word[:, 0])
    cells = pool[w]
    seat = g.current[rows]
    candidate = (np.arange(length)[None, :] < (pool >= 0).sum(1)[w][:, None]) & (k1 | k2)[:, None]
    drawn = g.used_word[rows, seat] == w[:, None]  # (R, U): answers this seat drew for this word
    candidate[np.nonzero(drawn)[0], g.used_idx[rows, seat][drawn]] = False
    ok = candidate & ~g.occupied[rows[:, None], np.maximum(cells, 0)]
    draws = g.gen.random((r, length), dtype=np.float32)
    choice = np.where(ok, draws, -np.inf).argmax(1)
    hit = ok.any(1)
    best_free = np.where(hit, draws[np.arange(r), choice], -1.0)
    deep = int(((candidate & ~ok & (draws > best_free[:, None])).sum(1) >= 8).sum())
    return np.where(hit, cells[np.arange(r), choice], -1), np.where(hit, choice, -1), deep


@pytest.mark.parametrize("seed", [0, 1])
def test_replayed_guess_equals_its_definition_on_crowded_pools(seed):
    rng = np.random.default_rng(seed)
    v = 100
    few = rng.choice(N_CELLS, 10, replace=False)  # every answer on one of 10 cells: most end up taken
    pool = pad_pool([rng.choice(few, rng.integers(0, 40)) for _ in range(v)])
    caller = np.zeros((10, 2), dtype=bool)
    caller[0] = True  # seat 0 plays both roles; six replayed guessers
    g = HuesCuesVectorGame(16, 7, caller=caller, opponents=TableOpponent("replay", pool=pool), seed=seed)
    real = g._table_guess
    seen = {"rows": 0, "found": 0, "deep": 0}

    def checked(rows, t):
        before = SimpleNamespace(  # the state and random stream the game's own guess starts from
            **{
                k: copy.deepcopy(getattr(g, k))
                for k in ("cue", "current", "occupied", "used_word", "used_idx", "U", "V")
            },
            gen=copy.deepcopy(g.ops.gen),
        )
        want, chosen, deep = _reference(before, rows, pool)
        got = real(rows, t)
        found = want >= 0
        np.testing.assert_array_equal(got[found], want[found])
        assert not before.occupied[rows[~found], got[~found]].any()  # none free: a random free cell
        seat = g.current[rows]
        last = g.n_used[rows, seat] - 1
        np.testing.assert_array_equal(g.used_idx[rows[found], seat[found], last[found]], chosen[found])
        seen["rows"] += len(rows)
        seen["found"] += int(found.sum())
        seen["deep"] += deep
        return got

    g._table_guess = checked  # type: ignore[method-assign]
    g.reset(seed=seed)
    for _ in range(24):
        g.step(g.random_actions())
    assert seen["found"] > 100 and seen["rows"] > seen["found"]  # answers drawn, and rows with none free
    assert seen["deep"] > 0  # the whole-row fallback after 8 taken looks ran


@pytest.mark.integration  # torch: many small tensor operations per move, seconds
def test_torch_path_plays_replayed_humans_and_table_cue_givers_by_the_rules():
    """The same code on torch tensors (CPU): replayed guessers on crowded pools and value-table cue
    givers (targets from the card, cues) play legal games, checked move by move against the rules."""
    torch = pytest.importorskip("torch")
    from huesenv.envs.vector_game.check import Lockstep

    rng = np.random.default_rng(4)
    v = 100
    few = rng.choice(N_CELLS, 10, replace=False)
    pool = pad_pool([rng.choice(few, rng.integers(0, 40)) for _ in range(v)])
    value = rng.standard_normal((v, N_CELLS)).astype(np.float32)
    value[rng.random((v, N_CELLS)) < 0.3] = -np.inf
    caller = np.zeros((10, 2), dtype=bool)
    caller[0, 1] = True  # the caller guesses at seat 0; the tables play everything else
    table = TableOpponent("replay", pool=pool, cue_value=value)
    g = HuesCuesVectorGame(
        16, [3, 4, 5, 6] * 4, caller=caller, opponents=table, xp=torch, device="cpu", seed=4
    )
    lock = Lockstep(g)
    lock.check(g.reset(seed=4))
    while len(lock.finished) < 16:
        lock.check(g.step(g.random_actions()))
