"""The human reference a number was scored against, named the same way in every output.

Why one value: the packaged cohort is a reconstruction from the paper's summary
statistics, not people, and a reader of any CSV, terminal table, W&B run or
report section must be able to tell which answers a fail rate compares with.
:class:`HumanReference` is built once from the loaded answers
(:meth:`HumanReference.of`) and every writer takes it.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.humans.reference``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from huesenv.humans.splits import PART_NAMES, DataSplit

REFERENCE_COLUMN = "human_reference"
SELF_SCORED_COLUMN = "self_scored"
RECONSTRUCTED = "reconstructed cohort"
EXPORT = "export"
CUSTOM = "custom"  # an object with the HumanResponses interface but no export frame (tests, adapters)
REPLAY_ID = "human-replay"  # the replayed-human agent's id (``human-replay[:FILE]``)


_PART_FILE = re.compile(rf"(?:split-([0-9a-f]{{12}})-)?({'|'.join(PART_NAMES)})\.csv\.gz")


def part_file_split(path: Path, participants: set[str]) -> tuple[DataSplit, str] | None:
    """``(split, part)`` when ``path`` is a part file a split wrote and holds only that part's participants.

    A part file is one a split wrote (``<run>/split/train.csv.gz`` or ``evaluation.csv.gz`` beside
    ``split.json``, or ``split-<fingerprint>-<part>.csv.gz`` beside ``split-<fingerprint>.json``); it
    counts as a part only when that split record is readable, has the fingerprint the name says, and
    holds every participant of the file in that part.  Anything else is no part (``None``).
    """
    match = _PART_FILE.fullmatch(path.name)
    if match is None:
        return None
    fingerprint, part = match.groups()
    record = path.parent / (f"split-{fingerprint}.json" if fingerprint else "split.json")
    try:
        if not record.is_file() or record.stat().st_size > 64 * 2**20:
            return None
        split = DataSplit.load(record)
    except (OSError, ValueError):
        return None
    if fingerprint and split.fingerprint != fingerprint:
        return None
    if not participants <= set(split.part_participants(part)):
        return None
    return split, part


def split_part(path: Path, participants: set[str]) -> str | None:
    """The split part a file of answers is, e.g. ``evaluation part of split 2b0c439fb757: 158 …``, else None.

    Why: a run scored on the evaluation part of a split must say so in every table, not only in its
    summary (see :func:`part_file_split` for what counts as a part file).
    """
    found = part_file_split(path, participants)
    return None if found is None else found[0].part_label(found[1])


@dataclass(frozen=True)
class HumanReference:
    """The human answers a run is scored against (and replays), as named in every output."""

    kind: str  # "reconstructed cohort" | "export" | "custom"
    source: str  # file the answers were read from
    participants: int
    answers: int
    sha256: str  # of the answers (user, word, cell), so two copies of one export compare equal
    filtered: dict[str, int] = field(default_factory=dict)  # valid rows removed by each loader filter
    part: str | None = None  # the part of the answers used, e.g. "evaluation part: 63 of 316 participants"

    @classmethod
    def of(cls, humans: Any, part: str | None = None) -> HumanReference:
        """The reference of loaded answers (:class:`huesenv.humans.HumanResponses` or alike)."""
        frame = getattr(humans, "frame", None)
        if frame is None:  # only words/cells: named as a custom reference, hashed over its answers
            words = list(humans.words)
            cells = {w: [int(c) for c in humans.cells(w)] for w in words}
            blob = repr(sorted(cells.items())).encode()
            return cls(
                kind=CUSTOM,
                source=str(getattr(humans, "source", "") or type(humans).__name__),
                participants=int(getattr(humans, "n_participants", 0) or 0),
                answers=sum(len(v) for v in cells.values()),
                sha256=hashlib.sha256(blob).hexdigest(),
                part=part,
            )
        blob = frame[["user_id", "word", "cell"]].astype(str).to_csv(index=False).encode()
        if part is None:
            part = split_part(Path(str(humans.source)), set(frame["user_id"].astype(str)))
        return cls(
            kind=RECONSTRUCTED if humans.is_reconstruction else EXPORT,
            source=str(humans.source),
            participants=int(humans.n_participants),
            answers=int(len(humans)),
            sha256=hashlib.sha256(blob).hexdigest(),
            filtered={str(k): int(v) for k, v in dict(getattr(humans, "filtered", {}) or {}).items() if v},
            part=part,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HumanReference:
        """Back from :meth:`as_dict` (e.g. a report's ``summary.json``)."""
        keys = ("kind", "source", "participants", "answers", "sha256", "filtered", "part")
        return cls(**{k: data[k] for k in keys if k in data})

    def part_of(self, part: str) -> HumanReference:
        """The same reference, naming the part of it that is scored (an evaluation split)."""
        return replace(self, part=part)

    @property
    def key(self) -> str:
        return self.sha256[:16]

    @property
    def is_reconstruction(self) -> bool:
        return self.kind == RECONSTRUCTED

    @property
    def description(self) -> str:
        """The one-line name every output prints (see the module docstring)."""
        if self.is_reconstruction:
            base = f"Reconstructed cohort ({self.participants} simulated participants, not people)"
        elif self.kind == CUSTOM:
            base = f"Custom human reference {self.source} ({self.answers} answers)"
        else:
            base = f"Human export {Path(self.source).name} ({self.participants} participants)"
        return f"{base}; {self.part}" if self.part else base

    @property
    def label(self) -> str:
        """The long form for report headers: answers, source and filters as well."""
        note = ""
        if self.filtered:
            note = " after filtering out " + ", ".join(f"{n} rows by {k}" for k, n in self.filtered.items())
        if self.is_reconstruction:
            text = (
                f"the packaged reconstructed cohort ({self.participants} simulated participants, "
                f"{self.answers} answers rebuilt from the paper's summary statistics; not people)"
                if Path(self.source).name.startswith("reconstructed")
                else f"a reconstructed cohort from {self.source} ({self.participants} simulated participants; "
                "not people)"
            )
        elif self.kind == CUSTOM:
            text = f"a custom human reference {self.source} ({self.answers} answers)"
        else:
            text = f"human export {self.source} ({self.participants} participants, {self.answers} answers)"
        return text + note + (f"; {self.part}" if self.part else "")

    def replays(self, agent_id: Any) -> bool:
        """Whether ``agent_id`` is a replayed human drawing from this very reference.

        The replay agent names its cohort in its id (``human-replay`` for a
        reconstructed cohort, ``human-replay:FILE`` for an export): the same
        kind and file name as the reference means it replays it.
        """
        text = str(agent_id or "")
        if text == REPLAY_ID:
            return self.is_reconstruction
        if text.startswith(REPLAY_ID + ":"):
            return text.split(":", 1)[1] == Path(self.source).name
        return False

    def self_scored(self, agent_ids: Iterable[Any]) -> list[str]:
        """The ids among ``agent_ids`` that replay this reference (sorted, each once)."""
        return sorted({str(a) for a in agent_ids if self.replays(a)})

    def self_scored_note(self, agent_ids: Iterable[Any]) -> str | None:
        """The caveat printed beside a table holding self-scored agents (None when it holds none)."""
        found = self.self_scored(agent_ids)
        if not found:
            return None
        return (
            f"self-scored: {', '.join(found)} replay(s) the reference cohort and is scored against the "
            "answers it draws from (an optimistic ceiling, not leave-one-out)"
        )

    def annotate(self, frame: pd.DataFrame) -> pd.DataFrame:
        """A copy of ``frame`` with the :data:`REFERENCE_COLUMN` (and, with agents, :data:`SELF_SCORED_COLUMN`)."""
        out = frame.copy()
        out[REFERENCE_COLUMN] = self.description
        ids = _agent_ids(out)
        if ids is not None:
            out[SELF_SCORED_COLUMN] = [self.replays(a) for a in ids]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "key": self.key, "label": self.label, "description": self.description}


def _agent_ids(frame: pd.DataFrame) -> pd.Series | None:
    """The agent id of each row: ``agent_id`` where present (``agent`` fills its gaps), else ``agent``."""
    if "agent_id" in frame.columns:
        ids = frame["agent_id"]
        return ids.where(ids.notna() & (ids.astype(str) != ""), frame.get("agent", ids))
    if "agent" in frame.columns:
        return frame["agent"]
    return None


def annotate_tables(
    tables: dict[str, pd.DataFrame], reference: HumanReference | None
) -> dict[str, pd.DataFrame]:
    """Every table annotated (unchanged when there is no reference: e.g. probe tables of no human data)."""
    if reference is None:
        return dict(tables)
    return {name: reference.annotate(table) for name, table in tables.items()}


__all__ = [
    "CUSTOM",
    "EXPORT",
    "RECONSTRUCTED",
    "REFERENCE_COLUMN",
    "REPLAY_ID",
    "SELF_SCORED_COLUMN",
    "HumanReference",
    "annotate_tables",
]
