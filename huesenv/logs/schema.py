"""Log records: one typed record per kind (game step, word query, probe trial) and one validator.

A log is JSON Lines while running (one record per line, append-only) and
Parquet for analysis.  Every record says which schema version wrote it so that
readers can refuse what they do not understand instead of misreading it.

**Layout.**  Fields common to all kinds are top-level (:class:`LogRecord`);
what only one kind has lives in ``extra``, so one table holds a whole run.
Each kind's ``extra`` keys are *declared* below (:data:`EXTRA_FIELDS`, with type
and meaning), and :func:`validate_record` checks them; the typed subclasses
:class:`GameStep`, :class:`WordQuery` and :class:`ProbeTrialRecord` give attribute
access to them (``step.phase`` instead of ``step.extra["phase"]``).
``LogRecord(kind="game_step", ...)`` already builds a :class:`GameStep`.

**Version 2** (this module) differs from version 1 only in being strict: every
``extra`` key is declared and type-checked, ``valid`` must be a JSON boolean
(version 1 took ``"false"`` for true), numbers must be numbers.  Version 1 logs
are still read (:func:`upgrade_v1`): declared keys are checked the same way,
keys version 2 does not declare are kept under ``extra["v1_fields"]``, and the
record becomes a version-2 record in memory.

Errors are :class:`LogError` (a ``ValueError``) reading
``"<where>, field <name>: <what was expected>"``; the field is also an attribute.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from huesenv.board import N_CELLS, format_coord, parse_coord
from huesenv.vocabulary import is_known

SCHEMA_VERSION = 2
READABLE_VERSIONS: tuple[int, ...] = (1, 2)
RECORD_KINDS: tuple[str, ...] = ("game_step", "probe_trial", "word_query")
REQUIRED_FIELDS: tuple[str, ...] = ("schema_version", "kind", "run_id", "agent_id")
LOG_PHASES: tuple[str, ...] = ("pick_target", "cue_1", "guess_1", "cue_2", "guess_2", "reveal")
ROLES: tuple[str, ...] = ("cue_giver", "guesser")
CUSTOM_CATEGORY = "Custom"  # a word_query of a user vocabulary: the word is not checked against the 100 words


class LogError(ValueError):
    """A record that does not match the schema: ``where`` (file and line), ``field`` and what was expected."""

    def __init__(self, where: str, field_name: str, message: str) -> None:
        super().__init__(f"{where}, field {field_name}: {message}")
        self.where = where
        self.field = field_name
        self.message = message


# -- declared fields ----------------------------------------------------------------


@dataclass(frozen=True)
class ExtraField:
    """One declared ``extra`` key: its JSON types (``None`` = may be null), what it means, and a check."""

    name: str
    types: tuple[type | None, ...]
    doc: str
    check: Callable[[Any], str | None] | None = None  # returns what was expected, or None when fine


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _type_ok(value: Any, types: tuple[type | None, ...]) -> bool:
    for t in types:
        if t is None and value is None:
            return True
        if t is int and _is_int(value):
            return True
        if t is float and _is_number(value):
            return True
        if (
            t not in (None, int, float)
            and isinstance(value, t)
            and not (t is not bool and isinstance(value, bool))
        ):
            return True
    return False


_CANONICAL_COORDS: frozenset[str] = frozenset(format_coord(i) for i in range(N_CELLS))


def _coord(value: Any) -> str | None:
    if value is None or value in _CANONICAL_COORDS:  # the spelling writers use: no parsing needed
        return None
    try:
        parse_coord(value)
    except ValueError as err:
        return str(err)
    return None


def _one_of(choices: tuple[str, ...]) -> Callable[[Any], str | None]:
    return lambda v: None if v is None or v in choices else f"one of {list(choices)}, got {v!r}"


def _list_of(*types: type | None) -> Callable[[Any], str | None]:
    names = "/".join("null" if t is None else t.__name__ for t in types)

    def check(value: Any) -> str | None:
        bad = [x for x in value if not _type_ok(x, types)]
        return f"a list of {names}, got item {bad[0]!r}" if bad else None

    return check


def _scalar_or_list(value: Any) -> str | None:
    scalars = (str, int, float, bool, type(None))
    if isinstance(value, scalars):
        return None
    if isinstance(value, list) and all(
        isinstance(x, scalars) or (isinstance(x, list) and all(isinstance(y, scalars) for y in x))
        for x in value
    ):
        return None
    return f"a JSON scalar or a list of scalars, got {type(value).__name__}"


def _invalid_answers(value: Any) -> str | None:
    for item in value:
        if not isinstance(item, dict) or set(item) != {"column", "text"}:
            return f"a list of {{column, text}} objects, got {item!r}"
        if not all(isinstance(v, str) for v in item.values()):
            return f"column and text as strings, got {item!r}"
    return None


def _non_negative(value: Any) -> str | None:
    return None if value is None or value >= 0 else f"a non-negative integer, got {value!r}"


# Written by huesenv.logs.units.tag_unit on every record of a resumable log (all kinds).
UNIT_FIELDS: tuple[ExtraField, ...] = (
    ExtraField("unit", (str,), 'the unit this record belongs to ("game:17", "agent:random", "play:0")'),
    ExtraField("unit_size", (int,), "how many records the unit wrote", _non_negative),
    ExtraField("unit_pos", (int,), "this record's position in its unit (0, 1, ...)", _non_negative),
    ExtraField(
        "v1_fields", (dict,), "keys of a version-1 record that version 2 does not declare (kept as read)"
    ),
)

GAME_STEP_FIELDS: tuple[ExtraField, ...] = (
    ExtraField("game", (int,), "game number within the run", _non_negative),
    ExtraField("round", (int,), "round number within the game (0-based)", _non_negative),
    ExtraField("player", (str,), 'seat name in the env, e.g. "player_0"'),
    ExtraField("role", (str,), '"cue_giver" or "guesser"', _one_of(ROLES)),
    ExtraField("phase", (str,), f"one of {list(LOG_PHASES)}", _one_of(LOG_PHASES)),
    ExtraField("cue_index", (int, None), "1 or 2 (which cue the step belongs to); null on reveal"),
    ExtraField("cell", (str, None), "the coordinate placed or picked, or null", _coord),
    ExtraField("target", (str, None), "the target, only once revealed or for the cue giver", _coord),
    ExtraField("points", (int,), "points scored at this step (non-zero only on reveal)"),
    ExtraField("passed", (bool,), "the cue giver passed on the second cue"),
    ExtraField("cue", (str, None), "the cue given, where a writer keeps it apart from word (read by replay)"),
    ExtraField(
        "cues", (list,), "the cues given so far this round (null for a passed cue)", _list_of(str, None)
    ),
    ExtraField(
        "cone_indices", (list,), "reveal only: which cue each of the seat's cones answered", _list_of(int)
    ),
    ExtraField(
        "fallback", (str,), "why the agent's answer was replaced by a legal move (valid is then false)"
    ),
    ExtraField("seat_agent", (str,), "the experiment's agent name at this seat (tournaments)"),
    ExtraField("lineup", (int,), "index of the lineup in the experiment config (tournaments)", _non_negative),
    ExtraField("abandoned", (bool,), "the person left the game before its end (huesenv play)"),
)

WORD_QUERY_FIELDS: tuple[ExtraField, ...] = (
    ExtraField("sampled", (bool,), "cells are sampled answers in order (scores null), not a ranking"),
    ExtraField("top_k", (int,), "how many cells were asked for", _non_negative),
    ExtraField("config_agent", (str,), "the experiment's agent name (word-level runs)"),
    ExtraField("source", (str,), "where imported answers came from (a file, or guess_1 of a game log)"),
    ExtraField("source_line", (int,), "line of the source table", _non_negative),
    ExtraField("source_sha256", (str,), "SHA-256 of the source table (makes re-imports idempotent)"),
    ExtraField("n_answers", (int,), "answers the source table promised per word", _non_negative),
    ExtraField(
        "invalid_answers", (list,), "answers that were not a coordinate: [{column, text}]", _invalid_answers
    ),
    ExtraField(
        "fallback", (str,), "why the answer is a fallback (e.g. human replay: unknown_cue, exhausted)"
    ),
    ExtraField("word", (str,), "the word the human replay agent answered for"),
    ExtraField("attempts", (int,), "model calls it took (chat agents)", _non_negative),
    ExtraField("prompt_version", (str, int), "version of the prompt templates (chat agents)"),
    ExtraField("prompt", (str,), "the text prompt used (CLIP agents)"),
    ExtraField("blind", (bool,), "answered without the image (text-embedding agent)"),
    ExtraField("context", (str,), "the context the blind answer was ranked from"),
    ExtraField("cue_strategy", (str,), "the scoring agent's cue strategy"),
    ExtraField("frame_share", (float,), "share of the frame the answer covers (human replay)"),
    ExtraField("input", (str,), '"human" when a person answered (huesenv play)'),
)
# Any further key of a word_query is an agent's own Answer.info entry: it must be a JSON scalar.
WORD_QUERY_OPEN = "agent info: any other key an agent reports in Answer.info, as a JSON scalar"

PROBE_TRIAL_FIELDS: tuple[ExtraField, ...] = (
    ExtraField("task", (str,), 'the probe\'s registered name ("gca", "interference", ...)'),
    ExtraField("trial_id", (str,), 'stable trial id, e.g. "gca/<stimulus>/colour"'),
    ExtraField("question", (str,), "the question text asked"),
    ExtraField("options", (list, None), "the answer options, or null for a free answer", _list_of(str)),
    ExtraField("truth", (str, None), "the correct answer (null where there is none)"),
    ExtraField("subject", (str,), "what the question is about (the object, or 'text')"),
    ExtraField("answer_kind", (str,), "how the answer is parsed (option, colour, percent, threshold, ...)"),
    ExtraField("stimulus_id", (str,), "the stimulus the trial shows"),
    ExtraField("source", (str,), "replies scored from a file (huesenv probe --replies): the file"),
    ExtraField("source_line", (int,), "replies scored from a file: the line of the reply", _non_negative),
    # GCA stimulus fields
    ExtraField("object", (str,), "GCA: the object drawn"),
    ExtraField("base", (str,), "GCA: the outline image"),
    ExtraField("condition", (str,), "GCA: stimulus condition"),
    ExtraField("colour", (str,), "GCA: the colour painted"),
    ExtraField("tau", (float, None), "GCA: the colouring threshold (%)"),
    ExtraField("coverage", (float, None), "GCA: share of the object coloured (%)"),
    ExtraField("question_type", (str, None), "GCA: colour, introspection or coverage"),
    ExtraField(
        "ordering", (str, None), "GCA: introspection ordering (standard, visual-prior, post-hoc, text-prior)"
    ),
    ExtraField("distractor", (str, None), "GCA: the distractor colour option"),
    ExtraField(
        "prior_image", (str, bool, None), "GCA text-prior trials: the image shown instead of a stimulus"
    ),
    # interference stimulus fields
    ExtraField("subset", (str,), "interference: color, simple or mask"),
    ExtraField("type", (int,), "interference: question type 1-4"),
    ExtraField("text_colour", (str,), "interference: the colour the text is printed in"),
    ExtraField("question_colour", (str, None), "interference: the colour the question asks about"),
    ExtraField("text_words", (list,), "interference: the words printed", _list_of(str)),
    ExtraField("named_colours", (list,), "interference: colour names among the words", _list_of(str)),
    ExtraField("image_question", (str, None), "interference: the question printed in the image"),
    ExtraField("masked", (list,), "interference: masked boxes", _scalar_or_list),
)
# Keys "parsed_<name>" hold the answer parser's extracted values (JSON scalars or lists of them).
PROBE_PARSED_PREFIX = "parsed_"

EXTRA_FIELDS: dict[str, dict[str, ExtraField]] = {
    kind: {f.name: f for f in (*specific, *UNIT_FIELDS)}
    for kind, specific in (
        ("game_step", GAME_STEP_FIELDS),
        ("word_query", WORD_QUERY_FIELDS),
        ("probe_trial", PROBE_TRIAL_FIELDS),
    )
}


def describe_fields() -> str:
    """Every declared ``extra`` key per kind, as text (``huesenv logs schema`` prints it)."""
    lines = [f"log schema version {SCHEMA_VERSION} (reads {', '.join(map(str, READABLE_VERSIONS))})"]
    for kind, declared in EXTRA_FIELDS.items():
        lines.append(f"\n{kind} extra:")
        for spec in declared.values():
            types = " | ".join("null" if t is None else t.__name__ for t in spec.types)
            lines.append(f"  {spec.name:16s} {types:14s} {spec.doc}")
        if kind == "word_query":
            lines.append(f"  {'<other>':16s} {'scalar':14s} {WORD_QUERY_OPEN}")
        if kind == "probe_trial":
            lines.append(
                f"  {PROBE_PARSED_PREFIX + '<name>':16s} {'scalar|list':14s} values the answer parser found"
            )
    return "\n".join(lines)


# -- records --------------------------------------------------------------------------


@dataclass
class LogRecord:
    """One thing an agent did; ``LogRecord(kind=...)`` builds the typed subclass of that kind."""

    kind: str
    run_id: str
    agent_id: str
    seed: int | None = None
    episode: int | None = None
    step: int | None = None
    word: str | None = None
    category: str | None = None
    cells: list[str] | None = None
    scores: list[float] | None = None
    answer: str | None = None
    raw_text: str | None = None
    valid: bool = True
    timings: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    created: float = field(default_factory=time.time)
    schema_version: int = SCHEMA_VERSION

    KIND: ClassVar[str | None] = None

    def __new__(cls, *args: Any, **kwargs: Any) -> LogRecord:
        if cls is LogRecord:
            kind = kwargs.get("kind", args[0] if args else None)
            cls = _KIND_CLASSES.get(kind, cls) if isinstance(kind, str) else cls
        return super().__new__(cls)

    def __post_init__(self) -> None:
        if self.kind not in RECORD_KINDS:
            raise LogError("LogRecord", "kind", f"{self.kind!r} is not one of {list(RECORD_KINDS)}")
        if self.KIND is not None and self.kind != self.KIND:
            raise LogError(
                "LogRecord", "kind", f"a {type(self).__name__} has kind {self.KIND!r}, got {self.kind!r}"
            )
        for name in ("run_id", "agent_id"):
            value = getattr(self, name)
            if not value or not isinstance(value, str):
                raise LogError("LogRecord", name, f"expected a non-empty string, got {value!r}")
        if isinstance(self.scores, list):
            self.scores = [_finite_or_none(s) for s in self.scores]

    def to_dict(self) -> dict[str, Any]:
        """A copy as plain data (lists and mappings copied, so the record and the dict stay independent)."""
        out = {}
        for name in _FIELD_NAMES:
            value = getattr(self, name)
            if isinstance(value, list):
                value = list(value)
            elif isinstance(value, dict):
                value = copy.deepcopy(value)
            out[name] = value
        return out

    @property
    def unit(self) -> str | None:
        """The unit block this record belongs to (every kind can be written by the resumable runner)."""
        return self.extra.get("unit")

    @property
    def unit_size(self) -> int | None:
        return self.extra.get("unit_size")

    @property
    def unit_pos(self) -> int | None:
        return self.extra.get("unit_pos")

    def _view(self) -> dict[str, Any]:
        """The fields without copying (for validation and serialisation)."""
        return {name: getattr(self, name) for name in _FIELD_NAMES}

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(LogRecord))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "record") -> LogRecord:
        """A validated record from a parsed JSON object (version 1 or 2); errors are :class:`LogError`."""
        if not isinstance(data, Mapping):
            raise LogError(where, "<json>", f"expected a JSON object, got {type(data).__name__}")
        version = data.get("schema_version")
        if "schema_version" not in data:
            raise LogError(where, "schema_version", "missing (required in every record)")
        if version not in READABLE_VERSIONS or isinstance(version, bool):
            raise LogError(
                where,
                "schema_version",
                f"{version!r} is not the supported version {SCHEMA_VERSION} (this huesenv reads {list(READABLE_VERSIONS)})",
            )
        for name in REQUIRED_FIELDS:
            if name not in data:
                raise LogError(where, name, "missing (required in every record)")
        unknown = sorted(set(data) - set(cls.field_names()))
        if unknown:
            raise LogError(where, unknown[0], f"unknown field (schema version {version} has no such field)")
        kind = data["kind"]
        if kind not in RECORD_KINDS:
            raise LogError(where, "kind", f"{kind!r} is not one of {list(RECORD_KINDS)}")
        if version == 1:
            data = upgrade_v1(data)
        for name in ("run_id", "agent_id"):
            if not isinstance(data[name], str) or not data[name]:
                raise LogError(where, name, f"expected a non-empty string, got {data[name]!r}")
        _check_top_level(dict(data), where)
        record = LogRecord(**data)
        return validate_record(record, where)


def _finite_or_none(value: Any) -> Any:
    if _is_number(value):
        return float(value) if math.isfinite(float(value)) else None
    return value  # not a number: left for validate_record to name


class GameStep(LogRecord):
    """One step of a game (pick, cue, guess) or one seat's reveal; see :data:`GAME_STEP_FIELDS`."""

    KIND = "game_step"

    game = property(lambda self: self.extra.get("game"))
    round = property(lambda self: self.extra.get("round"))
    player = property(lambda self: self.extra.get("player"))
    role = property(lambda self: self.extra.get("role"))
    phase = property(lambda self: self.extra.get("phase"))
    cue_index = property(lambda self: self.extra.get("cue_index"))
    cell = property(lambda self: self.extra.get("cell"))
    target = property(lambda self: self.extra.get("target"))
    points = property(lambda self: self.extra.get("points", 0))
    passed = property(lambda self: bool(self.extra.get("passed", False)))
    cues = property(lambda self: list(self.extra.get("cues") or []))
    fallback = property(lambda self: self.extra.get("fallback"))
    seat_agent = property(lambda self: self.extra.get("seat_agent"))
    lineup = property(lambda self: self.extra.get("lineup"))


