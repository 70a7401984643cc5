"""The ``huesenv`` command line: one program, one subcommand per job.

Every subcommand is a module ``huesenv/commands/<command>.py`` exposing
``register(subparsers)``, which adds its parser and sets ``func`` (called with
the parsed arguments; its return value is the exit code).  :data:`COMMANDS` is
the one list of them.  A command module that fails to import is an error of the
installation and fails loudly; heavy imports (torch, pygame, flask...) happen
inside ``func``, so ``--help`` stays fast.

**Errors.**  A user's mistake ends with one line on stderr, ``huesenv COMMAND:
error: <input>: <what was expected>``, and exit code 2: argparse's own errors
(:class:`~huesenv.commands.common.UsageError`), and the error types the library
raises for bad input (``ValueError`` and its subclasses such as
``LogError``, ``OSError`` for files, YAML errors).  Anything else is a bug: it
is reported in one line too, with exit code 1, and ``HUESENV_DEBUG=1`` shows
its traceback.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from huesenv import __version__
from huesenv.agents.registry import kinds_with
from huesenv.commands.common import UsageError, build_root_parser, describe_error
from huesenv.probes.registry import probe_names
from huesenv.trust import allowing_code
from huesenv.validation import terminal_safe

# subcommand name -> module providing register(subparsers); every subcommand has its own module
COMMANDS: dict[str, str] = {
    "board": "huesenv.commands.board",
    "board-displays": "huesenv.commands.board_displays",
    "humans": "huesenv.commands.humans",
    "logs": "huesenv.commands.logs",
    "metrics": "huesenv.commands.metrics",
    "agents": "huesenv.commands.agents",
    "probe": "huesenv.commands.probe",
    "tournament": "huesenv.commands.tournament",
    "wordlevel": "huesenv.commands.wordlevel",
    "leaderboard": "huesenv.commands.leaderboard",
    "doctor": "huesenv.commands.doctor",
    "config": "huesenv.commands.config",
    "replay": "huesenv.commands.replay",
    "play": "huesenv.commands.play",
    "collect": "huesenv.commands.collect",
    "train": "huesenv.commands.train",
    "metrics-naming": "huesenv.commands.naming",
    "help": "huesenv.commands.glossary",
}

# two-word commands whose first word is also a command: ``huesenv metrics naming`` is ``metrics-naming``
# (so a metrics LOG cannot be a file called ``naming`` given first; ``./naming`` still works)
SUBCOMMAND_ALIASES: dict[tuple[str, str], str] = {
    ("metrics", "naming"): "metrics-naming",
    ("board", "displays"): "board-displays",
}


def build_parser():
    parser = build_root_parser(__version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module in COMMANDS.items():
        mod = importlib.import_module(module)  # a broken command module is a broken install: fail loudly
        before = set(sub.choices)
        mod.register(sub)
        added = set(sub.choices) - before
        if name not in added:
            raise RuntimeError(f"{module}.register() did not add the {name!r} subcommand")
    return parser


# the parser :func:`main` last built, keyed by what built it: building the tree of every subcommand
# costs ~15-30 ms, paid once per process instead of once per call (tests call main ~900 times)
_PARSER_CACHE: dict[tuple[Any, ...], argparse.ArgumentParser] = {}


def _parser_inputs() -> tuple[Any, ...]:
    """What the parser tree is built from: the builder, the commands, and the registries whose names
    it shows (one subcommand per probe; agent kinds in the help), so a registration rebuilds it."""
    return (
        build_parser,
        tuple(COMMANDS.items()),
        probe_names(),
        tuple(kinds_with("takes_device")),
        tuple(kinds_with("answers_probes")),
    )


def _cached_parser() -> argparse.ArgumentParser:
    """:func:`build_parser`'s tree, built once per process and again when one of its inputs changes."""
    cached = _PARSER_CACHE.get(_parser_inputs())
    if cached is None:
        _PARSER_CACHE.clear()
        cached = build_parser()
        _PARSER_CACHE[_parser_inputs()] = cached  # after the build: importing a command may register
    return cached


