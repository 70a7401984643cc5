"""W&B tracking, offline: the run files hold the config, the tables and the images; no secrets."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from huesenv.experiments import load_config, run_experiment
from huesenv.experiments.tracking import redact, resolve_mode

pytest.importorskip("wandb")

pytestmark = pytest.mark.integration  # W&B offline runs

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


def test_offline_run_writes_tables_images_and_config(tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path / "wandb_dir"))
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_API_KEY", "secret-test-key-0123456789abcdef0123456789")
    path = tmp_path / "wb.yaml"
    path.write_text(yaml.safe_dump({**CONFIG, "output": str(tmp_path / "runs")}), encoding="utf-8")
    result = run_experiment(load_config(path), progress=False, wandb_mode="offline")
    run = result.wandb_dir
    assert run is not None and run.name.startswith("offline-run-"), run
    tables = {p.name.rsplit("_", 2)[0] for p in (run / "files" / "media" / "table").glob("*.table.json")}
    assert {
        "leaderboard",
        "head_to_head",
        "points_by_role",
        "guess_alignment",
        "wordlevel_agents",
        "wordlevel_words",
    } <= tables
    images = list((run / "files" / "media" / "images").rglob("*.png"))
    assert any(p.name.startswith("boards_") for p in images)
    assert any("leaderboard" in p.name for p in images)
    binary = next(run.glob("run-*.wandb")).read_bytes()
    for text in (b"human-replay", b"mean_points", b"wordlevel"):  # config and per-agent summary
        assert text in binary
    for f in Path(run).rglob("*"):
        if f.is_file():
            assert b"secret-test-key" not in f.read_bytes(), f


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
