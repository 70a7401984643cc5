"""Log records: one pydantic model per kind (game step, word query, probe trial), a union discriminated on ``kind``.

A log is JSON Lines while running (one record per line, append-only) and
Parquet for analysis.  Every record says which schema version wrote it so that
readers can refuse what they do not understand instead of misreading it.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.logs.schema``.
"""

from __future__ import annotations

import copy
import math
import time
import types
import typing
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, TypeVar, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from huesenv.board import N_CELLS, format_coord, parse_coord
from huesenv.validation import shown
from huesenv.vocabulary import is_known

SCHEMA_VERSION = 3
READABLE_VERSIONS: tuple[int, ...] = (1, 2, 3)
APPENDABLE_VERSIONS: tuple[int, ...] = (2, 3)  # a version-3 writer may append to these logs
RECORD_KINDS: tuple[str, ...] = ("game_step", "probe_trial", "word_query")
REQUIRED_FIELDS: tuple[str, ...] = ("schema_version", "kind", "run_id", "agent_id")
LOG_PHASES: tuple[str, ...] = ("pick_target", "cue_1", "guess_1", "cue_2", "guess_2", "reveal")
ROLES: tuple[str, ...] = ("cue_giver", "guesser")
CUSTOM_CATEGORY = "Custom"  # a word_query of a user vocabulary: the word is not checked against the 100 words
PROBE_PARSED_PREFIX = "parsed_"  # version 2 kept parser values as extra["parsed_<name>"]
WORD_QUERY_OPEN = "agent info: an agent's own Answer.info entries, as JSON scalars"
_DEEP = {"deep": True}  # validation context: also check coordinates, words and lengths

Number = int | float  # an int stays an int (JSON bytes unchanged); bool is refused (strict)
Scalar = str | int | float | bool | None
Phase = Literal["pick_target", "cue_1", "guess_1", "cue_2", "guess_2", "reveal"]
Role = Literal["cue_giver", "guesser"]
_R = TypeVar("_R", bound="LogRecord")


class LogError(ValueError):
    """A record that does not match the schema: ``where`` (file and line), ``field`` and what was expected."""

    def __init__(self, where: str, field_name: str, message: str) -> None:
        super().__init__(f"{where}, field {field_name}: {message}")
        self.where = where
        self.field = field_name
        self.message = message


class _Problem(ValueError):
    """Raised by a validator: the layout name of the field at fault and what was expected."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


def _extra(doc: str, default: Any = None, *, key: str | None = None, **kwargs: Any) -> Any:
    """A kind's own field (serialised under ``extra``; ``key`` when its name there differs)."""
    meta: dict[str, Any] = {"extra": True}
    if key is not None:
        meta["key"] = key
    if "default_factory" in kwargs:
        return Field(description=doc, json_schema_extra=meta, **kwargs)
    return Field(default, description=doc, json_schema_extra=meta, **kwargs)


_CANONICAL_COORDS: frozenset[str] = frozenset(format_coord(i) for i in range(N_CELLS))


def _coord_problem(value: Any) -> str | None:
    if value is None or value in _CANONICAL_COORDS:  # the spelling writers use: no parsing needed
        return None
    try:
        parse_coord(value)
    except ValueError as err:
        return str(err)
    return None


def _finite_or_none(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) if math.isfinite(float(value)) else None
    return value  # not a number: left for the type check to name


def _is_deep(info: ValidationInfo) -> bool:
    return isinstance(info.context, Mapping) and bool(info.context.get("deep"))


# -- records --------------------------------------------------------------------------


