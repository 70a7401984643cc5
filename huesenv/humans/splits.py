"""Evaluation splits of a human reference: a training part and an evaluation part, by participant and by word.

Why: anything trained on human answers (the learned guessers) must be scored
against answers it never saw.  A :class:`DataSplit` is a seeded, recorded
partition of one cohort.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.humans.splits``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from huesenv.humans.loader import HumanResponses
from huesenv.humans.reconstruct import write_export
from huesenv.reports import read_safe_csv
from huesenv.trust import read_user_bytes
from huesenv.vocabulary import normalise_word

SPLIT_FORMAT = "huesenv-human-split"
PART_NAMES = ("train", "evaluation")


def _sha(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


def answers_sha256(humans: HumanResponses) -> str:
    """SHA-256 of a cohort's answers (user, word, cell), as :class:`~huesenv.experiments.provenance.HumanReference`."""
    blob = humans.frame[["user_id", "word", "cell"]].astype(str).to_csv(index=False).encode()
    return hashlib.sha256(blob).hexdigest()


def stratified_word_folds(
    words: Sequence[str], categories: Sequence[str], n_folds: int, seed: int = 0
) -> list[tuple[str, ...]]:
    """``n_folds`` folds of ``words``, each category's words spread evenly over the folds (see the module docstring)."""
    if n_folds < 2:
        raise ValueError(f"n_folds: expected at least 2, got {n_folds}")
    if len(words) != len(categories):
        raise ValueError(f"stratified_word_folds: {len(words)} words but {len(categories)} categories")
    if len(words) < n_folds:
        raise ValueError(f"n_folds: {n_folds} folds need at least {n_folds} words, got {len(words)}")
    rng = np.random.default_rng(seed)
    by_cat: dict[str, list[str]] = {}
    for w, c in zip(words, categories):
        by_cat.setdefault(c, []).append(w)
    folds: list[list[str]] = [[] for _ in range(n_folds)]
    offset = 0
    for cat in sorted(by_cat):
        members = sorted(by_cat[cat])
        for i, j in enumerate(rng.permutation(len(members))):
            folds[(offset + i) % n_folds].append(members[int(j)])
        offset = (offset + len(members)) % n_folds
    order = {w: i for i, w in enumerate(words)}
    return [tuple(sorted(f, key=order.__getitem__)) for f in folds]


