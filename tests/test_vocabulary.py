import pandas as pd
import pytest

from huesenv.vocabulary import (
    CATEGORIES,
    EMPTY_INPUT,
    category_of,
    evaluation_inputs,
    nonsense_inputs,
    normalise_word,
    read_vocabulary_file,
    words,
)


def test_hundred_words_seven_categories():
    ws = words()
    assert len(ws) == 100 and len({w.text for w in ws}) == 100
    assert {w.category for w in ws} == set(CATEGORIES)


def test_nonsense_rows_match_the_authors_inputs(shared_dir):
    ns = nonsense_inputs()
    assert [n.row for n in ns] == [r for r in range(4) for _ in range(4)]
    for path in sorted((shared_dir / "data" / "vlm_replays").glob("*.csv")):
        palabra = pd.read_csv(path, dtype=str, keep_default_na=False)["Palabra"].tolist()
        assert palabra[-16:] == [n.text for n in ns], path.name
        assert [normalise_word(w) for w in palabra[:100]] and {normalise_word(w) for w in palabra[:100]} == {
            w.text for w in words()
        }


def test_normalisation_and_aliases():
    assert normalise_word("  stitch ") == "(LILO AND) STITCH"
    assert normalise_word("lapis   lazuli") == "LAPIS LAZULI"
    assert normalise_word("   ") == EMPTY_INPUT == normalise_word(" ")
    assert category_of("Stitch") == "Pop Culture"
    assert category_of(" ") == "Nonsense" and category_of("zizax") == "Nonsense"
    with pytest.raises(ValueError, match="unknown word"):
        category_of("TELEVISION")
    with pytest.raises(ValueError):
        normalise_word("")
    assert len(evaluation_inputs()) == 116


def test_user_vocabulary_file(tmp_path):
    p = tmp_path / "v.csv"
    p.write_text("word,category\nteal,Custom\n,X\n")
    with pytest.raises(ValueError, match="line 3, field word"):
        read_vocabulary_file(str(p))
    p.write_text("rojo\nverde\n")
    assert [w.text for w in read_vocabulary_file(str(p))] == ["ROJO", "VERDE"]
