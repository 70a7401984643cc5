"""Nonsense baseline: row collapse, behaviour classes, and agreement with the paper's Table 5."""

from __future__ import annotations

from importlib import resources

import pandas as pd
import pytest

from huesenv.logs import LogRecord
from huesenv.metrics import behaviour_counts, cell_colour, classify_behaviour, nonsense_table, row_collapse
from huesenv.metrics.nonsense import classify_published
from huesenv.vocabulary import nonsense_inputs


def _table5() -> pd.DataFrame:
    ref = resources.files("huesenv") / "data" / "reference" / "paper_table5_models.csv"
    with ref.open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh)


def test_table5_agreement():
    table = _table5()
    assert len(table) == 162
    predicted = classify_published(table["row_collapse"])
    disagreements = [
        (m, r, p, b)
        for m, r, p, b in zip(table["model"], table["row_collapse"], predicted, table["behaviour"])
        if p != b
    ]
    for model, rows, got, published in disagreements:
        print(f"Table 5 disagreement: {model}: {rows} -> {got}, published {published}")
    agree = len(table) - len(disagreements)
    print(f"Table 5 agreement: {agree}/{len(table)}")
    assert agree >= 160
    counts = pd.Series(predicted).value_counts()
    print("classes:", counts.to_dict(), "published (Table 4): neutral 45 / high entropy 73 / specific 44")


@pytest.mark.parametrize(
    "rows, expected",
    [
        (["—", "—", "—", "—"], "high_entropy"),
        (["blue", "—", "—", "—"], "high_entropy"),
        (["blue", "achromatic", "—", "—"], "high_entropy"),
        (["blue", "blue", "—", "—"], "specific_color_collapse"),  # Table 5: two rows suffice
        (["achromatic", "—", "achromatic", "—"], "neutral_collapse"),
        (["achromatic", "achromatic", "achromatic", "yellow"], "neutral_collapse"),
        (["achromatic", "—", "blue", "blue"], "specific_color_collapse"),
        (["achromatic", "blue", "achromatic", "blue"], "neutral_collapse"),  # tie → neutral
        (["pink", "achromatic", "achromatic", "—"], "neutral_collapse"),
        (["red", "red", "blue", "blue"], "specific_color_collapse"),
    ],
)
def test_classify_behaviour(rows, expected):
    assert classify_behaviour(rows) == expected


def test_row_collapse_needs_three_of_four():
    assert row_collapse(["blue", "blue", "blue", "red"]) == "blue"
    assert row_collapse(["blue", "blue", "red", "red"]) == "—"
    assert row_collapse(["blue", "blue", None, None]) == "—"
    assert row_collapse(["blue", "blue", "red", "green"], k=2) == "blue"
    with pytest.raises(ValueError):
        classify_behaviour(["blue"])


def test_neutral_cell_is_achromatic():
    assert cell_colour("I18") == "achromatic"
    assert cell_colour("I4") == "yellow"


def _nonsense_records(agent: str, cells: list[str]) -> list[LogRecord]:
    return [
        LogRecord.create(
            kind="word_query",
            run_id="r",
            agent_id=agent,
            word=item.text,
            category="Nonsense",
            cells=[c, "A1"],
            scores=[0.9, 0.1],
            created=0.0,
        )
        for item, c in zip(nonsense_inputs(), cells)
    ]


def test_nonsense_table_from_records():
    neutral = _nonsense_records("clip:ViT-B-16-SigLIP2/webli", ["I18"] * 16)
    blue = _nonsense_records("clip:RN50/openai", ["M26"] * 8 + ["I4", "C16", "N9", "A1"] * 2)
    # an agent that answered one input unparseably: the cell is missing, not invented
    spotty = _nonsense_records("vlm:x", ["I18"] * 16)
    spotty[0] = LogRecord.create(
        kind="word_query",
        run_id="r",
        agent_id="vlm:x",
        word="5",
        category="Nonsense",
        valid=False,
        raw_text="??",
        created=0.0,
    )
    table = nonsense_table(neutral + blue + spotty).set_index("agent")
    assert table.loc["clip:ViT-B-16-SigLIP2/webli", "behaviour"] == "neutral_collapse"
    assert (
        table.loc["clip:ViT-B-16-SigLIP2/webli", "row_collapse"]
        == "achromatic;achromatic;achromatic;achromatic"
    )
    assert table.loc["clip:RN50/openai", "row_collapse"] == "blue;blue;—;—"
    assert table.loc["clip:RN50/openai", "behaviour"] == "specific_color_collapse"
    assert table.loc["clip:ViT-B-16-SigLIP2/webli", "architecture_family"] == "SigLIP"
    assert table.loc["vlm:x", "n_missing"] == 1 and table.loc["vlm:x", "cells"].startswith("-;I18")
    assert behaviour_counts(table.reset_index()) == {
        "neutral_collapse": 2,
        "high_entropy": 0,
        "specific_color_collapse": 1,
    }


