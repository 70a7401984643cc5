"""RLlib (new API stack) on hues_cues_v1 and Guesser-v1 with no adapter outside the project: the observation
shape of RLlib's action-masking module, short PPO runs (multi-agent, guesser), and ``policy:CHECKPOINT``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from huesenv.envs.rllib import MASK_KEY, OBS_KEY, rllib_aec_env, rllib_guesser_env


def test_observations_are_in_the_action_masking_module_shape():
    env = rllib_aec_env(num_players=3, max_cycles=20)
    env.reset(seed=0)
    agent = env.agent_selection
    space = env.observation_space(agent)
    assert set(space.spaces) == {OBS_KEY, MASK_KEY} == {"observations", "action_mask"}
    assert space[MASK_KEY].dtype == np.int8 and space[MASK_KEY].shape == (env.action_space(agent).n,)
    obs = env.observe(agent)
    assert space.contains(obs)
    legal = np.flatnonzero(obs[MASK_KEY])
    assert len(legal) == 4  # the cue giver picks one of its card's 4 cells
    np.testing.assert_array_equal(obs[MASK_KEY], env.unwrapped.action_mask(agent))


def test_guesser_observations_carry_the_legal_cells_as_a_float_mask():
    env = rllib_guesser_env(num_players=3, opponents="random")  # no cohort to load
    obs, _ = env.reset(seed=3)
    assert set(obs) == {OBS_KEY, MASK_KEY} and env.observation_space.contains(obs)
    assert obs[MASK_KEY].dtype == np.float32 and obs[MASK_KEY].shape == (480,)
    np.testing.assert_array_equal(obs[MASK_KEY], env.unwrapped.action_masks())
    cell = int(np.flatnonzero(obs[MASK_KEY])[0])
    obs, *_ = env.step(cell)
    np.testing.assert_array_equal(obs[MASK_KEY], env.unwrapped.action_masks())
    with pytest.raises(ValueError, match="observation_mode='flat'"):
        rllib_guesser_env(observation_mode="dict")


def test_guesser_evaluation_is_seeded_and_plays_whole_games():
    from huesenv.experiments.rl.rllib_train import evaluate_guesser, interval

    first = evaluate_guesser(None, 3, seed=7, env_config={"num_players": 3, "opponents": "random"})
    assert first == evaluate_guesser(None, 3, seed=7, env_config={"num_players": 3, "opponents": "random"})
    assert len(first) == 3 and all(r >= 0 for r in first)
    summary = interval([1.0, 3.0])
    assert summary["eval_mean"] == 2.0 and summary["eval_ci95"] == pytest.approx(
        1.96 * np.sqrt(2) / np.sqrt(2)
    )
    with pytest.raises(ValueError, match="game: expected"):
        from huesenv.experiments.rl.rllib_train import train_rllib

        train_rllib("unused", game="chess")


def test_wrapper_passes_the_pettingzoo_api_test():
    from pettingzoo.test import api_test

    api_test(rllib_aec_env(num_players=3, max_cycles=30), num_cycles=30)


def test_rllib_checkpoint_needs_settings_and_allow_code(tmp_path):
    from huesenv.agents import make_agent

    ckpt = tmp_path / "checkpoint"
    ckpt.mkdir()
    (ckpt / "rllib_checkpoint.json").write_text("{}")
    with pytest.raises(ValueError, match="no huesenv_settings.json"):
        make_agent(f"policy:{ckpt}")
    (ckpt / "huesenv_settings.json").write_text('{"env_id": "hues_cues_v1", "role": "selfplay"}')
    (ckpt / "learner_group" / "learner" / "rl_module" / "shared").mkdir(parents=True)
    with pytest.raises(ValueError, match="pickled Python objects.*--allow-code"):
        make_agent(f"policy:{ckpt}")
    (ckpt / "huesenv_settings.json").write_text("{oops")
    with pytest.raises(ValueError, match="line 1: not valid JSON"):
        make_agent(f"policy:{ckpt}")


@pytest.mark.integration
@pytest.mark.xdist_group("ray")  # one local Ray cluster at a time
def test_two_iterations_of_multi_agent_ppo_and_the_checkpoint_plays(tmp_path):
    pytest.importorskip("ray.rllib")
    from huesenv.agents import make_agent
    from huesenv.agents.protocol import CueQuery, GuessQuery
    from huesenv.experiments.rl.rllib_train import train_rllib

    summary = train_rllib(
        tmp_path,
        iterations=2,
        game="selfplay",
        train_batch_size=200,
        minibatch_size=64,
        num_epochs=1,
        hidden=(32,),
        env_config={"num_players": 3, "max_cycles": 30},
    )
    assert [r["iteration"] for r in summary["iterations"]] == [1, 2]
    assert summary["iterations"][-1]["env_steps"] >= 400
    assert json.loads((tmp_path / "train.json").read_text())["trainer"] == "rllib-ppo"
    ckpt = tmp_path / "checkpoint"
    assert (ckpt / "rllib_checkpoint.json").is_file() and (ckpt / "huesenv_settings.json").is_file()
    with pytest.raises(ValueError, match="--allow-code"):
        make_agent(f"policy:{ckpt}")
    from huesenv.cli import main
    from huesenv.trust import allowing_code

    with allowing_code():  # what the CLI's --allow-code grants: the same checkpoint loads
        assert make_agent(f"policy:{ckpt}").settings.role
    assert main(["agents", "guess", f"policy:{ckpt}", "SKY"]) == 2  # refused without --allow-code
    assert main(["agents", "guess", f"policy:{ckpt}", "SKY", "--allow-code"]) == 0
    agent = make_agent(f"policy:{ckpt}", allow_code=True)
    guess = agent.act(GuessQuery(cues=("SKY",)))
    assert 0 <= guess.cell < 480
    cue = agent.act(CueQuery(card=(1, 2, 3, 4), target=None, vocabulary=agent.vocabulary))
    assert cue.target in (1, 2, 3, 4)


@pytest.mark.integration
@pytest.mark.xdist_group("ray")  # one local Ray cluster at a time
def test_one_iteration_of_the_bundled_guesser_config_and_its_checkpoint_guesses(tmp_path):
    pytest.importorskip("ray.rllib")
    from huesenv.agents import make_agent
    from huesenv.agents.protocol import GuessQuery
    from huesenv.experiments.rl.rllib_train import train_rllib

    summary = train_rllib(
        tmp_path,
        iterations=1,
        eval_episodes=2,
        train_batch_size=128,
        minibatch_size=64,
        num_epochs=1,
        num_envs_per_env_runner=2,
        hidden=(16,),
    )
    row = summary["iterations"][0]
    assert summary["game"] == "guesser" and row["env_steps"] >= 128 and row["eval_episodes"] == 2
    # 4 players, 8 rounds: 6 rounds as a guesser, 2 cones each; an unmasked (illegal) cone ends a game sooner
    assert row["episode_len_mean"] == 12
    settings = json.loads((tmp_path / "checkpoint" / "huesenv_settings.json").read_text())
    assert settings["role"] == "guesser" and settings["policy_id"] == "default_policy"
    agent = make_agent(f"policy:{tmp_path / 'checkpoint'}", allow_code=True)
    assert 0 <= agent.act(GuessQuery(cues=("SKY",))).cell < 480