class WordQuery(LogRecord):
    """The paper's word→cell task: ranked top-k cells with scores, or sampled answers in order."""

    KIND = "word_query"

    sampled = property(lambda self: bool(self.extra.get("sampled", False)))
    top_k = property(lambda self: self.extra.get("top_k"))
    config_agent = property(lambda self: self.extra.get("config_agent"))
    invalid_answers = property(lambda self: list(self.extra.get("invalid_answers") or []))
    fallback = property(lambda self: self.extra.get("fallback"))


class ProbeTrialRecord(LogRecord):
    """One answered probe question (GCA or text interference); ``answer`` is the parsed answer."""

    KIND = "probe_trial"

    task = property(lambda self: self.extra.get("task"))
    trial_id = property(lambda self: self.extra.get("trial_id"))
    question = property(lambda self: self.extra.get("question"))
    options = property(lambda self: self.extra.get("options"))
    truth = property(lambda self: self.extra.get("truth"))


_FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in fields(LogRecord))


_KIND_CLASSES: dict[str, type[LogRecord]] = {
    "game_step": GameStep,
    "word_query": WordQuery,
    "probe_trial": ProbeTrialRecord,
}


# -- validation ----------------------------------------------------------------------

_TOP_LEVEL: dict[str, tuple[type | None, ...]] = {
    "seed": (int, None),
    "episode": (int, None),
    "step": (int, None),
    "word": (str, None),
    "category": (str, None),
    "cells": (list, None),
    "scores": (list, None),
    "answer": (str, None),
    "raw_text": (str, None),
    "valid": (bool,),
    "timings": (dict,),
    "extra": (dict,),
    "created": (float,),
    "schema_version": (int,),
}


