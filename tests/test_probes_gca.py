"""GCA stimuli: guarantees checked from the pixels themselves, the catalogue, trials and the dataset loader."""

from pathlib import Path

import numpy as np
import pytest

import huesenv
from huesenv.probes.gca.objects import (
    CATEGORIES,
    MANIPULATION_COLOURS,
    MANIPULATION_RGB,
    OBJECTS,
    SHAPE_VARIANTS,
    SHAPES,
)
from huesenv.probes.gca.outlines import DARK_LEVEL
from huesenv.probes.gca.questions import ORDERINGS, gca_trials
from huesenv.probes.gca.stimuli import (
    PATCH,
    TAUS,
    GCAStimulus,
    base_images,
    gca_stimuli,
    load_gca_folder,
    patch_counts,
)

BASES = [
    ("apple", "object", "red"),
    ("carrot", "object", "purple"),
    ("banana", "object", "yellow"),  # a Lucide outline
    ("rat", "object", "green"),  # a Lucide outline
    ("pentagon-2", "shape", "grey"),
    ("hexagon-4", "shape", "yellow"),
]


def _changed(img: np.ndarray, grey: np.ndarray) -> np.ndarray:
    return (img != grey[:, :, None]).any(axis=2)


@pytest.mark.parametrize("base,kind,colour", BASES)
def test_coverage_within_one_patch_and_sequential(base, kind, colour):
    grey, mask = base_images(base, kind)
    eligible = mask & (grey >= DARK_LEVEL)
    n = int(eligible.sum())
    one_patch = patch_counts(eligible).max() / n * 100.0
    previous = np.zeros_like(eligible)
    for tau in TAUS:
        stim = GCAStimulus(base, kind, "shape" if kind == "shape" else "prior", colour, tau)
        img = stim.image()
        changed = _changed(img, grey)
        # only eligible pixels change: outline and background stay as drawn
        assert not (changed & ~eligible).any()
        frac = 100.0 * changed.sum() / n
        assert tau <= frac + 1e-9 and frac < tau + one_patch + 1e-9, (tau, frac)
        assert frac == pytest.approx(stim.coverage())
        # the coloured set at a smaller tau is contained in this one
        assert not (previous & ~changed).any()
        previous = changed
        # white pixels take exactly the manipulation colour
        white = changed & (grey == 255)
        assert (img[white] == np.asarray(MANIPULATION_RGB[colour], dtype=np.uint8)).all()
    assert previous.sum() == n  # tau = 100 colours every eligible pixel


def test_patches_are_16px_cells():
    stim = GCAStimulus("apple", "object", "prior", "red", 30)
    grey, _ = base_images("apple", "object")
    changed = _changed(stim.image(), grey)
    eligible = base_images("apple", "object")[1] & (grey >= DARK_LEVEL)
    cells = changed.reshape(32, PATCH, 32, PATCH).any(axis=(1, 3))
    # a touched patch is coloured on all its eligible pixels
    full = (changed == (eligible & np.kron(cells, np.ones((PATCH, PATCH), dtype=bool)))).all()
    assert full


def test_seed_determinism_and_effect():
    a = GCAStimulus("leaf", "object", "prior", "green", 40, seed=3).image()
    b = GCAStimulus("leaf", "object", "prior", "green", 40, seed=3).image()
    c = GCAStimulus("leaf", "object", "prior", "green", 40, seed=4).image()
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()


def test_catalogue():
    assert len(OBJECTS) >= 150
    assert len({o.name for o in OBJECTS}) == len(OBJECTS)
    assert len({o.icon for o in OBJECTS}) == len(OBJECTS)
    by_cat = {c: [o for o in OBJECTS if o.category == c] for c in CATEGORIES}
    assert all(o.category in CATEGORIES for o in OBJECTS)
    assert all(len(by_cat[c]) >= 5 for c in ("fruit", "vegetable", "animal", "plant", "food", "vehicle"))
    names = {o.name for o in OBJECTS}
    assert "mouse" not in names and "computer mouse" in names  # never an ambiguous name
    sources = (Path(huesenv.__file__).parent / "data" / "gca" / "SOURCES.md").read_text(encoding="utf-8")
    assert "Lucide" in sources and "Tabler" in sources and "ISC" in sources and "MIT" in sources
    outlines = Path(huesenv.__file__).parent / "data" / "gca" / "outlines"
    for o in OBJECTS:
        assert o.canonical in MANIPULATION_COLOURS and o.counterfactual in MANIPULATION_COLOURS
        assert o.canonical != o.counterfactual
        assert (outlines / f"{o.icon}.svg").is_file()
    for name in ("apple", "computer mouse", "banana", "rat", "school bus", "lettuce"):  # both icon sets
        _assert_non_degenerate(name)
    assert len(SHAPES) * len(SHAPE_VARIANTS) == 25


def _assert_non_degenerate(name):
    grey, mask = base_images(name, "object")
    interior = (mask & (grey >= DARK_LEVEL)).mean()
    assert 0.03 < interior < 0.6, (name, interior)  # non-degenerate masks, as the paper filtered


@pytest.mark.integration
def test_every_outline_has_a_non_degenerate_mask():
    for o in OBJECTS:  # renders all 163 outlines (~20 s)
        _assert_non_degenerate(o.name)


