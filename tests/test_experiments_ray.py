"""Ray backend: a local Ray with 2 workers gives the same games, scores and metrics as the in-process backend."""

from __future__ import annotations

import pytest
import yaml

from huesenv.experiments import canonical_log_lines, load_config, run_experiment
from huesenv.experiments.backends import RayBackend

pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("ray")]  # starts a local Ray cluster


@pytest.fixture(autouse=True, scope="module")
def ray():
    """Import Ray when these tests run, not when they are collected (collection stays fast)."""
    return pytest.importorskip("ray")


CONFIG = {
    "name": "ray",
    "seed": 11,
    "num_players": 3,
    "games": 3,
    "agents": {"random": {"spec": "random"}, "human": {"spec": "human-replay"}},
    "lineups": [["random", "human", "human"], ["random", "random", "human"]],
    "tournament": {"batch_size": 1},  # 6 tasks over 2 workers: results arrive out of order
    "wordlevel": {"enabled": True, "agents": ["random", "human"], "top_k": 5},
    "report": {"formats": ["markdown"], "board_images": 0},
}


@pytest.mark.slow
def test_ray_equals_in_process(tmp_path, ray):
    path = tmp_path / "ray.yaml"
    path.write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    local = run_experiment(load_config(path, [f"output={tmp_path / 'local'}"]), progress=False)
    backend = RayBackend(num_cpus=2, runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}})
    try:
        assert backend.describe().startswith("ray (local: 2 CPU")
        remote = run_experiment(
            load_config(path, [f"output={tmp_path / 'ray'}", "backend.name=ray"]),
            backend=backend,
            progress=False,
        )
    finally:
        backend.close()
    assert not ray.is_initialized()
    for log in ("games.jsonl", "wordlevel.jsonl"):  # same games, same order, same bytes (but wall clock)
        assert canonical_log_lines(local.run_dir / log) == canonical_log_lines(remote.run_dir / log)
    assert set(local.tables) == set(remote.tables)
    for name, table in local.tables.items():  # same scores and metrics
        assert table.equals(remote.tables[name]), name