def _type_names(types: tuple[type | None, ...]) -> str:
    names: dict[type | None, str] = {bool: "true/false", int: "an integer", float: "a number", str: "a string",
                                     list: "a list", dict: "an object", None: "null"}  # fmt: skip
    return " or ".join(names.get(t) or str(getattr(t, "__name__", t)) for t in types)


def _check_top_level(data: Mapping[str, Any], where: str) -> None:
    for name, types in _TOP_LEVEL.items():
        if name in data and not _type_ok(data[name], types):
            raise LogError(where, name, f"expected {_type_names(types)}, got {data[name]!r}")


def validate_record(record: LogRecord, where: str = "record") -> LogRecord:
    """The one validator: types of every field, coordinates on the board, words known, ``extra`` declared."""
    _check_top_level(record._view(), where)
    if record.cells is not None:
        for i, cell in enumerate(record.cells):
            problem = _coord(cell)
            if problem:
                raise LogError(where, f"cells[{i}]", problem)
    if record.scores is not None:
        for i, score in enumerate(record.scores):
            if score is not None and not _is_number(score):
                raise LogError(where, f"scores[{i}]", f"expected a number or null, got {score!r}")
        if record.cells is not None and len(record.scores) != len(record.cells):
            raise LogError(
                where,
                "scores",
                f"{len(record.scores)} scores for {len(record.cells)} cells (expected equal lengths)",
            )
    for name, value in record.timings.items():
        if not isinstance(name, str) or not _is_number(value):
            raise LogError(where, f"timings.{name}", f"expected a number of seconds, got {value!r}")
    _check_extra(record.kind, record.extra, where)
    if record.kind == "word_query":
        if not isinstance(record.word, str):
            raise LogError(where, "word", f"expected the query word, got {record.word!r}")
        if record.category != CUSTOM_CATEGORY and not is_known(record.word):
            raise LogError(
                where,
                "word",
                f"unknown word {record.word!r} (expected one of the 100 words or 16 nonsense inputs, "
                f"or category {CUSTOM_CATEGORY!r} for a user vocabulary)",
            )
    return record