class LogRecord(BaseModel):
    """One thing an agent did: the fields every kind has (build one with :meth:`create` or a kind's class)."""

    model_config = ConfigDict(extra="forbid", strict=True, revalidate_instances="never")

    KIND: ClassVar[str | None] = None
    _EXTRA_KEYS: ClassVar[dict[str, str]] = {}  # layout key under "extra" -> attribute name
    _OPEN: ClassVar[str | None] = None  # the attribute holding open keys (info / parsed), if any

    kind: str
    run_id: str = Field(min_length=1)
    agent_id: str = Field(min_length=1)
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
    timings: dict[str, Number] = Field(default_factory=dict)
    created: Number = Field(default_factory=time.time)
    schema_version: int = SCHEMA_VERSION
    # written by huesenv.logs.units.tag_unit on every record of a resumable log (all kinds)
    unit: str | None = _extra('the unit this record belongs to ("game:17", "agent:random", "play:0")')
    unit_size: int | None = _extra("how many records the unit wrote", ge=0)
    unit_pos: int | None = _extra("this record's position in its unit (0, 1, ...)", ge=0)
    v1_fields: dict[str, Any] | None = _extra(
        "keys of a version-1 record that later versions do not declare (kept as read)"
    )

    def __init__(self, **data: Any) -> None:
        if type(self) is LogRecord:
            raise TypeError("LogRecord is the common base: build LogRecord.create(kind=...) or GameStep(...)")
        try:
            super().__init__(**_from_layout(type(self), data))
        except ValidationError as err:
            raise _log_error(err, type(self), type(self).__name__) from None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        keys: dict[str, str] = {}
        for name, info in cls.model_fields.items():
            meta = info.json_schema_extra
            if isinstance(meta, dict) and meta.get("extra"):
                keys[str(meta.get("key", name))] = name
        cls._EXTRA_KEYS = keys

    @staticmethod
    def create(**data: Any) -> LogRecord:
        """The record of ``data["kind"]`` (``LogRecord.create(kind="game_step", ..., extra={...})``)."""
        kind = data.get("kind")
        cls = KIND_CLASSES.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise LogError("LogRecord", "kind", f"{kind!r} is not one of {list(RECORD_KINDS)}")
        return cls(**data)

    @field_validator("scores", mode="before")
    @classmethod
    def _finite_scores(cls, value: Any) -> Any:
        return [_finite_or_none(s) for s in value] if isinstance(value, list) else value

    @field_validator("cells")
    @classmethod
    def _cells_on_board(cls, value: list[str] | None, info: ValidationInfo) -> list[str] | None:
        if value is not None and _is_deep(info):
            for i, cell in enumerate(value):
                problem = _coord_problem(cell)
                if problem:
                    raise _Problem(f"cells[{i}]", problem)
        return value

    @model_validator(mode="after")
    def _scores_match_cells(self, info: ValidationInfo) -> LogRecord:
        if _is_deep(info) and self.scores is not None and self.cells is not None:
            if len(self.scores) != len(self.cells):
                raise _Problem(
                    "scores",
                    f"{len(self.scores)} scores for {len(self.cells)} cells (expected equal lengths)",
                )
        return self

    # -- the version-2 layout ---------------------------------------------------------
    @property
    def extra(self) -> ExtraView:
        """The kind's own fields that are set, as a live mapping (``rec.extra["phase"]``; writes go to the fields)."""
        return ExtraView(self)

    def _extra_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        present = self.model_fields_set
        for key, name in self._EXTRA_KEYS.items():
            if name in present:
                out[key] = getattr(self, name)
        if self._OPEN is not None:
            open_values = getattr(self, self._OPEN)
            if open_values:
                out[self._OPEN] = open_values
        return out

    def _view(self) -> dict[str, Any]:
        """The record in its file layout, without copying (for serialisation)."""
        d = self.__dict__
        out = {name: d[name] for name in COMMON_FIELDS}
        out["extra"] = self._extra_dict()
        return out

    def to_dict(self) -> dict[str, Any]:
        """A copy as one flat row: the common fields and ``extra`` as :attr:`extra` reads (open keys beside
        the declared ones, as in version 2); lists and mappings copied, so record and dict stay independent."""
        out = {}
        view = self._view()
        view["extra"] = dict(self.extra)
        for name, value in view.items():
            if isinstance(value, list):
                value = list(value)
            elif isinstance(value, dict):
                value = copy.deepcopy(value)
            out[name] = value
        return out

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The top-level keys of a record on disk (the Parquet columns)."""
        return LAYOUT_FIELDS

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "record") -> LogRecord:
        """A validated record from a parsed JSON object (version 1, 2 or 3); errors are :class:`LogError`."""
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
        unknown = sorted(set(data) - set(LAYOUT_FIELDS))
        if unknown:
            raise LogError(where, unknown[0], f"unknown field (schema version {version} has no such field)")
        kind = data["kind"]
        model = KIND_CLASSES.get(kind) if isinstance(kind, str) else None
        if model is None:
            raise LogError(where, "kind", f"{kind!r} is not one of {list(RECORD_KINDS)}")
        if version == 1:
            data = upgrade_v1(data)
        fields = _from_layout(
            model, {**data, "schema_version": SCHEMA_VERSION}, where=where, open_beside=version < 3
        )
        return _validate_deep(model, fields, where)


class ExtraView(MutableMapping[str, Any]):
    """``record.extra``: the kind's own fields that are set, by their layout names, read and written live.

    Why a view and not a dict: the fields are the record's real, typed attributes; this keeps the
    version-2 spelling (``rec.extra["phase"]``, ``rec.extra.setdefault("lineup", 0)``) working on them.
    An open key (an agent's info entry, a parser's ``parsed_<name>``) goes to ``info``/``parsed``.
    """

    __slots__ = ("_record",)

    def __init__(self, record: LogRecord) -> None:
        self._record = record

    def _open(self) -> dict[str, Any] | None:
        rec = self._record
        return getattr(rec, rec._OPEN) if rec._OPEN is not None else None

    def _open_key(self, key: str) -> str | None:
        rec = self._record
        if rec._OPEN == "parsed":
            return key[len(PROBE_PARSED_PREFIX) :] if key.startswith(PROBE_PARSED_PREFIX) else None
        return key if rec._OPEN == "info" else None

    def __getitem__(self, key: str) -> Any:
        rec = self._record
        name = rec._EXTRA_KEYS.get(key)
        if name is not None:
            if name not in rec.model_fields_set:
                raise KeyError(key)
            return getattr(rec, name)
        open_values, open_key = self._open(), self._open_key(key)
        if open_values is not None and open_key is not None and open_key in open_values:
            return open_values[open_key]
        raise KeyError(key)

    def __setitem__(self, key: str, value: Any) -> None:
        rec = self._record
        name = rec._EXTRA_KEYS.get(key)
        if name is not None:
            setattr(rec, name, value)  # marks the field as set
            return
        open_values, open_key = self._open(), self._open_key(key)
        if open_values is None or open_key is None:
            declared = ", ".join(sorted(rec._EXTRA_KEYS))
            raise LogError(
                type(rec).__name__, f"extra.{key}", f"not a declared {rec.kind} field (declared: {declared})"
            )
        open_values[open_key] = value
        if rec._OPEN is not None and rec._OPEN not in rec.model_fields_set:
            setattr(rec, rec._OPEN, open_values)  # marks it as set

    def __delitem__(self, key: str) -> None:
        rec = self._record
        name = rec._EXTRA_KEYS.get(key)
        if name is not None and name in rec.model_fields_set:
            info = type(rec).model_fields[name]
            object.__setattr__(rec, name, info.get_default(call_default_factory=True))
            rec.model_fields_set.discard(name)
            return
        open_values, open_key = self._open(), self._open_key(key)
        if open_values is not None and open_key is not None and open_key in open_values:
            del open_values[open_key]
            return
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        rec = self._record
        present = rec.model_fields_set
        for key, name in rec._EXTRA_KEYS.items():
            if name in present:
                yield key
        open_values = self._open()
        if open_values:
            prefix = PROBE_PARSED_PREFIX if rec._OPEN == "parsed" else ""
            for key in open_values:
                yield prefix + key

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(dict(self))


class GameStep(LogRecord):
    """One step of a game (pick, cue, guess) or one seat's reveal."""

    KIND = "game_step"

    kind: Literal["game_step"] = "game_step"
    game: int | None = _extra("game number within the run", ge=0)
    round: int | None = _extra("round number within the game (0-based)", ge=0)
    player: str | None = _extra('seat name in the env, e.g. "player_0"')
    role: Role | None = _extra('"cue_giver" or "guesser"')
    phase: Phase | None = _extra(f"one of {list(LOG_PHASES)}")
    cue_index: int | None = _extra("1 or 2 (which cue the step belongs to); null on reveal")
    cell: str | None = _extra("the coordinate placed or picked, or null")
    target: str | None = _extra("the target, only once revealed or for the cue giver")
    points: int = _extra("points scored at this step (non-zero only on reveal)", 0)
    passed: bool = _extra("the cue giver passed on the second cue", False)
    cue: str | None = _extra("the cue given, where a writer keeps it apart from word (read by replay)")
    cues: list[str | None] = _extra(
        "the cues given so far this round (null for a passed cue)", default_factory=list
    )
    cone_indices: list[int] | None = _extra("reveal only: which cue each of the seat's cones answered")
    fallback: str | None = _extra("why the agent's answer was replaced by a legal move (valid is then false)")
    agent_fallback: str | None = _extra(
        "the agent's own fallback (e.g. human replay: unknown_cue, exhausted), said in the window and replay"
    )
    seat_agent: str | None = _extra("the experiment's agent name at this seat (tournaments)")
    lineup: int | None = _extra("index of the lineup in the experiment config (tournaments)", ge=0)
    abandoned: bool | None = _extra("the person left the game before its end (huesenv play)")

    @field_validator("cell", "target")
    @classmethod
    def _on_board(cls, value: str | None, info: ValidationInfo) -> str | None:
        problem = _coord_problem(value) if _is_deep(info) else None
        if problem:
            raise _Problem(f"extra.{info.field_name}", problem)
        return value


