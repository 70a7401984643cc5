"""``huesenv train``: learning agents — a guesser, a cue giver, self-play — and train-evaluate-report experiments.

* ``huesenv train guesser`` — sb3-contrib MaskablePPO on ``huesenv/Guesser-v1``
  (replayed-human cue givers by default); ``--fast``: the single-file PPO on the
  vectorised guesser env (``--device auto``: GPU when present, else CPU);
* ``huesenv train cue-giver`` — MaskablePPO on ``huesenv/CueGiver-v1`` (replayed-human guessers);
* ``huesenv train selfplay`` — a cue giver and guessers from scratch, no human data
  (``--nonsense`` adds the 16 nonsense inputs to the vocabulary), with the
  emergent-lexicon metrics and figure;
* ``huesenv train experiment CONFIG`` — train, evaluate (tournament, word level,
  reference lines) and report in one command (bundled: ``learned_guesser``,
  ``learned_guesser_sb3``, ``learned_cue_giver``, ``selfplay``);
* ``huesenv train heldout`` — k folds of held-out words (stratified by category):
  an embedding-cue guesser trained per fold on the training part of a participant
  split, scored beside the lookup/nearest-word baseline, text-embedding, random
  and people on the evaluation part (95 % intervals, per category and pooled).

Learned guessers (``--fast``) train on the *training part* of a seeded
participant split of the human reference (``--set holdout=none`` for all of it;
``--set word_folds=5 --set word_fold=0`` also holds out words); the split is
recorded in the checkpoint and ``train.json`` (:mod:`huesenv.humans.splits`).

Every run is seeded and writes to ``--out`` (default ``runs/train/<kind>-seed<N>``):
the policy (``policy.pt`` or ``model.zip``, playable as ``policy:PATH``),
``curve.csv``, ``train.json``.  Rerunning the same command resumes from the last
checkpoint; ``--fresh`` starts over (the old folder is kept as ``<out>.old-<time>``).
Metrics go to the terminal, ``curve.csv``, and W&B (``--tracker wandb``, offline by
default) or TensorBoard (``--tracker tensorboard``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from huesenv.agents.registry import agent_kind
from huesenv.commands.common import (
    add_allow_code,
    add_device,
    add_humans,
    add_out,
    add_overrides,
    add_progress,
    add_seed,
    positive_float,
    positive_int,
    progress_enabled,
)
from huesenv.experiments.rl.heldout import run as run_heldout
from huesenv.experiments.rl.pipeline import load_training_config, run_training_experiment, set_aside, train
from huesenv.experiments.rl.ppo_fast import FastPPOConfig
from huesenv.experiments.rl.ppo_fast_cue import FastCueConfig
from huesenv.experiments.rl.sb3_train import SB3Config
from huesenv.experiments.rl.selfplay import SelfPlayConfig
from huesenv.validation import parse_yaml_value

KINDS = ("guesser", "cue-giver", "selfplay")


TRAIN_DEVICE_HELP = "torch device the trainer runs on: auto (a GPU when present) | cpu | cuda[:n] | mps"

KIND_HELP = {  # kind -> (help, description)
    "guesser": (
        "train a guesser (MaskablePPO; --fast: the single-file PPO)",
        "Train a guesser on huesenv/Guesser-v1 against replayed-human cue givers (sb3-contrib MaskablePPO; "
        "--fast: the single-file PPO on the vectorised env).",
    ),
    "cue-giver": (
        "train a cue giver (MaskablePPO)",
        "Train a cue giver on huesenv/CueGiver-v1 against replayed-human guessers (MaskablePPO; --fast: "
        "the single-file PPO).",
    ),
    "selfplay": (
        "train a cue giver and guessers together from scratch (no human data)",
        "Train a cue giver and guessers together from scratch, without human data (--nonsense adds the 16 "
        "nonsense inputs), with the emergent-lexicon metrics and figure.",
    ),
}
RUN_NOTE = (
    "Seeded; writes the policy (playable as policy:PATH), curve.csv and train.json to --out; rerunning "
    "resumes, --fresh starts over."
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train learning agents (guesser, cue giver, self-play) and run train-evaluate-report experiments",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmds = p.add_subparsers(dest="train_command", metavar="WHAT")
    cmds.required = True
    for kind in KINDS:
        short, description = KIND_HELP[kind]
        q = cmds.add_parser(kind, help=short, description=f"{description} {RUN_NOTE}")
        _common(q)
        if kind in ("guesser", "cue-giver"):
            q.add_argument(
                "--fast", action="store_true", help="single-file PPO (torch) on the full vectorised game"
            )
            q.add_argument("--num-envs", type=positive_int, help="--fast: parallel games")
        if kind in ("guesser", "cue-giver"):
            q.add_argument(
                "--opponents",
                help="spec of the other seats (default human-replay; e.g. text-embedding, policy:PATH)",
            )
            q.add_argument(
                "--cue-encoding",
                choices=("index", "embedding"),
                help="cue as a vocabulary index, or as a text-encoder vector (reads any word or phrase)",
            )
        if kind == "guesser":
            q.add_argument(
                "--text-encoder",
                metavar="NAME",
                help="--fast --cue-encoding embedding: minilm (default, packaged), hash[:DIM], "
                "sentence-transformers:FOLDER",
            )
        if kind == "selfplay":
            q.add_argument(
                "--nonsense", action="store_true", help="add the 16 nonsense inputs to the vocabulary"
            )
            q.add_argument("--guessers", type=positive_int, help="guessers per game (default 3)")
        q.set_defaults(func=run_train, kind=kind)
    e = cmds.add_parser(
        "experiment",
        help="train, evaluate and report from one config",
        description="Train, evaluate (tournament, word level, reference lines) and report from one config "
        "(bundled: learned_guesser, learned_guesser_sb3, learned_cue_giver, selfplay); rerunning resumes.",
    )
    e.add_argument("config", help="YAML config or bundled name (learned_guesser, selfplay, ...)")
    add_overrides(e, help="override a config value (dotted keys), e.g. --set train.params.total_steps=10000")
    e.add_argument("--fresh", action="store_true", help="start over (old run folder kept as *.old-<time>)")
    add_progress(e)
    e.add_argument(
        "--wandb", choices=("online", "offline", "disabled"), help="W&B mode for training and tournament"
    )
    add_allow_code(e)
    e.set_defaults(func=run_experiment_cmd)
    h = cmds.add_parser(
        "heldout",
        help="k folds of held-out words: the embedding-cue guesser vs lookup, text-embedding, random and people",
        description="Train an embedding-cue guesser per fold of held-out words (stratified by category) on the "
        "training part of a participant split, and score it, the lookup/nearest-word baseline, text-embedding "
        "zero-shot, random and people's leave-one-out rate on the held-out words against the evaluation part "
        "(see huesenv.experiments.rl.heldout).",
    )
    add_out(h, help="output folder (default runs/heldout-seed<N>)")
    add_seed(h)
    add_humans(h)
    h.add_argument("--folds", type=positive_int, default=5, help="word folds (default 5)")
    h.add_argument(
        "--steps", type=positive_int, default=1_000_000, help="training steps per fold (default 1e6)"
    )
    h.add_argument("--num-envs", type=positive_int, default=1024, help="parallel decisions (default 1024)")
    h.add_argument("--text-encoder", default="minilm", metavar="NAME", help="cue encoder (default minilm)")
    h.add_argument(
        "--corpus",
        default="xkcd+color-name-list",
        metavar="NAME|CSV",
        help="naming corpus of the distributional guesser: xkcd, color-name-list, both joined by '+', "
        "or a CSV (name + hex | r,g,b | L,a,b); default xkcd+color-name-list",
    )
    add_device(h, help=TRAIN_DEVICE_HELP)
    h.add_argument("--threads", type=positive_int, help="torch CPU threads")
    h.add_argument(
        "--baselines-only",
        action="store_true",
        help="score the baselines (and --answers tables), train nothing",
    )
    h.add_argument(
        "--answers",
        nargs="+",
        default=[],
        metavar="FILE",
        help="answer tables (.csv: Palabra,Answer1..AnswerN, e.g. published VLM answers) scored as extra rows",
    )
    add_progress(h)
    h.set_defaults(func=run_heldout_cmd)


def _common(q: argparse.ArgumentParser) -> None:
    add_out(q, help="run folder (default runs/train/<kind>-seed<N>)")
    add_seed(q)
    q.add_argument("--steps", type=positive_int, help="environment steps (self-play: rounds of the game)")
    q.add_argument(
        "--time-budget",
        type=positive_float,
        metavar="MINUTES",
        help="stop before this much time has passed (on the --budget-clock)",
    )
    q.add_argument(
        "--budget-clock",
        choices=("wall", "cpu"),
        help="the clock --time-budget is read on: wall (default) or cpu (the process's CPU time, all threads)",
    )
    add_device(q, help=TRAIN_DEVICE_HELP)
    add_allow_code(q)
    q.add_argument("--threads", type=positive_int, help="torch CPU threads")
    q.add_argument(
        "--tracker",
        choices=("wandb", "tensorboard", "none"),
        default="wandb",
        help="metrics tracker besides the terminal and curve.csv (default wandb, offline)",
    )
    q.add_argument(
        "--wandb",
        dest="wandb_mode",
        choices=("online", "offline", "disabled"),
        default="offline",
        help="W&B mode (default offline: files under <out>/wandb, upload with `wandb sync`)",
    )
    add_overrides(q, help="trainer hyper-parameter (e.g. --set learning_rate=0.001), repeatable")
    q.add_argument("--fresh", action="store_true", help="start over (old folder kept as <out>.old-<time>)")
    add_progress(q)


def parse_sets(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, pair in enumerate(pairs or [], start=1):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set #{i} {pair!r}: expected key=value")
        out[key.strip()] = parse_yaml_value(value, f"--set #{i} {pair!r}")
    return out


def _table_opponents(args: argparse.Namespace, params: dict[str, Any]) -> None:
    """``--opponents`` of a ``--fast`` trainer: the vectorised game plays opponents from tables."""
    if args.opponents is not None:
        if args.opponents.partition(":")[0] not in ("human-replay", "text-embedding", "random"):
            raise ValueError(
                f"--opponents {args.opponents!r}: --fast plays table opponents: human-replay, text-embedding or random"
            )
        params["opponents"] = args.opponents


def trainer_config(kind: str, args: argparse.Namespace) -> tuple[str, Any]:
    """The trainer name and its config object from the command line."""
    params = parse_sets(args.overrides)
    flags = {
        "seed": "--seed",
        "device": "--device",
        "role": "the subcommand",
        "torch_threads": "--threads",
        "budget_clock": "--budget-clock",
    }
    for key, flag in flags.items():  # the command line sets these; a --set would be silently replaced
        if key in params:
            raise ValueError(f"--set {key}=...: {key} is set by {flag}; use that instead")
    if args.steps is not None:
        params["total_games" if kind == "selfplay" else "total_steps"] = args.steps
    if args.time_budget is not None:
        params["time_budget_s"] = args.time_budget * 60.0
    if args.budget_clock is not None:
        params["budget_clock"] = args.budget_clock
    params["seed"], params["device"] = args.seed, args.device or "auto"
    if args.threads:
        params["torch_threads"] = args.threads
    if kind == "selfplay":
        if args.nonsense:
            params["vocabulary"] = "words+nonsense"
        if args.guessers is not None:
            params["guessers"] = args.guessers
        return "selfplay", SelfPlayConfig.from_dict(params, source="huesenv train selfplay")
    if kind == "guesser" and args.fast:
        if args.num_envs is not None:
            params["num_envs"] = args.num_envs
        _table_opponents(args, params)
        if args.cue_encoding is not None:
            params["cue_encoding"] = args.cue_encoding
        if args.text_encoder is not None:
            params["text_encoder"] = args.text_encoder
        return "guesser-fast", FastPPOConfig.from_dict(params, source="huesenv train guesser --fast")

    if getattr(args, "text_encoder", None) is not None:
        raise ValueError("--text-encoder: only with --fast --cue-encoding embedding")
    if kind == "cue-giver" and args.fast:
        if args.num_envs is not None:
            params["num_envs"] = args.num_envs
        _table_opponents(args, params)
        if args.cue_encoding not in (None, "index"):
            raise ValueError("--fast: the speaker net reads the target cell; --cue-encoding does not apply")
        return "cue-giver-fast", FastCueConfig.from_dict(params, source="huesenv train cue-giver --fast")

    env_kwargs = dict(params.pop("env_kwargs", None) or {})
    if args.opponents:
        agent_kind(args.opponents)  # an unknown kind is refused before the tracker (a W&B run) starts
        env_kwargs["opponents"] = args.opponents
    if args.cue_encoding:
        env_kwargs["cue_encoding"] = args.cue_encoding
    params["env_kwargs"] = env_kwargs
    params["role"] = "cue_giver" if kind == "cue-giver" else "guesser"
    return kind, SB3Config.from_dict(params, source=f"huesenv train {kind}")


def run_train(args: argparse.Namespace) -> int:
    name, cfg = trainer_config(args.kind, args)
    out = Path(args.out or f"runs/train/{name}-seed{args.seed}")
    if args.fresh:
        old = set_aside(out)
        if old:
            print(f"--fresh: previous run kept as {old}")
    try:
        summary = train(
            name,
            cfg,
            out,
            tracker=args.tracker,
            wandb_mode=args.wandb_mode,
            progress=progress_enabled(args),
        )
    except KeyboardInterrupt:
        print(f"interrupted: the last checkpoint is in {out}; rerun the same command to resume")
        return 130
    print(_summary_line(summary))
    return 0


def _summary_line(summary: dict[str, Any]) -> str:
    steps = summary.get("steps", summary.get("games"))
    parts = [
        f"{summary['trainer']}: {steps:,} {'games' if 'games' in summary else 'steps'}",
        f"wall {summary['wall_s']:.1f} s",
        f"CPU {summary['cpu_s']:.1f} s",
        f"device {summary['device']}",
    ]
    if "final_eval_points" in summary:
        unit = summary.get("eval_unit", "greedy points/decision")
        parts.append(f"{unit} {summary['final_eval_points']:.3f}")
    if "lexicon" in summary:
        lex = summary["lexicon"]
        parts.append(
            f"words used {lex['words_used']}, fail rate {lex['mahalanobis_fail_rate']:.2f} "
            f"(null {lex['null_fail_rate_mean']:.2f})"
        )
    if summary.get("split"):
        parts.append(f"trained on the training part of split {summary['split']['fingerprint']}")
    elif summary.get("trainer") == "ppo_fast" and summary.get("split_fingerprint") == "none":
        parts.append("trained on every human answer (holdout=none)")
    parts.append(f"policy: policy:{summary['policy']}")
    return "; ".join(parts)


def run_experiment_cmd(args: argparse.Namespace) -> int:
    config = load_training_config(args.config, args.overrides)
    try:
        result = run_training_experiment(
            config, fresh=args.fresh, progress=progress_enabled(args), wandb_mode=args.wandb
        )
    except KeyboardInterrupt:
        print("interrupted: rerun the same command to resume")
        return 130
    print(f"report: {result['report']}")
    return 0


def run_heldout_cmd(args: argparse.Namespace) -> int:
    if args.folds < 2:
        raise ValueError(f"--folds {args.folds}: expected at least 2")
    out = Path(args.out or f"runs/heldout-seed{args.seed}")
    result = run_heldout(
        out,
        folds=args.folds,
        seed=args.seed,
        steps=args.steps,
        num_envs=args.num_envs,
        text_encoder=args.text_encoder,
        humans_path=args.humans,
        device=args.device or "auto",
        threads=args.threads,
        progress=progress_enabled(args),
        train=not args.baselines_only,
        answers=args.answers,
        distributional=not args.baselines_only,  # baselines only: nothing is trained
        corpus=args.corpus,
    )
    print((out / "heldout.md").read_text(encoding="utf-8"))
    print(f"verdict: {result['verdict']}")
    return 0
