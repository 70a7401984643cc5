"""hues_cues_v1 and Guesser-v1 with the RL clients researchers use, as they use them (the ``rl`` extra)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

import huesenv  # noqa: F401 - registers the ids
from huesenv import hues_cues_v1
from huesenv.board import N_CELLS

pytestmark = pytest.mark.filterwarnings("ignore")


def _random_masked(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.integration
def test_maskable_ppo_trains_on_guesser_v1_with_no_adapter():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = gymnasium.make("huesenv/Guesser-v1")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, seed=0, n_steps=64, batch_size=32, n_epochs=2)
    assert is_masking_supported(model.get_env())
    model.learn(total_timesteps=128)
    # the same policy plays a 6-player game: the spaces do not depend on the number of players
    env6 = gymnasium.make("huesenv/Guesser-v1", num_players=6)
    obs, _ = env6.reset(seed=1)
    done = False
    while not done:
        mask = get_action_masks(env6)
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, _, terminated, truncated, _ = env6.step(int(action))
        done = terminated or truncated


@pytest.mark.integration
def test_must_show_script_runs_at_a_small_budget(capsys):
    pytest.importorskip("sb3_contrib")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "guesser_learns.py"
    spec = importlib.util.spec_from_file_location("guesser_learns", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    main = module.main

    assert main(["--steps", "256", "--eval-seeds", "3", "--players", "6", "--margin", "-100"]) == 0
    out = capsys.readouterr().out
    assert "4 players: trained" in out and "6 players: trained" in out and "PASS" in out


@pytest.mark.integration
def test_pettingzoo_sb3_action_mask_tutorial_pattern():
    """PettingZoo's "SB3: Action Masking" tutorial wrapper, verbatim in spirit, on the AEC env."""
    pytest.importorskip("sb3_contrib")
    import pettingzoo.utils
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            current_agent = self.agent_selection
            super().step(action)
            next_agent = self.agent_selection
            return (
                self.observe(next_agent),
                self._cumulative_rewards[current_agent],
                self.terminations[current_agent],
                self.truncations[current_agent],
                self.infos[current_agent],
            )

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    env = SB3ActionMaskWrapper(hues_cues_v1.env(observation_mode="flat"))
    env.reset(seed=0)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=64, batch_size=32, n_epochs=1)
    model.set_random_seed(0)
    model.learn(total_timesteps=128)


def test_supersuit_vector_env():
    ss = pytest.importorskip("supersuit")
    vec = ss.pettingzoo_env_to_vec_env_v1(hues_cues_v1.parallel_env(observation_mode="flat"))
    vec = ss.concat_vec_envs_v1(vec, 2, num_cpus=0, base_class="gymnasium")
    obs, _ = vec.reset(seed=0)
    assert obs["observation"].shape[0] == 8 and obs["action_mask"].shape == (8, 480 + 100 + 1)
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(120):
        acts = np.array([_random_masked(m, rng) if m.any() else 0 for m in obs["action_mask"]])
        obs, rewards, _, _, _ = vec.step(acts)
        total += float(rewards.sum())
    assert total > 0  # rounds were revealed and scored


@pytest.mark.integration
@pytest.mark.parametrize("mode", ["dict", "flat"])
def test_torchrl_pettingzoo_wrapper_check_env_specs(mode):
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(env=hues_cues_v1.env(observation_mode=mode), use_mask=True, seed=0)
    check_env_specs(env)
    rollout = env.rollout(20)
    assert rollout.batch_size[0] == 20


def test_gymnasium_make_vec():
    """Same-step autoreset: a finished game is reset within the step, so ``action_masks`` is always usable."""
    envs = gymnasium.make_vec(
        "huesenv/Guesser-v1",
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP},
    )
    obs, _ = envs.reset(seed=0)
    ended = 0
    assert obs.shape == (2, envs.single_observation_space.shape[0])
    rng = np.random.default_rng(0)
    for _ in range(30):
        masks = np.stack(envs.call("action_masks"))
        assert masks.shape == (2, N_CELLS)
        obs, rewards, terminated, truncated, infos = envs.step([_random_masked(m, rng) for m in masks])
        ended += int(terminated.sum())
        if terminated.any():
            assert infos["_final_obs"][terminated].all()
    assert ended >= 2  # games of 12 guesses each ended and were reset
    envs.close()


def test_default_infos_are_numeric():
    env = hues_cues_v1.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _agent in env.agent_iter(200):
            obs, _, term, trunc, info = env.last()
            assert all(isinstance(v, (int, float, np.integer, np.floating)) for v in info.values())
            env.step(None if term or trunc else _random_masked(obs["action_mask"], rng))


def test_parallel_seats_not_on_turn_get_the_noop_mask():
    env = hues_cues_v1.parallel_env(num_players=4)
    obs, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        turn = [a for a in env.agents if infos[a]["on_turn"]]
        assert len(turn) == 1
        for a in env.agents:
            mask = obs[a]["action_mask"]
            assert mask.any()
            if a not in turn:
                assert mask.sum() == 1 and mask[0] == 1
        # every seat samples from its own mask, no glue: the no-op of the others is ignored
        obs, _, _, _, infos = env.step({a: _random_masked(obs[a]["action_mask"], rng) for a in env.agents})


def test_supersuit_vector_env_samples_every_mask_without_glue():
    ss = pytest.importorskip("supersuit")
    vec = ss.pettingzoo_env_to_vec_env_v1(hues_cues_v1.parallel_env(observation_mode="flat"))
    vec = ss.concat_vec_envs_v1(vec, 2, num_cpus=0, base_class="gymnasium")
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(1)
    total = 0.0
    for _ in range(120):
        assert obs["action_mask"].any(axis=1).all()
        obs, rewards, _, _, _ = vec.step(np.array([_random_masked(m, rng) for m in obs["action_mask"]]))
        total += float(rewards.sum())
    assert total > 0


@pytest.mark.integration
def test_torchrl_parallel_wrapper_random_rollout():
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = PettingZooWrapper(
        env=hues_cues_v1.parallel_env(observation_mode="flat"), use_mask=True, seed=0, return_state=False
    )
    rollout = env.rollout(40)  # random actions drawn from every seat's mask
    assert rollout.batch_size[0] == 40
