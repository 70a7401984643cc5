"""The recipe of ``configs/learned_full_game.yaml``: both ``--fast`` trainers (tiny budgets), then the
tournament seats the learned guesser, the learned cue giver and the lookup baseline against the split's
evaluation part, and scores each in both roles with intervals."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytest.importorskip("torch")

from huesenv.cli import main  # noqa: E402

pytestmark = pytest.mark.integration  # trains two policies and plays 12 games (~1-2 min on 2 cores)


def test_learned_agents_play_both_seats_of_the_default_tournament(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the config names the trainers' default run folders, relative to here
    common = ["--steps", "2048", "--num-envs", "64", "--threads", "1", "--tracker", "none", "--no-progress"]
    common += ["--time-budget", "1", "--budget-clock", "cpu"]
    assert (
        main(["train", "guesser", "--fast", *common, "--set", "eval_decisions=64", "--set", "hidden=16"]) == 0
    )
    assert (
        main(["train", "cue-giver", "--fast", *common, "--set", "eval_games=16", "--set", "hidden=16"]) == 0
    )
    guesser, cue = (tmp_path / "runs" / "train" / f"{k}-fast-seed0" for k in ("guesser", "cue-giver"))
    for run in (guesser, cue):
        summary = json.loads((run / "train.json").read_text())
        assert summary["config"]["budget_clock"] == "cpu"
        assert (run / "split" / "train.csv.gz").is_file() and (run / "split" / "evaluation.csv.gz").is_file()
    # both trainers split the cohort the same way: the guesser's evaluation part is held out from both
    assert (guesser / "split" / "split.json").read_bytes() == (cue / "split" / "split.json").read_bytes()
    capsys.readouterr()
    assert main(["tournament", "learned_full_game", "--games", "2", "--no-wordlevel", "--no-progress"]) == 0
    run = tmp_path / "runs" / "learned_full_game"
    roles = pd.read_csv(run / "tables" / "points_by_role.csv").set_index(["agent", "role"])
    for agent in ("learned-guesser", "learned-cue-giver", "lookup", "text-embedding", "random", "human"):
        for role in ("cue_giver", "guesser", "total"):
            row = roles.loc[(agent, role)]
            assert row["mean_ci_low"] <= row["mean"] <= row["mean_ci_high"], (agent, role)
    # the human seats replay the split's evaluation part: the run's summary names that file and its people
    humans = json.loads((run / "summary.json").read_text())["humans"]
    split = json.loads((guesser / "split" / "split.json").read_text())
    assert humans["source"].replace("\\", "/").endswith("split/evaluation.csv.gz"), humans
    assert humans["participants"] == len(split["eval_participants"]), humans
    assert set(roles["human_reference"].astype(str)) == {humans["description"]}
    games = [json.loads(line) for line in (run / "games.jsonl").read_text().splitlines()]
    own = [g for g in games if g["extra"].get("seat_agent") in ("learned-cue-giver", "lookup")]
    assert own and all(g["valid"] for g in own)  # both play both seats from their own tables/networks