@dataclass(frozen=True)
class DataSplit:
    """A seeded partition of one cohort into a training and an evaluation part (see the module docstring)."""

    source: str
    cohort_sha256: str
    reconstruction: bool
    seed: int
    eval_fraction: float
    train_participants: tuple[str, ...]
    eval_participants: tuple[str, ...]
    words: tuple[str, ...]  # every word of the cohort, in its order
    categories: tuple[str, ...]  # the category of each word
    n_folds: int | None = None
    fold: int | None = None
    eval_words: tuple[str, ...] | None = None  # None: every word

    # -- construction ---------------------------------------------------------------------------------------------
    @classmethod
    def of(
        cls,
        humans: HumanResponses,
        seed: int = 0,
        eval_fraction: float = 0.5,
        n_folds: int | None = None,
        fold: int | None = None,
    ) -> DataSplit:
        """Split ``humans`` by participant (and, with ``n_folds``/``fold``, hold out one word fold)."""
        if not 0.0 < float(eval_fraction) < 1.0:
            raise ValueError(
                f"eval_fraction: expected a number strictly between 0 and 1, got {eval_fraction!r}"
            )
        ids = np.array(sorted(humans.frame["user_id"].astype(str).unique()))
        if len(ids) < 2:
            raise ValueError(
                f"{humans.source}: a participant split needs at least 2 participants, got {len(ids)}"
            )
        n_eval = min(len(ids) - 1, max(1, int(round(len(ids) * float(eval_fraction)))))
        perm = np.random.default_rng(seed).permutation(len(ids))
        eval_ids = tuple(sorted(str(x) for x in ids[perm[:n_eval]]))
        train_ids = tuple(sorted(str(x) for x in ids[perm[n_eval:]]))
        words = tuple(str(w) for w in humans.words)
        split = cls(
            source=str(humans.source),
            cohort_sha256=answers_sha256(humans),
            reconstruction=bool(humans.is_reconstruction),
            seed=int(seed),
            eval_fraction=float(eval_fraction),
            train_participants=train_ids,
            eval_participants=eval_ids,
            words=words,
            categories=tuple(str(humans.category(w)) for w in words),
        )
        if n_folds is not None or fold is not None:
            split = split.with_fold(0 if fold is None else fold, n_folds or 5)
        return split

    def with_fold(self, fold: int, n_folds: int) -> DataSplit:
        """The same participant split with word fold ``fold`` of ``n_folds`` held out."""
        if not 0 <= int(fold) < int(n_folds):
            raise ValueError(f"fold: expected 0..{int(n_folds) - 1}, got {fold!r}")
        folds = stratified_word_folds(self.words, self.categories, int(n_folds), self.seed)
        return replace(self, n_folds=int(n_folds), fold=int(fold), eval_words=folds[int(fold)])

    # -- the parts ------------------------------------------------------------------------------------------------
    @property
    def train_words(self) -> tuple[str, ...]:
        held = set(self.eval_words or ())
        return tuple(w for w in self.words if w not in held)

    @property
    def evaluation_words(self) -> tuple[str, ...]:
        return self.words if self.eval_words is None else self.eval_words

    def part_words(self, part: str) -> tuple[str, ...]:
        return self.train_words if _part(part) == "train" else self.evaluation_words

    def part_participants(self, part: str) -> tuple[str, ...]:
        return self.train_participants if _part(part) == "train" else self.eval_participants

    def check_cohort(self, humans: HumanResponses) -> None:
        """``ValueError`` unless ``humans`` is the cohort this split was drawn from (same answers)."""
        if answers_sha256(humans) != self.cohort_sha256:
            raise ValueError(
                f"split {self.fingerprint}: drawn from {self.source} (answers sha256 {self.cohort_sha256[:12]}), "
                f"not from {humans.source}"
            )

    def part(self, humans: HumanResponses, part: str) -> HumanResponses:
        """The ``part`` ("train" or "evaluation") of ``humans`` (the cohort the split was drawn from)."""
        part = _part(part)
        self.check_cohort(humans)
        frame = humans.frame
        keep = frame["user_id"].astype(str).isin(set(self.part_participants(part))) & frame["word"].isin(
            set(self.part_words(part))
        )
        return replace(
            humans,
            frame=frame[keep].reset_index(drop=True),
            source=f"{humans.source} [{self.part_label(part)}]",
        )

    def train(self, humans: HumanResponses) -> HumanResponses:
        return self.part(humans, "train")

    def evaluation(self, humans: HumanResponses) -> HumanResponses:
        return self.part(humans, "evaluation")

    def write_part(self, humans: HumanResponses, part: str, path: str | Path) -> Path:
        """Write one part as an export file (the cohort's own rows, so ``load_humans(path)`` reads it back)."""
        self.check_cohort(humans)
        src = Path(humans.source)
        if not src.is_file():
            raise ValueError(f"split {self.fingerprint}: the cohort {humans.source} is not a file to subset")
        raw = pd.read_parquet(src) if src.name.lower().endswith(".parquet") else read_safe_csv(src, dtype=str)
        words = {normalise_word(w) for w in self.part_words(part)}
        keep = raw["userId"].astype(str).isin(set(self.part_participants(part))) & raw["word"].map(
            lambda w: _normalised_or_none(w) in words
        )
        return write_export(raw[keep].reset_index(drop=True), path)

    # -- identity and records -------------------------------------------------------------------------------------
    @property
    def fingerprint(self) -> str:
        """12 hex digits naming the split (cohort, seed, parts): equal fingerprints, equal parts."""
        d = self._content()
        d.pop("source")  # the same answers read from another path are the same split
        return _sha(d)[:12]

    def part_label(self, part: str) -> str:
        part = _part(part)
        n = len(self.part_participants(part))
        words = self.part_words(part)
        what = "simulated participants" if self.reconstruction else "participants"
        fold = f", word fold {self.fold}/{self.n_folds} held out" if self.fold is not None else ""
        return f"{part} part of split {self.fingerprint}: {n} {what}, {len(words)} words{fold}"

    @property
    def label(self) -> str:
        """One line naming the split, for reports."""
        kind = "answer split (reconstructed cohort: participants are independent draws per word)"
        if not self.reconstruction:
            kind = "participant split"
        fold = (
            f"; held-out words: fold {self.fold} of {self.n_folds} ({len(self.evaluation_words)} words), "
            "stratified by category"
            if self.fold is not None
            else "; every word in both parts"
        )
        return (
            f"split {self.fingerprint} (seed {self.seed}) of {self.source}: {kind}, "
            f"{len(self.train_participants)} training / {len(self.eval_participants)} evaluation participants{fold}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"format": SPLIT_FORMAT, "fingerprint": self.fingerprint, **self._content()}

    def _content(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "cohort_sha256": self.cohort_sha256,
            "reconstruction": self.reconstruction,
            "seed": self.seed,
            "eval_fraction": self.eval_fraction,
            "train_participants": list(self.train_participants),
            "eval_participants": list(self.eval_participants),
            "words": list(self.words),
            "categories": list(self.categories),
            "n_folds": self.n_folds,
            "fold": self.fold,
            "eval_words": None if self.eval_words is None else list(self.eval_words),
        }

    def summary(self) -> dict[str, Any]:
        """The short form for provenance blocks (counts, not lists)."""
        return {
            "fingerprint": self.fingerprint,
            "seed": self.seed,
            "source": self.source,
            "reconstruction": self.reconstruction,
            "train_participants": len(self.train_participants),
            "eval_participants": len(self.eval_participants),
            "n_folds": self.n_folds,
            "fold": self.fold,
            "eval_words": None if self.eval_words is None else list(self.eval_words),
            "label": self.label,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "split") -> DataSplit:
        if not isinstance(data, Mapping) or data.get("format") != SPLIT_FORMAT:
            raise ValueError(f"{source}: field 'format': expected {SPLIT_FORMAT!r}")
        try:
            split = cls(
                source=str(data["source"]),
                cohort_sha256=str(data["cohort_sha256"]),
                reconstruction=bool(data["reconstruction"]),
                seed=int(data["seed"]),
                eval_fraction=float(data["eval_fraction"]),
                train_participants=tuple(str(x) for x in data["train_participants"]),
                eval_participants=tuple(str(x) for x in data["eval_participants"]),
                words=tuple(str(x) for x in data["words"]),
                categories=tuple(str(x) for x in data["categories"]),
                n_folds=None if data.get("n_folds") is None else int(data["n_folds"]),
                fold=None if data.get("fold") is None else int(data["fold"]),
                eval_words=None
                if data.get("eval_words") is None
                else tuple(str(x) for x in data["eval_words"]),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{source}: not a valid split record ({type(err).__name__}: {err})") from None
        recorded = data.get("fingerprint")
        if recorded is not None and recorded != split.fingerprint:
            raise ValueError(f"{source}: field 'fingerprint' {recorded!r} does not match the split's content")
        return split

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: str | Path) -> DataSplit:
        path = Path(path)
        try:
            data = json.loads(read_user_bytes(path, max_bytes=64 << 20))
        except (OSError, ValueError, RecursionError) as err:
            raise ValueError(f"split {path}: not a readable JSON split ({type(err).__name__})") from None
        return cls.from_dict(data, source=f"split {path}")


def _part(part: str) -> str:
    if part not in PART_NAMES:
        raise ValueError(f"part: expected one of {PART_NAMES}, got {part!r}")
    return part


def _normalised_or_none(word: object) -> str | None:
    try:
        return normalise_word(word)
    except ValueError:
        return None


def whole_cohort_record(humans: HumanResponses) -> dict[str, Any]:
    """The training-data record of a learner trained on every answer of ``humans`` (no split)."""
    return {
        "format": "huesenv-human-data",
        "split": None,
        "source": str(humans.source),
        "cohort_sha256": answers_sha256(humans),
        "train_participants": sorted(str(u) for u in humans.frame["user_id"].astype(str).unique()),
        "train_words": list(humans.words),
    }


def training_record(split: DataSplit | None, humans: HumanResponses) -> dict[str, Any]:
    """What a checkpoint records about its human training data: the split (training part) or the whole cohort."""
    if split is None:
        return whole_cohort_record(humans)
    return {
        "format": "huesenv-human-data",
        "split": split.to_dict(),
        "source": split.source,
        "cohort_sha256": split.cohort_sha256,
        "train_participants": list(split.train_participants),
        "train_words": list(split.train_words),
    }


def training_overlap(record: Mapping[str, Any] | None, reference: HumanResponses) -> int:
    """How many answers of ``reference`` belong to the training data ``record`` describes (0: none).

    An answer overlaps when its participant and its word are both in the
    training part.  Participant ids are compared as text, so a regenerated
    reconstruction (same ``reconstructed-NNN`` ids) counts as overlapping:
    conservative on purpose.
    """
    if not record:
        return 0
    users = set(str(u) for u in record.get("train_participants") or ())
    words = set(str(w) for w in record.get("train_words") or ())
    frame = reference.frame
    hit = frame["user_id"].astype(str).isin(users) & frame["word"].isin(words)
    return int(hit.sum())


def describe_training(record: Mapping[str, Any] | None) -> str:
    """One line naming a learner's human training data (for reports)."""
    if not record:
        return "no human training data recorded"
    split = record.get("split")
    if split:
        return "training part of " + DataSplit.from_dict(split, source="training record").label
    return (
        f"every answer of {record.get('source')} ({len(record.get('train_participants') or ())} participants, "
        f"{len(record.get('train_words') or ())} words): no evaluation part exists"
    )
