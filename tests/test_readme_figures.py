"""The README's scientific figures are recomputed from the code: this fails when either drifts."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

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