def _check_invalid_answers(value: list[dict[str, str]]) -> list[dict[str, str]]:
    for item in value:
        if set(item) != {"column", "text"}:
            raise _Problem(
                "extra.invalid_answers", f"expected a list of {{column, text}} objects, got {item!r}"
            )
    return value


class WordQuery(LogRecord):
    """The paper's word→cell task: ranked top-k cells with scores, or sampled answers in order."""

    KIND = "word_query"
    _OPEN = "info"

    kind: Literal["word_query"] = "word_query"
    sampled: bool = _extra("cells are sampled answers in order (scores null), not a ranking", False)
    top_k: int | None = _extra("how many cells were asked for", ge=0)
    config_agent: str | None = _extra("the experiment's agent name (word-level runs)")
    source: str | None = _extra("where imported answers came from (a file, or guess_1 of a game log)")
    source_line: int | None = _extra("line of the source table", ge=0)
    source_sha256: str | None = _extra("SHA-256 of the source table (makes re-imports idempotent)")
    n_answers: int | None = _extra("answers the source table promised per word", ge=0)
    invalid_answers: list[dict[str, str]] = _extra(
        "answers that were not a coordinate: [{column, text}]", default_factory=list
    )
    fallback: str | None = _extra("why the answer is a fallback (e.g. human replay: unknown_cue, exhausted)")
    answered_word: str | None = _extra("the word the human replay agent answered for", key="word")
    attempts: int | None = _extra("model calls it took (chat agents)", ge=0)
    prompt_version: str | int | None = _extra("version of the prompt templates (chat agents)")
    prompt: str | None = _extra("the text prompt used (CLIP agents)")
    blind: bool | None = _extra("answered without the image (text-embedding agent)")
    context: str | None = _extra("the context the blind answer was ranked from")
    cue_strategy: str | None = _extra("the scoring agent's cue strategy")
    frame_share: Number | None = _extra("share of the frame the answer covers (human replay)")
    input_source: str | None = _extra('"human" when a person answered (huesenv play)', key="input")
    info: dict[str, Scalar] = Field(default_factory=dict, description=WORD_QUERY_OPEN)

    @field_validator("invalid_answers")
    @classmethod
    def _answers_shape(cls, value: list[dict[str, str]]) -> list[dict[str, str]]:
        return _check_invalid_answers(value)

    @model_validator(mode="after")
    def _known_word(self, info: ValidationInfo) -> WordQuery:
        if not _is_deep(info):
            return self
        if not isinstance(self.word, str):
            raise _Problem("word", f"expected the query word, got {self.word!r}")
        if self.category != CUSTOM_CATEGORY and not is_known(self.word):
            raise _Problem(
                "word",
                f"unknown word {self.word!r} (expected one of the 100 words or 16 nonsense inputs, "
                f"or category {CUSTOM_CATEGORY!r} for a user vocabulary)",
            )
        return self


