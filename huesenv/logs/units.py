"""Log blocks: the unit tags that make a log resumable, and reading a log back as complete units.

Every unit's records are appended in one ``LogWriter.append`` call and carry
``extra["unit"]`` (``"game:17"``, ``"agent:random"``, ``"play:0"``),
``extra["unit_size"]`` (how many records the unit wrote) and
``extra["unit_pos"]`` (0, 1, ...).  A unit counts as done only when a
contiguous block of exactly ``unit_size`` records with its key and positions
0..n-1 is in the log, so a crash mid-append (a torn last line, or a block cut
short) leaves that unit *not done*; only complete blocks are ever read, so no
game is lost and none is counted twice.  The experiments runner, ``huesenv
play --log`` and replay all read logs through :func:`read_log_state`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from huesenv.logs.io import read_records, split_blocks
from huesenv.logs.schema import LogRecord


def tag_unit(records: Sequence[LogRecord], key: str) -> list[LogRecord]:
    """Tag ``records`` as one unit block ``key`` (in place); returns them as a list."""
    for pos, rec in enumerate(records):
        rec.extra["unit"] = key
        rec.extra["unit_size"] = len(records)
        rec.extra["unit_pos"] = pos
    return list(records)


@dataclass
class LogState:
    """The complete units found in a log, and what was set aside."""

    units: dict[str, list[LogRecord]] = field(
        default_factory=dict
    )  # key -> its records (first complete block)
    partial_blocks: int = 0  # blocks cut short by a crash (ignored)
    duplicate_blocks: int = 0  # complete blocks of a unit seen before (ignored)
    torn_line: int | None = None

    def records(self) -> list[LogRecord]:
        return [r for recs in self.units.values() for r in recs]


def read_log_state(path: Path) -> LogState:
    """Group a log into complete unit blocks (see the module docstring); no log = an empty state."""
    state = LogState()
    path = Path(path)
    if not path.exists():
        return state
    result = read_records(path)
    state.torn_line = result.torn_line
    split = split_blocks(result.records)
    state.units = split.units
    state.partial_blocks = len(split.partial)
    state.duplicate_blocks = split.duplicate_blocks
    return state


def cue_text(rec: LogRecord) -> str | None:
    """The cue a cue-phase record gave: ``extra["cue"]`` if present, else ``word``, else ``answer``."""
    extra = getattr(rec, "extra", {}) or {}
    for value in (extra.get("cue"), getattr(rec, "word", None), getattr(rec, "answer", None)):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None
