"""Colour words → canonical names, and replies read as one colour / one option (parse_answer)."""

import pytest

from huesenv.colour_names import CANONICAL_COLOURS, SYNONYMS, canonical_colour
from huesenv.probes import parse_answer


def parse_colour(text, subject=None):
    return parse_answer("colour", text, subject=subject)


def parse_option(text, options):
    return parse_answer("option", text, options=options)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Gray", "grey"),
        ("grey", "grey"),
        ("violet", "purple"),
        ("It is VIOLET.", "purple"),
        ("crimson", "red"),
        ("teal", "blue"),
        ("magenta", "pink"),
        ("beige", "brown"),
        ("golden", "yellow"),
        ("reddish", "red"),
        ("bluish", "blue"),
        ("purplish", "purple"),
        ("greenish", "green"),
        ("reddish brown", "brown"),
        ("light-blue", "blue"),
        ("dark green.", "green"),
        ("It is not red, it is white", "white"),
        ("The apple is red", "red"),
        ("nothing to see", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_colour(text, expected):
    assert parse_colour(text) == expected


def test_subject_named_like_a_colour_is_not_the_answer():
    assert parse_colour("The orange is white.", subject="orange") == "white"
    assert parse_colour("It is orange", subject="orange") == "orange"
    assert parse_colour("The orange is orange", subject="orange") == "orange"
    assert parse_colour("The red apple", subject="apple") == "red"


def test_synonyms_map_onto_canonical_names():
    assert all(v in CANONICAL_COLOURS for v in SYNONYMS.values())
    assert all(canonical_colour(c) == c for c in CANONICAL_COLOURS)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("B", 1),
        ("(c) blue", 2),
        ("Blue.", 2),
        ("Answer: A", 0),
        ("The answer is (B).", 1),
        ("option 3", 2),
        ("A red apple", 1),
        ("I think it is white", 0),
        ("no idea", None),
    ],
)
def test_parse_option(text, expected):
    assert parse_option(text, ["white", "red", "blue"]) == expected
