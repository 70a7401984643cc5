"""Comparing runs: bootstrap intervals and paired tests, `huesenv leaderboard` over run folders, the agent
sweep, and run names that never collide with another experiment's folder."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import yaml

from huesenv.cli import main
from huesenv.experiments import load_config, run_experiment, uncertainty

BASE = {
    "seed": 2,
    "num_players": 3,
    "games": 3,
    "wordlevel": {"enabled": False},
    "report": {"formats": ["markdown", "html"], "board_images": 0},
}


def make_run(tmp_path, name, agent, spec="random", **changes):
    data = {
        **BASE,
        "name": name,
        "output": str(tmp_path / "runs"),
        "agents": {agent: {"spec": spec}, "human": {"spec": "human-replay"}},
        "lineups": [[agent, "human", "human"]],
        **changes,
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return run_experiment(load_config(path), progress=False).run_dir


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    return tmp, make_run(tmp, "alpha", "random"), make_run(tmp, "beta", "copycat")


# -- intervals and tests ---------------------------------------------------------------------------
def test_cluster_interval_covers_the_ratio_mean_and_is_seeded():
    rng = np.random.default_rng(0)
    values = rng.normal(5, 2, size=120)
    clusters = np.repeat(np.arange(40), 3)
    lo, hi = uncertainty.cluster_mean_ci(values, clusters, seed=1)
    assert lo < values.mean() < hi
    assert (lo, hi) == uncertainty.cluster_mean_ci(values, clusters, seed=1)
    # resampling whole clusters of identical values is wider than pretending the seats are independent
    tied = np.repeat(rng.normal(5, 2, size=40), 3)
    c_lo, c_hi = uncertainty.cluster_mean_ci(tied, clusters, seed=1)
    i_lo, i_hi = uncertainty.mean_ci(tied, seed=1)
    assert c_hi - c_lo > 1.4 * (i_hi - i_lo)
    assert uncertainty.cluster_mean_ci([1.0, 2.0], [0, 0]) != uncertainty.cluster_mean_ci([1.0, 2.0], [0, 1])
    assert all(np.isnan(uncertainty.cluster_mean_ci([1.0, 2.0], [0, 0])))


def test_paired_test_and_mirrored_intervals():
    rows = []
    for game in range(12):
        rows.append({"game": game, "agent": "a", "points": 5 + game % 3, "win": 1.0})
        rows += [{"game": game, "agent": "b", "points": 1 + game % 2, "win": 0.0}] * 2
    frame = pd.DataFrame(rows)
    h2h = pd.DataFrame(
        {
            "agent": ["a", "b"],
            "opponent": ["b", "a"],
            "pairings": [24, 24],
            "mean_diff": [0.0, 0.0],
            "se_diff": [0.0, 0.0],
            "win_share": [1.0, 0.0],
        }
    )
    out = uncertainty.add_head_to_head_tests(h2h, frame, seed=0).set_index("agent")
    assert out.loc["a", "games"] == 12
    assert out.loc["a", "mean_diff_ci_low"] == pytest.approx(-out.loc["b", "mean_diff_ci_high"])
    assert out.loc["a", "mean_diff_ci_low"] > 0
    assert out.loc["a", "p_value"] == out.loc["b", "p_value"] < 0.01
    assert uncertainty.wilcoxon_p(np.zeros(5)) == 1.0


# -- huesenv leaderboard ----------------------------------------------------------------------------
def test_two_runs_with_different_agents_merge_into_one_table_with_intervals(two_runs, tmp_path, capsys):
    _, alpha, beta = two_runs
    out = tmp_path / "merged"
    assert main(["leaderboard", str(alpha), str(beta), "-o", str(out)]) == 0
    board = pd.read_csv(out / "leaderboard.csv").set_index("agent")
    assert set(board.index) == {"random", "copycat", "human"}
    assert board.loc["human", "games"] == 6 and board.loc["random", "games"] == 3
    assert board.loc["human", "runs"] == "alpha, beta"
    for agent in board.index:
        assert board.loc[agent, "mean_points_ci_low"] <= board.loc[agent, "mean_points"]
        assert board.loc[agent, "mean_points"] <= board.loc[agent, "mean_points_ci_high"]
    seat = pd.concat([pd.read_parquet(r / "tables" / "seat_games.parquet") for r in (alpha, beta)])
    assert board.loc["human", "mean_points"] == pytest.approx(seat[seat.agent == "human"].points.mean())
    for name in ("leaderboard.md", "leaderboard.html", "leaderboard.parquet", "head_to_head.csv", "runs.csv"):
        assert (out / name).is_file(), name
    assert "95 % CI" in (out / "leaderboard.md").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["leaderboard", str(alpha), str(beta)]) == 0  # Markdown on stdout
    assert "| Rank | Agent |" in capsys.readouterr().out
    assert main(["leaderboard", str(alpha), str(beta), "-o", str(tmp_path / "one.html")]) == 0
    assert "<table" in (tmp_path / "one.html").read_text(encoding="utf-8")


def test_runs_with_different_human_references_are_refused(two_runs, tmp_path, capsys):
    _, alpha, beta = two_runs
    other = tmp_path / "gamma"
    shutil.copytree(beta, other)
    summary = json.loads((other / "summary.json").read_text(encoding="utf-8"))
    summary["humans"] = {**summary["humans"], "key": "0" * 16, "label": "human export x.csv (3 participants)"}
    (other / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    assert main(["leaderboard", str(alpha), str(other)]) == 2
    err = capsys.readouterr().err
    assert "different human references" in err and "--allow-mixed-humans" in err and "Traceback" not in err
    assert (
        main(["leaderboard", str(alpha), str(other), "--allow-mixed-humans", "-o", str(tmp_path / "m")]) == 0
    )
    assert "MIXED" in (tmp_path / "m" / "leaderboard.md").read_text(encoding="utf-8")


def test_same_agent_name_with_other_spec_is_kept_apart(two_runs, tmp_path):
    tmp, alpha, _ = two_runs
    other = make_run(tmp_path, "delta", "random", spec="human-replay")
    assert main(["leaderboard", str(alpha), str(other), "-o", str(tmp_path / "x.csv")]) == 0
    agents = set(pd.read_csv(tmp_path / "x.csv")["agent"])
    assert {"random (alpha)", "random (delta)"} <= agents


def test_leaderboard_bad_input_is_one_line(tmp_path, capsys):
    assert main(["leaderboard", str(tmp_path / "nope")]) == 2
    assert "no such run folder" in capsys.readouterr().err
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "summary.json").write_text("{}", encoding="utf-8")
    assert main(["leaderboard", str(tmp_path / "half")]) == 2
    assert "no human reference recorded" in capsys.readouterr().err


# -- sweep and run names ------------------------------------------------------------------------------
def _config_file(tmp_path, **changes):
    data = {
        **BASE,
        "name": "base",
        "output": str(tmp_path / "runs"),
        "games": 2,
        "agents": {"random": {"spec": "random"}, "human": {"spec": "human-replay"}},
        "lineups": [["random", "human", "human"]],
        **changes,
    }
    path = tmp_path / "base.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.integration  # four tournaments through the CLI
def test_agent_sweep_runs_each_agent_and_merges_and_resumes(tmp_path, capsys):
    path = _config_file(tmp_path)
    args = ["tournament", str(path), "--agents", "random,human-replay", "--no-progress"]
    assert main(args) == 0
    runs = tmp_path / "runs"
    assert (runs / "base-random" / "games.jsonl").is_file()
    assert (runs / "base-human-replay" / "games.jsonl").is_file()
    board = pd.read_csv(runs / "base-sweep" / "leaderboard.csv")
    assert {"random", "human-replay", "human"} == set(board["agent"])
    capsys.readouterr()
    assert main(args) == 0  # resumable: nothing replayed
    assert capsys.readouterr().out.count("already in the log") == 2


@pytest.mark.integration  # three tournaments through the CLI
def test_variant_of_an_experiment_gets_its_own_folder(tmp_path, capsys):
    path = _config_file(tmp_path)
    assert main(["tournament", str(path), "--no-progress"]) == 0
    assert main(["tournament", str(path), "--seed", "7", "--no-progress"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert "holds another experiment (differs in seed)" in out
    folders = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert folders[0] == "base" and folders[1].startswith("base-") and len(folders) == 2
    # an explicit --name that collides is still an error, with what to do
    assert main(["tournament", str(path), "--seed", "8", "--name", "base", "--no-progress"]) == 2
    assert "choose another --name or pass --fresh" in capsys.readouterr().err


def test_human_reference_names_an_export_and_its_participants():
    from huesenv.experiments.provenance import HumanReference

    class Export:
        frame = pd.DataFrame({"user_id": ["u1", "u2", "u2"], "word": ["SKY"] * 3, "cell": [1, 2, 3]})
        is_reconstruction = False
        source = "answers/humans.csv"
        n_participants = 2

        def __len__(self):
            return 3

    ref = HumanReference.of(Export())
    assert ref.label == "human export answers/humans.csv (2 participants, 3 answers)"
    assert ref.kind == "export" and len(ref.key) == 16
    Export.frame = Export.frame.assign(cell=[1, 2, 4])
    assert HumanReference.of(Export()).key != ref.key  # other answers, another reference


def test_points_by_role_intervals_match_the_leaderboard(two_runs):
    _, alpha, _ = two_runs
    roles = pd.read_csv(alpha / "tables" / "points_by_role.csv").set_index(["agent", "role"])
    board = pd.read_csv(alpha / "tables" / "leaderboard.csv").set_index("agent")
    for agent in board.index:
        for role, stat in (
            ("total", "mean_points"),
            ("cue_giver", "mean_cue_giver"),
            ("guesser", "mean_guesser"),
        ):
            assert roles.loc[(agent, role), "mean_ci_low"] == pytest.approx(
                board.loc[agent, f"{stat}_ci_low"]
            )
            assert roles.loc[(agent, role), "mean_ci_high"] == pytest.approx(
                board.loc[agent, f"{stat}_ci_high"]
            )