def test_stimulus_set_layout():
    stims = gca_stimuli()
    n_obj = len(OBJECTS)
    # counterfactual objects have no tau 0 (the paper: "for counterfactual, there is no '0%' colored split")
    assert len(stims) == (2 * n_obj + 25 * 9) * len(TAUS) - n_obj
    assert not [s for s in stims if s.condition == "counterfactual" and s.tau == 0]
    with_zero = gca_stimuli(objects=["apple"], conditions=["counterfactual"], counterfactual_zero=True)
    assert [s.tau for s in with_zero] == list(TAUS)
    shapes = [s for s in stims if s.condition == "shape"]
    assert {s.colour for s in shapes} == set(MANIPULATION_COLOURS)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"objects": ["apple", "apple"]}, "object: 'apple' given twice"),
        ({"conditions": ["prior", "prior"]}, "condition: 'prior' given twice"),
        ({"objects": ["apple"], "orderings": ["standard", "standard"]}, "ordering: 'standard' given twice"),
        ({"objects": ["apple"], "question_types": ["colour", "colour"]}, "question type: 'colour' given"),
    ],
)
def test_a_choice_given_twice_is_refused_not_run_twice(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gca_trials(**kwargs)


def test_trials_options_and_orderings():
    open_q = gca_trials(objects=["apple"], conditions=["prior"], question_types=["colour"])
    # models: the paper's open prompt (§3) plus the GCA authors' "Answer with one word."
    assert {t.question for t in open_q} == {"What color is the apple in the image? Answer with one word."}
    assert all(t.options is None and t.answer_kind == "colour" for t in open_q)
    trials = gca_trials(objects=["apple"], conditions=["prior", "counterfactual"], colour_question="options")
    colour_q = [t for t in trials if t.fields["question_type"] == "colour"]
    assert len(colour_q) == 2 * len(TAUS) - 1  # no counterfactual tau 0
    for t in colour_q:
        assert t.question == "What color is the apple in the image?"
        assert set(t.options) == {"white", t.fields["colour"], t.fields["distractor"]}
        assert t.fields["distractor"] not in ("grey", "white", t.fields["colour"])
        # the distractor colour is absent from the image
        rgb = np.asarray(MANIPULATION_RGB[t.fields["distractor"]], dtype=np.uint8)
        assert not (t.image() == rgb).all(axis=2).any()
    intro = [t for t in trials if t.fields["question_type"] == "introspection"]
    assert {t.fields["ordering"] for t in intro} == set(ORDERINGS)
    text_prior = [t for t in intro if t.fields["ordering"] == "text-prior"]
    assert len(text_prior) == 2 and all((t.image() == 255).all() for t in text_prior)
    cov = [t for t in trials if t.fields["question_type"] == "coverage"]
    assert all(t.question.startswith("What percent of pixels in the apple are ") for t in cov)


def test_introspection_wording_per_ordering():
    import re

    trials = gca_trials(objects=["apple"], conditions=["prior"], question_types=["introspection"])
    by_ordering = {t.fields["ordering"]: t.question for t in trials}
    assert set(by_ordering) == set(ORDERINGS)
    for ordering, q in by_ordering.items():
        # every sentence starts with a capital; none starts lower-case mid-question after ". "
        assert not re.search(r"\. [a-z]", q), (ordering, q)
        # no capital letter right after a comma ("After answering, For any object")
        assert not re.search(r", [A-Z]", q), (ordering, q)
        assert "x% of its pixels should be colored" in q
    assert "After answering, for any object, x% of its pixels" in by_ordering["post-hoc"]
    assert by_ordering["post-hoc"].endswith("Reply with the format: color=<color>, threshold=x%.")
    assert by_ordering["standard"].endswith("Reply with the format: threshold=x%, color=<color>.")


def test_export_roundtrip_and_loader(tmp_path):
    from huesenv.probes.export import export_stimuli

    stims = [
        s
        for s in gca_stimuli(
            objects=["apple"], conditions=["prior", "shape"], shapes=["circle"], taus=[0, 50]
        )
        if s.base in ("apple", "circle-0")
    ]
    manifest = export_stimuli("gca", tmp_path, stimuli=stims)
    loaded = load_gca_folder(tmp_path)
    assert len(loaded) == len(stims)
    for s, f in zip(stims, loaded):
        assert (f.condition, f.colour, f.tau) == (s.condition, s.colour, s.tau)
        assert f.image().tobytes() == s.image().tobytes()
        assert f.coverage() == pytest.approx(s.coverage(), abs=1e-3)
    text = manifest.read_text().splitlines()
    text[1] = text[1].replace(",prior,", ",sideways,")
    manifest.write_text("\n".join(text) + "\n")
    with pytest.raises(ValueError, match=r"line 2, field condition"):
        load_gca_folder(tmp_path)


@pytest.mark.parametrize(
    ("tau", "coverage", "field"),
    [
        ("inf", "", "tau"),
        ("nan", "", "tau"),
        ("101", "", "tau"),
        ("50", "abc", "coverage"),
        ("50", "nan", "coverage"),
        ("50", "250", "coverage"),
        ("50", "-1", "coverage"),
    ],
)
def test_manifest_numbers_are_percentages(tmp_path, tau, coverage, field):
    from PIL import Image

    Image.new("RGB", (8, 8), "white").save(tmp_path / "a.png")
    (tmp_path / "manifest.csv").write_text(
        f"file,object,condition,color,tau,coverage\na.png,banana,prior,yellow,{tau},{coverage}\n"
    )
    with pytest.raises(
        ValueError, match=rf"manifest.csv, line 2, field {field}: .* is not a number in \[0, 100\]"
    ):
        load_gca_folder(tmp_path)


def test_loader_without_manifest(tmp_path):
    from PIL import Image

    (tmp_path / "counterfactual").mkdir()
    Image.new("RGB", (256, 256), (255, 255, 255)).save(tmp_path / "counterfactual" / "strawberry_blue_30.png")
    (f,) = load_gca_folder(tmp_path)
    assert (f.base, f.condition, f.colour, f.tau) == ("strawberry", "counterfactual", "blue", 30)
    assert f.image().shape == (512, 512, 3)
