"""Colour-name parsing shared by the probes and the VLM agents."""

import pytest

from huesenv.colour_names import CANONICAL_COLOURS, SYNONYMS, canonical_colour, parse_colour, parse_option


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


def test_allowed_restricts_and_canonicalises():
    assert parse_colour("red or maybe blue", allowed=["gray", "blue"]) == "blue"
    assert parse_colour("red", allowed=["white", "blue"]) is None
    with pytest.raises(ValueError, match="not a colour name"):
        parse_colour("red", allowed=["table"])


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
