"""What every subcommand shares: the parser class, the common flags, argument types, one-line errors.

The common flags have one spelling everywhere: ``-o/--out`` for outputs
(``--output`` kept as an alias), ``--agents`` for agent specs, ``--device``,
``--humans``, ``--seed``.  Numbers are checked by the argument types below, so
``--games -3`` or ``--port 99999`` stop at parsing with one line naming the flag.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from huesenv.agents.registry import has_capability, kinds_with

DEBUG_HINT = "rerun with HUESENV_DEBUG=1 for the traceback"


class UsageError(Exception):
    """A command-line mistake found by argparse or by a command: one line, exit code 2."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog
        self.message = message


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors raise :class:`UsageError` instead of printing usage and exiting,
    and whose help shows the commands' docstrings as plain words (no reST markup)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(self.prog, f"{_one_line(message)} (see {self.prog} --help)")

    def format_help(self) -> str:
        return plain_text(super().format_help())


_ROLE = re.compile(r":[a-z]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``(.+?)``")
_STRONG = re.compile(r"\*\*(.+?)\*\*")


def plain_text(text: str) -> str:
    """reST inline markup as plain words: ``x`` → x, :mod:`a.b` → a.b (``~a.b.c`` → c), **x** → x.

    The subcommands' help is their module docstring, which is written for the API docs too."""

    def role(match: re.Match[str]) -> str:
        target = match.group(1).strip()
        return target.rsplit(".", 1)[-1] if match.group(0).split("`", 1)[1].startswith("~") else target

    return _STRONG.sub(r"\1", _LITERAL.sub(r"\1", _ROLE.sub(role, text)))


def build_root_parser(version: str) -> Parser:
    parser = Parser(
        prog="huesenv",
        description="Hues and Cues environments, agents and colour-alignment metrics.",
    )
    parser.add_argument("--version", action="version", version=f"huesenv {version}")
    return parser


# -- one-line errors --------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def describe_error(err: BaseException) -> tuple[str, int]:
    """(one line naming the input and what was expected, exit code): 2 for bad input, 1 for a bug."""
    if isinstance(err, UnicodeDecodeError):
        return f"not UTF-8 text ({err.reason} at byte {err.start}); expected a text file", 2
    if isinstance(err, OSError) and not isinstance(err, (ConnectionError, TimeoutError)):
        return _describe_os_error(err), 2
    if isinstance(err, (ValueError, LookupError)) and not isinstance(err, (KeyError, IndexError)):
        return _one_line(str(err)) or type(err).__name__, 2
    if isinstance(err, ImportError):
        name = getattr(err, "name", None)
        return _one_line(
            f"a missing optional dependency ({name or err}); install the extra that provides it"
        ), 2
    if isinstance(err, yaml.YAMLError):
        return _one_line(f"not valid YAML ({err})"), 2
    if isinstance(err, (ConnectionError, TimeoutError)):
        return _one_line(f"network: {err}"), 2
    return _one_line(f"internal error ({type(err).__name__}: {err}); {DEBUG_HINT}"), 1


def _describe_os_error(err: OSError) -> str:
    name = err.filename
    if name is None:
        return _one_line(str(err))
    what = {
        FileNotFoundError: "no such file or directory",
        IsADirectoryError: "is a directory, expected a file",
        NotADirectoryError: "a part of the path is not a directory",
        PermissionError: "permission denied",
        FileExistsError: "already exists",
    }.get(type(err), err.strerror or str(err))
    target = f" -> {err.filename2}" if getattr(err, "filename2", None) else ""
    return _one_line(f"{name}{target}: {what}")


# -- argument types ----------------------------------------------------------------------


