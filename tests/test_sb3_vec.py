"""The SB3 ``VecEnv`` adapter over the batched game: what SB3, VecMonitor and MaskablePPO ask of it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

from huesenv.experiments.rl.sb3_vec import sb3_vec_env  # noqa: E402


def test_vec_env_api_masks_and_monitor_infos():
    env = VecMonitor(sb3_vec_env(num_envs=8, opponents="random"))
    assert is_masking_supported(env)
    env.seed(3)
    obs = env.reset()
    assert obs.shape == (8, 6021) and env.observation_space.contains(obs[0])
    assert env.get_attr("num_envs", indices=[0, 1]) == [8, 8] and env.env_is_wrapped(object) == [False] * 8
    rng, ended = np.random.default_rng(0), 0
    totals = np.zeros(8)
    while ended < 8:
        masks = get_action_masks(env)
        assert masks.shape == (8, 480) and masks.dtype == bool
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = env.step(actions)
        totals += rewards
        for i in np.flatnonzero(dones):
            info = infos[i]
            assert env.observation_space.contains(info["terminal_observation"])
            assert info["episode"]["r"] == pytest.approx(totals[i]) == info["learner_points"]
            totals[i], ended = 0.0, ended + 1
    env.seed(3)
    np.testing.assert_array_equal(
        env.reset(), sb3_vec_env(num_envs=8, opponents="random").env.reset(seed=3)[0]
    )


@pytest.mark.integration  # torch and a PPO update: seconds
def test_maskable_ppo_trains_through_the_adapter():
    env = sb3_vec_env(num_envs=16, opponents="random")
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=8,
        batch_size=64,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [16]},
        device="cpu",
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256


def test_sparse_flat_extractor_is_a_linear_layer_on_both_observation_forms():
    """The same function and weight gradient as ``relu(Linear(F, H))`` on the dense flat observation,
    whether it reads the dense vector or the batched env's sparse form of it."""
    import torch

    from huesenv.experiments.rl.sb3_vec import SparseFlatExtractor

    flat_env = sb3_vec_env(num_envs=8, opponents="random", seed=2)
    sparse_env = sb3_vec_env(num_envs=8, opponents="random", seed=2, observation_mode="sparse")
    flat_env.seed(2), sparse_env.seed(2)
    flat_env.reset(), sparse_env.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):  # into a game: cones, cues and scores set
        a = np.array([rng.choice(np.flatnonzero(m)) for m in flat_env.action_masks()])
        dense, *_ = flat_env.step(a)
        sparse, *_ = sparse_env.step(a)
    ext = SparseFlatExtractor(flat_env.observation_space, features_dim=16)
    ext_s = SparseFlatExtractor(sparse_env.observation_space, features_dim=16)
    ext_s.load_state_dict(ext.state_dict())
    x = torch.as_tensor(dense)
    want = torch.relu(x @ ext.weight + ext.bias)
    got = ext(x)
    got_s = ext_s({k: torch.as_tensor(v, dtype=torch.float32) for k, v in sparse.items()})  # as SB3 feeds it
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(got_s, want)
    (grad,) = torch.autograd.grad(want.sum(), ext.weight)
    (grad_d,) = torch.autograd.grad(got.sum(), ext.weight)
    (grad_s,) = torch.autograd.grad(got_s.sum(), ext_s.weight)
    torch.testing.assert_close(grad_d, grad)
    torch.testing.assert_close(grad_s, grad)
    assert (dense != 0).sum(1).min() > 10  # not a vacuous all-zero batch
