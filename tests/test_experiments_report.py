"""Tournament tables (hand-checked numbers), the report writer, the CLI, and the weights check of the CLIP sweep."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from huesenv.experiments import analysis
from huesenv.experiments.report import ReportData, markdown_table, write_report
from huesenv.logs.schema import LogRecord


def step(game, rnd, player, role, phase, points=0, cell=None, word=None, agent="a", valid=True):
    extra = {
        "game": game,
        "round": rnd,
        "player": player,
        "role": role,
        "phase": phase,
        "points": points,
        "cell": cell,
        "target": None,
    }
    if not valid:  # as play_game logs a random fallback: the played move, valid=False and the reason
        extra["fallback"] = "invalid answer"
    return LogRecord.create(kind="game_step", run_id="t", agent_id=agent, word=word, valid=valid, extra=extra)


def two_games():
    seats = {
        0: {"player_0": "A", "player_1": "B", "player_2": "C"},
        1: {"player_0": "B", "player_1": "A", "player_2": "C"},
    }
    recs = [
        step(0, 0, "player_0", "cue_giver", "cue_1", word="LEMON"),
        step(0, 0, "player_1", "guesser", "guess_1", cell="J2", word="LEMON"),
        step(0, 0, "player_2", "guesser", "guess_1", cell="A1", word="LEMON"),
        step(0, 0, "player_0", "cue_giver", "reveal", 2),
        step(0, 0, "player_1", "guesser", "reveal", 3),
        step(0, 0, "player_2", "guesser", "reveal", 0),
        step(1, 0, "player_0", "cue_giver", "cue_1", word="SKY"),
        step(1, 0, "player_1", "guesser", "guess_1", cell="K21", word="SKY"),
        step(1, 0, "player_0", "cue_giver", "reveal", 1),
        step(1, 0, "player_1", "guesser", "reveal", 1),
        step(1, 0, "player_2", "guesser", "reveal", 5),
    ]
    return recs, seats


def test_seat_games_leaderboard_and_head_to_head_by_hand():
    recs, seats = two_games()
    frame = analysis.seat_games(recs, seats)
    assert len(frame) == 6
    a = frame[frame.agent == "A"].set_index("game")
    assert a.loc[0, "points"] == 2 and a.loc[0, "points_cue_giver"] == 2 and a.loc[1, "points_guesser"] == 1
    board = analysis.leaderboard(frame).set_index("agent")
    assert board.loc["C", "mean_points"] == 2.5 and board.loc["C", "rank"] == 1
    assert math.isclose(board.loc["C", "se_points"], np.std([0, 5], ddof=1) / np.sqrt(2))
    assert board.loc["B", "win_rate"] == 0.5  # won game 0 outright, lost game 1
    assert board.loc["A", "win_rate"] == 0.0
    h2h = analysis.head_to_head(frame).set_index(["agent", "opponent"])
    assert h2h.loc[("A", "B"), "mean_diff"] == ((2 - 3) + (1 - 1)) / 2
    assert h2h.loc[("A", "B"), "win_share"] == (0 + 0.5) / 2
    assert h2h.loc[("B", "A"), "win_share"] == 1 - h2h.loc[("A", "B"), "win_share"]
    roles = analysis.points_by_role(frame)
    assert set(roles.role) == {"cue_giver", "guesser", "total"}


def test_first_cones_become_sampled_word_queries():
    recs, seats = two_games()
    queries = analysis.guess_queries(recs, seats)
    by = {(q.agent_id, q.word): q for q in queries}
    assert by[("B", "LEMON")].cells == ["J2"] and by[("C", "LEMON")].cells == ["A1"]
    assert by[("A", "SKY")].cells == ["K21"]
    assert all(q.extra["sampled"] and q.kind == "word_query" for q in queries)


def test_fallback_cue_keeps_the_guessers_answers_but_not_fallback_cones():
    """Cue 1 given by the env's random fallback was still heard: genuine first cones to it count."""
    recs, seats = two_games()
    recs += [
        step(2, 0, "player_0", "cue_giver", "cue_1", word="SKY", valid=False),  # a fallback cue
        step(2, 0, "player_1", "guesser", "guess_1", cell="L22", word="SKY"),
        step(2, 0, "player_2", "guesser", "guess_1", cell="P30", word="SKY", valid=False),  # a fallback cone
        step(2, 0, "player_0", "cue_giver", "reveal", 1),
    ]
    seats[2] = {"player_0": "A", "player_1": "B", "player_2": "C"}
    by = {(q.agent_id, q.word): q for q in analysis.guess_queries(recs, seats)}
    assert by[("B", "SKY")].cells == ["L22"]
    assert ("C", "SKY") not in by  # the random cell is not C's answer
    assert by[("A", "SKY")].cells == ["K21"]


