"""Integration: short sb3-contrib MaskablePPO runs through `huesenv train`, resume, and the zip as an agent."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")

from huesenv.agents import make_agent  # noqa: E402
from huesenv.agents.policy_net import PolicyMismatchError  # noqa: E402
from huesenv.agents.protocol import CueQuery, GuessQuery  # noqa: E402
from huesenv.cli import main  # noqa: E402

pytestmark = pytest.mark.integration

SMALL = [
    "--set",
    "num_envs=2",
    "--set",
    "n_steps=64",
    "--set",
    "batch_size=32",
    "--set",
    "n_epochs=1",
    "--set",
    "checkpoint_every=64",
]


def test_train_guesser_resume_and_play(tmp_path):
    out = tmp_path / "g"
    args = [
        "train",
        "guesser",
        "--steps",
        "128",
        "-o",
        str(out),
        "--tracker",
        "none",
        "--device",
        "cpu",
        *SMALL,
    ]
    assert main(args) == 0
    assert main([*args[:3], "192", *args[4:]]) == 0  # resumes from 128
    state = json.loads((out / "trainer_state.json").read_text())
    assert state["steps"] == 192
    steps = [int(line.split(",")[0]) for line in (out / "curve.csv").read_text().splitlines()[1:]]
    assert steps == sorted(set(steps))
    agent = make_agent(f"policy:{out / 'model.zip'}")
    ans = agent.act(GuessQuery(cues=("BANANA",), top_k=3))
    assert len(ans.cells) == 3
    import gymnasium

    agent.check_env(gymnasium.make("huesenv/Guesser-v1", opponents="random"))
    with pytest.raises(PolicyMismatchError, match="cue_encoding"):
        agent.check({"cue_encoding": "embedding"})


def test_train_cue_giver_plays_cues(tmp_path):
    out = tmp_path / "c"
    args = [
        "train",
        "cue-giver",
        "--steps",
        "64",
        "-o",
        str(out),
        "--tracker",
        "none",
        "--device",
        "cpu",
        *SMALL,
    ]
    assert main(args) == 0
    agent = make_agent(f"policy:{out / 'model.zip'}")
    vocab = agent.vocabulary
    pick = agent.act(CueQuery(card=(10, 20, 30, 40), target=None, vocabulary=vocab))
    assert pick.target in (10, 20, 30, 40)
    cue = agent.act(CueQuery(card=(10, 20, 30, 40), target=pick.target, vocabulary=vocab[:5]))
    assert cue.cue in vocab[:5]


def test_bad_trainer_option_is_one_line(tmp_path, capsys):
    assert main(["train", "guesser", "--steps", "64", "-o", str(tmp_path), "--set", "n_stepz=3"]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown config key 'n_stepz'" in err and "\n" not in err


def test_sb3_trainers_play_with_the_training_part_and_are_refused_on_it(tmp_path):
    """issue 22: the SB3 trainers replay only the split's training part, the zip records it, and scoring
    the policy against the whole cohort (its training people included) is refused in one line."""
    from huesenv.experiments import evaluation
    from huesenv.humans import load_humans
    from huesenv.humans.splits import DataSplit

    out = tmp_path / "g"
    args = ["train", "guesser", "--steps", "64", "-o", str(out), "--tracker", "none", "--device", "cpu"]
    assert main([*args, *SMALL]) == 0
    train_part = load_humans(out / "split" / "train.csv.gz")
    cohort = load_humans()
    split = DataSplit.of(cohort, seed=0, eval_fraction=0.5)
    assert set(train_part.frame["user_id"].astype(str)) == set(map(str, split.train_participants))
    record = evaluation.policy_training_data(f"policy:{out / 'model.zip'}")
    assert record is not None and sorted(record["train_participants"]) == sorted(
        map(str, split.train_participants)
    )
    summary = json.loads((out / "train.json").read_text())
    assert summary["human_data"] and "split" in summary["human_data"]
    assert evaluation.overlaps({"mine": f"policy:{out / 'model.zip'}"}, cohort)  # trained on part of it
    assert not evaluation.overlaps({"mine": f"policy:{out / 'model.zip'}"}, split.evaluation(cohort))