ParsedValue = Scalar | list[Scalar | list[Scalar]]


class ProbeTrialRecord(LogRecord):
    """One answered probe question (GCA or text interference); ``answer`` is the parsed answer."""

    KIND = "probe_trial"
    _OPEN = "parsed"

    kind: Literal["probe_trial"] = "probe_trial"
    task: str | None = _extra('the probe\'s registered name ("gca", "interference", ...)')
    trial_id: str | None = _extra('stable trial id, e.g. "gca/<stimulus>/colour"')
    question: str | None = _extra("the question text asked")
    options: list[str] | None = _extra("the answer options, or null for a free answer")
    truth: str | None = _extra("the correct answer (null where there is none)")
    subject: str | None = _extra("what the question is about (the object, or 'text')")
    answer_kind: str | None = _extra("how the answer is parsed (option, colour, percent, threshold, ...)")
    stimulus_id: str | None = _extra("the stimulus the trial shows")
    source: str | None = _extra("replies scored from a file (huesenv probe --replies): the file")
    source_line: int | None = _extra("replies scored from a file: the line of the reply", ge=0)
    gca_object: str | None = _extra("GCA: the object drawn", key="object")
    base: str | None = _extra("GCA: the outline image")
    condition: str | None = _extra("GCA: stimulus condition")
    colour: str | None = _extra("GCA: the colour painted")
    tau: Number | None = _extra("GCA: the colouring threshold (%)")
    coverage: Number | None = _extra("GCA: share of the object coloured (%)")
    question_type: str | None = _extra("GCA: colour, introspection or coverage")
    ordering: str | None = _extra(
        "GCA: introspection ordering (standard, visual-prior, post-hoc, text-prior)"
    )
    distractor: str | None = _extra("GCA: the distractor colour option")
    prior_image: str | bool | None = _extra("GCA text-prior trials: the image shown instead of a stimulus")
    subset: str | None = _extra("interference: color, simple or mask")
    question_number: int | None = _extra("interference: question type 1-4", key="type")
    text_colour: str | None = _extra("interference: the colour the text is printed in")
    question_colour: str | None = _extra("interference: the colour the question asks about")
    text_words: list[str] | None = _extra("interference: the words printed")
    named_colours: list[str] | None = _extra("interference: colour names among the words")
    image_question: str | None = _extra("interference: the question printed in the image")
    masked: ParsedValue = _extra("interference: masked boxes")
    parsed: dict[str, ParsedValue] = Field(
        default_factory=dict, description="the answer parser's values (JSON scalars or lists of them)"
    )


