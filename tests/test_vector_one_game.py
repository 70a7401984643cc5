"""One game per id: ``gymnasium.make`` and ``gymnasium.make_vec`` of an id share defaults; opponents by name."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import huesenv  # noqa: F401  (registers the ids)
from huesenv.agents.vector_tables import table_for
from huesenv.envs.vector_game.gym import HuesCuesVectorEnv


def _vec(**kwargs):
    return gymnasium.make_vec(
        "huesenv/Guesser-v1", num_envs=4, vectorization_mode="vector_entry_point", **kwargs
    )


def test_make_vec_defaults_are_make_defaults():
    vec, single = _vec(), gymnasium.make("huesenv/Guesser-v1")
    assert vec.single_observation_space == single.observation_space
    assert vec.single_action_space == single.action_space
    assert {t.name for t in vec.opponents} == {"human-replay"}  # replayed people, as the single env
    assert single.unwrapped.opponents["player_1"].agent_id == "human-replay"


def test_opponents_by_name_and_seat_counts():
    env = _vec(opponents="random")
    assert {t.name for t in env.opponents} == {"random"}
    env = HuesCuesVectorEnv(4, 3, opponents=["random", "human-replay"], stand_in="random", seed=0)
    assert [t.name for t in env.opponents[:3]] == ["random", "random", "human-replay"]
    env.reset(seed=0)
    env.step(env.game.random_actions())
    with pytest.raises(ValueError, match=r"or 3 \(the seats other than 0 of a 4-player game"):
        _vec(opponents=["random"] * 9)
    with pytest.raises(ValueError, match="opponent 'not-a-kind'"):
        _vec(opponents="not-a-kind")
    with pytest.raises(ValueError, match="expected a TableOpponent, an agent spec string or None"):
        _vec(opponents=3)


def test_replay_tables_take_the_participant_split():
    whole = table_for("human-replay")
    train = table_for("human-replay", holdout="participants", part="train")
    held = table_for("human-replay", holdout="participants", part="evaluation")
    answers = [int((t.pool >= 0).sum()) for t in (whole, train, held)]
    assert answers[1] + answers[2] == answers[0] and min(answers[1:]) > 0
    assert not np.array_equal(train.cue_value, held.cue_value)
    with pytest.raises(ValueError, match="holdout"):
        table_for("human-replay", holdout="words")


def test_compact_final_observations_are_compact():
    env = _vec(observation_mode="compact", opponents="random")
    env.reset(seed=2)
    space = env.single_observation_space
    while True:
        obs, _, term, _, info = env.step(env.game.random_actions())
        assert space.contains({k: v[0] for k, v in obs.items()})
        if term.any():
            final = info["final_obs"][int(np.flatnonzero(term)[0])]
            assert space.contains(final) and not final["action_mask"].any()
            return