def test_markdown_and_html_report(tmp_path):
    table = pd.DataFrame({"agent": ["x|y", "z"], "value": [1.23456, float("nan")]})
    md = markdown_table(table)
    assert "| x\\|y | 1.235 |" in md and "| z | – |" in md
    data = ReportData(title="t", config_yaml="a: 1\n", summary=["did it"], tables={"leaderboard": table})
    paths = write_report(data, tmp_path)
    assert (tmp_path / "tables" / "leaderboard.csv").exists()
    assert "## Leaderboard" in paths["markdown"].read_text() and "<table" in paths["html"].read_text()


def test_every_section_and_table_file_names_the_human_reference(tmp_path):
    from huesenv.humans import HumanReference, load_humans

    ref = HumanReference.of(load_humans())
    align = pd.DataFrame(
        {
            "agent": ["people", "clip"],
            "agent_id": ["human-replay", "clip:x"],
            "mahalanobis_fail_rate": [0.1, 0.5],
        }
    )
    board = pd.DataFrame({"agent": ["people", "clip"], "mean_points": [3.0, 2.0]})
    data = ReportData(
        title="t",
        config_yaml="a: 1\n",
        summary=[],
        tables={"leaderboard": board, "guess_alignment": align},
        humans=ref.as_dict(),
    )
    paths = write_report(data, tmp_path)
    md = paths["markdown"].read_text()
    described = f"Human reference: {ref.description}."
    assert md.count(described) == 2  # one line under each table section
    assert "Self-scored: people replay(s) the reference" in md  # named as the table names it
    assert paths["html"].read_text().count(described) == 2
    for name in ("leaderboard", "guess_alignment"):
        for table in (
            pd.read_csv(tmp_path / "tables" / f"{name}.csv"),
            pd.read_parquet(tmp_path / "tables" / f"{name}.parquet"),
        ):
            assert set(table["human_reference"]) == {
                "Reconstructed cohort (316 simulated participants, not people)"
            }
    flagged = pd.read_csv(tmp_path / "tables" / "guess_alignment.csv").set_index("agent_id")["self_scored"]
    assert flagged["human-replay"] and not flagged["clip:x"]


