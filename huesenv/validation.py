"""Validated models and safe YAML, shared by every config and record the project reads.

Why one module: every file a user hands us (experiment and training configs,
trainer parameters, ``--set`` values, log records) must fail the same way, with
one line naming the file, the line where known, the dotted field and what was
expected, and an unknown key must suggest the known one it was probably meant to
be (``unknown config key 'gamez' (did you mean 'games'?)``).  pydantic v2 does the
checking (:class:`StrictModel`); this module only turns its errors into that
line (:func:`validate`, :func:`describe_error`) and reads YAML without the
features that let a few hundred bytes allocate gigabytes (:func:`load_yaml`:
anchors and aliases are refused, a key given twice is an error, nesting is
bounded).
"""

from __future__ import annotations

import difflib
import re
import reprlib
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from huesenv.trust import read_user_text

__all__ = [
    "FieldProblem",
    "StrictModel",
    "describe_error",
    "did_you_mean",
    "dump_yaml",
    "key_line",
    "line_at",
    "load_yaml",
    "load_yaml_file",
    "parse_yaml_value",
    "shown",
    "terminal_safe",
    "validate",
    "yaml_lines",
]

M = TypeVar("M", bound=BaseModel)

# A config is a few kB; PyYAML spends seconds per MB.
MAX_YAML_BYTES = 4 << 20
# Nesting deeper than this is refused before PyYAML recurses (no config is more than ~6 deep).
MAX_YAML_DEPTH = 64


_NO_VALUE: Any = object()


class FieldProblem(ValueError):
    """Raised inside a validator to name a field below the one it validates (a cross-field check).

    ``FieldProblem(("lineups", 0, 1), "expected one of the agents [...]", "nobody")`` reads
    ``SOURCE, field lineups.0.1: expected one of the agents [...], got 'nobody'``; without ``value``
    the ``, got ...`` part is left out (``message`` then says everything).
    """

    def __init__(self, loc: tuple[int | str, ...], message: str, value: Any = _NO_VALUE) -> None:
        super().__init__(message)
        self.loc = loc
        self.message = message
        self.value = value


class StrictModel(BaseModel):
    """A pydantic model that refuses unknown keys and silent coercions (``"3"`` is not 3, ``1`` is not ``true``).

    Subclass it for anything read from a user's file; build instances through :func:`validate` so
    that a mistake becomes one line with a did-you-mean rather than pydantic's multi-line report.
    """

    model_config = ConfigDict(extra="forbid", strict=True, validate_default=False)