AnyRecord = Annotated[GameStep | WordQuery | ProbeTrialRecord, Field(discriminator="kind")]
KIND_CLASSES: dict[str, type[LogRecord]] = {
    "game_step": GameStep,
    "word_query": WordQuery,
    "probe_trial": ProbeTrialRecord,
}
COMMON_FIELDS: tuple[str, ...] = (
    "kind", "run_id", "agent_id", "seed", "episode", "step", "word", "category", "cells", "scores",
    "answer", "raw_text", "valid", "timings", "created", "schema_version",
)  # fmt: skip
LAYOUT_FIELDS: tuple[str, ...] = (*COMMON_FIELDS[:14], "extra", *COMMON_FIELDS[14:])


def _from_layout(
    model: type[LogRecord], data: Mapping[str, Any], where: str | None = None, open_beside: bool = True
) -> dict[str, Any]:
    """Model keyword arguments from the file layout (``extra`` spread onto the kind's fields).

    With ``open_beside`` (versions 1-2, and :meth:`LogRecord.create`'s ``extra=``) open keys beside
    the declared ones (an agent's info scalars, ``parsed_<name>``) go to ``info``/``parsed``; a
    version-3 line has them only inside ``extra.info``/``extra.parsed``.
    """
    if "extra" not in data:
        return dict(data)
    out = {k: v for k, v in data.items() if k != "extra"}
    extra = data["extra"]
    if extra is None:
        return out
    if not isinstance(extra, Mapping):
        raise LogError(where or model.__name__, "extra", f"expected an object, got {extra!r}")
    keys = model._EXTRA_KEYS
    open_name = model._OPEN
    open_values: dict[str, Any] = {}
    for key, value in extra.items():
        name = keys.get(key) if isinstance(key, str) else None
        if name is not None:
            out[name] = value
        elif open_name is not None and key == open_name and isinstance(value, Mapping):
            open_values.update(value)
        elif (
            open_beside
            and open_name == "info"
            and isinstance(key, str)
            and isinstance(value, (str, int, float, bool, type(None)))
        ):
            open_values[key] = value  # version 2: an agent's info scalar beside the declared keys
        elif (
            open_beside
            and open_name == "parsed"
            and isinstance(key, str)
            and key.startswith(PROBE_PARSED_PREFIX)
        ):
            open_values[key[len(PROBE_PARSED_PREFIX) :]] = value
        else:
            declared = ", ".join(sorted(keys))
            raise LogError(
                where or model.__name__,
                f"extra.{key}",
                f"not a declared {model.KIND} field (declared: {declared})",
            )
    if open_values or (open_name is not None and open_name in extra):
        out[open_name] = open_values  # type: ignore[index]
    return out


