"""The env's faster paths keep the contracts of the paths they replaced (issue 24 item 5, review4's list)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import huesenv  # noqa: F401 - registers the ids
from huesenv.envs.hues_cues.env import raw_env


def _advance(env: raw_env, moves: int) -> None:
    for _ in range(moves):
        mask = env.action_mask(env.agent_selection)
        env.step(int(np.flatnonzero(mask)[0]))


def test_rewards_a_wrapper_wrote_are_cleared_by_the_next_step() -> None:
    env = raw_env(num_players=3)
    env.reset(seed=0)
    _advance(env, 2)
    env.rewards["player_2"] = 5.0  # a shaping wrapper's write
    _advance(env, 1)
    assert env.rewards == {a: 0 for a in env.possible_agents}
    assert env._cumulative_rewards == {a: 0.0 for a in env.possible_agents}


def test_observation_is_observe_without_the_mask() -> None:
    for mode in ("dict", "flat"):
        env = raw_env(num_players=4, observation_mode=mode)
        env.reset(seed=1)
        _advance(env, 5)
        for agent in env.possible_agents:
            a, b = env.observation(agent), env.observe(agent)["observation"]
            if mode == "flat":
                assert a.tobytes() == b.tobytes()
            else:
                assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_agent_info_is_a_copy_of_that_seat_infos() -> None:
    env = raw_env(num_players=4)
    env.reset(seed=2)
    _advance(env, 3)
    info = env.agent_info("player_1")  # built alone (the infos are not built yet)
    assert info == env.infos["player_1"]
    info["seat"] = 99
    assert env.infos["player_1"]["seat"] == 1 and env.agent_info("player_1")["seat"] == 1
    copy = env.agent_info("player_2")  # now from the built infos
    copy["round"] = -5
    assert env.infos["player_2"]["round"] != -5


def test_infos_before_reset_are_missing_as_before() -> None:
    env = raw_env()
    with pytest.raises(AttributeError):
        env.infos  # noqa: B018
    with pytest.raises(RuntimeError, match="reset"):
        env.state_obj  # noqa: B018


def test_allowed_words_follow_cues_and_games_and_are_writable_copies() -> None:
    env = raw_env(num_players=3)
    env.reset(seed=3)
    _advance(env, 1)  # the target: cue 1 next
    first = env.allowed_words()
    first[:] = 0  # a copy: the env's cache is not touched
    assert env.allowed_words().any()
    word = int(np.flatnonzero(env.allowed_words())[0])
    env.step(env.layout.cue_offset + word)  # give it: used from now on
    while not env.state_obj.phase.is_cue:
        _advance(env, 1)
    assert env.allowed_words()[word] == 0
    env.reset(seed=4)  # a new game: nothing used
    _advance(env, 1)
    assert env.allowed_words()[word] == (env._vocab_ok[1][word])


def test_allowed_words_built_on_the_last_ones_equal_a_fresh_build_at_every_cue() -> None:
    """The allowed words start from the last array of the same cue and strike only the new cues: at every
    cue turn of whole games they equal the rules' static checks minus every used cue, built afresh."""
    checked = 0
    for seed in range(6):
        env = raw_env(num_players=3 + seed % 3)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not env.game_over:
            s = env.state_obj
            if s.phase.is_cue:
                fresh = env._vocab_ok[s.cue_index].copy()
                for cue in s.used_cues:
                    if cue in env.layout.word_index:
                        fresh[env.layout.word_index[cue]] = 0
                np.testing.assert_array_equal(env.allowed_words(), fresh)
                checked += 1
            legal = np.flatnonzero(env.action_mask(env.agent_selection))
            env.step(int(rng.choice(legal)))
    assert checked > 50


def test_a_replayed_guess_with_an_empty_mask_is_an_invalid_answer() -> None:
    from huesenv.agents import HumanReplayAgent

    agent = HumanReplayAgent(seed=0)
    answer = agent.guess_cells(np.zeros(0, dtype=bool), ["SKY"])
    assert not answer.valid and answer.raw_text == "no legal cell"


def test_a_vocabulary_too_small_for_the_game_is_a_clear_error() -> None:
    words = ("MERLOT", "SKY", "LEMON", "MOSS", "BRICK", "PEACH", "INK", "SAND")
    env = gymnasium.make("huesenv/CueGiver-v1", num_players=6, seat=3, vocabulary=words)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"vocabulary \(8 words\) has no cue left"):
        for episode in range(3):
            env.reset(seed=episode)
            done = False
            while not done:
                legal = np.flatnonzero(env.unwrapped.action_masks())
                _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
                done = terminated or truncated


def test_a_text_cue_checked_against_a_mask_without_the_pass_entry() -> None:
    """``answer_to_action`` in text mode reads a mask too short to hold the pass entry as 'no pass allowed'."""
    from huesenv.envs.hues_cues.adapters import answer_to_action, query_for
    from huesenv.game.protocol import Answer

    env = raw_env(num_players=3, cue_mode="text")
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_mask(env.agent_selection))[0]))  # the target: cue 1 next
    query = query_for(env, env.agent_selection)
    short = env.action_mask(env.agent_selection)[: env.layout.pass_action]
    decision = answer_to_action(Answer(cue="SEA"), query, short, env.layout, env.rules)
    assert decision.valid and decision.action == {"action": env.layout.text_action, "cue": "SEA"}
    assert not answer_to_action(Answer(cue=None), query, short, env.layout, env.rules).valid
