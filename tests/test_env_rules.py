"""Rules of Hues and Cues without any RL framework: scoring geometry, cue rules, turn order, game length."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from huesenv.board import frame, parse_coord, ring
from huesenv.game.rules import (
    Action,
    GameState,
    HuesCuesRules,
    IllegalActionError,
    recompute_scores,
    score_cones,
    score_round,
)

C = parse_coord


def test_rules_module_does_not_import_pettingzoo():
    import ast
    import inspect

    import huesenv.game.rules as rules

    tree = ast.parse(inspect.getsource(rules))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not any(m.startswith(("pettingzoo", "gymnasium")) for m in names)


@pytest.mark.parametrize(
    "target,cell,points",
    [
        ("I18", "I18", 3),
        ("I18", "H17", 2),
        ("I18", "J19", 2),
        ("I18", "I19", 2),
        ("I18", "G16", 1),
        ("I18", "K20", 1),
        ("I18", "I20", 1),
        ("I18", "G18", 1),
        ("I18", "F18", 0),
        ("I18", "I21", 0),
        ("I18", "A1", 0),
        # corner A1: frame clipped to 4 cells, ring to 5
        ("A1", "A1", 3),
        ("A1", "B2", 2),
        ("A1", "A2", 2),
        ("A1", "C3", 1),
        ("A1", "A3", 1),
        ("A1", "C1", 1),
        ("A1", "A4", 0),
        ("A1", "D1", 0),
        # corner P30 and edges
        ("P30", "O29", 2),
        ("P30", "N28", 1),
        ("P30", "P27", 0),
        ("A15", "B16", 2),
        ("A15", "C13", 1),
        ("A15", "C12", 0),
        ("H1", "G2", 2),
        ("H1", "J3", 1),
        ("H1", "H4", 0),
        # no wrap-around between the end of one row and the start of the next
        ("A30", "B1", 0),
        ("B1", "A30", 0),
    ],
)
def test_guesser_points_hand_built(target, cell, points):
    assert score_cones(C(target), C(cell)) == points


def test_frame_and_ring_are_clipped_at_edges():
    pm = HuesCuesRules().points_matrix
    for target, n_frame, n_ring in [
        ("I18", 9, 16),
        ("A1", 4, 5),
        ("P30", 4, 5),
        ("A15", 6, 9),
        ("H1", 6, 9),
        ("B2", 9, 7),
    ]:
        t = C(target)
        assert len(frame(t)) == n_frame and len(ring(t)) == n_ring
        assert (pm[t] == 2).sum() == n_frame - 1 and (pm[t] == 1).sum() == n_ring and (pm[t] == 3).sum() == 1


def test_score_round_cue_giver_gets_one_per_cone_in_frame():
    cones = [(1, C("I18")), (1, C("I19")), (2, C("G16")), (2, C("K20")), (3, C("A1")), (3, C("H18"))]
    assert score_round(C("I18"), cones, cue_giver=0, num_players=4) == [3, 5, 2, 2]
    corner = [(1, C("A2")), (2, C("B2")), (1, C("C3")), (2, C("D4"))]
    assert score_round(C("A1"), corner, cue_giver=0, num_players=3) == [2, 3, 2]


def test_scoring_numbers_are_overridable():
    rules = HuesCuesRules(target_points=5, frame_points=3, ring_points=0, cue_giver_points=2)
    cones = [(1, C("I18")), (2, C("H17")), (2, C("G16"))]
    assert score_round(C("I18"), cones, 0, 3, rules) == [4, 5, 3]


@pytest.mark.parametrize("n,rounds", [(3, 6), (4, 8), (6, 12), (7, 7), (10, 10)])
def test_game_length(n, rounds):
    assert HuesCuesRules().num_rounds(n) == rounds


@pytest.mark.parametrize("n", [2, 11, 0, "4", True])
def test_player_count_checked(n):
    with pytest.raises(ValueError, match="num_players"):
        GameState.new(n, seed=0)


@pytest.mark.parametrize(
    "cue,index,ok",
    [
        ("wine", 1, True),
        ("  Wine ", 1, True),
        ("(Lilo and) Stitch", 1, True),
        ("Stitch", 1, True),
        ("red", 1, False),
        ("Reds", 1, False),
        ("GREY", 2, False),
        ("blue whale", 2, False),
        ("orange", 1, False),
        ("a", 1, False),
        ("I18", 1, False),
        ("i-18", 2, False),
        ("B", 1, False),
        ("7", 1, False),
        ("wine7", 1, False),
        ("wine#", 1, False),
        ("", 1, False),
        ("   ", 1, False),
        ("peter pan", 1, False),
        ("peter pan", 2, True),
        ("deep sea", 2, True),
        ("one two three", 2, False),
        ("lighter", 1, True),
        ("lighter", 2, False),
        ("reddish", 1, False),
        ("bluish", 2, False),
        ("redwood", 1, True),
        ("sea darker", 2, False),
        ("café", 1, True),
    ],
)
def test_cue_rules(cue, index, ok):
    problem = HuesCuesRules().cue_problem(cue, index)
    assert (problem is None) == ok, problem


@pytest.mark.parametrize(
    "cue,index,why",
    [
        ("SKY-BLUE", 2, "colour"),
        ("sky-blue", 1, "colour"),
        ("BLUE-GREEN", 2, "colour"),
        ("BLUE(S)", 1, "colour"),
        ("(blue) whale", 2, "colour"),
        ("sea-reddish", 2, "colour"),
        ("blue's", 1, "colour"),
        ("red/green", 2, "character"),
        ("I-18", 2, "number"),
        ("U.S.", 1, "single letter"),
        ("sea-lighter", 2, "relative"),
        ("sea-salt", 1, "at most 1 word"),
        ("forget-me-not", 2, "at most 2 word"),
    ],
)
def test_cue_rules_look_inside_compounds(cue, index, why):
    problem = HuesCuesRules().cue_problem(cue, index)
    assert problem is not None and why in problem, problem


def test_cue_words_split_at_punctuation_and_hyphens_count_per_part():
    from huesenv.game.cues import cue_words as _cue_words

    assert _cue_words("RED/GREEN") == ["RED", "GREEN"] and _cue_words("SKY-BLUE") == ["SKY", "BLUE"]
    assert _cue_words("BLUE(S)") == ["BLUE", "S"] and _cue_words("O'NEILL'S CAFÉ") == ["O'NEILL'S", "CAFÉ"]
    rules = HuesCuesRules()
    assert rules.cue_problem("sea-salt", 2) is None  # a legal hyphenated cue: two words, so cue 2 only
    assert rules.cue_problem("O'Neill", 1) is None and rules.cue_problem("(Lilo and) Stitch", 1) is None
    assert (
        HuesCuesRules(cue_word_limits=(2, 2)).cue_problem("sea-lighter", 1) is None
    )  # relative: cue-2 rule only
    loose = HuesCuesRules(forbid_numbers=False, forbid_letters=False)
    for cue in ("I-18", "I 18", "i18", "(I) 18"):
        assert "coordinates" in (loose.cue_problem(cue, 2) or ""), cue
    assert loose.cue_problem("sea 18", 2) is None and loose.cue_problem("Z-99", 2) is None
    # overridden forbidden words may themselves be compounds or phrases
    assert HuesCuesRules(forbidden_words=("sky-blue",)).cue_problem("Sky-Blue", 2) is not None
    assert (
        HuesCuesRules(forbidden_words=("navy blue",), cue_word_limits=(2, 2)).cue_problem("navy blue", 1)
        is not None
    )


def test_vocabulary_words_stay_legal():
    from huesenv.vocabulary import word_texts

    rules = HuesCuesRules()
    legal = {k: [w for w in word_texts() if rules.cue_problem(w, k) is None] for k in (1, 2)}
    assert len(legal[2]) == len(word_texts()) == 100 and len(legal[1]) == 97  # 3 two-word entries: cue 2 only


def test_cue_rules_overridable_and_used_cues():
    assert HuesCuesRules().cue_problem("wine", 1, used=["WINE"]) is not None
    assert HuesCuesRules(unique_cues=False).cue_problem("wine", 1, used=["WINE"]) is None
    assert HuesCuesRules(forbidden_words=()).cue_problem("red", 1) is None
    assert HuesCuesRules(cue_word_limits=(2, 2)).cue_problem("peter pan", 1) is None
    assert HuesCuesRules(relative_words=()).cue_problem("lighter", 2) is None
    assert HuesCuesRules(forbidden_words=("wine",)).cue_problem("Wine", 1) is not None


def test_bad_rules_rejected():
    with pytest.raises(ValueError, match="deck, card 0"):
        HuesCuesRules(deck=((1, 1, 2, 3),))
    with pytest.raises(ValueError, match="card_size"):
        HuesCuesRules(card_size=0)


def test_turn_order_clockwise_then_counter_clockwise():
    deck = ((C("I18"), C("A1"), C("P30"), C("H1")),)
    s = GameState.new(4, seed=0, rules=HuesCuesRules(deck=deck))
    assert (s.phase, s.current, s.cue_giver) == ("pick_target", 0, 0)
    with pytest.raises(IllegalActionError, match="not on the cue giver's card"):
        s.apply(Action("target", cell=C("B5")))
    s.apply(Action("target", cell=C("I18")))
    with pytest.raises(IllegalActionError, match="placing a cone is not allowed"):
        s.apply(Action("cone", cell=C("I18")))
    s.apply(Action("cue", cue="wine"))
    order = []
    for cell in ("I18", "H17", "G16"):
        order.append(s.current)
        s.apply(Action("cone", cell=C(cell)))
    assert order == [1, 2, 3] and s.phase == "cue_2" and s.current == 0
    with pytest.raises(IllegalActionError, match="already used"):
        s.apply(Action("cue", cue="Wine"))
    s.apply(Action("cue", cue=None))  # pass
    assert s.phase == "guess_2"
    with pytest.raises(IllegalActionError, match="already holds a cone"):
        s.apply(Action("cone", cell=C("H17")))
    order = []
    for cell in ("A1", "J19", "P30"):
        order.append(s.current)
        result = s.apply(Action("cone", cell=C(cell)))
    assert order == [3, 2, 1]
    # seat1: I18 (3) + P30 (0); seat2: H17 (2) + J19 (2); seat3: G16 (1) + A1 (0); giver: I18, H17, J19 in frame
    assert result.points == (3, 3, 4, 1) and s.scores == [3, 3, 4, 1]
    assert s.points_by_role[0] == {"cue_giver": 3, "guesser": 0}
    assert s.round == 1 and s.cue_giver == 1 and s.phase == "pick_target" and not s.occupied.any()
    s.apply(Action("target", cell=C("A1")))
    s.apply(Action("cue", cue="sea"))
    assert s.current == 2  # left of the new cue giver


def test_pass_can_end_round_when_configured():
    s = GameState.new(3, seed=1, rules=HuesCuesRules(second_cone_after_pass=False))
    s.apply(Action("target", cell=s.card[1]))
    s.apply(Action("cue", cue="sky"))
    s.apply(Action("cone", cell=0))
    s.apply(Action("cone", cell=1))
    result = s.apply(Action("cue", cue=""))
    assert result is not None and len(result.cones) == 2 and s.round == 1


def test_cue_1_cannot_be_passed():
    s = GameState.new(3, seed=1)
    s.apply(Action("target", cell=s.card[0]))
    with pytest.raises(IllegalActionError, match="passing is not allowed"):
        s.apply(Action("cue", cue=None))


def test_deck_is_seeded_with_distinct_cells():
    a, b, c = GameState.new(5, seed=3), GameState.new(5, seed=3), GameState.new(5, seed=4)
    assert a.deck == b.deck and a.deck != c.deck
    assert len(a.deck) == 100 and all(len(set(card)) == 4 for card in a.deck)
    explicit = HuesCuesRules(deck=((1, 2, 3, 4), (5, 6, 7, 8)))
    s = GameState.new(3, seed=0, rules=explicit)
    assert sorted(s.deck) == [(1, 2, 3, 4), (5, 6, 7, 8)]


def test_recompute_scores_matches_incremental_bookkeeping():
    rng = np.random.default_rng(0)
    s = GameState.new(4, seed=7)
    words = iter(
        [
            "wine",
            "sky",
            "moss",
            "sand",
            "mud",
            "fire",
            "lime",
            "jade",
            "pear",
            "plum",
            "rust",
            "snow",
            "sea",
            "toad",
            "kiwi",
            "jam",
            "fog",
            "ash",
        ]
    )
    while not s.done:
        if s.phase == "pick_target":
            s.apply(Action("target", cell=int(rng.choice(s.card))))
        elif s.phase.startswith("cue"):
            s.apply(Action("cue", cue=next(words)))
        else:
            s.apply(Action("cone", cell=int(rng.choice(np.flatnonzero(s.legal_cells())))))
    assert recompute_scores(s.history, 4) == s.scores
    clone = s.clone()
    assert clone.scores == s.scores and clone is not s


def test_rules_are_frozen_and_replaceable():
    rules = HuesCuesRules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.target_points = 4  # type: ignore[misc]
    assert dataclasses.replace(rules, rounds_per_player_few=1).num_rounds(4) == 4


@pytest.mark.parametrize("index", [0, 3, -1, True, 1.5])
def test_cue_problem_rejects_bad_cue_index(index):
    # index 0 used to read cue_word_limits[-1] (the cue-2 limit) silently
    with pytest.raises(ValueError, match="cue_index"):
        HuesCuesRules().cue_problem("sea", index)
    assert HuesCuesRules().cue_problem("sea", 1) is None and HuesCuesRules().cue_problem("sea", 2) is None
