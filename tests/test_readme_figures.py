"""The README's scientific figures are recomputed from the code: this fails when either drifts."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from huesenv.board import load_board, parse_coord
from huesenv.humans import load_humans, word_consistency
from huesenv.humans.reconstruct import reference_table

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _readme_number(pattern: str) -> tuple[str, ...]:
    found = re.search(pattern, " ".join(README.split()))
    assert found, f"README no longer states: {pattern}"
    return found.groups()


def test_category_agreement_with_table6_is_the_readmes():
    table = reference_table()
    labels = {}
    for coord_col, colour_col in (("human_coord", "human_color"), ("model_coord", "model_color")):
        for coord, colour in zip(table[coord_col], table[colour_col]):
            labels[parse_coord(coord)] = colour
    cats = load_board().categories
    agree = sum(cats[i] == want for i, want in labels.items())
    total, got, percent = _readme_number(
        r"Agreement with the (\d+) cells labelled in Table 6: (\d+)/\d+ \(([\d.]+) %\)"
    )
    assert (int(total), int(got)) == (len(labels), agree)
    assert float(percent) == round(100 * agree / len(labels), 1)


def test_reconstruction_fit_with_and_without_floor_is_the_readmes():
    humans = load_humans()
    ref = reference_table().set_index("word")["human_consistency"]

    def within(floor):
        gaps = np.array([abs(word_consistency(humans.xy(w), floor=floor) - ref[w]) for w in humans.words])
        return int((gaps <= 0.03 + 1e-12).sum())

    with_floor, n_words, without = _readme_number(
        r"Consistency within ±0\.03 for (\d+) of (\d+) words with the covariance floor .*?\((\d+) of \d+ without it\)"
    )
    assert int(n_words) == len(humans.words)
    assert int(with_floor) == within(None)
    assert int(without) == within(1e-15)  # a floor far below every spread: the unregularised fit


def test_chi2_false_alarm_and_pooled_figures_are_the_readmes():
    from huesenv.humans import consistency_by_category, consistency_table
    from huesenv.stats import loo_false_alarm

    text = " ".join(README.split())
    stated = re.search(r"flags ([\d.]+) % at n = 20, ([\d.]+) % at 40, ([\d.]+) % at 90", text)
    assert stated, "README no longer states the chi2 false-alarm rates"
    for n, pct in zip((20, 40, 90), stated.groups()):
        assert float(pct) == round(100 * loo_false_alarm(n), 1)
    fail, implied = _readme_number(r"pooled fail rate (\d\.\d+) against an implied (\d\.\d+)")
    pooled = consistency_by_category(consistency_table(load_humans())).set_index("category").loc["All"]
    assert float(fail) == round(pooled["fail_rate"], 3)
    assert float(implied) == round(pooled["implied_false_alarm"], 3)


def test_selective_collapse_figures_are_the_readmes():
    from huesenv.metrics.nonsense import MODES, classify_published_modes, valid_biased_split

    modes = classify_published_modes(
        __import__("pandas").read_csv(
            Path(__file__).resolve().parents[1] / "huesenv" / "data" / "reference" / "paper_table5_models.csv"
        )["row_collapse"]
    )
    counts = _readme_number(
        r"Table 5 gives (\d+) / (\d+) / (\d+) / (\d+), valid/biased ([\d.]+) / ([\d.]+) %"
    )
    assert [int(c) for c in counts[:4]] == [modes.count(m) for m in MODES]
    valid, biased = valid_biased_split(modes)
    assert (float(counts[4]), float(counts[5])) == (round(100 * valid / 162, 1), round(100 * biased / 162, 1))


@pytest.mark.integration  # scores the 14 VLM answer tables 20 times (~20 s)
def test_tie_figures_are_the_readmes(shared_dir):
    from huesenv.logs.answers import import_answers
    from huesenv.metrics.ties import tie_sensitivity

    records = []
    for path in sorted((shared_dir / "data" / "vlm_replays").glob("*.csv")):
        records += import_answers(path, path.stem)
    table = tie_sensitivity(records, load_humans(), draws=20, seed=0)
    tied, words, flips, move = _readme_number(
        r"(\d[\d,]*) of (\d[\d,]*) words are cut in a tie, ([\d.]+) % of those words' Hotelling flags flip "
        r"per random order, and an agent's Hotelling fail rate moves by at most ([\d.]+)"
    )
    assert int(tied.replace(",", "")) == table["n_cut_in_tie"].sum()
    assert int(words.replace(",", "")) == table["n_words"].sum()
    weighted = (table["flip_share"] * table["n_cut_in_tie"]).sum() / table["n_cut_in_tie"].sum()
    assert float(flips) == round(100 * weighted, 1)
    assert float(move) == round(table["max_rate_move"].max(), 2)
