"""The naming corpus: the XKCD survey, user CSVs (hex, r,g,b, L,a,b), one-line errors, exclusion tiers."""

from __future__ import annotations

import numpy as np
import pytest

from huesenv.agents.text_embedding import dictionary_words
from huesenv.colourspace import srgb_to_lab
from huesenv.naming_corpus import MAX_CORPUS_BYTES, XKCD_SOURCE, load_naming_corpus
from huesenv.vocabulary import word_texts


def test_xkcd_corpus_has_every_survey_name_with_its_source() -> None:
    corpus = load_naming_corpus()
    assert len(corpus) == 949 and {e.source for e in corpus.entries} == {XKCD_SOURCE}
    sky = next(e for e in corpus.entries if e.name == "sky")
    assert np.allclose(sky.lab, srgb_to_lab(np.asarray(sky.srgb), scale=1.0))
    assert len(dictionary_words(word_texts())) == 34  # the dictionary words of issue 37


def test_tiers_exact_drops_equal_names_strict_drops_names_containing_the_cue() -> None:
    corpus = load_naming_corpus()
    exact = corpus.excluding(["sky", "egg"], "exact")
    strict = corpus.excluding(["SKY", " egg "], "strict")
    assert "sky" not in exact.names and "sky blue" in exact.names and "robin's egg" in exact.names
    assert not {"sky", "sky blue", "robin's egg", "egg shell"} & set(strict.names)
    assert "eggplant" in strict.names  # a token, not a substring
    assert set(strict.names) < set(exact.names) < set(corpus.names)
    stitch = corpus.matches(
        corpus.entries[0].__class__("stitch", (0, 0, 0), (0, 0, 0), "t"), "(LILO AND) STITCH", "exact"
    )
    assert stitch  # the parenthesised part of a cue is optional
    with pytest.raises(ValueError, match="tier"):
        corpus.excluding(["sky"], "loose")


@pytest.mark.parametrize(
    ("body", "first"),
    [
        ("name,hex\nsea,#006994\n", (0, 0x69 / 255, 0x94 / 255)),
        ("name,r,g,b,source\nsea,0,105,148,lab survey\n", (0, 105 / 255, 148 / 255)),
    ],
)
def test_user_csv_in_srgb(tmp_path, body, first) -> None:
    path = tmp_path / "c.csv"
    path.write_text(body, encoding="utf-8")
    corpus = load_naming_corpus(path)
    assert corpus.names == ("sea",) and np.allclose(corpus.entries[0].srgb, first)
    assert corpus.entries[0].source in {"c.csv", "lab survey"}


def test_user_csv_in_lab_round_trips(tmp_path) -> None:
    path = tmp_path / "c.csv"
    path.write_text("name,L,a,b\nmid grey,53.39,0,0\n", encoding="utf-8")
    entry = load_naming_corpus(path).entries[0]
    assert np.allclose(srgb_to_lab(np.asarray(entry.srgb), scale=1.0), entry.lab, atol=0.05)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("word,hex\nsea,#006994\n", "line 1: expected a header"),
        ("name,hex,r,g,b\nsea,#006994,0,0,0\n", "line 1: expected a header"),
        ("name,hex\nsea,#00699\n", "line 2, field hex"),
        ("name,r,g,b\nsea,0,300,1\n", "line 2, field g"),
        ("name,L,a,b\nsea,50,x,1\n", "line 2, field a"),
        ("name,hex\nsea,#006994\n ,#000000\n", "line 3, field name"),
        ("name,hex\n", "no entries"),
    ],
)
def test_bad_csv_is_one_line_naming_line_and_field(tmp_path, body, message) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as err:
        load_naming_corpus(path)
    assert "\n" not in str(err.value) and "bad.csv" in str(err.value)


def test_oversized_or_binary_csv_is_refused(tmp_path) -> None:
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:
        fh.truncate(MAX_CORPUS_BYTES + 1)
    with pytest.raises(ValueError, match=f"more than the {MAX_CORPUS_BYTES:,} allowed"):
        load_naming_corpus(big)
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"name,hex\n\xff\xfe,#000000\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        load_naming_corpus(binary)


def test_named_corpora_join_with_a_plus_and_keep_their_sources():
    from huesenv.naming_corpus import COLOR_NAME_LIST_SOURCE

    joined = load_naming_corpus("xkcd+color-name-list")
    assert len(joined) == 949 + 31_881
    assert {e.source for e in joined.entries} == {XKCD_SOURCE, COLOR_NAME_LIST_SOURCE}
    assert "sky blue" not in {e.name.lower() for e in joined.excluding(["SKY"], "strict").entries}
