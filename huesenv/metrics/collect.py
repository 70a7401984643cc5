"""From word_query records to one answer set per agent × word: the top-1 cell and the cloud of cells.

**Ranked agents** (``scores`` given, best first): top-1 is ``cells[0]`` and the
cloud is ``cells[:top_k]``, as in the paper (k = 5).

**Sampled agents** (``extra["sampled"]``, e.g. VLM answer tables with 100
sampled answers per word): the answers are ranked by how often they were
sampled, and that frequency ranking plays the part of a ranked agent's
similarity ranking.  The top-1 is the modal cell, and the cloud compared with
the humans (Hotelling T²) is the ``top_k`` most frequent *distinct* cells, each
once — the analogue of a ranking's top-5, which also holds five distinct cells.
A sampled agent with fewer than ``top_k`` distinct answers contributes all of
them.  ``sampled_cloud="all"`` instead compares *every* sampled answer, with
its repeats (the behaviour before top-k; a cloud of 100 points against the
humans' 20–90 makes Hotelling reject almost any mean offset).

**Ties** between equally frequent cells (top-1 and the cut at k) go to the
cell sampled *first* in log order (the table's ``Answer1`` before ``Answer2``
…), so the ranking is deterministic and reproducible from the log alone; it
does not depend on cell indices or on the humans.  The cut matters: with 100
samples over a few dozen cells, the 5th and 6th most frequent cells are often
equally frequent (:meth:`AnswerSet.cut_in_tie`; the word table's
``cloud_tie`` column says where), and another order of the tied cells changes
the cloud.  :func:`huesenv.metrics.ties.tie_sensitivity` re-draws the order of
the tied cells (seeded) and reports how many Hotelling flags flip and how far
each agent's fail rate moves, so a report can state how much the rule matters.

**Which agent.**  Records are grouped by a *label*: the experiment-config agent
name in ``extra["config_agent"]`` (written by the word-level experiment), else
the ``agent_id``.  Two config agents may share an ``agent_id`` (two prompt
templates of one CLIP checkpoint, two ``random`` seeds, ``human-replay`` with
different filters) and must stay two agents, as in the tournament tables; the
``agent_id`` is kept alongside because families are derived from it.

Sampled records for one label and word are pooled in log order (a sampling
agent may log one record per sample); for a ranked agent the first ranking in
the logs counts (a repeat is the same agent logged twice, e.g. a re-run).  Answers nobody could parse are counted in ``n_invalid`` — a record
with ``valid = False`` counts one (or the length of its
``extra["invalid_answers"]``), a valid record counts its
``extra["invalid_answers"]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

from huesenv.board import parse_coord
from huesenv.logs.io import frame_to_records
from huesenv.logs.schema import LogRecord
from huesenv.vocabulary import category_of, normalise_word

SampledCloud = Literal["top-k", "all"]
SAMPLED_CLOUDS: tuple[str, ...] = ("top-k", "all")


@dataclass
class AnswerSet:
    """What one agent answered for one word (flat cell indices).

    ``agent`` is the grouping label (config agent name, else agent id);
    ``agent_id`` the model's own id (empty means the same as ``agent``).
    """

    agent: str
    word: str
    category: str
    agent_id: str = ""
    ranked: list[int] = field(default_factory=list)
    sampled: list[int] = field(default_factory=list)
    n_invalid: int = 0
    n_records: int = 0

    def __post_init__(self) -> None:
        if not self.agent_id:
            self.agent_id = self.agent

    @property
    def is_sampled(self) -> bool:
        return bool(self.sampled) and not self.ranked

    def frequency_ranking(self, rng=None) -> list[int]:
        """The distinct sampled cells, most frequent first; ties → the one sampled first (log order).

        ``rng`` (a ``numpy.random.Generator``) orders tied cells at random instead:
        only for measuring how much the tie rule matters (:mod:`huesenv.metrics.ties`).
        """
        counts = Counter(self.sampled)  # insertion order = first-sampled order
        first = {cell: i for i, cell in enumerate(counts)}
        if rng is not None:
            draw = rng.permutation(len(first))
            first = {cell: int(draw[i]) for cell, i in first.items()}
        return sorted(counts, key=lambda cell: (-counts[cell], first[cell]))

    def cut_in_tie(self, top_k: int) -> bool:
        """True when a sampled agent's top-``top_k`` cloud is cut inside a frequency tie."""
        if self.ranked or not self.sampled:
            return False
        counts = Counter(self.sampled)
        if len(counts) <= top_k:
            return False
        ordered = sorted(counts.values(), reverse=True)
        return ordered[top_k - 1] == ordered[top_k]

    def top1(self) -> int | None:
        if self.ranked:
            return self.ranked[0]
        if self.sampled:
            return self.frequency_ranking()[0]
        return None

    def cloud(self, top_k: int, sampled_cloud: SampledCloud = "top-k") -> list[int]:
        """The cells compared with the humans: the top-k of a ranking; for a sampled agent the
        ``top_k`` most frequent distinct cells (``"top-k"``) or every sample (``"all"``)."""
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        if sampled_cloud not in SAMPLED_CLOUDS:
            raise ValueError(f"sampled_cloud must be one of {SAMPLED_CLOUDS}, got {sampled_cloud!r}")
        if self.ranked:
            return self.ranked[:top_k]
        if sampled_cloud == "all":
            return list(self.sampled)
        return self.frequency_ranking()[:top_k]

    @property
    def n_answers(self) -> int:
        return len(self.ranked) + len(self.sampled)


def as_records(records_or_frame: Sequence[LogRecord] | pd.DataFrame) -> list[LogRecord]:
    if isinstance(records_or_frame, pd.DataFrame):
        return frame_to_records(records_or_frame)
    return list(records_or_frame)


def _invalid_count(record: LogRecord) -> int:
    listed = record.extra.get("invalid_answers") or []
    if not record.valid:
        return max(len(listed), 1)
    return len(listed)


def agent_label(record: LogRecord) -> str:
    """The name an agent's answers are grouped under: ``extra["config_agent"]``, else ``agent_id``."""
    label = record.extra.get("config_agent")
    return str(label) if label else record.agent_id


def answer_sets(records: Iterable[LogRecord]) -> dict[tuple[str, str], AnswerSet]:
    """Pool ``word_query`` records per (agent label, normalised word), in log order (see the module docstring)."""
    out: dict[tuple[str, str], AnswerSet] = {}
    for record in records:
        if record.kind != "word_query" or record.word is None:
            continue
        word = normalise_word(record.word)
        key = (agent_label(record), word)
        if key not in out:
            try:
                category = category_of(word)
            except ValueError:
                category = record.category or "Custom"
            out[key] = AnswerSet(agent=key[0], word=word, category=category, agent_id=record.agent_id)
        entry = out[key]
        entry.n_records += 1
        entry.n_invalid += _invalid_count(record)
        if not record.valid or not record.cells:
            continue
        cells = [parse_coord(c) for c in record.cells]
        if record.extra.get("sampled"):
            entry.sampled.extend(cells)
        elif not entry.ranked:  # a ranking is complete in one record; a repeat (another run) is not pooled
            entry.ranked = cells
    return out
