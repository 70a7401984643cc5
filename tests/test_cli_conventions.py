"""The command line's conventions, as a newcomer meets them (issue 27's "Commands" list).

Each test is one rough edge: ``--list-configs`` works, help is plain words, warnings are one
line in the tool's format, game lists are in numeric order, one progress convention, messages
name what the user typed (not the installed file), a run id carries its fingerprint once, and
model loading draws no library progress bars.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from huesenv.cli import build_parser, main, one_line_warnings
from huesenv.commands.common import plain_text, progress_enabled

DATA = Path(__file__).parent / "data"
MARKUP = re.compile(r"``|:(mod|func|class|data|meth|attr):`|\*\*")


@pytest.mark.parametrize("command", ["tournament", "wordlevel"])
def test_list_configs_lists_the_bundled_configs(command, capsys):
    assert main([command, "--list-configs"]) == 0
    names = capsys.readouterr().out.split()
    assert "default" in names and "paper_clip_sweep" in names


def test_list_configs_with_a_config_is_still_refused(capsys):
    assert main(["tournament", "--list-configs", "default"]) == 2
    assert "takes no CONFIG" in capsys.readouterr().err


def _parsers(parser: argparse.ArgumentParser, prog: str = "huesenv"):
    yield prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{prog} {name}")


def test_every_help_text_is_plain_words():
    offenders = [prog for prog, p in _parsers(build_parser()) if MARKUP.search(p.format_help())]
    assert offenders == []


def test_plain_text_rewrites_rest_roles():
    text = "see :mod:`huesenv.commands.wordlevel`, :class:`~huesenv.game.Phase` and ``--set`` **now**"
    assert plain_text(text) == "see huesenv.commands.wordlevel, Phase and --set now"


def test_warnings_are_one_line_in_the_tools_format():
    with one_line_warnings("huesenv logs"):
        text = warnings.formatwarning("log.jsonl, line 4: torn last\n line", UserWarning, "/x/logs.py", 101)
    assert text == "huesenv logs: warning: log.jsonl, line 4: torn last line\n"
    assert warnings.formatwarning("m", UserWarning, "f.py", 1).startswith("f.py:1: UserWarning")  # restored


def test_warnings_still_reach_pytest_warns():
    with pytest.warns(UserWarning, match="still seen"), one_line_warnings("huesenv x"):
        warnings.warn("still seen", UserWarning, stacklevel=1)


@pytest.mark.integration
def test_a_torn_log_warns_in_one_line_before_the_error(tmp_path):
    log = tmp_path / "wl.jsonl"
    lines = (DATA / "v1_wordlevel.jsonl").read_text().splitlines()[:2]
    log.write_text("\n".join(lines) + '\n{"kind": "word_q')
    done = subprocess.run(
        [sys.executable, "-P", "-m", "huesenv", "replay", str(log), "--list"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    err = done.stderr.splitlines()
    assert err[0].startswith("huesenv replay: warning: ") and "torn last line" in err[0]
    assert err[1].startswith("huesenv replay: error: ")
    assert len(err) == 2 and ".py:" not in done.stderr


def test_missing_game_lists_the_games_in_numeric_order(tmp_path, capsys):
    code = main(["replay", str(DATA / "v1_games.jsonl"), "--game", "999", "--export", str(tmp_path / "g")])
    assert code == 2
    err = capsys.readouterr().err
    assert "game 999 is not in the log" in err


def test_describe_games_orders_numbers_and_folds_runs():
    from huesenv.render.playback import describe_games

    assert describe_games([10, 2, 0, 1, 11, 3]) == "games 0–3, 10–11 (6)"
    assert describe_games([5]) == "game 5 (1)"
    assert describe_games(["b", 1, "a"]) == "games 1, a, b (3)"


def test_one_progress_convention(monkeypatch):
    parser = build_parser()
    for argv in (["probe", "gca"], ["tournament"], ["train", "experiment", "learned_guesser"]):
        args = parser.parse_args(argv)
        monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
        assert progress_enabled(args) is False  # not a terminal: no bars
        args = parser.parse_args([*argv, "--no-progress"])
        assert progress_enabled(args) is False


def test_progress_is_on_by_default_on_a_terminal(monkeypatch):
    class Tty:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stderr", Tty())
    args = build_parser().parse_args(["probe", "gca"])
    assert progress_enabled(args) is True


def test_config_show_names_the_bundled_config_not_its_installed_path(capsys):
    assert main(["config", "show"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "bundled config 'default'" in first
    assert "__editable__" not in first and ".yaml" not in first


def test_a_renamed_variant_carries_its_fingerprint_once():
    from huesenv.experiments.config import load_config

    base = load_config("default", ["seed=7"])
    renamed = load_config("default", ["seed=7", f"name={base.name}-{base.fingerprint()}"])
    assert renamed.run_id == f"default-{base.fingerprint()}"
    assert base.run_id == f"default-{base.fingerprint()}"


def test_packaged_files_are_named_by_their_place_in_the_package(capsys):
    assert main(["humans", "summary"]) == 0
    out = capsys.readouterr().out
    assert "packaged huesenv/data/humans/reconstructed_cohort.csv.gz" in " ".join(out.split())
    from huesenv.commands.common import display_path

    assert display_path("my/own/export.csv") == "my/own/export.csv"


def test_an_agent_kind_that_answers_no_probes_is_refused(tmp_path, capsys):
    code = main(["probe", "gca", "--agent", "human-replay", "--limit", "2", "-o", str(tmp_path)])
    assert code == 2
    assert "does not answer probes" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing written: no report of invalid rows


def test_device_for_an_agent_without_one_is_said_not_dropped():
    with pytest.warns(UserWarning, match="--device cpu: agent kind 'random' takes no device"):
        assert main(["agents", "guess", "random", "OCEAN", "--device", "cpu"]) == 0


def test_a_bad_spec_argument_names_the_spec(capsys):
    assert main(["agents", "guess", "random:abc", "OCEAN"]) == 2
    assert "agent spec 'random:abc': 'abc' is not a whole number" in capsys.readouterr().err


def test_a_training_config_is_named_not_its_installed_path(capsys):
    assert main(["config", "show", "learned_guesser"]) == 2
    err = capsys.readouterr().err
    assert "bundled config 'learned_guesser'" in err and "/configs/" not in err


def test_every_option_says_what_it_is_for():
    """Every argument of every subcommand has a help text (a flag without one is a guess for the user)."""
    skip = (argparse._HelpAction, argparse._SubParsersAction, argparse._VersionAction)
    missing = [
        f"{prog} {action.option_strings or action.dest}"
        for prog, parser in _parsers(build_parser())
        for action in parser._actions
        if not isinstance(action, skip) and not str(action.help or "").strip()
    ]
    assert missing == []


def test_an_unknown_vlm_option_is_one_line_not_an_internal_error(capsys):
    assert main(["agents", "guess", "vlm:/nonexistent", "OCEAN", "--opt", "foo=1"]) == 2
    assert "unknown option(s) ['foo']" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "prog"),
    [
        (["train", "guesser", "--bogus"], "huesenv train guesser"),
        (["tournament", "--bogus"], "huesenv tournament"),
        (["metrics", "naming", "-o", "x", "--bogus"], "huesenv metrics naming"),
        (["board", "displays", "--bogus"], "huesenv board displays"),
        (["logs", "check", "x.jsonl", "--bogus"], "huesenv logs check"),
    ],
)
def test_an_unknown_option_is_said_by_the_command_that_got_it(argv, prog, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"{prog}: error: unrecognized arguments: --bogus (see {prog} --help)"
