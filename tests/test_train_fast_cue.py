"""``huesenv train cue-giver --fast``: the speaker PPO on the full vectorised game, on a tiny budget."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from huesenv.agents import make_agent  # noqa: E402
from huesenv.agents.policy_net import load_checkpoint  # noqa: E402
from huesenv.cli import main  # noqa: E402
from huesenv.experiments.rl.ppo_fast_cue import FastCueConfig, train_fast_cue  # noqa: E402
from huesenv.game.protocol import CueQuery  # noqa: E402


def tiny(**kw) -> FastCueConfig:
    base = dict(
        total_steps=64 * 40,
        num_envs=64,
        batch_decisions=128,
        hidden=16,
        eval_games=16,
        device="cpu",
        torch_threads=1,
    )
    base.update(kw)
    return FastCueConfig(**base)


def test_tiny_run_writes_a_playable_cue_giver(tmp_path):
    summary = train_fast_cue(tiny(), tmp_path, progress=False)
    assert summary["env"] == "game" and summary["steps"] >= 64 * 40
    assert json.loads((tmp_path / "train.json").read_text())["trainer"] == "ppo_fast_cue"
    agent = make_agent(f"policy:{tmp_path / 'policy.pt'}")
    answer = agent.give_cue(
        CueQuery(card=(1, 100, 200, 300), target=None, cue_index=1, forbidden=frozenset())
    )
    assert answer.target in (1, 100, 200, 300) and answer.cue in agent.vocabulary


def test_same_seed_same_weights(tmp_path):
    a = train_fast_cue(tiny(), tmp_path / "a", progress=False)
    b = train_fast_cue(tiny(), tmp_path / "b", progress=False)
    assert a["final_eval_points"] == b["final_eval_points"]
    wa, wb = (load_checkpoint(tmp_path / k / "policy.pt").nets["speaker"].state_dict() for k in "ab")
    for name in wa:
        assert torch.equal(wa[name], wb[name]), name


def test_cli_cue_giver_fast_and_bad_input(tmp_path, capsys):
    out = tmp_path / "run"
    args = [
        "train",
        "cue-giver",
        "--fast",
        "--num-envs",
        "32",
        "--steps",
        "512",
        "-o",
        str(out),
        "--no-progress",
    ]
    assert main([*args, "--set", "batch_decisions=64", "--set", "eval_games=8", "--set", "hidden=8"]) == 0
    assert (out / "policy.pt").exists()
    assert main(["train", "cue-giver", "--fast", "--opponents", "vlm:x", "-o", str(tmp_path / "x")]) == 2
    assert "table opponents" in capsys.readouterr().err


def test_the_fast_cue_giver_plays_with_the_training_part_only(tmp_path):
    """issue 22: its replayed humans are the split's training part, recorded in the checkpoint."""
    from huesenv.agents.policy_net import load_checkpoint
    from huesenv.experiments import evaluation
    from huesenv.humans import load_humans
    from huesenv.humans.splits import DataSplit

    summary = train_fast_cue(tiny(total_steps=64 * 8), tmp_path, progress=False)
    record = load_checkpoint(tmp_path / "policy.pt").train["human_data"]
    split = DataSplit.of(load_humans(), seed=0, eval_fraction=0.5)
    assert sorted(record["train_participants"]) == sorted(map(str, split.train_participants))
    assert summary["human_data"] and json.loads((tmp_path / "train.json").read_text())["human_data"]
    spec = f"policy:{tmp_path / 'policy.pt'}"
    assert evaluation.overlaps({"c": spec}, load_humans())
    assert not evaluation.overlaps({"c": spec}, split.evaluation(load_humans()))


def test_fast_cue_config_is_validated():
    with pytest.raises(ValueError, match="holdout"):
        FastCueConfig.from_dict({"holdout": "people"})
    with pytest.raises(ValueError, match="num_players"):
        FastCueConfig.from_dict({"num_players": 2})
