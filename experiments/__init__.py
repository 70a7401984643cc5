"""Experiments: tournaments against replayed humans, the paper's word-level sweep, reports, W&B and Ray.

``huesenv tournament`` (module :mod:`huesenv.commands.tournament`) is the main job;
:func:`run_experiment` does the same from Python.  Configs are YAML files
(:mod:`huesenv.experiments.config`); runs resume from their append-only logs
(:mod:`huesenv.experiments.runner`).
"""

from huesenv.experiments.analysis import (
    guess_alignment,
    guess_queries,
    head_to_head,
    leaderboard,
    points_by_role,
    seat_games,
)
from huesenv.experiments.backends import InProcessBackend, RayBackend, Task, UnitWorker, make_backend
from huesenv.experiments.config import (
    AgentSpec,
    ExperimentConfig,
    apply_overrides,
    bundled_configs,
    load_config,
)
from huesenv.experiments.experiment import ExperimentResult, build_report_data, preflight, run_experiment
from huesenv.experiments.runner import (
    LogState,
    StageResult,
    canonical_log_lines,
    prepare_run_dir,
    read_log_state,
    run_games,
    run_wordlevel,
)
from huesenv.experiments.tournament import GamePlayer, GameUnit, derive_seed, plan_games

__all__ = [
    "AgentSpec",
    "ExperimentConfig",
    "ExperimentResult",
    "GamePlayer",
    "GameUnit",
    "InProcessBackend",
    "LogState",
    "RayBackend",
    "StageResult",
    "Task",
    "UnitWorker",
    "apply_overrides",
    "build_report_data",
    "bundled_configs",
    "canonical_log_lines",
    "derive_seed",
    "guess_alignment",
    "guess_queries",
    "head_to_head",
    "leaderboard",
    "load_config",
    "make_backend",
    "plan_games",
    "points_by_role",
    "prepare_run_dir",
    "preflight",
    "read_log_state",
    "run_experiment",
    "run_games",
    "run_wordlevel",
    "seat_games",
]