def _int(text: str) -> int:
    try:
        return int(str(text).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def _checked(parse: Callable[[str], Any], ok: Callable[[Any], bool], expected: str) -> Callable[[str], Any]:
    """An argparse type: ``parse`` the text, then refuse a value outside ``ok`` as "expected EXPECTED, got TEXT"."""

    def check(text: str) -> Any:
        value = parse(text)
        if not ok(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return check


non_negative_int = _checked(_int, lambda v: v >= 0, "a whole number >= 0")
positive_int = _checked(_int, lambda v: v >= 1, "a whole number >= 1")
top_k_int = _checked(_int, lambda v: 1 <= v <= 480, "a number of cells 1-480")  # the board has 480 cells
# a seed: what NumPy's generators accept
seed_int = _checked(_int, lambda v: 0 <= v < 2**32, f"a seed in 0..{2**32 - 1}")


def bounded_int(lo: int, hi: int, what: str) -> Callable[[str], int]:
    """An argparse type for a whole number in [lo, hi]; ``what`` names it in the error ("a TCP port")."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what} ({lo}-{hi}), got {text!r}") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected {what} ({lo}-{hi}), got {value}")
        return value

    return parse


def _float(text: str) -> float:
    try:
        value = float(str(text).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


positive_float = _checked(_float, lambda v: v > 0, "a number > 0")
non_negative_float = _checked(_float, lambda v: v >= 0, "a number >= 0")
probability = _checked(_float, lambda v: 0 < v < 1, "a number strictly between 0 and 1")  # a level (alpha)


_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+@=-]{0,199}$")


def safe_name(text: str) -> str:
    """A name that becomes one path component (run names, run ids): no separators, not ``.``/``..``."""
    if not _SAFE_NAME.match(text or "") or text in (".", "..") or ".." in text:
        raise argparse.ArgumentTypeError(
            f"expected a name of letters, digits and . _ : + @ = - (no '/', not '.' or '..'), got {text!r}"
        )
    return text


# -- common flags -----------------------------------------------------------------------


def add_out(
    p: argparse.ArgumentParser,
    *,
    required: bool = False,
    default: Any = None,
    help: str,
    metavar: str = "PATH",
) -> None:  # noqa: A002
    """``-o/--out`` (alias ``--output``): where the command writes."""
    p.add_argument(
        "-o",
        "--out",
        "--output",
        dest="out",
        type=path_text,
        required=required,
        default=default,
        metavar=metavar,
        help=help,
    )


def add_seed(p: argparse.ArgumentParser, *, default: int | None = 0, help: str = "random seed") -> None:  # noqa: A002
    p.add_argument(
        "--seed",
        type=seed_int,
        default=default,
        help=help + ("" if default is None else f" (default {default})"),
    )


_DEVICE = re.compile(r"(auto|cpu|mps|cuda(:\d{1,3})?)")


def device_name(text: str) -> str:
    """A torch device name checked before any model loads: ``auto``, ``cpu``, ``mps``, ``cuda`` or
    ``cuda:<n>`` (a typo such as ``gpu`` would otherwise be ignored by agents without a model)."""
    value = str(text).strip().lower()
    if not _DEVICE.fullmatch(value):
        raise argparse.ArgumentTypeError(f"expected auto, cpu, mps, cuda or cuda:<n>, got {text!r}")
    return value


def add_device(p: argparse.ArgumentParser, *, help: str | None = None) -> None:  # noqa: A002
    p.add_argument(
        "--device",
        type=device_name,
        default=None,
        help=help
        or "auto | cpu | cuda[:n] | mps (agent kinds that take a device: "
        + ", ".join(kinds_with("takes_device"))
        + "; default auto)",
    )


def add_allow_code(p: argparse.ArgumentParser) -> None:
    """``--allow-code``: the only way to let a file run code (``huesenv.trust``; ``cli.main`` applies it)."""
    p.add_argument(
        "--allow-code",
        action="store_true",
        help="allow what runs code from a file: unpickling an SB3 zip with a custom class, "
        "trust_remote_code and other code-loading agent options",
    )


def warn_unused_device(spec: str, device: str | None) -> None:
    """One warning when ``--device`` names a device for a single agent whose kind takes none (it would be
    dropped without a word otherwise)."""
    if device is None:
        return
    if not has_capability(spec, "takes_device"):
        kind = spec.split(":", 1)[0]
        warnings.warn(
            f"--device {device}: agent kind {kind!r} takes no device (kinds that do: "
            f"{', '.join(kinds_with('takes_device'))}); ignored",
            UserWarning,
            stacklevel=2,
        )


def path_text(text: str) -> str:
    """An argparse type for a path argument: not empty or blank (``''`` would silently mean ``.``)."""
    if not str(text).strip():
        raise argparse.ArgumentTypeError("expected a path, got an empty string")
    return text


def display_path(path: str | Path) -> str:
    """A path as a message shows it: a file shipped inside the installed package is named by its
    place in the package (``packaged huesenv/data/…``), never by where pip put it; a user's path is
    shown as given."""
    text = str(path)
    try:
        package = Path(__file__).resolve().parents[1]  # the huesenv package folder
        inside = Path(text).resolve().relative_to(package)
    except (OSError, ValueError):
        return text
    return f"packaged huesenv/{inside.as_posix()}"


def add_overrides(p: argparse.ArgumentParser, *, help: str) -> None:  # noqa: A002
    """``--set KEY=VALUE`` (repeatable) into ``args.overrides``."""
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help=help)


def add_progress(p: argparse.ArgumentParser) -> None:
    """The one progress convention: bars on by default when stderr is a terminal, ``--no-progress`` off."""
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bars (they are shown only when stderr is a terminal)",
    )
    p.add_argument("--progress", action="store_true", help=argparse.SUPPRESS)  # older spelling: force on


def progress_enabled(args: argparse.Namespace) -> bool:
    """Whether to draw progress bars: ``--no-progress`` wins, ``--progress`` forces them, else a terminal."""
    if getattr(args, "no_progress", False):
        return False
    if getattr(args, "progress", False):
        return True
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


def add_humans(p: argparse.ArgumentParser, *, help: str | None = None) -> None:  # noqa: A002
    p.add_argument(
        "--humans",
        metavar="PATH",
        type=path_text,
        default=None,
        help=help or "human responses (.csv, .csv.gz, .parquet); default: the packaged reconstructed cohort",
    )


def existing_file(value: str | Path, flag: str) -> Path:
    """``value`` as a path that is a readable regular file, or a ``ValueError`` naming ``flag``."""
    path = Path(value)
    if not path.exists():
        raise ValueError(f"{flag} {value}: no such file")
    if not path.is_file():
        what = "a directory" if path.is_dir() else "a device, FIFO or socket"
        raise ValueError(f"{flag} {value}: expected a regular file, got {what}")
    return path


def existing_dir(text: str) -> Path:
    """An argparse type: a folder that exists (a typo in a folder of inputs must not be ignored)."""
    path = Path(text)
    if not str(text).strip():
        raise argparse.ArgumentTypeError("expected an existing folder, got an empty string")
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{text}: no such folder")
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: is a file, expected a folder")
    return path


def existing_files(values: Sequence[str | Path], flag: str) -> list[Path]:
    """Each value as an :func:`existing_file`, each file once: a log given twice would count its records twice."""
    paths: list[Path] = []
    seen: dict[Path, str | Path] = {}
    for value in values:
        path = existing_file(value, flag)
        if path.resolve() in seen:
            raise ValueError(
                f"{flag} {value}: given twice (also as {seen[path.resolve()]}); expected each file once"
            )
        seen[path.resolve()] = value
        paths.append(path)
    return paths


def writable_target(value: str | Path, flag: str) -> Path:
    """``value`` as a path that may be written: not an existing directory."""
    path = Path(value)
    if path.is_dir():
        raise ValueError(f"{flag} {value}: is a directory, expected a file path")
    return path


LOG_SUFFIXES = (".jsonl", ".json")


def jsonl_target(value: str | Path, flag: str) -> Path:
    """A JSON Lines log to append to: not a folder, named ``.jsonl`` (or ``.json``), so that a typo such as
    ``-o results.csv`` never appends log lines to a table."""
    path = writable_target(value, flag)
    if path.suffix.lower() not in LOG_SUFFIXES:
        raise ValueError(f"{flag} {value}: expected a JSON Lines log path ending in .jsonl")
    return path
