"""``MaskedDiscrete`` is Gymnasium's ``Discrete`` with the same draws, only cheaper to sample with a mask."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from gymnasium import spaces

from huesenv import hues_cues_v1
from huesenv.envs.spaces import MaskedDiscrete


@pytest.mark.parametrize(("n", "start"), [(1, 0), (9, 0), (601, 0), (50, -7)])
def test_masked_sample_draws_what_gymnasium_draws(n: int, start: int) -> None:
    ours, theirs = MaskedDiscrete(n, start=start), spaces.Discrete(n, start=start)
    ours.seed(3)
    theirs.seed(3)
    masks = np.random.default_rng(0)
    for k in range(3000):
        mask = (masks.random(n) < masks.choice([0.0, 0.01, 0.5, 1.0])).astype(np.int8)
        if k % 3 == 0:  # a non-contiguous view of a longer mask
            mask = np.repeat(mask, 2)[::2]
        a, b = ours.sample(mask), theirs.sample(mask)
        assert a == b and type(a) is type(b)
        assert mask.any() or a == start
    assert ours.np_random.bit_generator.state == theirs.np_random.bit_generator.state


def test_other_arguments_go_to_gymnasium() -> None:
    ours, theirs = MaskedDiscrete(5), spaces.Discrete(5)
    ours.seed(1)
    theirs.seed(1)
    assert [ours.sample() for _ in range(20)] == [theirs.sample() for _ in range(20)]
    p = np.array([0.1, 0.2, 0.3, 0.4, 0.0])
    assert [ours.sample(probability=p) for _ in range(20)] == [
        theirs.sample(probability=p) for _ in range(20)
    ]
    for bad in (
        np.array([1, 0, 2, 0, 0], dtype=np.int8),  # a value other than 0/1
        np.array([1, 0, -1, 0, 0], dtype=np.int8),
        np.ones(5, dtype=np.int64),  # dtype
        np.ones(4, dtype=np.int8),  # shape
        [1, 0, 0, 0, 0],  # not an array
    ):
        with pytest.raises(AssertionError) as ours_err:
            ours.sample(bad)  # type: ignore[arg-type]
        with pytest.raises(AssertionError) as theirs_err:
            theirs.sample(bad)  # type: ignore[arg-type]
        assert str(ours_err.value) == str(theirs_err.value)


def test_other_arguments_reach_a_gymnasium_1_0_discrete(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyproject allows gymnasium>=1.0, whose ``Discrete.sample(mask)`` takes no ``probability``."""
    stock = spaces.Discrete.sample

    def sample_1_0(self: spaces.Discrete, mask: np.ndarray | None = None) -> np.int64:
        return stock(self, mask)

    monkeypatch.setattr(spaces.Discrete, "sample", sample_1_0)
    ours, theirs = MaskedDiscrete(5), spaces.Discrete(5)
    ours.seed(2)
    theirs.seed(2)
    assert [ours.sample() for _ in range(20)] == [theirs.sample() for _ in range(20)]
    with pytest.raises(AssertionError, match="0 or 1"):
        ours.sample(np.array([1, 0, 2, 0, 0], dtype=np.int8))


def test_it_is_a_discrete() -> None:
    space = MaskedDiscrete(481)
    assert isinstance(space, spaces.Discrete) and space == spaces.Discrete(481)
    assert pickle.loads(pickle.dumps(space)) == space
    assert spaces.flatdim(space) == 481 and space.contains(np.int64(480))


def test_env_action_spaces_sample_legal_actions() -> None:
    env = hues_cues_v1.env(num_players=3)
    env.reset(seed=0)
    assert all(isinstance(env.action_space(a), MaskedDiscrete) for a in env.possible_agents)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = env.action_space(agent).sample(obs["action_mask"])
        assert obs["action_mask"][action] == 1
        env.step(action)


def test_text_mode_samples_from_the_flat_mask_and_passes_pettingzoo_api_test() -> None:
    import warnings

    from pettingzoo.test import api_test

    from huesenv.envs.spaces import CueActionSpace

    env = hues_cues_v1.env(num_players=3, cue_mode="text")
    env.reset(seed=0)
    space = env.action_space(env.agent_selection)
    assert isinstance(space, CueActionSpace)
    space.seed(0)
    mask = env.last()[0]["action_mask"]
    for _ in range(50):
        action = space.sample(mask)
        assert set(action) == {"action", "cue"} and mask[action["action"]] == 1
    dict_mask = space.sample({"action": mask, "cue": None})  # Gymnasium's own form still works
    assert mask[dict_mask["action"]] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(hues_cues_v1.env(cue_mode="text"), num_cycles=200)
