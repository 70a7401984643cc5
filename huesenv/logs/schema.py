"""The one log record for everything agents do: game steps, probe trials and word→cell queries.

A log is JSON Lines while running (one :class:`LogRecord` per line, append-only)
and Parquet for analysis.  Every record says which schema version wrote it so
that readers can refuse what they do not understand instead of misreading it.

Fields common to all kinds are top-level; what only one kind has lives in
``extra`` (documented per kind below), so that one table holds a whole run.

``kind == "game_step"`` — ``extra``: ``game`` (int), ``round`` (int), ``player``
(agent name in the env, e.g. ``"player_0"``), ``role`` (``"cue_giver"`` |
``"guesser"``), ``phase`` (``"pick_target"``, ``"cue_1"``, ``"guess_1"``,
``"cue_2"``, ``"guess_2"``, ``"reveal"``), ``cue_index`` (1 | 2), ``cell`` (coord
placed, or ``None``), ``target`` (coord, only once revealed or for the cue
giver), ``points`` (int scored at this step), ``passed`` (bool, cue 2 passed).

``kind == "word_query"`` — the paper's word→cell task: ``word``/``category`` set,
``cells`` the ranked top-k coordinates (best first) with ``scores``, or, for
sampling agents, ``cells`` the sampled answers in order with ``scores`` None and
``extra["sampled"] = True``.

``kind == "probe_trial"`` — ``extra``: ``task`` (``"gca"`` | ``"interference"``),
``trial_id``, ``question``, ``options`` (list or None), ``truth`` (the correct
answer), plus the task's stimulus fields (GCA: ``object``, ``condition``,
``colour``, ``tau``, ``question_type``, ``ordering``; interference: ``subset``,
``type``, ``text_colour``, ``question_colour``, ``text_words``); ``answer`` is the
parsed answer (a colour name, option text, or number as text).

An answer nobody could parse is kept with ``valid = False`` and its ``raw_text``;
it is counted as invalid, never dropped.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any

SCHEMA_VERSION = 1
RECORD_KINDS: tuple[str, ...] = ("game_step", "probe_trial", "word_query")
REQUIRED_FIELDS: tuple[str, ...] = ("schema_version", "kind", "run_id", "agent_id")


@dataclass
class LogRecord:
    """One thing an agent did.  See the module docstring for ``extra`` per kind."""

    kind: str
    run_id: str
    agent_id: str
    seed: int | None = None
    episode: int | None = None
    step: int | None = None
    word: str | None = None
    category: str | None = None
    cells: list[str] | None = None
    scores: list[float | None] | None = None
    answer: str | None = None
    raw_text: str | None = None
    valid: bool = True
    timings: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    created: float = field(default_factory=time.time)
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        if self.kind not in RECORD_KINDS:
            raise ValueError(f"LogRecord.kind: {self.kind!r} is not one of {RECORD_KINDS}")
        if not self.run_id or not isinstance(self.run_id, str):
            raise ValueError("LogRecord.run_id: expected a non-empty string")
        if not self.agent_id or not isinstance(self.agent_id, str):
            raise ValueError("LogRecord.agent_id: expected a non-empty string")
        if self.scores is not None:
            self.scores = [
                float(s) if s is not None and math.isfinite(float(s)) else None for s in self.scores
            ]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LogRecord:
        """Build a record from a parsed JSON object; unknown keys or a wrong version raise ``ValueError``."""
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise ValueError(
                f"field schema_version: {version!r} is not the supported version {SCHEMA_VERSION}"
            )
        missing = [k for k in REQUIRED_FIELDS if k not in data]
        if missing:
            raise ValueError(f"missing field(s) {missing}")
        unknown = sorted(set(data) - set(cls.field_names()))
        if unknown:
            raise ValueError(f"unknown field(s) {unknown}")
        return cls(**data)
