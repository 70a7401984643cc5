"""One trial of a single-step probe, its answer parsing, and its log record.

Why a shared trial type: the gymnasium envs, the batch runner and the exporter
all walk the same seeded list of trials; each trial renders its image lazily
(stimulus sets hold thousands of 512×512 images) and knows how its answer is
parsed and logged, so every path produces identical records.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.trials``.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from huesenv.game.protocol import ProbeQuery
from huesenv.logs.schema import LogRecord
from huesenv.probes.answers import parse_answer
from huesenv.probes.registry import REPLY_KINDS

ANSWER_KINDS = REPLY_KINDS  # declared with the probe protocol
IMAGE_SIZE = 512
# Characters the gymnasium Text spaces accept: printable ASCII without tabs/newlines.
CHARSET = "".join(c for c in string.printable if c not in "\t\n\r\x0b\x0c")


@dataclass(frozen=True)
class ProbeTrial:
    """A question about an image, with its ground truth and the stimulus fields that go to the log."""

    task: str
    trial_id: str
    question: str
    options: tuple[str, ...] | None
    truth: str | None
    subject: str
    answer_kind: str
    fields: Mapping[str, Any]
    render: Callable[[], np.ndarray] = field(compare=False, repr=False)
    shown_word: str | None = None  # the word(s) drawn in the image, space-separated (interference)
    text_only: bool = False  # asked without an image (GCA text prior)

    def image(self) -> np.ndarray:
        """The (512, 512, 3) uint8 image, rendered now (deterministic)."""
        img = np.ascontiguousarray(self.render(), dtype=np.uint8)
        if img.shape != (IMAGE_SIZE, IMAGE_SIZE, 3):
            raise ValueError(f"trial {self.trial_id}, field image: expected (512, 512, 3), got {img.shape}")
        return img

    def query(self, image: np.ndarray | None = None) -> ProbeQuery:
        """The agent-facing :class:`huesenv.agents.protocol.ProbeQuery` (``image=None`` when text-only)."""
        if self.text_only:
            image = None
        elif image is None:
            image = self.image()
        return ProbeQuery(
            image=image,
            question=self.question,
            options=self.options,
            subject=self.subject,
            task=self.task,
            trial_id=self.trial_id,
            answer_kind="coverage" if self.answer_kind == "percent" else self.answer_kind,
        )


@dataclass(frozen=True)
class ParsedAnswer:
    """What a reply meant: ``answer`` (text, or None when invalid), plus kind-specific values."""

    answer: str | None
    valid: bool
    raw_text: str | None
    values: dict[str, Any] = field(default_factory=dict)


def _unpack(answer: Any) -> tuple[str | None, int | None, bool]:
    """(text to read, option index the agent chose, valid) of an Answer, a string or an option index."""
    if isinstance(answer, (int, np.integer)) and not isinstance(answer, bool):
        return str(int(answer)), int(answer), True
    if isinstance(answer, str) or answer is None:
        return answer, None, True
    raw = getattr(answer, "raw_text", None)
    text = raw if raw not in (None, "") else getattr(answer, "text", None)
    return text, getattr(answer, "option", None), bool(getattr(answer, "valid", True))


def parse_reply(trial: ProbeTrial, answer: Any) -> ParsedAnswer:
    """Parse an agent :class:`Answer` (or a plain string / option index) for this trial."""
    text, option, agent_valid = _unpack(answer)
    raw = text if not isinstance(answer, (int, np.integer)) or isinstance(answer, bool) else str(int(answer))
    if not agent_valid:
        return ParsedAnswer(None, False, raw)
    kind = trial.answer_kind
    if kind not in ANSWER_KINDS:
        raise ValueError(f"trial {trial.trial_id}, field answer_kind: {kind!r} is not one of {ANSWER_KINDS}")
    ctx = {"subject": trial.subject, "shown_word": trial.shown_word}
    if kind == "option":
        opts = tuple(trial.options or ())
        if option is None or not 0 <= int(option) < len(opts):
            option = parse_answer("option", text, options=opts, subject=trial.subject) if opts else None
        if option is None:
            return ParsedAnswer(None, False, raw)
        return ParsedAnswer(opts[int(option)], True, raw, {"option": int(option)})
    if kind == "colour":
        c = parse_answer("colour", text, **ctx)
        return ParsedAnswer(c, c is not None, raw)
    if kind == "colours":
        found = sorted(parse_answer("colours", text, **ctx) or ())
        return ParsedAnswer(",".join(found) if found else None, bool(found), raw, {"colours": found})
    if kind in ("coverage", "percent", "threshold"):
        v = parse_answer("threshold" if kind == "threshold" else "coverage", text)
        return ParsedAnswer(None if v is None else f"{v:g}", v is not None, raw, {"value": v})
    t = parse_answer("threshold", text)
    c = parse_answer("colour", text, **ctx)
    ok = t is not None and c is not None
    ans = f"threshold={t:g};color={c}" if ok else None
    return ParsedAnswer(ans, ok, raw, {"value": t, "colour": c})


def make_record(
    trial: ProbeTrial,
    parsed: ParsedAnswer,
    *,
    agent_id: str,
    run_id: str,
    seed: int | None,
    episode: int | None,
    timings: Mapping[str, float] | None = None,
) -> LogRecord:
    """The ``probe_trial`` :class:`~huesenv.logs.schema.LogRecord` of one answered trial."""
    extra: dict[str, Any] = {
        "task": trial.task,
        "trial_id": trial.trial_id,
        "question": trial.question,
        "options": list(trial.options) if trial.options is not None else None,
        "truth": trial.truth,
        "subject": trial.subject,
        "answer_kind": trial.answer_kind,
    }
    extra.update(dict(trial.fields))
    for k, v in parsed.values.items():
        extra[f"parsed_{k}"] = v
    return LogRecord.create(
        kind="probe_trial",
        run_id=run_id,
        agent_id=agent_id,
        seed=seed,
        episode=episode,
        step=0,
        answer=parsed.answer,
        raw_text=parsed.raw_text,
        valid=parsed.valid,
        timings=dict(timings or {}),
        extra=extra,
    )


__all__ = [
    "ANSWER_KINDS",
    "CHARSET",
    "IMAGE_SIZE",
    "ParsedAnswer",
    "ProbeTrial",
    "make_record",
    "parse_reply",
]
