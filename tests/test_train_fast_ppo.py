"""The fast PPO guesser trainer on a tiny budget: files, determinism, resume, budget."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from huesenv.agents import make_agent  # noqa: E402
from huesenv.agents.policy_net import load_checkpoint  # noqa: E402
from huesenv.experiments.rl.ppo_fast import FastPPOConfig, train_fast  # noqa: E402


def tiny(**kw) -> FastPPOConfig:
    base = dict(
        total_steps=4 * 64,
        num_envs=64,
        num_minibatches=2,
        update_epochs=1,
        hidden=16,
        checkpoint_every=2,
        eval_every=2,
        eval_decisions=64,
        device="cpu",
        torch_threads=1,
    )
    base.update(kw)
    return FastPPOConfig(**base)


def _weights(path):
    return load_checkpoint(path).nets["guesser"].state_dict()


def test_tiny_run_writes_a_playable_policy_and_curve(tmp_path):
    summary = train_fast(tiny(), tmp_path, progress=False)
    assert summary["steps"] == 256 and summary["updates"] == 4 and summary["device"] == "cpu"
    assert summary["cpu_s"] > 0 and summary["wall_s"] > 0
    assert json.loads((tmp_path / "train.json").read_text())["steps"] == 256
    lines = (tmp_path / "curve.csv").read_text().splitlines()
    assert lines[0].startswith("step,points") and len(lines) == 5
    agent = make_agent(f"policy:{tmp_path / 'policy.pt'}")
    assert agent.settings.env_id == "huesenv/GuesserVector-v0"
    assert agent.act_batch([]) == []


def test_same_seed_same_weights_and_resume_continues_exactly(tmp_path):
    # a constant learning rate: with annealing the schedule follows total_steps, so extending changes it
    train_fast(tiny(anneal_lr=False), tmp_path / "a", progress=False)
    train_fast(tiny(anneal_lr=False), tmp_path / "b", progress=False)
    train_fast(
        tiny(anneal_lr=False, total_steps=2 * 64), tmp_path / "c", progress=False
    )  # stops at a checkpoint...
    train_fast(tiny(anneal_lr=False), tmp_path / "c", progress=False)  # ...and resumes to the full budget
    a, b, c = (_weights(tmp_path / k / "policy.pt") for k in "abc")
    for name in a:
        assert torch.equal(a[name], b[name]), name
        assert torch.equal(a[name], c[name]), name
    steps = [line.split(",")[0] for line in (tmp_path / "c" / "curve.csv").read_text().splitlines()[1:]]
    assert steps == ["64", "128", "192", "256"]  # no step logged twice after the resume
    d = train_fast(tiny(seed=1), tmp_path / "d", progress=False)
    assert d["steps"] == 256
    assert any(not torch.equal(a[n], _weights(tmp_path / "d" / "policy.pt")[n]) for n in a)


def test_resume_refuses_changed_settings(tmp_path):
    train_fast(tiny(total_steps=128), tmp_path, progress=False)
    with pytest.raises(ValueError, match="cannot resume with num_envs=32"):
        train_fast(tiny(num_envs=32, num_minibatches=1), tmp_path, progress=False)


def test_bad_config_is_one_line():
    with pytest.raises(ValueError, match="num_minibatches: 3 does not divide the batch"):
        FastPPOConfig(num_envs=64, num_minibatches=3)
    with pytest.raises(ValueError, match=r"unknown config key 'lr'; expected one of "):
        FastPPOConfig.from_dict({"lr": 0.1})


@pytest.mark.integration
def test_fast_ppo_learns_human_cues(tmp_path):
    summary = train_fast(
        tiny(
            total_steps=60 * 1024,
            num_envs=1024,
            num_minibatches=4,
            update_epochs=4,
            hidden=128,
            eval_decisions=1024,
            checkpoint_every=10,
            eval_every=10,
        ),
        tmp_path,
        progress=False,
    )
    # uniform play scores ~0.07 points per decision, the text-embedding agent ~0.3; the human cues carry
    # the target's region
    assert summary["final_eval_points"] > 0.6


def test_random_legal_actions_pick_only_legal_cells_uniformly():
    import numpy as np

    from huesenv.experiments.rl.ppo_fast import random_legal_actions

    mask = np.zeros((4000, 480), dtype=np.int8)
    mask[:, [3, 7, 400]] = 1
    picks = random_legal_actions(mask, np.random.default_rng(0))
    assert set(picks.tolist()) == {3, 7, 400}
    assert np.bincount(picks, minlength=480)[[3, 7, 400]].min() > 1200  # ~1333 each
