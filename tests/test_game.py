"""The game layer: Phase, the one cue grammar, the observer's views and replay by re-applying moves."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from huesenv.board import parse_coord
from huesenv.game import DEFAULT_RULES, PHASES, Action, GameState, Phase
from huesenv.game.cues import counted_words, cue_problem
from huesenv.game.observer import cue_query, guess_query, player_view, render_view
from huesenv.game.replay import replay


def test_phase_is_its_string():
    assert Phase.GUESS_1 == "guess_1" and f"{Phase.CUE_2}" == "cue_2" and str(Phase.DONE) == "done"
    assert json.dumps({"p": Phase.REVEAL}) == '{"p": "reveal"}'
    assert [p.index for p in PHASES] == list(range(6))
    assert Phase.CUE_2.is_cue and Phase.GUESS_2.is_guess and Phase.GUESS_2.cue_index == 2
    assert Phase.PICK_TARGET.is_cue_giver_turn and not Phase.GUESS_1.is_cue_giver_turn
    with pytest.raises(ValueError, match="expected one of"):
        Phase.parse("guessing")


def test_one_cue_grammar_for_env_and_window():
    """``sea-salt`` is two words: rejected as cue 1 by the rules and by the play window alike."""
    pytest.importorskip("pygame")
    from huesenv.play.human import check_cue

    assert counted_words("sea-salt") == 2 and counted_words("(Lilo and) Stitch") == 1
    assert cue_problem(DEFAULT_RULES, "sea-salt", 1) is not None
    assert check_cue("sea-salt", cue_index=1)[0] is None
    assert cue_problem(DEFAULT_RULES, "sea-salt", 2) is None and check_cue("sea-salt", cue_index=2)[0]
    for bad in ("reddish", "I-18", "x", "blue-green"):
        assert cue_problem(DEFAULT_RULES, bad, 1) is not None and check_cue(bad, cue_index=1)[0] is None


def _play(state: GameState, moves: int, rng: np.random.Generator) -> None:
    for _ in range(moves):
        if state.phase.is_cue:
            state.apply(
                Action(
                    "cue",
                    cue=None if state.can_pass() else "SEA" if "SEA" not in state.used_cues else "MERLOT",
                )
            )
        else:
            state.apply(
                Action(
                    "target" if state.phase is Phase.PICK_TARGET else "cone",
                    cell=int(rng.choice(np.flatnonzero(state.legal_cells()))),
                )
            )


def test_observer_views_queries_and_render_view_agree():
    state = GameState.new(4, seed=1)
    _play(state, 4, np.random.default_rng(0))  # target, cue 1, two cones
    giver, guesser = player_view(state, 0), player_view(state, 3)
    assert giver.card == state.card and giver.target == state.target
    assert guesser.card == () and guesser.target is None  # hidden from guessers
    assert guesser.relative(1) == 2 and guesser.relative(3) == 0
    q = guess_query(guesser, player="player_3", game=7)
    assert q.view is guesser and q.phase is Phase.GUESS_1 and q.seat == 3 and q.round == 0
    assert q.cues == ("SEA",) and not q.legal[[c.cell for c in guesser.cones]].any()
    view = render_view(state, [f"player_{i}" for i in range(4)])
    assert view.cones == {c.cell: c.seat for c in state.cones} and view.target is None
    _play(state, 2, np.random.default_rng(1))  # third cone, cue 2 (pass)
    cq_state = player_view(state, 3)
    gq = guess_query(cq_state)
    assert gq.given == ("SEA", None) and gq.cues == ("SEA",)
    with pytest.raises(ValueError, match="no cone"):
        guess_query(player_view(GameState.new(3, seed=0), 1))
    fresh = GameState.new(3, seed=0)
    cq = cue_query(player_view(fresh, 0), DEFAULT_RULES, vocabulary=("SEA", "RED"))
    assert cq.target is None and cq.vocabulary == ("SEA", "RED") and "RED" in cq.forbidden


@pytest.mark.integration
def test_game_and_env_layers_do_not_import_the_agents():
    """A fresh interpreter: building envs and wrappers never imports ``huesenv.agents`` (specs load by name)."""
    code = "import sys, huesenv.game, huesenv.envs.hues_cues.env, huesenv.envs.wrappers; print('huesenv.agents' in sys.modules)"
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_replay_reapplies_a_played_game_to_the_state_machine():
    from huesenv.agents import make_agent
    from huesenv.envs import play_game

    agents = {f"player_{i}": make_agent("human-replay", seed=i) for i in range(4)}
    result = play_game(agents, num_players=4, seed=5, cue_mode="text")
    steps = list(replay(result.records))
    assert len(steps) == len(result.records)
    final = steps[-1].state
    assert final.done and final.scores == [result.scores[f"player_{i}"] for i in range(4)]
    assert [r.target for r in final.history] == [r.target for r in result.rounds]
    reveals = [s for s in steps if s.phase is Phase.REVEAL]
    assert len(reveals) == 4 * len(result.rounds) and all(s.reveal is not None for s in reveals)


def test_replay_names_the_record_a_rule_rejects():
    from huesenv.agents import make_agent
    from huesenv.envs import play_game

    agents = {f"player_{i}": make_agent("random", seed=i) for i in range(3)}
    records = play_game(agents, num_players=3, seed=2).records
    bad = records[2]  # the first cone
    bad.extra["cell"] = records[3].extra["cell"] if records[3].extra.get("cell") else bad.extra["cell"]
    records[3].extra["cell"] = bad.extra["cell"]  # two cones on one cell
    with pytest.raises(ValueError, match=r"record 4, field extra\.cell: the rules reject"):
        list(replay(records))
    swapped = list(records)
    swapped[2], swapped[3] = swapped[3], swapped[2]
    with pytest.raises(ValueError, match="record 3"):
        list(replay(swapped))


def test_deck_is_drawn_lazily_with_the_same_cards():
    lazy = GameState.new(4, seed=3).deck
    drawn = lazy._cards  # the cards drawn so far
    assert len(lazy) == 100 and len(drawn) <= 1  # a new game has drawn at most its first card
    rng = np.random.default_rng(3)
    eager = [tuple(int(c) for c in rng.choice(480, size=4, replace=False)) for _ in range(100)]
    assert lazy[11] == eager[11] and len(drawn) == 12  # reading card 11 draws cards up to it, no more
    assert lazy[0] == eager[0] and len(drawn) == 12
    assert lazy == eager and len(drawn) == 100
    assert parse_coord("A1") == 0


def test_game_states_compare_by_value():
    """Equal states are ``==`` (the ``occupied`` array compared by value); a change in an array field or a
    scalar field makes them unequal; a mutable state stays unhashable."""
    a, b = GameState.new(4, seed=3), GameState.new(4, seed=3)
    for state in (a, b):
        state.apply(Action("target", cell=state.card[0]))
        state.apply(Action("cue", cue="merlot"))
    assert a == b and a.clone() == a and not (a != b)
    cell = b.card[1]
    b.apply(Action("cone", cell=cell))
    a.apply(Action("cone", cell=cell))
    assert a == b
    other_cell = b.clone()
    other_cell.occupied[cell], other_cell.occupied[(cell + 1) % 480] = False, True  # the array differs
    assert other_cell != b and other_cell.cones == b.cones
    other_score = b.clone()
    other_score.moves += 1  # a scalar differs
    assert other_score != b and np.array_equal(other_score.occupied, b.occupied)
    assert a != "a state" and GameState.__hash__ is None
