"""W&B tracking, offline: the run files hold the config, the tables and the images; no secrets."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from huesenv.experiments import load_config, plan_games, run_experiment
from huesenv.experiments.tracking import read_offline_run, redact, resolve_mode

pytestmark = pytest.mark.integration  # W&B offline runs


@pytest.fixture(autouse=True, scope="module")
def _wandb():
    """Import wandb when these tests run, not when they are collected (the fast tier collects them too)."""
    pytest.importorskip("wandb")


CONFIG = {
    "name": "wb",
    "seed": 5,
    "num_players": 3,
    "games": 2,
    "agents": {"random": {"spec": "random"}, "human": {"spec": "human-replay"}},
    "lineups": [["random", "human", "human"]],
    "wordlevel": {"enabled": True, "agents": ["random"], "top_k": 5},
    "report": {"formats": ["markdown"], "board_images": 1},
}


@pytest.mark.integration  # W&B's service process
def test_offline_run_is_live_and_complete(tmp_path, monkeypatch):
    """The offline run folder, read back through W&B's own record schema: one history step per game
    (points and the running leaderboard), per-agent summary scalars with intervals, the tables,
    figures, the run-results artifact, the resolved config; and no secret anywhere."""
    monkeypatch.delenv("WANDB_MODE", raising=False)
    monkeypatch.setenv("WANDB_DIR", str(tmp_path / "wandb_dir"))
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_PROJECT", "from-env")
    monkeypatch.setenv("WANDB_API_KEY", "secret-test-key-0123456789abcdef0123456789")
    path = tmp_path / "wb.yaml"
    path.write_text(yaml.safe_dump({**CONFIG, "output": str(tmp_path / "runs")}), encoding="utf-8")
    config = load_config(path)
    result = run_experiment(config, progress=False, wandb_mode="offline")
    run = result.wandb_dir
    assert run is not None and run.name.startswith("offline-run-"), run
    assert any(m.startswith("W&B offline run saved; upload it with: wandb sync ") for m in result.messages)
    data = read_offline_run(run)
    n_games = len(plan_games(config))
    per_game = [h for h in data["history"] if "game" in h and "games_done" in h]
    assert len(per_game) >= n_games
    assert sorted(h["game"] for h in per_game) == list(range(n_games))
    assert [h["games_done"] for h in per_game] == list(range(1, n_games + 1))  # logged as games finished
    board = result.tables["leaderboard"].set_index("agent")
    last = per_game[-1]
    for agent in ("random", "human"):
        assert last[f"leaderboard/{agent}"] == pytest.approx(board.loc[agent, "mean_points"])
    summary = data["summary"]
    for key in (
        "random/mean_points",
        "random/mean_points_ci_low",
        "random/mean_points_ci_high",
        "human/win_rate_ci_high",
        "random/wordlevel/mahalanobis_fail_rate",
        "random/wordlevel/mahalanobis_fail_rate_ci_low",
        "random/guess/hotelling_fail_rate",
    ):
        assert key in summary, key
    assert summary["random/mean_points"] == pytest.approx(board.loc["random", "mean_points"])
    assert summary["games_done"] == n_games
    assert {"tables/leaderboard", "tables/head_to_head", "tables/wordlevel_agents", "plots/leaderboard"} <= {
        k.rsplit("/", 1)[0] for k in summary
    }
    results = [a for a in data["artifacts"] if a["type"] == "run-results"]
    assert len(results) == 1, data["artifacts"]
    assert {"games.jsonl", "wordlevel.jsonl", "summary.json", "tables/leaderboard.parquet"} <= set(
        results[0]["files"]
    )
    # the human reference named in W&B config and summary, the self-scored replay flagged
    packaged = "Reconstructed cohort (316 simulated participants, not people)"
    assert summary["human_reference"] == packaged
    assert summary["self_scored"] == ["human-replay"]
    assert data["config"]["human_reference"]["description"] == packaged
    assert data["config"]["wandb"]["mode"] == "offline"  # the resolved config, not "disabled"
    assert data["config"]["wandb"]["project"] == "from-env"
    images = list((run / "files" / "media" / "images").rglob("*.png"))
    assert any(p.name.startswith("boards_") for p in images)
    for f in Path(run).rglob("*"):
        if f.is_file():
            assert b"secret-test-key" not in f.read_bytes(), f


@pytest.mark.integration  # W&B's service process
def test_resumed_run_logs_every_game_and_wandb_mode_env(tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_MODE", "disabled")
    path = tmp_path / "wb.yaml"
    path.write_text(yaml.safe_dump({**CONFIG, "output": str(tmp_path / "runs")}), encoding="utf-8")
    first = run_experiment(load_config(path), progress=False)
    assert first.wandb_dir is None  # WANDB_MODE=disabled honoured
    monkeypatch.setenv("WANDB_MODE", "offline")
    again = run_experiment(load_config(path), progress=False)
    assert again.stages[0].ran_now == 0
    data = read_offline_run(again.wandb_dir)
    assert sorted(h["game"] for h in data["history"] if "games_done" in h and "game" in h) == [0, 1]


def test_modes_and_redaction(monkeypatch, tmp_path):
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    monkeypatch.setenv("NETRC", str(tmp_path / "none"))
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_mode("auto") == "offline"
    monkeypatch.setenv("WANDB_API_KEY", "x" * 40)
    assert resolve_mode("auto") == "online"
    assert resolve_mode("disabled") == "disabled"
    with pytest.raises(ValueError, match="expected one of"):
        resolve_mode("loud")
    assert redact({"agents": {"a": {"kwargs": {"api_key": "k", "model": "m"}}}, "token": "t"}) == {
        "agents": {"a": {"kwargs": {"api_key": "***", "model": "m"}}},
        "token": "***",
    }
