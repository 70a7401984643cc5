"""One trial of a single-step probe, its answer parsing, and its log record.

Why a shared trial type: the gymnasium envs, the batch runner and the exporter
all walk the same seeded list of trials; each trial renders its image lazily
(stimulus sets hold thousands of 512×512 images) and knows how its answer is
parsed and logged, so every path produces identical records.

Answer kinds (``ProbeTrial.answer_kind``):

Which text is parsed: for ``option`` and ``colour`` the agent's parsed
``Answer.text`` when set, else its ``raw_text``; for the other kinds the whole
``raw_text`` (an agent's ``.text`` holds one colour, not numbers or sets).

* ``"option"`` — one of ``options``: the agent's ``Answer.option`` if set,
  otherwise :func:`huesenv.colour_names.parse_option` on its text.
* ``"colour"`` — one colour name (:func:`huesenv.colour_names.parse_colour`,
  with the trial's subject stripped so "the orange is white" reads white).
* ``"colours"`` — every colour named, in order, without repeats (type-3/4
  interference trials, whose truth is a set), logged comma-joined.
* ``"percent"`` / ``"threshold"`` — a number in [0, 100] (:func:`parse_percent`,
  preferring ``estimated_percentage=`` / ``threshold=`` when present).
* ``"threshold+colour"`` — both (the standard and post-hoc GCA orderings ask
  for the rule and the decision in one reply), logged ``"threshold=X;color=C"``.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from huesenv.agents.protocol import ProbeQuery
from huesenv.colour_names import colour_mentions, parse_colour, parse_option, strip_subject
from huesenv.logs.schema import LogRecord

ANSWER_KINDS = ("option", "colour", "colours", "percent", "threshold", "threshold+colour")
IMAGE_SIZE = 512
# Characters the gymnasium Text spaces accept: printable ASCII without tabs/newlines.
CHARSET = "".join(c for c in string.printable if c not in "\t\n\r\x0b\x0c")
_NUMBER = r"(-?\d+(?:\.\d+)?)"


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

    def image(self) -> np.ndarray:
        """The (512, 512, 3) uint8 image, rendered now (deterministic)."""
        img = np.ascontiguousarray(self.render(), dtype=np.uint8)
        if img.shape != (IMAGE_SIZE, IMAGE_SIZE, 3):
            raise ValueError(f"trial {self.trial_id}, field image: expected (512, 512, 3), got {img.shape}")
        return img

    def query(self, image: np.ndarray | None = None):
        """The agent-facing :class:`huesenv.agents.protocol.ProbeQuery`."""
        return ProbeQuery(
            image=self.image() if image is None else image,
            question=self.question,
            options=self.options,
            subject=self.subject,
            task=self.task,
            trial_id=self.trial_id,
        )


@dataclass(frozen=True)
class ParsedAnswer:
    """What a reply meant: ``answer`` (text, or None when invalid), plus kind-specific values."""

    answer: str | None
    valid: bool
    raw_text: str | None
    values: dict[str, Any] = field(default_factory=dict)


def parse_percent(text: str | None, key: str | None = None) -> float | None:
    """A percentage in [0, 100]: ``key=x%`` when present, else the first number; ``None`` if none fits."""
    if text is None:
        return None
    s = str(text)
    candidates: list[str] = []
    if key:
        candidates += re.findall(re.escape(key) + r"\s*[=:]\s*" + _NUMBER, s, flags=re.IGNORECASE)
    candidates += re.findall(_NUMBER + r"\s*%", s)
    candidates += re.findall(_NUMBER, s)
    for c in candidates:
        v = float(c)
        if 0.0 <= v <= 100.0:
            return v
    return None


def _reply_text(answer: Any) -> str | None:
    text = getattr(answer, "text", None)
    raw = getattr(answer, "raw_text", None)
    return text if text not in (None, "") else raw


def parse_reply(trial: ProbeTrial, answer: Any) -> ParsedAnswer:
    """Parse an agent :class:`Answer` (or a plain string / option index) for this trial."""
    if isinstance(answer, (int, np.integer)) and not isinstance(answer, bool):
        raw, text, option = str(int(answer)), None, int(answer)
    elif isinstance(answer, str) or answer is None:
        raw, text, option = answer, answer, None
    else:
        raw, text, option = (
            getattr(answer, "raw_text", None),
            _reply_text(answer),
            getattr(answer, "option", None),
        )
        if raw is None:
            raw = text
        if trial.answer_kind not in ("option", "colour") and raw:
            text = raw  # agents put one parsed colour in .text; numbers and colour sets need the whole reply
    kind = trial.answer_kind
    if kind == "option":
        opts = trial.options or ()
        if option is None or not 0 <= int(option) < len(opts):
            option = parse_option(strip_subject(text, trial.subject) if text else text, opts)
        if option is None:
            return ParsedAnswer(None, False, raw)
        return ParsedAnswer(opts[int(option)], True, raw, {"option": int(option)})
    if kind == "colour":
        c = parse_colour(text, subject=trial.subject)
        return ParsedAnswer(c, c is not None, raw)
    if kind == "colours":
        found: list[str] = []
        for c in colour_mentions(strip_subject(text, trial.subject) if text else ""):
            if c not in found:
                found.append(c)
        return ParsedAnswer(",".join(found) if found else None, bool(found), raw, {"colours": found})
    if kind in ("percent", "threshold"):
        v = parse_percent(text, "threshold" if kind == "threshold" else "estimated_percentage")
        return ParsedAnswer(None if v is None else f"{v:g}", v is not None, raw, {"value": v})
    if kind == "threshold+colour":
        t = parse_percent(text, "threshold")
        m = re.search(r"colou?r\s*[=:]\s*([A-Za-z][A-Za-z -]*)", text or "", flags=re.IGNORECASE)
        c = parse_colour(m.group(1)) if m else None
        if c is None and text:
            rest = re.sub(r"threshold\s*[=:]\s*" + _NUMBER + r"\s*%?", " ", text, flags=re.IGNORECASE)
            c = parse_colour(rest, subject=trial.subject)
        ok = t is not None and c is not None
        ans = f"threshold={t:g};color={c}" if ok else None
        return ParsedAnswer(ans, ok, raw, {"value": t, "colour": c})
    raise ValueError(f"trial {trial.trial_id}, field answer_kind: {kind!r} is not one of {ANSWER_KINDS}")


def make_record(
    trial: ProbeTrial,
    parsed: ParsedAnswer,
    *,
    agent_id: str,
    run_id: str,
    seed: int | None,
    episode: int | None,
    timings: Mapping[str, float] | None = None,
):
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
    return LogRecord(
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
    "parse_percent",
    "parse_reply",
]
