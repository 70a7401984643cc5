"""Resumable runs: kill-and-resume, an interrupted append, determinism, and the report written from the logs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from huesenv.experiments import (
    InProcessBackend,
    canonical_log_lines,
    load_config,
    plan_games,
    read_log_state,
    run_experiment,
)
from huesenv.experiments.runner import GAMES_LOG, prepare_run_dir, run_games

SMALL = {
    "name": "small",
    "seed": 3,
    "num_players": 3,
    "games": 3,
    "agents": {"random": {"spec": "random"}, "human": {"spec": "human-replay"}},
    "lineups": [["random", "human", "human"], ["random", "random", "human"]],
    "tournament": {"batch_size": 2},
    "wordlevel": {"enabled": True, "agents": ["random", "human"], "top_k": 5},
    "report": {"formats": ["markdown", "html"], "board_images": 1},
}


def write_config(tmp_path: Path, **changes) -> Path:
    data = {**SMALL, "output": str(tmp_path / "runs"), **changes}
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def game_blocks(run_dir: Path) -> dict[str, list[str]]:
    """Unit key -> canonical lines of its complete block."""
    state = read_log_state(run_dir / GAMES_LOG)
    out = {}
    for key, recs in state.units.items():
        out[key] = [r.to_dict() for r in recs]
        for d in out[key]:
            d.pop("created"), d.pop("timings")
    return out


@pytest.mark.integration  # a whole experiment end to end
def test_run_writes_report_and_logs(tmp_path):
    config = load_config(write_config(tmp_path))
    result = run_experiment(config, progress=False)
    run_dir = result.run_dir
    assert [s.ran_now for s in result.stages] == [6, 2]
    for name in (
        "games.jsonl",
        "wordlevel.jsonl",
        "config.yaml",
        "report.md",
        "report.html",
        "summary.json",
        "plots/leaderboard.png",
        "plots/head_to_head.png",
        "tables/leaderboard.csv",
        "tables/leaderboard.parquet",
        "tables/seat_games.parquet",
    ):
        assert (run_dir / name).is_file(), name
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    for section in (
        "## Leaderboard",
        "## Head-to-head",
        "## Guess alignment",
        "## Word level: agents",
        "## Boards",
        "## Contents",
        "## Per lineup",
    ):
        assert section in md
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in html and "<img" in html and "plots/" not in html  # self-contained
    board = result.tables["leaderboard"]
    assert set(board["agent"]) == {"random", "human"}
    assert board["seat_games"].sum() == 6 * 3
    # the leaderboard totals equal the env's own scores
    from huesenv.experiments.tournament import GamePlayer

    unit = plan_games(config)[0]
    replay = GamePlayer(config).play(unit)
    games = read_log_state(run_dir / GAMES_LOG).units
    logged = {}
    for rec in games[f"game:{unit.game}"]:
        logged[rec.extra["player"]] = logged.get(rec.extra["player"], 0) + rec.extra["points"]
    assert logged == replay.scores


@pytest.mark.integration
def test_same_seed_same_log_bytes(tmp_path):
    a = run_experiment(load_config(write_config(tmp_path / "a")), progress=False)
    b = run_experiment(load_config(write_config(tmp_path / "b")), progress=False)
    for log in ("games.jsonl", "wordlevel.jsonl"):
        assert canonical_log_lines(a.run_dir / log) == canonical_log_lines(b.run_dir / log)
    c = run_experiment(load_config(write_config(tmp_path / "c", seed=4)), progress=False)
    assert canonical_log_lines(a.run_dir / "games.jsonl") != canonical_log_lines(c.run_dir / "games.jsonl")


@pytest.mark.integration
def test_rerun_resumes_and_says_so(tmp_path):
    path = write_config(tmp_path, games=2)
    first = run_experiment(load_config(path), progress=False)
    assert first.stages[0].ran_now == 4
    again = run_experiment(load_config(path, ["games=3"]), progress=False)
    assert (again.stages[0].done_before, again.stages[0].ran_now) == (4, 2)
    assert "resumed: 4 of 6 games" in again.messages[0]
    done = run_experiment(load_config(path, ["games=3"]), progress=False)
    assert done.stages[0].ran_now == 0 and "already in the log" in done.messages[0]
    # the report of a resumed run describes what it holds, and says that it was resumed
    md = (done.run_dir / "report.md").read_text(encoding="utf-8")
    assert "- Games: 6 games of 2 lineup(s)" in md and "nothing to run" not in md
    assert "all 6 games already in the log from an earlier run" in md
    summary = json.loads((done.run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["huesenv_version"] and len(summary["config_hash"]) == 64
    assert summary["libraries"]["numpy"] and summary["humans"]["kind"] == "reconstructed cohort"
    assert summary["humans"]["participants"] > 0 and "not people" in summary["humans"]["label"]
    assert "Human reference: Reconstructed cohort (316 simulated participants, not people)" in md
    reference = run_experiment(load_config(write_config(tmp_path / "ref")), progress=False)
    assert game_blocks(done.run_dir) == game_blocks(reference.run_dir)


@pytest.mark.integration  # a whole experiment end to end
def test_interrupted_append_is_set_aside_and_replayed(tmp_path):
    reference = run_experiment(load_config(write_config(tmp_path / "ref")), progress=False)
    ref_bytes = (reference.run_dir / GAMES_LOG).read_bytes()
    lines = ref_bytes.splitlines(keepends=True)
    # crash in the middle of the 3rd game's append: its first lines written, then half a line
    state = read_log_state(reference.run_dir / GAMES_LOG)
    sizes = [len(recs) for recs in state.units.values()]
    cut = sum(sizes[:2]) + sizes[2] // 2
    crashed = tmp_path / "crash"
    config = load_config(write_config(crashed))
    run_dir = prepare_run_dir(config)
    (run_dir / GAMES_LOG).write_bytes(b"".join(lines[:cut]) + lines[cut][: len(lines[cut]) // 2])
    with pytest.warns(UserWarning):
        result, final = run_games(config, InProcessBackend(), run_dir)
    assert (result.done_before, result.ran_now, result.partial_blocks) == (2, 4, 1)
    assert result.torn_line == cut + 1
    assert game_blocks(run_dir) == game_blocks(reference.run_dir)  # nothing lost, nothing twice
    assert len(final.units) == 6


@pytest.mark.integration
def test_other_experiment_in_run_folder_is_refused(tmp_path):
    path = write_config(tmp_path, games=1)
    run_experiment(load_config(path), progress=False)
    with pytest.raises(ValueError, match="field\\(s\\) seed: the run folder holds a different experiment"):
        run_experiment(load_config(path, ["seed=99"]), progress=False)
    fresh = run_experiment(load_config(path, ["seed=99"]), progress=False, fresh=True)
    assert fresh.stages[0].done_before == 0 and (fresh.run_dir / "games.jsonl.old").exists()


@pytest.mark.integration
def test_kill_and_resume_subprocess(tmp_path):
    """SIGKILL a real `huesenv tournament` mid-run, rerun the same command: every game once, same as unbroken."""
    path = write_config(
        tmp_path,
        games=12,
        wordlevel={"enabled": False, "agents": ["random"], "top_k": 5},
        report={"formats": ["markdown"], "board_images": 0},
    )
    cmd = [sys.executable, "-m", "huesenv", "tournament", str(path), "--no-progress"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    log = tmp_path / "runs" / "small" / GAMES_LOG
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if log.exists() and len(read_log_state(log).units) >= 3:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_at = len(read_log_state(log).units)
    assert 3 <= killed_at < 24
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"resumed: {killed_at} of 24 games" in out.stdout
    state = read_log_state(log)
    assert sorted(int(k.split(":")[1]) for k in state.units) == list(range(24))
    assert state.duplicate_blocks == 0
    # the same games as a run that was never killed (first 10 games compared to keep the test short)
    ref = run_experiment(
        load_config(
            write_config(
                tmp_path / "ref", games=5, wordlevel={"enabled": False, "agents": ["random"], "top_k": 5}
            )
        ),
        progress=False,
    )
    ref_blocks = game_blocks(ref.run_dir)
    resumed = game_blocks(log.parent)
    assert len(ref_blocks) == 10 and all(resumed[k] == v for k, v in ref_blocks.items())


def test_wordlevel_keeps_config_agents_sharing_an_agent_id_apart(tmp_path):
    from huesenv.experiments.wordlevel import run_wordlevel_unit
    from huesenv.metrics import answer_sets

    agents = {**SMALL["agents"], "random_b": {"spec": "random"}}
    config = load_config(
        write_config(
            tmp_path, agents=agents, wordlevel={"enabled": True, "agents": ["random", "random_b"], "top_k": 5}
        )
    )
    records = run_wordlevel_unit(config, "random") + run_wordlevel_unit(config, "random_b")
    assert {r.agent_id for r in records} == {records[0].agent_id}  # one model id ...
    assert {r.extra["config_agent"] for r in records} == {"random", "random_b"}
    sets = answer_sets(records)
    assert {agent for agent, _ in sets} == {"random", "random_b"}  # ... two agents in the metrics
    assert all(e.agent_id == records[0].agent_id for e in sets.values())