# -- errors ----------------------------------------------------------------------------

_TYPE_NAMES: dict[Any, str] = {
    bool: "true/false", int: "an integer", float: "a number", str: "a string", list: "a list",
    dict: "an object", type(None): "null",
}  # fmt: skip


def _type_text(annotation: Any) -> str:
    """``int | None`` → ``"an integer or null"`` (the wording of the version-2 errors)."""
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        args = typing.get_args(annotation)
        if {int, float} <= set(args) and not set(args) - {int, float, type(None)}:
            return "a number or null" if type(None) in args else "a number"
        names: list[str] = []
        for arg in args:
            text = _type_text(arg)
            if text not in names:
                names.append(text)
        return " or ".join(names)
    if origin is Literal:
        return f"one of {list(typing.get_args(annotation))}"
    if origin is Annotated:
        return _type_text(typing.get_args(annotation)[0])
    base = origin or annotation
    return _TYPE_NAMES.get(base, getattr(base, "__name__", str(base)))


def _field_name(model: type[LogRecord], loc: tuple[int | str, ...]) -> tuple[str, str | None]:
    """(the layout name of the field at ``loc``, its attribute name when it is a model field)."""
    if not loc:
        return "<record>", None
    head = str(loc[0])
    layout = {name: key for key, name in model._EXTRA_KEYS.items()}
    if head in layout:
        return f"extra.{layout[head]}", head
    if head == "info" and len(loc) > 1:
        return f"extra.{loc[1]}", head
    if head == "parsed" and len(loc) > 1:
        return f"extra.{PROBE_PARSED_PREFIX}{loc[1]}", head
    if head in ("cells", "scores") and len(loc) > 1 and isinstance(loc[1], int):
        return f"{head}[{loc[1]}]", head
    if head == "timings" and len(loc) > 1:
        return f"timings.{loc[1]}", head
    return head, head if head in model.model_fields else None


def _log_error(err: ValidationError, model: type[LogRecord], where: str) -> LogError:
    """pydantic's first error as a :class:`LogError` worded like version 2's."""
    errors = err.errors(include_url=False)
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    raised = (first.get("ctx") or {}).get("error")
    if isinstance(raised, _Problem):
        return LogError(where, raised.field, raised.message)
    loc = tuple(first["loc"])
    field_name, attr = _field_name(model, loc)
    kind = first["type"]
    value = first.get("input")
    if kind == "extra_forbidden":
        declared = ", ".join(sorted(model._EXTRA_KEYS))
        return LogError(
            where, f"extra.{loc[-1]}", f"not a declared {model.KIND} field (declared: {declared})"
        )
    if kind == "missing":
        return LogError(where, field_name, "missing (required in every record)")
    if kind == "string_too_short":
        return LogError(where, field_name, f"expected a non-empty string, got {shown(value)}")
    if kind in ("greater_than_equal",):
        return LogError(where, field_name, f"expected a non-negative integer, got {shown(value)}")
    if kind == "literal_error" and loc and loc[0] == "kind":
        return LogError(where, "kind", f"a {model.__name__} has kind {model.KIND!r}, got {shown(value)}")
    if kind == "value_error":
        message = str(first["msg"]).removeprefix("Value error, ")
        return LogError(
            where, field_name, message if message.startswith("expected") else f"expected {message}"
        )
    if field_name.startswith("timings."):
        return LogError(where, field_name, f"expected a number of seconds, got {shown(value)}")
    if field_name.startswith(("cells[", "scores[")):
        what = "a coordinate" if field_name.startswith("cells") else "a number or null"
        return LogError(where, field_name, f"expected {what}, got {shown(value)}")
    info = model.model_fields.get(attr) if attr else None
    if info is None:
        return LogError(where, field_name, f"expected {first['msg']}, got {shown(value)}")
    expected = _type_text(info.annotation)
    if field_name.startswith("extra.") and info.description:
        expected += f" ({info.description})"
    if len(loc) > 1 and not isinstance(loc[1], str):
        inside = ".".join(str(p) for p in loc[1:] if isinstance(p, int))
        return LogError(where, field_name, f"expected {expected}, got {shown(value)} at item {inside}")
    return LogError(where, field_name, f"expected {expected}, got {shown(value)}")


