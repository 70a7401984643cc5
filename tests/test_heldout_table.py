"""The held-out table says what it measures (issue 37): subsets, exact McNemar, --answers tables as data."""

from __future__ import annotations

import pandas as pd
import pytest

from huesenv.cli import main
from huesenv.experiments.rl import heldout
from huesenv.experiments.rl.heldout import (
    OTHER,
    XKCD,
    comparisons,
    mcnemar,
    read_answers,
    summarise,
    with_subsets,
)
from huesenv.vocabulary import word_texts

WORDS = list(word_texts())
HEADER = "Palabra,Answer1,Answer2\n"


def test_mcnemar_by_hand():
    a = pd.Series([True, True, True, True, False, False], index=list("abcdef"))
    b = pd.Series([False, False, False, True, False, False], index=list("fedcba"))  # aligned by word
    # pairs: a T/F, b T/F, c T/T, d T/F, e F/F, f F/F -> a-only 3, b-only 0: p = 2 · 0.5³ = 0.25
    assert mcnemar(a, b) == (6, 3, 0, pytest.approx(0.25))
    assert mcnemar(a, a) == (6, 0, 0, 1.0)  # no discordant pair: no evidence either way
    c = pd.Series([True] * 6 + [False] * 2, index=list("abcdefgh"))
    d = pd.Series([False] * 6 + [True] * 2, index=list("abcdefgh"))
    assert mcnemar(c, d)[3] == pytest.approx(2 * (1 + 8 + 28) / 256)  # 6 vs 2: 2 · P(X ≤ 2 | n = 8)


def test_subsets_are_the_text_embedding_dictionary_words():
    words = with_subsets(pd.DataFrame({"word": WORDS}))
    xkcd = set(words.loc[words["subset"] == XKCD, "word"])
    assert len(WORDS) == 100 and len(xkcd) == 34 and (words["subset"] == OTHER).sum() == 66
    assert {"APPLE", "SKY", "MINT", "SEA"} <= xkcd and not {"STITCH", "WHALE", "SALMON PINK"} & xkcd


def _words() -> pd.DataFrame:
    rows = []
    for i, word in enumerate(WORDS):
        flags = {
            "lookup": i % 2 == 0,
            "text-embedding": i % 3 == 0,
            "answers:good": i % 5 == 0,
            "answers:bad": True,
        }
        for row, flag in flags.items():
            rows.append(
                dict(fold=i % 5, word=word, category="c", row=row, n_human=10, human_fail_rate=0.1)
                | dict(mahalanobis_outlier=flag, mahalanobis_lab_outlier=not flag, hotelling_fail=flag)
            )
    return pd.DataFrame(rows)


def test_summary_and_mcnemar_per_subset():
    words = _words()
    table = summarise(words)
    pooled = table[table["category"] == "pooled"].set_index(["row", "subset"])
    assert pooled.loc[("lookup", "all"), "n"] == 100 and pooled.loc[("lookup", XKCD), "n"] == 34
    assert pooled.loc[("lookup", OTHER), "n"] == 66 and pooled.loc[("people", OTHER), "n"] == 660
    assert pooled.loc[("answers:good", "all"), "mahalanobis"] == 0.2
    assert pooled.loc[("answers:good", "all"), "mahalanobis_lab"] == 0.8  # the extra column, beside xy
    tests = comparisons(words, table)
    best = tests[(tests["versus"] == "best answer table") & (tests["metric"] == "mahalanobis")]
    assert set(best["reference_row"]) == {"answers:good"}  # the lowest fail rate on each subset
    lab = tests[(tests["versus"] == "best answer table") & (tests["metric"] == "mahalanobis_lab")]
    assert set(lab["reference_row"]) == {"answers:bad"}  # chosen per metric
    one = tests.set_index(["row", "subset", "metric", "versus"]).loc[
        ("answers:bad", "all", "mahalanobis", "text-embedding")
    ]
    assert (one.row_only_fails, one.reference_only_fails) == (66, 0) and one.p < 1e-15


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("notes.md", HEADER, "expected a .csv answer table"),
        ("noheader.csv", "Word,Answer1\nAPPLE,A1\n", "line 1, field Palabra: missing column"),
        ("unknown.csv", HEADER + "APPLE,A1,B2\nZORBLAX,A1,A2\n", "line 3, field Palabra"),
        ("twice.csv", HEADER + "APPLE,A1,B2\napple,A1,A2\n", "line 3, field Palabra: APPLE given twice"),
        ("ragged.csv", HEADER + "APPLE,A1,B2,C3\n", "line 2, field <row>"),
    ],
)
def test_bad_answer_tables_end_in_one_line_and_write_nothing(tmp_path, capsys, name, text, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    rc = main(
        ["train", "heldout", "--baselines-only", "--text-encoder", "hash:8", "-o", str(out)]
        + ["--answers", str(path)]
    )
    err = capsys.readouterr().err.strip()
    assert rc != 0 and message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


def test_answer_tables_are_bounded_and_named_safely(tmp_path, monkeypatch):
    path = tmp_path / "a b;<x>.csv"
    path.write_text(HEADER + "APPLE,A1,B2\n", encoding="utf-8")
    assert list(read_answers([path])) == ["answers:a_b__x_"]
    with pytest.raises(ValueError, match="a second table"):
        read_answers([path, tmp_path / "a b;<x>.csv"])
    monkeypatch.setattr(heldout, "MAX_ANSWER_BYTES", 8)
    with pytest.raises(ValueError, match="expected at most 8 bytes"):
        read_answers([path])
    with pytest.raises(ValueError, match="no such file"):
        read_answers([tmp_path / "missing.csv"])
