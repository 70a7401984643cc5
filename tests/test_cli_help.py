"""Every CLI command explains itself: a description on every parser of the tree, each subcommand its own,
no option that does nothing, one name per command, and a glossary entry for each term the help uses."""

from __future__ import annotations

import argparse

import pytest

from huesenv.cli import build_parser, main
from huesenv.commands.glossary import GLOSSARY, explain


def _tree(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("huesenv",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _tree(sub, (*path, name))


TREE = list(_tree(build_parser()))
PARSERS = {" ".join(path): parser for path, parser in TREE}


def _texts() -> str:
    """Every description and option help of the tree, one string."""
    out = []
    for parser in PARSERS.values():
        out.append(parser.description or "")
        out += [a.help or "" for a in parser._actions if a.help is not argparse.SUPPRESS]
    return "\n".join(out)


def test_every_parser_has_its_own_description():
    missing = [name for name, p in PARSERS.items() if not (p.description or "").strip()]
    assert not missing, f"parsers without a description: {missing}"
    parents_text = [
        name
        for name, p in PARSERS.items()
        if " " in name and p.description == PARSERS[name.rsplit(" ", 1)[0]].description
    ]
    assert not parents_text, f"subcommands showing their parent's description: {parents_text}"
    assert len(PARSERS) > 40  # the walk reached the nested commands


def test_no_option_that_does_nothing_and_one_name_per_command(capsys):
    wordlevel = {s for a in PARSERS["huesenv wordlevel"]._actions for s in a.option_strings}
    assert "--games" not in wordlevel  # the word level plays no games
    agents_help = next(
        a.help for a in PARSERS["huesenv wordlevel"]._actions if "--agents" in a.option_strings
    )
    assert "sweep" not in agents_help
    imports = {s for a in PARSERS["huesenv logs import-answers"]._actions for s in a.option_strings}
    assert "--agent" in imports and "--agents" not in imports
    assert PARSERS["huesenv metrics-naming"].prog == "huesenv metrics naming"
    assert main(["--help"]) == 0
    listing = capsys.readouterr().out
    assert "alias of `huesenv metrics naming`" in listing


@pytest.mark.parametrize("term", ["LOO", "Hotelling cloud", "self-scored", "--need", "--sigma2", "--betas"])
def test_the_help_terms_are_explained(term, capsys):
    assert main(["help", term]) == 0
    assert capsys.readouterr().out.startswith(f"{term}: ")


def test_every_glossary_term_is_one_the_help_uses(capsys):
    texts = _texts()
    unused = [term for term in GLOSSARY if term not in texts]
    assert not unused, f"glossary entries no help text uses: {unused}"
    assert main(["help", "sigma 2"]) == 2 and "did you mean --sigma2" in capsys.readouterr().err
    assert explain("SELF SCORED").startswith("self-scored:")