# -- declared fields (huesenv logs schema) ------------------------------------------------


@dataclass(frozen=True)
class ExtraField:
    """One of a kind's own fields as listed by ``huesenv logs schema``: its name under ``extra``, type and meaning."""

    name: str
    types: str
    doc: str


_SHORT = {"true/false": "bool", "an integer": "int", "a number": "number", "a string": "str", "a list": "list",
          "an object": "object", "null": "null"}  # fmt: skip


def _short_type(annotation: Any) -> str:
    """``int | None`` → ``"int | null"`` (the listing's spelling)."""
    parts = _type_text(annotation).split(" or ")
    return " | ".join("str" if part.startswith("one of") else _SHORT.get(part, part) for part in parts)


def _declared(model: type[LogRecord]) -> dict[str, ExtraField]:
    out: dict[str, ExtraField] = {}
    for key, name in model._EXTRA_KEYS.items():
        info = model.model_fields[name]
        out[key] = ExtraField(key, _short_type(info.annotation), info.description or "")
    return out


EXTRA_FIELDS: dict[str, dict[str, ExtraField]] = {kind: _declared(cls) for kind, cls in KIND_CLASSES.items()}


def describe_fields() -> str:
    """Every field of every kind, as text (``huesenv logs schema`` prints it)."""
    lines = [f"log schema version {SCHEMA_VERSION} (reads {', '.join(map(str, READABLE_VERSIONS))})"]
    lines.append("\nevery record (top level):")
    for name in COMMON_FIELDS:
        info = LogRecord.model_fields[name]
        lines.append(f"  {name:16s} {_short_type(info.annotation)}")
    for kind, cls in KIND_CLASSES.items():
        lines.append(f"\n{kind} extra:")
        for spec in EXTRA_FIELDS[kind].values():
            lines.append(f"  {spec.name:16s} {spec.types:14s} {spec.doc}")
        if cls._OPEN is not None:
            info = cls.model_fields[cls._OPEN]
            lines.append(f"  {cls._OPEN:16s} {'object':14s} {info.description}")
    return "\n".join(lines)


# -- validation and older versions ----------------------------------------------------------


def validate_record(record: LogRecord, where: str = "record") -> LogRecord:
    """The one validator: every field's type (again: fields may have been assigned since), coordinates
    on the board, words known, one score per cell."""
    _validate_deep(type(record), dict(record.__dict__), where)
    return record


def _validate_deep(model: type[_R], fields: Mapping[str, Any], where: str) -> _R:
    """A record of ``model`` from its own fields (not the file layout), with the deep checks.

    ``model_validate`` would call the layout constructor above without its context (pydantic
    #10062), so this validates into a new instance the way pydantic's documented
    validation-context-in-``__init__`` pattern does (``validate_python(..., self_instance=...)``).
    """
    record = model.__new__(model)
    try:
        model.__pydantic_validator__.validate_python(fields, self_instance=record, context=_DEEP)
    except ValidationError as err:
        raise _log_error(err, model, where) from None
    return record


def upgrade_v1(data: Mapping[str, Any]) -> dict[str, Any]:
    """A version-1 record as a version-3 one: keys later versions do not declare move to ``extra.v1_fields``.

    Version 1 declared no ``extra`` keys, so a version-1 writer could add any; they
    are kept (never dropped) but set apart so that the record passes the strict
    validation.  Declared keys keep their place and are type-checked.
    """
    out = dict(data)
    extra = out.get("extra")
    model = KIND_CLASSES.get(str(out.get("kind")))
    if isinstance(extra, dict) and model is not None:
        keep: dict[str, Any] = {}
        legacy: dict[str, Any] = {}
        for key, value in extra.items():
            open_ok = (model._OPEN == "info" and isinstance(value, (str, int, float, bool, type(None)))) or (
                model._OPEN == "parsed" and str(key).startswith(PROBE_PARSED_PREFIX)
            )
            (keep if key in model._EXTRA_KEYS or open_ok else legacy)[key] = value
        if legacy:
            keep["v1_fields"] = legacy
        out["extra"] = keep
    out["schema_version"] = SCHEMA_VERSION
    return out
