"""Train → evaluate → report in one command (``huesenv train experiment CONFIG``), and the trainer dispatch.

Config (YAML; bundled ones in ``experiments/configs/``; unknown keys are errors).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.rl.pipeline``.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from huesenv.experiments.config import ExperimentConfig, apply_overrides, load_config
from huesenv.experiments.experiment import run_experiment
from huesenv.experiments.rl.harness import TrainerConfig, load_state, read_json
from huesenv.experiments.rl.human_data import write_parts
from huesenv.experiments.rl.logger import TrainLogger
from huesenv.experiments.rl.ppo_fast import FastPPOConfig, train_fast
from huesenv.experiments.rl.ppo_fast_cue import FastCueConfig, train_fast_cue
from huesenv.experiments.rl.references import gym_references, vector_references
from huesenv.experiments.rl.report import write_training_report
from huesenv.experiments.rl.sb3_train import SB3Config, train_sb3
from huesenv.experiments.rl.sb3_train import read_state as read_sb3_state
from huesenv.experiments.rl.selfplay import SelfPlayConfig, train_selfplay
from huesenv.experiments.runner import changed_policy_files
from huesenv.validation import StrictModel, dump_yaml, line_at, load_yaml_file, validate, yaml_lines

TRAINERS = ("guesser-fast", "cue-giver-fast", "guesser", "cue-giver", "selfplay")
# trainers that learn from (or next to) replayed human answers: they train on a split's training part
HUMAN_DATA_TRAINERS = ("guesser-fast", "guesser", "cue-giver", "cue-giver-fast")
Trainer = Literal["guesser-fast", "cue-giver-fast", "guesser", "cue-giver", "selfplay"]


class TrainSection(StrictModel):
    trainer: Trainer = Field(json_schema_extra={"expected": f"one of {TRAINERS}"})
    params: dict[str, Any] = Field(default_factory=dict)  # the trainer's own config checks these
    tracker: Literal["wandb", "tensorboard", "none"] = "none"
    wandb_mode: Literal["online", "offline", "disabled"] = "offline"


class ReferencesSection(StrictModel):
    agents: list[str] = Field(default_factory=lambda: ["random", "text-embedding", "human-replay"])
    episodes: int = Field(default=20, ge=1, json_schema_extra={"expected": "a positive integer"})


class EvaluateSection(StrictModel):
    tournament: bool = True
    base: str = "default"
    games: int = Field(default=24, ge=1, json_schema_extra={"expected": "a positive integer"})
    lineups: list[list[str]] = Field(default_factory=lambda: [["learned", "human", "human", "human"]])
    wordlevel: bool = True
    allow_trained_on: bool = False  # score the policy on answers it trained on (labelled in the report)


class TrainingSchema(StrictModel):
    """A training-experiment config (see the module docstring); ``train.params`` go to the trainer's config."""

    name: str = Field(min_length=1, json_schema_extra={"expected": "a non-empty string"})
    output: str = "runs"
    seed: int = Field(default=0, ge=0, json_schema_extra={"expected": "a non-negative integer"})
    train: TrainSection
    references: ReferencesSection = Field(default_factory=lambda: ReferencesSection())
    evaluate: EvaluateSection = Field(default_factory=lambda: EvaluateSection())


DEFAULTS: dict[str, Any] = {
    "output": "runs",
    "seed": 0,
    "train": {"params": {}, "tracker": "none", "wandb_mode": "offline"},
    "references": ReferencesSection().model_dump(),
    "evaluate": EvaluateSection().model_dump(),
}


def _config_path(source: str) -> Path:
    path = Path(source)
    if path.suffix in (".yaml", ".yml") or path.exists():
        if not path.is_file():
            raise FileNotFoundError(f"training config {path}: no such file")
        return path
    from importlib import resources

    ref = resources.files("huesenv.experiments") / "configs" / f"{source}.yaml"
    if not ref.is_file():
        raise ValueError(f"training config {source!r}: neither a file nor a bundled config name")
    return Path(str(ref))