def _own_copies(args: argparse.Namespace) -> argparse.Namespace:
    """Mutable values (a list default is the parser's own object) copied, so that a command changing
    its arguments cannot change the next call's defaults through the cached parser."""
    for name, value in vars(args).items():
        if isinstance(value, list | dict | set):
            setattr(args, name, copy.deepcopy(value))
    return args


def main(argv: Sequence[str] | None = None) -> int:
    parser = _cached_parser()
    argv = _resolve_aliases(list(sys.argv[1:] if argv is None else argv))
    if argv[:1] == ["help"] and argv[1:2] not in (["-h"], ["--help"]):
        argv = ["help", "--", *argv[1:]]  # `huesenv help --sigma2` names an option, it does not pass one
    command = next((a for a in argv if not a.startswith("-")), None)
    prefix = f"huesenv {command}" if command in COMMANDS else "huesenv"
    try:
        args, extras = parser.parse_known_args(argv)
        args = _own_copies(args)
        if extras:  # said by the (sub)command that was given them, not by the top-level parser
            leaf = _leaf_parser(parser, argv)
            leaf.error(f"unrecognized arguments: {' '.join(extras)}")
    except UsageError as err:
        print(f"{err.prog}: error: {terminal_safe(err.message)}", file=sys.stderr)
        return 2
    except SystemExit as exit_:  # --help / --version
        return int(exit_.code or 0)
    prefix = (
        "huesenv " + args.command.replace("-", " ")
        if args.command in SUBCOMMAND_ALIASES.values()
        else f"huesenv {args.command}"
    )
    try:
        # only the command line grants code execution (huesenv.trust)
        with one_line_warnings(prefix), allowing_code(bool(getattr(args, "allow_code", False))):
            return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print(f"{prefix}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader left (`huesenv replay LOG --list | head`): stop quietly
        _silence_stdout()
        return 141  # 128 + SIGPIPE, what a shell reports for a writer whose pipe was closed
    except UsageError as err:
        print(f"{err.prog}: error: {terminal_safe(err.message)}", file=sys.stderr)
        return 2
    except Exception as err:  # noqa: BLE001 - the one place every error becomes one line
        if os.environ.get("HUESENV_DEBUG"):
            raise
        message, code = describe_error(err)
        sys.stdout.flush()
        print(f"{prefix}: error: {terminal_safe(message)}", file=sys.stderr)  # a file's text: escaped
        return code


def _leaf_parser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The deepest (sub)command parser that the words of ``argv`` select (``huesenv train guesser``'s)."""
    current = parser
    for word in argv:
        actions = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        if actions and word in actions[0].choices:
            current = actions[0].choices[word]
    return current


def _resolve_aliases(argv: list[str]) -> list[str]:
    """Rewrite the first two positional words through :data:`SUBCOMMAND_ALIASES`."""
    words = [i for i, a in enumerate(argv) if not a.startswith("-")][:2]
    if len(words) == 2 and words[1] == words[0] + 1:
        alias = SUBCOMMAND_ALIASES.get((argv[words[0]], argv[words[1]]))
        if alias:
            return argv[: words[0]] + [alias] + argv[words[1] + 1 :]
    return argv


@contextmanager
def one_line_warnings(prefix: str) -> Iterator[None]:
    """Warnings (the library's and its dependencies') as one line in the tool's own format,
    ``huesenv COMMAND: warning: <message>``, instead of Python's two lines with a source path.

    Only the formatting is replaced (``warnings.formatwarning``), not ``showwarning``, so
    ``warnings.catch_warnings(record=True)`` and pytest's ``pytest.warns`` still see every warning.
    """

    def format_warning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        line: str | None = None,
    ) -> str:
        sys.stdout.flush()  # keep the order of what was printed before the warning
        text = terminal_safe(" ".join(str(message).split()))
        return f"{prefix}: warning: {text}\n"

    before: Any = warnings.formatwarning
    warnings.formatwarning = format_warning
    try:
        yield
    finally:
        warnings.formatwarning = before


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot raise again (Python's SIGPIPE note)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (captured in tests)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