def _cli(args, tmp_path, **env):
    full_env = {**os.environ, "OMP_NUM_THREADS": "1", **env}
    return subprocess.run(
        [sys.executable, "-m", "huesenv", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=full_env,
        cwd=tmp_path,
    )


@pytest.mark.integration
def test_cli_tournament_with_overrides(tmp_path):
    out = _cli(
        [
            "tournament",
            "--games",
            "1",
            "--name",
            "cli",
            "--set",
            "lineups=[[random,human,human,human]]",
            "--set",
            "wordlevel.agents=[random]",
            "--no-progress",
            "--output",
            str(tmp_path / "runs"),
        ],
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "games: ran 1 games" in out.stdout and "Leaderboard" in out.stdout
    stdout = " ".join(out.stdout.split())  # rich may wrap the long lines
    assert "Human reference: Reconstructed cohort (316 simulated participants, not people)" in stdout
    assert "Self-scored: human replay(s)" in stdout  # the replayed humans, named as the tables name them
    assert (tmp_path / "runs" / "cli" / "report.md").exists()
    bad = _cli(["tournament", "--set", "lineups.0.0=nobody", "--output", str(tmp_path / "runs")], tmp_path)
    assert bad.returncode == 2 and "field lineups.0.0: expected one of the agents" in bad.stderr


@pytest.mark.integration
def test_clip_sweep_fails_fast_without_weights(tmp_path):
    pytest.importorskip("open_clip")
    out = _cli(
        ["wordlevel", "paper_clip_sweep", "--output", str(tmp_path / "runs"), "--no-progress"],
        tmp_path,
        HF_HOME=str(tmp_path / "hf"),
        HF_HUB_CACHE=str(tmp_path / "hf" / "hub"),
        HOME=str(tmp_path),
    )
    assert out.returncode == 2
    assert "weights missing for 162 of 162 checkpoint(s)" in out.stderr
    assert "HF_HOME" in out.stderr and "--set weights.dir" in out.stderr and "HF_HUB_OFFLINE=1" in out.stderr
    assert not (tmp_path / "runs" / "paper_clip_sweep" / "wordlevel.jsonl").exists()


@pytest.mark.xdist_group(
    "model_libraries"
)  # imports open_clip: on the worker that has it (test_agents_text_embedding.py)
def test_local_checkpoint_file_is_found_and_used(tmp_path):
    pytest.importorskip("open_clip")
    from huesenv.experiments.config import load_config
    from huesenv.experiments.weights import check_checkpoint, split_checkpoint_name
    from huesenv.experiments.wordlevel import resolved_spec

    name = "EVA02-B-16-merged2b_s8b_b131k"
    model, tag = split_checkpoint_name(name)
    assert (model, tag) == ("EVA02-B-16", "merged2b_s8b_b131k")
    (tmp_path / f"{name}.safetensors").write_bytes(b"x")
    check = check_checkpoint(name, str(tmp_path))
    assert check.found and check.path.endswith(".safetensors")
    config = load_config("paper_clip_sweep", [f"weights.dir={tmp_path}"])
    assert resolved_spec(config, f"clip:{name}") == f"clip:EVA02-B-16/{tmp_path / (name + '.safetensors')}"


@pytest.mark.integration
def test_existing_hugging_face_cache_is_found(tmp_path):
    """A checkpoint in an HF cache laid out as huggingface_hub writes it counts as present (no network)."""
    pytest.importorskip("open_clip")
    hub = tmp_path / "hub"
    repo = hub / "models--laion--CLIP-ViT-B-32-laion2B-s34B-b79K"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("abc123")
    (repo / "snapshots" / "abc123").mkdir(parents=True)
    (repo / "snapshots" / "abc123" / "open_clip_model.safetensors").write_bytes(b"x")
    code = (
        "from huesenv.experiments.weights import check_checkpoint as c;"
        "print(c('ViT-B-32-laion2b_s34b_b79k').path); print(c('ViT-B-32-openai').path)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HF_HUB_CACHE": str(hub), "HOME": str(tmp_path)},
    )
    found, missing = out.stdout.split()
    assert found.endswith("snapshots/abc123/open_clip_model.safetensors") and missing == "None"


def fake_clip_factory(spec, **kwargs):
    """Stands in for make_agent in the sweep test: a seeded random agent named after the checkpoint file."""
    from huesenv.agents.random_agent import RandomAgent

    assert spec.startswith("clip:") and spec.endswith(".safetensors"), spec  # pointed at the local file
    agent = RandomAgent(seed=0)
    agent.name = "clip:" + os.path.basename(spec)[: -len(".safetensors")]
    return agent


@pytest.mark.integration  # a whole experiment end to end
def test_clip_sweep_runs_model_by_model_from_local_files(tmp_path):
    pytest.importorskip("open_clip")
    from huesenv.experiments import load_config, run_experiment

    names = ["EVA02-B-16-merged2b_s8b_b131k", "ViT-B-32-openai", "RN50-openai"]
    for name in names:
        (tmp_path / f"{name}.safetensors").write_bytes(b"x")
    overrides = [
        f"weights.dir={tmp_path}",
        f"output={tmp_path / 'runs'}",
        f"wordlevel.agents={names}",
        "tournament.agent_factory=test_experiments_report:fake_clip_factory",  # needs allow_code=True below
        "report.formats=[markdown]",
    ]
    result = run_experiment(
        load_config(
            "paper_clip_sweep",
            overrides[:2] + overrides[3:] + [f"wordlevel.agents={names[:2]}"],
            allow_code=True,
        ),
        progress=False,
    )
    assert result.stages[0].ran_now == 2
    result = run_experiment(
        load_config(
            "paper_clip_sweep", overrides[:2] + overrides[3:] + [f"wordlevel.agents={names}"], allow_code=True
        ),
        progress=False,
    )
    assert (result.stages[0].done_before, result.stages[0].ran_now) == (2, 1)
    agents = result.tables["wordlevel_agents"]
    # grouped by the config's agent names; the checkpoint's agent id is kept alongside (metrics.collect)
    assert sorted(agents["agent"]) == sorted(names)
    assert sorted(agents["agent_id"]) == sorted(f"clip:{n}" for n in names)
    assert (agents["n_words"] == 100).all()
    assert set(result.tables["wordlevel_nonsense"]["agent"]) == set(agents["agent"])


def test_offline_env_is_scoped(monkeypatch):
    from huesenv.experiments.weights import offline_env

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "0")
    with offline_env():
        assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"
    assert "HF_HUB_OFFLINE" not in os.environ and os.environ["TRANSFORMERS_OFFLINE"] == "0"
