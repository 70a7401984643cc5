"""RLlib (new API stack) on hues_cues_v1 with no adapter outside the project: the observation shape of
RLlib's action-masking module, a 2-iteration multi-agent PPO run, and ``policy:CHECKPOINT``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from huesenv.envs.rllib import MASK_KEY, OBS_KEY, rllib_aec_env


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