# --- Figure 12 (d): Selective Collapse, reported beside the three-way class


@pytest.mark.parametrize(
    "rows, mode",
    [
        (["—", "—", "—", "—"], "high_entropy"),
        (["—", "achromatic", "—", "—"], "high_entropy"),  # a neutral fallback in one row is no bias
        (["—", "purple", "—", "—"], "selective_collapse"),  # the paper's example: stop words only
        # rows on different colours: §3.3(b) "samples randomly across the chromatic space"
        (["pink", "yellow", "—", "—"], "high_entropy"),
        (["blue", "achromatic", "—", "—"], "high_entropy"),
        (["—", "green", "—", "orange"], "high_entropy"),
        (["blue", "blue", "—", "—"], "specific_color_collapse"),  # global by Table 5's rule: unchanged
        (["achromatic", "blue", "achromatic", "—"], "neutral_collapse"),  # unchanged
        (["purple", "purple", "purple", "purple"], "specific_color_collapse"),
    ],
)
def test_classify_mode(rows, mode):
    from huesenv.metrics import classify_mode

    assert classify_mode(rows) == mode
    if mode != "selective_collapse":
        assert mode == classify_behaviour(rows)  # the fourth mode only ever splits high entropy


def test_selective_collapse_on_table5_keeps_the_three_way_class():
    from huesenv.metrics.nonsense import MODES, classify_published_modes, valid_biased_split

    table = _table5()
    modes = classify_published_modes(table["row_collapse"])
    three = classify_published(table["row_collapse"])
    counts = {m: modes.count(m) for m in MODES}
    print("Figure 12 modes on Table 5:", counts, "(paper prose: 37 / 57 / 28 / 40)")
    assert counts == {
        "neutral_collapse": 46,
        "high_entropy": 49,
        "specific_color_collapse": 43,
        "selective_collapse": 24,
    }
    for mode, behaviour, published, rows in zip(modes, three, table["behaviour"], table["row_collapse"]):
        if mode == "selective_collapse":
            assert behaviour == published == "high_entropy"
            # Must show: no selective model has rows collapsed onto two different colours
            assert len({c for c in rows.split(";") if c != "—"}) == 1
        else:
            assert mode == behaviour
    # the prose after Table 4: 58.0 % valid (94 models), 42.0 % biased (68 models)
    valid, biased = valid_biased_split(modes)
    assert (valid, biased) == (95, 67)
    assert abs(valid / 162 - 0.580) < 0.01 and abs(biased / 162 - 0.420) < 0.01
    agree = sum(b == p for b, p in zip(three, table["behaviour"]))
    assert agree == 161


def test_nonsense_table_reports_selective_rows():
    from huesenv.metrics import mode_counts

    # stop words → purple (N23 region), everything else scattered over unrelated colours
    scattered = ["I4", "C16", "N9", "A1"]
    selective = _nonsense_records("vlm:stopwords", scattered + ["E28"] * 4 + scattered + scattered)
    uniform = _nonsense_records("vlm:noise", scattered * 4)
    neutral = _nonsense_records("clip:ViT-B-16-SigLIP2/webli", ["I18"] * 16)
    table = nonsense_table(selective + uniform + neutral).set_index("agent")
    row = table.loc["vlm:stopwords"]
    assert row["row_collapse"] == "—;purple;—;—"
    assert (row["behaviour"], row["mode"]) == ("high_entropy", "selective_collapse")
    assert row["selective_rows"] == "stop words:purple"
    assert table.loc["vlm:noise", "mode"] == "high_entropy" and table.loc["vlm:noise", "selective_rows"] == ""
    assert table.loc["clip:ViT-B-16-SigLIP2/webli", "mode"] == "neutral_collapse"
    assert mode_counts(table.reset_index()) == {
        "neutral_collapse": 1,
        "high_entropy": 1,
        "specific_color_collapse": 0,
        "selective_collapse": 1,
    }


def test_prose_counts_need_selective_models_from_the_published_classes():
    """The docstring's claim made precise: a rule that keeps Table 5's neutral and specific classes
    (and only splits High Entropy) keeps 45 neutral and 44 specific models; the prose's 37 / 57 / 28 / 40
    needs 8 neutral and 16 specific models moved into selective."""
    published = list(_table5()["behaviour"])
    neutral, specific = published.count("neutral_collapse"), published.count("specific_color_collapse")
    assert (neutral, specific) == (45, 44)
    prose = {
        "neutral_collapse": 37,
        "high_entropy": 57,
        "specific_color_collapse": 28,
        "selective_collapse": 40,
    }
    assert (neutral - prose["neutral_collapse"], specific - prose["specific_color_collapse"]) == (8, 16)
    assert sum(prose.values()) == 162
