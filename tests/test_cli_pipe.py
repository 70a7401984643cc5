"""A reader that leaves early (``huesenv replay LOG --list | head``) ends the command quietly."""

from __future__ import annotations

import argparse

from huesenv import cli


def test_a_closed_pipe_ends_quietly_with_the_sigpipe_status(monkeypatch, capsys):
    def build_parser() -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(prog="huesenv")
        sub = parser.add_subparsers(dest="command")
        cmd = sub.add_parser("board")

        def write(_args: argparse.Namespace) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        cmd.set_defaults(func=write)
        return parser

    monkeypatch.setattr(cli, "build_parser", build_parser)
    assert cli.main(["board"]) == 141
    assert capsys.readouterr().err == ""
