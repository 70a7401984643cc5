"""What the fast guesser trainer learns from and is checked on: the human split and the cue encoding.

Why a module of its own: the trainer (:mod:`~huesenv.experiments.rl.ppo_fast`)
is about PPO; which human answers it may see, which words it trains on and
how a cue becomes a network input are data decisions, made here once and
recorded in the checkpoint.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.rl.human_data``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from pydantic import model_validator

from huesenv.experiments.rl.harness import TrainerConfig
from huesenv.humans import HumanResponses, load_humans
from huesenv.humans.splits import DataSplit, training_record

HOLDOUTS = ("participants", "none")


class HumanSplitConfig(TrainerConfig):
    """The fields of every trainer that learns from replayed human answers: which split it keeps for
    evaluation (:func:`make_split`).  One definition, so the guesser and cue-giver trainers (fast and
    SB3) split the cohort the same way and check the same values."""

    holdout: str = "participants"
    split_seed: int = 0
    eval_fraction: float = 0.5
    word_folds: int | None = None
    word_fold: int = 0

    SPLIT_FIELDS: ClassVar[tuple[str, ...]] = (
        "holdout",
        "split_seed",
        "eval_fraction",
        "word_folds",
        "word_fold",
    )

    @model_validator(mode="after")
    def _check_split(self) -> HumanSplitConfig:
        if self.holdout not in HOLDOUTS:
            raise ValueError(f"holdout: expected one of {HOLDOUTS}, got {self.holdout!r}")
        if not 0.0 < self.eval_fraction < 1.0:
            raise ValueError(
                f"eval_fraction: expected a number strictly between 0 and 1, got {self.eval_fraction!r}"
            )
        if self.word_folds is not None and not 0 <= int(self.word_fold) < int(self.word_folds):
            raise ValueError(f"word_fold: expected 0..{int(self.word_folds) - 1}, got {self.word_fold!r}")
        return self


@dataclass
class GuesserData:
    """The training and evaluation cue words, their human target cells, and the split they come from."""

    train_words: tuple[str, ...]
    train_cells: list[np.ndarray] | None
    eval_words: tuple[str, ...]
    eval_cells: list[np.ndarray] | None
    split: DataSplit | None
    record: dict[str, Any] | None  # what the checkpoint records (huesenv.humans.splits.training_record)

    @property
    def eval_label(self) -> str:
        if self.split is None:
            return "the training answers themselves (no evaluation part)"
        return self.split.part_label("evaluation")


def cells_of(words: Sequence[str], humans: HumanResponses) -> list[np.ndarray]:
    """Per word, the cells people chose for it (``ValueError`` naming a word nobody in ``humans`` answered)."""
    known = set(humans.words)
    missing = [w for w in words if w not in known]
    if missing:
        raise ValueError(f"humans {humans.source}: no answers for word(s) {missing[:5]}")
    return [np.asarray(humans.cells(w), dtype=np.int64) for w in words]


def make_split(cfg: Any, humans: HumanResponses) -> DataSplit | None:
    """The split ``cfg`` asks for (``None`` for ``holdout="none"``)."""
    if cfg.holdout == "none":
        return None
    split = DataSplit.of(humans, seed=int(cfg.split_seed), eval_fraction=float(cfg.eval_fraction))
    if cfg.word_folds:
        split = split.with_fold(int(cfg.word_fold), int(cfg.word_folds))
    return split


def guesser_data(
    cfg: Any, vocabulary: Sequence[str], humans: HumanResponses | None = None, split: DataSplit | None = None
) -> GuesserData:
    """The words and cells the trainer uses (see the module docstring); ``split`` overrides ``cfg``'s."""
    vocab = tuple(vocabulary)
    if cfg.cue_source != "humans":
        return GuesserData(vocab, None, vocab, None, None, None)
    humans = load_humans() if humans is None else humans
    split = make_split(cfg, humans) if split is None else split
    if split is None:
        cells = cells_of(vocab, humans)
        return GuesserData(vocab, cells, vocab, cells, None, training_record(None, humans))
    train_h, eval_h = split.train(humans), split.evaluation(humans)
    train_words = tuple(w for w in vocab if w in set(split.train_words))
    eval_words = tuple(w for w in vocab if w in set(split.evaluation_words))
    if not train_words or not eval_words:
        raise ValueError(f"{split.label}: no training or no evaluation word in the trainer's vocabulary")
    return GuesserData(
        train_words,
        cells_of(train_words, train_h),
        eval_words,
        cells_of(eval_words, eval_h),
        split,
        training_record(split, humans),
    )


def cue_table(words: Sequence[str], encoder: Any) -> np.ndarray:
    """``(len(words), dim)`` float32 text-encoder vectors of the words (lower-cased, as the agent encodes them)."""
    if not len(words):
        return np.zeros((0, int(encoder.dim)), dtype=np.float32)
    return np.asarray(encoder.encode([cue_text(w) for w in words]), dtype=np.float32)


def cue_text(word: str) -> str:
    """The text a cue is encoded as: trimmed, lower-case (the empty nonsense input stays a single space)."""
    text = " ".join(str(word).split()).lower()
    return text or " "


def cue_lookup(cfg: Any, env_words: Sequence[str], train_words: Sequence[str], encoder: Any = None):
    """A torch tensor mapping an env's cue index to the network's cue input.

    Index encoding: the word's row in ``train_words`` (``len(train_words)`` for a
    word outside it, the "no known cue" row); embedding: the word's vector.
    """
    import torch

    if cfg.cue_encoding == "embedding":
        return torch.as_tensor(cue_table(env_words, encoder))
    index = {w: i for i, w in enumerate(train_words)}
    return torch.as_tensor([index.get(w, len(train_words)) for w in env_words], dtype=torch.long)


def write_parts(cfg: Any, folder: str | Path, humans: HumanResponses | None = None) -> dict[str, Any] | None:
    """Write the split ``cfg`` trains with (``split.json``, ``train.csv.gz``, ``evaluation.csv.gz``) into ``folder``.

    Returns what a training experiment records and evaluates with (the parts'
    paths, the split's label); ``None`` when there is no split (``holdout="none"``
    or no human data): then the evaluation uses the whole cohort and the
    experiment refuses to score the policy on it unless allowed.
    """
    if getattr(cfg, "cue_source", "humans") != "humans" or getattr(cfg, "holdout", "none") == "none":
        return None
    humans = load_humans() if humans is None else humans
    split = make_split(cfg, humans)
    if split is None:
        return None
    return write_split_files(split, humans, folder)


def write_split_files(split: DataSplit, humans: HumanResponses, folder: str | Path) -> dict[str, Any]:
    """``split.json``, ``train.csv.gz`` and ``evaluation.csv.gz`` of ``split`` over ``humans`` in ``folder``.

    The trainers write them into their run folder (``<run>/split/``), so the
    lookup baseline (``lookup:<run>/split/train.csv.gz``) and a tournament's
    reference (``humans.path: <run>/split/evaluation.csv.gz``) can be named
    without recomputing the split.
    """
    folder = Path(folder)
    return {
        "fingerprint": split.fingerprint,
        "label": split.label,
        "evaluation_label": split.part_label("evaluation"),
        "split": str(split.save(folder / "split.json")),
        "train": str(split.write_part(humans, "train", folder / "train.csv.gz")),
        "evaluation": str(split.write_part(humans, "evaluation", folder / "evaluation.csv.gz")),
    }