def load_training_config(source: str, overrides: Iterable[str] = ()) -> dict[str, Any]:
    """Read, default, override (``key.sub=value``) and validate a training-experiment config."""

    path = _config_path(source)
    data = load_yaml_file(path) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}, line 1: expected a mapping at the top level")
    lines = yaml_lines(path.read_text(encoding="utf-8"))
    merged = copy.deepcopy(DEFAULTS)
    for key, value in data.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key].update(value)
        else:
            merged[key] = value
    merged = apply_overrides(merged, overrides)
    for text in overrides:  # an overridden key's value comes from the command line, not from a file line
        keys = tuple(text.split("=", 1)[0].strip().split("."))
        lines = {p: n for p, n in lines.items() if p[: len(keys)] != keys and keys[: len(p)] != p}
    _validate(merged, str(path), lines)
    merged["_source"] = str(path)
    return merged


def _validate(
    cfg: Mapping[str, Any], source: str, lines: Mapping[tuple[str, ...], int] | None = None
) -> None:
    checked = validate(
        TrainingSchema,
        {k: v for k, v in cfg.items() if k != "_source"},
        source,
        where=lambda loc: line_at(lines or {}, loc),
        quote_field=True,
    )
    params = dict(checked.train.params)
    at = _params_line(checked.train.trainer, params, checked.seed, lines or {})
    trainer_from_params(checked.train.trainer, params, checked.seed, f"{source}{at}")


# the trainer config each pipeline trainer reads from ``train.params`` (SB3's two roles share one)
TRAINER_CONFIGS: dict[str, type[TrainerConfig]] = {
    "guesser-fast": FastPPOConfig,
    "cue-giver-fast": FastCueConfig,
    "selfplay": SelfPlayConfig,
    "guesser": SB3Config,
    "cue-giver": SB3Config,
}


