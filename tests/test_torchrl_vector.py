"""torchrl at the batched speed: torchrl's own ``GymWrapper`` over ``gymnasium.make_vec`` of an id."""

from __future__ import annotations

import gymnasium
import pytest

import huesenv  # noqa: F401  (registers the ids)

pytestmark = pytest.mark.integration  # torchrl imports in seconds: in the test, not when collected


@pytest.mark.parametrize("mode", ["flat", "compact"])
def test_gym_wrapper_over_the_batched_env_passes_check_env_specs(mode):
    pytest.importorskip("torchrl")
    import torch
    from torchrl.envs import ActionMask, GymWrapper, TransformedEnv
    from torchrl.envs.utils import check_env_specs

    vec = gymnasium.make_vec(
        "huesenv/Guesser-v1", num_envs=4, vectorization_mode="vector_entry_point", observation_mode=mode
    )
    # torchrl draws random actions from the action spec; its ActionMask transform puts the env's mask on it
    env = TransformedEnv(GymWrapper(vec, categorical_action_encoding=True), ActionMask())
    assert env.batch_size == torch.Size([4])
    check_env_specs(env, seed=0)
    td = env.rollout(30, break_when_any_done=False)
    mask = td["action_mask"]
    assert mask.dtype == torch.bool and mask.shape == (4, 30, 480)
    assert mask.gather(-1, td["action"].unsqueeze(-1)).all()  # rollouts draw legal cells only
    assert td["next", "done"].any()  # games end and restart in place