def _check_extra(kind: str, extra: Mapping[str, Any], where: str) -> None:
    declared = EXTRA_FIELDS[kind]
    for key, value in extra.items():
        name = f"extra.{key}"
        spec = declared.get(key) if isinstance(key, str) else None
        if spec is None:
            if (
                kind == "word_query"
                and isinstance(key, str)
                and isinstance(value, (str, int, float, bool, type(None)))
            ):
                continue  # an agent's own Answer.info scalar
            if kind == "probe_trial" and isinstance(key, str) and key.startswith(PROBE_PARSED_PREFIX):
                problem = _scalar_or_list(value)
                if problem:
                    raise LogError(where, name, f"expected {problem}")
                continue
            raise LogError(
                where, name, f"not a declared {kind} field (declared: {', '.join(sorted(declared))})"
            )
        if not _type_ok(value, spec.types):
            raise LogError(where, name, f"expected {_type_names(spec.types)} ({spec.doc}), got {value!r}")
        if spec.check is not None and value is not None:
            problem = spec.check(value)
            if problem:
                raise LogError(where, name, problem if "expected" in problem else f"expected {problem}")


def upgrade_v1(data: Mapping[str, Any]) -> dict[str, Any]:
    """A version-1 record as a version-2 one: keys version 2 does not declare move to ``extra.v1_fields``.

    Version 1 declared no ``extra`` keys, so a version-1 writer could add any; they
    are kept (never dropped) but set apart so that the record passes version 2's
    strict validation.  Declared keys keep their place and are type-checked.
    """
    out = dict(data)
    extra = out.get("extra")
    if isinstance(extra, dict):
        declared = EXTRA_FIELDS.get(str(out.get("kind")), {})
        keep: dict[str, Any] = {}
        legacy: dict[str, Any] = {}
        for key, value in extra.items():
            open_ok = (
                out.get("kind") == "word_query" and isinstance(value, (str, int, float, bool, type(None)))
            ) or (out.get("kind") == "probe_trial" and str(key).startswith(PROBE_PARSED_PREFIX))
            (keep if key in declared or open_ok else legacy)[key] = value
        if legacy:
            keep["v1_fields"] = legacy
        out["extra"] = keep
    out["schema_version"] = SCHEMA_VERSION
    return out
