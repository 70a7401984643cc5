"""``huesenv.cli.main`` builds its parser once per process, and no call can change the next one's defaults."""

from __future__ import annotations

import argparse

from huesenv import cli


def test_parser_is_built_once_and_a_command_cannot_change_the_next_calls_defaults(monkeypatch):
    builds: list[int] = []
    seen: list[list[str]] = []

    def build_parser() -> argparse.ArgumentParser:
        builds.append(1)
        parser = argparse.ArgumentParser(prog="huesenv")
        cmd = parser.add_subparsers(dest="command").add_parser("board")
        cmd.add_argument("--names", nargs="+", default=["a"])

        def grow(args: argparse.Namespace) -> int:
            seen.append(list(args.names))
            args.names.append("changed")  # a command editing its own arguments in place
            return 0

        cmd.set_defaults(func=grow)
        return parser

    monkeypatch.setattr(cli, "build_parser", build_parser)
    assert cli.main(["board"]) == 0 and cli.main(["board"]) == 0
    assert seen == [["a"], ["a"]] and len(builds) == 1
    monkeypatch.setitem(cli.COMMANDS, "extra", "huesenv.commands.board")  # a changed command list: rebuilt
    assert cli.main(["board", "--names", "b"]) == 0
    assert seen[-1] == ["b"] and len(builds) == 2


def test_the_real_parser_is_reused_between_calls(capsys):
    assert cli.main(["--version"]) == 0
    first = cli._cached_parser()
    assert cli.main(["--version"]) == 0 and cli._cached_parser() is first
    capsys.readouterr()