def _trainer_data(trainer: str, params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """``train.params`` as its trainer config's fields: the top-level seed, and SB3's role from the trainer."""
    data = {**params, "seed": seed}
    if TRAINER_CONFIGS[trainer] is SB3Config:
        data["role"] = "cue_giver" if trainer == "cue-giver" else "guesser"
    return data


def _params_line(
    trainer: str, params: Mapping[str, Any], seed: int, lines: Mapping[tuple[str, ...], int]
) -> str:
    """``", line N"`` of the ``train.params`` key at fault (an unknown key first, then a bad value), else of
    ``params:`` itself."""
    model = TRAINER_CONFIGS[trainer]
    unknown = sorted(str(k) for k in params if str(k) not in model.model_fields)
    if unknown:
        return line_at(lines, ("train", "params", unknown[0]))
    try:
        model(**_trainer_data(trainer, params, seed))
    except ValidationError as err:
        first = err.errors()[0]
        field = [str(p) for p in first["loc"][:1]]
        if not field:  # a cross-field check names its field first ("Value error, guessers: expected ...")
            named = str(first["msg"]).removeprefix("Value error, ").split(":", 1)[0].strip()
            field = [named] if named in model.model_fields else []
        return line_at(lines, ("train", "params", *field))
    return line_at(lines, ("train", "params"))


def trainer_from_params(trainer: str, params: dict[str, Any], seed: int, source: str = "config") -> Any:
    return TRAINER_CONFIGS[trainer].from_dict(
        _trainer_data(trainer, params, seed), source=f"{source}: train.params"
    )


def train(
    name: str,
    cfg: Any,
    out: str | Path,
    *,
    tracker: str = "none",
    wandb_mode: str = "offline",
    progress: bool = True,
) -> dict[str, Any]:
    """Run one trainer into ``out`` with a logger (terminal, ``curve.csv``, W&B/TensorBoard)."""
    out = Path(out)
    resume_step = _resume_step(out)
    logger = TrainLogger(
        out,
        tracker=tracker,
        wandb_mode=wandb_mode,
        config={"trainer": name, **cfg.to_dict()},
        name=f"{name}-{out.name}",
        resume_step=resume_step,
        quiet=not progress,
    )
    try:
        if name == "guesser-fast":
            summary = train_fast(cfg, out, logger=logger, progress=progress)
        elif name == "cue-giver-fast":
            summary = train_fast_cue(cfg, out, logger=logger, progress=progress)
        elif name == "selfplay":
            summary = train_selfplay(cfg, out, logger=logger, progress=progress)
        else:
            summary = train_sb3(cfg, out, logger=logger, progress=progress)
        logger.summary({k: v for k, v in summary.items() if isinstance(v, (int, float, str))})
    finally:
        logger.close()
    return summary


def _resume_step(out: Path) -> int:
    """The step a rerun resumes from (rows of ``curve.csv`` past it are dropped); errors name the file."""
    if (out / "model.zip").exists():
        return int(read_sb3_state(out / "model.zip")["steps"])
    state = out / "trainer_state.pt"
    if state.exists():
        data = load_state(state)
        if "global_step" in data:
            return int(data["global_step"])
        return int(data.get("update", 0)) * int(data.get("config", {}).get("num_games", 1))
    return 0


def set_aside(out: Path) -> Path | None:
    """Move an existing run folder to ``<out>.old-<time>`` (``--fresh`` never deletes results)."""
    if not out.exists():
        return None
    target = out.with_name(f"{out.name}.old-{time.strftime('%Y%m%d-%H%M%S')}")
    out.rename(target)
    return target


def policy_path(trainer: str, train_dir: Path) -> Path:
    """``model.zip`` for the SB3 trainers, ``policy.pt`` for the fast and self-play ones."""
    return train_dir / ("model.zip" if trainer in ("guesser", "cue-giver") else "policy.pt")


def run_training_experiment(
    cfg: Mapping[str, Any], *, fresh: bool = False, progress: bool = True, wandb_mode: str | None = None
) -> dict[str, Any]:
    """Train, compute reference lines, play the tournament, and write the training report."""

    run_dir = Path(cfg["output"]) / cfg["name"]
    if fresh and run_dir.exists():
        print(f"--fresh: previous run kept as {set_aside(run_dir)}")
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(dump_yaml({k: v for k, v in cfg.items() if k != "_source"}))
    trainer = cfg["train"]["trainer"]
    tcfg = trainer_from_params(trainer, dict(cfg["train"]["params"]), int(cfg["seed"]))
    ev = cfg["evaluate"]
    if (
        trainer in HUMAN_DATA_TRAINERS
        and getattr(tcfg, "cue_source", "humans") == "humans"
        and tcfg.holdout == "none"
        and ev.get("tournament", True)
        and not ev.get("allow_trained_on")
    ):
        raise ValueError(
            f"{cfg.get('_source', 'config')}: train.params.holdout=none trains on every answer, so the "
            "evaluation would score the policy on its training data; keep the split or set "
            "evaluate.allow_trained_on: true (labelled in the report)"
        )
    train_dir = run_dir / "train"
    summary = train(
        trainer,
        tcfg,
        train_dir,
        tracker=cfg["train"].get("tracker", "none"),
        wandb_mode=wandb_mode or cfg["train"].get("wandb_mode", "offline"),
        progress=progress,
    )
    references = compute_references(trainer, tcfg, cfg["references"], run_dir)
    # the tournament's replayed humans and the metrics' reference: the split's evaluation part only
    parts = write_parts(tcfg, run_dir / "split") if trainer in HUMAN_DATA_TRAINERS else None
    if parts is not None:
        summary["evaluation_part"] = parts
    tournament = None
    if ev.get("tournament", True) and trainer != "selfplay":
        tournament = run_tournament(
            cfg, policy_path(trainer, train_dir), run_dir, progress, wandb_mode, parts
        )
    report = write_training_report(run_dir, trainer, summary, references, tournament)
    return {"summary": summary, "references": references, "tournament": tournament, "report": report}


def compute_references(trainer: str, tcfg: Any, ref_cfg: Mapping[str, Any], run_dir: Path) -> dict[str, Any]:
    """Reference points of fixed agents in the training env (cached in ``references.json``)."""
    path = run_dir / "references.json"
    agents = list(ref_cfg.get("agents") or [])
    episodes = int(ref_cfg.get("episodes", 20))
    key = {"trainer": trainer, "agents": agents, "episodes": episodes}
    if path.exists():
        cached = read_json(path)
        if cached.get("key") == key:
            return cached
    if trainer in ("selfplay", "cue-giver-fast") or not agents:
        # self-play has no fixed opponent to compare with; the fast cue giver's curve is points per round
        # given, a unit no fixed agent is measured in here (its tournament shows the agents side by side)
        result = {"key": key, "unit": "", "points": {}}
    elif trainer == "guesser-fast":
        result = {
            "key": key,
            "unit": "points per decision (eval batch)",
            "points": vector_references(agents, tcfg),
        }
    else:
        result = {
            "key": key,
            "unit": "points per game",
            "points": gym_references(agents, tcfg, episodes=episodes),
        }
    path.write_text(json.dumps(result, indent=1) + "\n")
    return result


def run_tournament(
    cfg: Mapping[str, Any],
    policy: Path,
    run_dir: Path,
    progress: bool,
    wandb_mode: str | None,
    parts: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The base tournament with the learned agent (``learned``) added to its agents, lineups and word level.

    With ``parts`` (:func:`~huesenv.experiments.rl.human_data.write_parts`) the
    human reference (replayed humans and the metrics) is the split's evaluation
    part, and the lookup baseline (``lookup``: the training part's cells per
    word and its cues) joins the word level and plays a copy of each learned
    lineup in the learned agent's seat.
    """

    ev = cfg["evaluate"]
    base = load_config(ev.get("base", "default"))
    data = copy.deepcopy(base.data)
    data["name"] = "tournament"
    data["output"] = str(run_dir)
    data["seed"] = int(cfg["seed"])
    data["games"] = int(ev.get("games", data["games"]))
    data["agents"]["learned"] = {"spec": f"policy:{policy.resolve()}"}
    data["lineups"] = [list(lu) for lu in ev.get("lineups", [])] + data["lineups"]
    data["wordlevel"]["enabled"] = bool(ev.get("wordlevel", True))
    data["wordlevel"]["agents"] = [
        "learned",
        *[a for a in data["wordlevel"].get("agents", []) if a != "learned"],
    ]
    if ev.get("allow_trained_on"):
        data.setdefault("humans", {})["allow_trained_on"] = True
    if parts is not None:
        data.setdefault("humans", {})["path"] = str(Path(parts["evaluation"]).resolve())
        data["agents"]["lookup"] = {"spec": f"lookup:{Path(parts['train']).resolve()}"}
        data["wordlevel"]["agents"].insert(1, "lookup")
        # the simplest agent on the same data sits where the learned one sat, so the games compare them
        learned = [lu for lu in ev.get("lineups", []) if "learned" in lu]
        data["lineups"] += [["lookup" if a == "learned" else a for a in lu] for lu in learned]
    config = ExperimentConfig.from_dict(
        data, source=f"{cfg.get('_source', 'config')} (base {ev.get('base')})"
    )
    restart = bool(changed_policy_files(config))
    if restart:  # retrained (more steps) or replaced: the old games belong to another checkpoint
        print(f"tournament: {policy} changed since its games were played; restarting the tournament")
    result = run_experiment(config, fresh=restart, progress=progress, wandb_mode=wandb_mode or "disabled")
    return {
        "run_dir": str(result.run_dir),
        "reports": {k: str(v) for k, v in result.reports.items()},
        "tables": result.tables,
        "elapsed_s": result.elapsed_s,
    }