def did_you_mean(key: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'games'?)"`` for the closest of ``choices`` to ``key``, else ``""``."""
    close = difflib.get_close_matches(key, [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def key_line(text: str, key: str) -> str:
    """``", line N"`` of the top-level ``key:`` in a YAML ``text`` (``""`` when not found)."""
    pattern = re.compile(rf"^['\"]?{re.escape(key)}['\"]?\s*:")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return f", line {number}"
    return ""


def _unwrap(annotation: Any) -> list[Any]:
    """The alternatives of ``X | None`` / ``Optional[X]`` / ``Annotated[X, ...]`` (``[X]`` otherwise)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if origin is typing.Union or origin is types.UnionType:
        out: list[Any] = []
        for arg in typing.get_args(annotation):
            out.extend(_unwrap(arg))
        return out
    return [annotation]


def _model_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The model class whose field the error at ``loc`` concerns (for its list of allowed keys)."""
    current: Any = model
    for part in loc:
        found: Any = None
        for option in _unwrap(current):
            origin = typing.get_origin(option)
            if isinstance(option, type) and issubclass(option, BaseModel):
                field = option.model_fields.get(str(part))
                if field is None:
                    for candidate in option.model_fields.values():
                        if candidate.alias == part:
                            field = candidate
                if field is not None:
                    found = field.annotation
                    break
            elif origin in (dict, Mapping, typing.get_origin(Mapping[str, Any])):
                found = typing.get_args(option)[1]
                break
            elif origin in (list, tuple):
                args = typing.get_args(option)
                found = args[0] if args else Any
                break
        if found is None:
            return None
        current = found
    for option in _unwrap(current):
        if isinstance(option, type) and issubclass(option, BaseModel):
            return option
    return None


def _clean_loc(model: type[BaseModel], loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """``loc`` without the union-member tags pydantic inserts (``humans.cvd.str`` → ``humans.cvd``)."""
    out: list[int | str] = []
    current: Any = model
    parts = list(loc)
    while parts:
        options = [o for o in _unwrap(current) if o is not type(None)]
        structured = any(
            (isinstance(o, type) and issubclass(o, BaseModel)) or typing.get_origin(o) in (dict, Mapping)
            for o in options
        )
        if len(options) > 1 and not structured and isinstance(parts[0], str):
            parts.pop(0)  # a union member's tag, not a key
            tag_free = [o for o in options if typing.get_origin(o) in (list, tuple)]
            current = tag_free[0] if tag_free else Any
            continue
        part = parts.pop(0)
        out.append(part)
        nxt: Any = None
        for option in options:
            if isinstance(option, type) and issubclass(option, BaseModel):
                field = option.model_fields.get(str(part))
                if field is not None:
                    nxt = field.annotation
                    break
            elif typing.get_origin(option) in (dict, Mapping):
                nxt = typing.get_args(option)[1]
                break
            elif typing.get_origin(option) in (list, tuple):
                args = typing.get_args(option)
                nxt = args[0] if args else Any
                break
        current = nxt if nxt is not None else Any
    return tuple(out)


def _dotted(loc: Iterable[int | str]) -> str:
    return ".".join(str(p) for p in loc)


def describe_error(
    err: ValidationError,
    model: type[BaseModel],
    source: str,
    *,
    where: Callable[[tuple[int | str, ...]], str] | None = None,
    unknown: str = "unknown config key {key!r}",
    quote_field: bool = False,
) -> str:
    """pydantic's first error as one line: ``SOURCE[, line N], field a.b: expected ..., got ...``.

    An unknown key reads ``SOURCE[, line N]: unknown config key 'a.b' (did you mean 'a.c'?); expected one
    of ...``; ``unknown`` is that phrase's format (``{key}``: the dotted key, ``{keys}``: the sorted
    list of every unknown key beside it).  ``where(loc)`` may add a location such as ``", line 3"``
    for the error's path; ``quote_field`` writes ``field 'a.b'``.  A model may give an ``expected``
    text per field in its ``json_schema_extra={"expected": ...}``.
    """
    errors = err.errors(include_url=False)
    # An unknown key first: its did-you-mean explains the "missing" error that a misspelling also causes.
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = _clean_loc(model, tuple(first["loc"]))
    at = where(loc) if where is not None else ""
    if first["type"] == "extra_forbidden":
        owner = _model_at(model, loc[:-1])
        allowed = [f.alias or name for name, f in owner.model_fields.items()] if owner else []
        expected = f"one of {', '.join(allowed)}" if allowed else "no keys (a value, not a mapping)"
        beside = sorted(
            _dotted(_clean_loc(model, tuple(e["loc"])))
            for e in errors
            if e["type"] == "extra_forbidden" and _clean_loc(model, tuple(e["loc"]))[:-1] == loc[:-1]
        )
        phrase = unknown.format(key=_dotted(loc), keys=beside)
        return f"{source}{at}: {phrase}{did_you_mean(str(loc[-1]), allowed)}; expected {expected}"
    message = str(first["msg"])
    context = first.get("ctx") or {}
    raised = context.get("error")
    if isinstance(raised, FieldProblem):
        at = where(loc + raised.loc) if where is not None else ""
        full = loc + raised.loc
        field = f", field {_field(full, quote_field)}" if full else ""
        got = "" if raised.value is _NO_VALUE else f", got {shown(raised.value)}"
        return f"{source}{at}{field}: {raised.message}{got}"
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if message.startswith("Input should be "):
        message = "expected " + message[len("Input should be ") :]
    if first["type"] == "missing":
        message = "expected this required key"
    owner = _model_at(model, loc[:-1]) if loc else None
    if owner is not None and loc and str(loc[-1]) in owner.model_fields:
        extra = owner.model_fields[str(loc[-1])].json_schema_extra
        if isinstance(extra, dict) and isinstance(extra.get("expected"), str):
            message = f"expected {extra['expected']}"
    if not message.startswith("expected"):
        message = f"expected {message[:1].lower()}{message[1:]}"
    field = f", field {_field(loc, quote_field)}" if loc else ""
    return f"{source}{at}{field}: {message}, got {shown(first.get('input'))}"


def _field(loc: tuple[int | str, ...], quote: bool) -> str:
    return repr(_dotted(loc)) if quote else _dotted(loc)


class _Short(reprlib.Repr):
    """reprlib cut to a line; an int past Python's 4,300-digit ``repr`` limit is named by its digit count."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxstring, self.maxother, self.maxlong = 3, 120, 60, 60

    def repr_int(self, x: int, level: int) -> str:
        digits = x.bit_length() * 0.30103
        return f"<an int of about {digits:,.0f} digits>" if digits > 60 else repr(x)


_SHOWN = _Short()


def shown(value: Any) -> str:
    """A user's value as one short line: ``reprlib`` (bounded, cycle-safe), never ``repr()`` of the whole,
    which a small file's shared references (``L = [L, L]`` 45 deep) make cost 2**45."""
    text = _SHOWN.repr(value).replace("\n", "\\n")
    return text if len(text) <= 160 else text[:157] + "..."


# C0 and C1 controls (ESC, BEL, CR...), DEL, and the bidirectional overrides that reorder what a terminal shows
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(value: Any, *, markup: bool = False) -> str:
    """``str(value)`` with every control character written as its escape (``\\x1b``), so a string from a
    user's file printed to a terminal cannot clear the screen, retitle the window or fake a line;
    ``markup``: also rich's ``[style]`` tags escaped (for a rich table cell)."""
    text = _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(value))
    if markup:
        from rich.markup import escape

        text = escape(text)
    return text


def validate(
    model: type[M],
    data: Any,
    source: str,
    *,
    where: Callable[[tuple[int | str, ...]], str] | None = None,
    unknown: str = "unknown config key {key!r}",
    quote_field: bool = False,
    context: Mapping[str, Any] | None = None,
) -> M:
    """``model.model_validate(data)``, a failure raised as ``ValueError`` with :func:`describe_error`'s line."""
    try:
        return model.model_validate(data, context=dict(context) if context is not None else None)
    except ValidationError as err:
        message = describe_error(err, model, source, where=where, unknown=unknown, quote_field=quote_field)
        raise ValueError(message) from None


class _Refused(yaml.composer.ComposerError):
    """A YAML feature this loader refuses (reported as itself, not as "not valid YAML")."""


class _SafeLoader(yaml.SafeLoader):
    """PyYAML's safe loader without anchors and aliases, duplicate keys or unbounded nesting.

    Aliases are how a 628-byte "billion laughs" document expands to gigabytes; no config needs them
    (a value used twice is written twice).  A key given twice is an error (YAML says keys are unique;
    PyYAML keeps the last, so ``games: 1`` then ``games: 500`` would run 500).
    """

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            kind = "alias" if isinstance(event, yaml.AliasEvent) else "anchor"
            raise _Refused(
                None,
                None,
                f"YAML {kind} {getattr(event, 'anchor', '')!r} refused; expected plain values "
                "(anchors and aliases are not allowed)",
                event.start_mark,
            )
        depth = getattr(self, "_huesenv_depth", 0)
        if depth > MAX_YAML_DEPTH:
            raise _Refused(
                None,
                None,
                f"YAML nested deeper than {MAX_YAML_DEPTH} levels; expected plain keys and values",
                event.start_mark,
            )
        self._huesenv_depth = depth + 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._huesenv_depth = depth

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice (expected each key once)", key_node.start_mark
                )
        return super().construct_mapping(node, deep=deep)


class _PlainDumper(yaml.SafeDumper):
    """PyYAML's safe dumper that writes a value used twice twice (never ``&id001``/``*id001``), so that
    what the project writes, :func:`load_yaml` reads back."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_yaml(data: Any) -> str:
    """``yaml.safe_dump(data, sort_keys=False)`` without anchors and aliases (see :class:`_PlainDumper`)."""
    return yaml.dump(data, Dumper=_PlainDumper, sort_keys=False)


def load_yaml(text: str, source: str) -> Any:
    """Parse YAML ``text`` safely (see :class:`_SafeLoader`); a problem is ``ValueError("SOURCE, line N: ...")``."""
    try:
        return yaml.load(text, Loader=_SafeLoader)  # noqa: S506 - a SafeLoader subclass
    except RecursionError:
        raise ValueError(f"{source}: YAML nested too deeply; expected plain keys and values") from None
    except ValueError as err:  # an int past Python's 4,300-digit limit
        raise ValueError(f"{source}: not valid YAML ({str(err).split(';')[0]})") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        if isinstance(err, _Refused):
            raise ValueError(f"{source}{where}: {problem}") from None
        raise ValueError(f"{source}{where}: not valid YAML ({problem})") from None


def yaml_lines(text: str) -> dict[tuple[str, ...], int]:
    """The line (1-based) of every key and list item of a YAML ``text``, by its path of keys and indices.

    ``yaml_lines("a:\\n  b: [1, 2]\\n")`` is ``{("a",): 1, ("a", "b"): 2, ("a", "b", "0"): 2,
    ("a", "b", "1"): 2}``; parts are strings (indices too) so a pydantic ``loc`` matches after
    ``str``.  Built from the composed node tree (no object is constructed), so an error deep in a
    file can name its own line rather than its top-level key's; ``{}`` for text that does not parse.
    """
    try:
        root = yaml.compose(text, Loader=_SafeLoader)  # noqa: S506 - a SafeLoader subclass
    except (yaml.YAMLError, RecursionError):
        return {}
    lines: dict[tuple[str, ...], int] = {}
    stack: list[tuple[tuple[str, ...], yaml.Node | None]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    here = path + (str(key.value),)
                    lines[here] = key.start_mark.line + 1
                    stack.append((here, value))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                here = path + (str(index),)
                lines[here] = item.start_mark.line + 1
                stack.append((here, item))
    return lines


def line_at(lines: Mapping[tuple[str, ...], int], loc: Sequence[int | str]) -> str:
    """``", line N"`` of the deepest part of ``loc`` that :func:`yaml_lines` found (``""`` if none)."""
    parts = tuple(str(part) for part in loc)
    for end in range(len(parts), 0, -1):
        if parts[:end] in lines:
            return f", line {lines[parts[:end]]}"
    return ""


def parse_yaml_value(raw: str, source: str) -> Any:
    """One ``--set KEY=VALUE`` value parsed as YAML (lists, numbers, null), with :func:`load_yaml`'s limits."""
    if not raw.strip():
        return None
    return load_yaml(raw, source)


def load_yaml_file(path: str | Path) -> Any:
    """:func:`load_yaml` of a file (``ValueError`` naming the file when it is not UTF-8 text)."""
    path = Path(path)
    text = read_user_text(path, expected="a YAML file", max_bytes=MAX_YAML_BYTES)
    return load_yaml(text, str(path))
