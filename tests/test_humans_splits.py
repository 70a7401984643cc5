"""Evaluation splits: disjoint parts, seeded, stratified word folds, recorded and checked."""

from __future__ import annotations

import collections

import pytest

from huesenv.humans import load_humans
from huesenv.humans.splits import (
    DataSplit,
    describe_training,
    stratified_word_folds,
    training_overlap,
    training_record,
)


@pytest.fixture(scope="module")
def humans():
    return load_humans()


def test_participant_split_is_disjoint_complete_and_seeded(humans):
    s = DataSplit.of(humans, seed=0)
    train, ev = s.train(humans), s.evaluation(humans)
    a, b = set(train.frame["user_id"]), set(ev.frame["user_id"])
    assert not a & b and a | b == set(humans.frame["user_id"])
    assert len(train) + len(ev) == len(humans)
    assert DataSplit.of(humans, seed=0).fingerprint == s.fingerprint
    assert DataSplit.of(humans, seed=1).fingerprint != s.fingerprint
    assert "answer split" in s.label and s.fingerprint in s.label  # the reconstruction's caveat


def test_word_folds_are_a_stratified_partition():
    words = [f"w{i}" for i in range(100)]
    cats = [f"c{i % 7}" for i in range(100)]
    folds = stratified_word_folds(words, cats, 5, seed=3)
    assert sorted(w for f in folds for w in f) == sorted(words)
    assert max(map(len, folds)) - min(map(len, folds)) <= 1
    per_cat = collections.Counter(
        (f_i, c) for f_i, f in enumerate(folds) for c in (cats[int(w[1:])] for w in f)
    )
    for c in set(cats):
        counts = [per_cat[(i, c)] for i in range(5)]
        assert max(counts) - min(counts) <= 1, (c, counts)
    assert folds == stratified_word_folds(words, cats, 5, seed=3)
    assert folds != stratified_word_folds(words, cats, 5, seed=4)
    with pytest.raises(ValueError, match="n_folds"):
        stratified_word_folds(words, cats, 1)


def test_held_out_fold_no_answer_in_both_parts(humans):
    s = DataSplit.of(humans, seed=0, n_folds=5, fold=2)
    train, ev = s.train(humans), s.evaluation(humans)
    assert set(train.words).isdisjoint(ev.words) and len(ev.words) == 20
    assert set(ev.words) == set(s.evaluation_words)
    assert training_overlap(training_record(s, humans), ev) == 0
    assert training_overlap(training_record(s, humans), humans) == len(train)
    assert training_overlap(training_record(None, humans), ev) == len(ev)  # trained on everything
    assert "fold 2 of 5" in describe_training(training_record(s, humans))


def test_record_round_trip_and_tampering(humans, tmp_path):
    s = DataSplit.of(humans, seed=0, n_folds=5, fold=1)
    assert DataSplit.load(s.save(tmp_path / "split.json")) == s
    data = s.to_dict()
    data["eval_participants"] = data["eval_participants"][:-1]
    with pytest.raises(ValueError, match="fingerprint"):
        DataSplit.from_dict(data)
    with pytest.raises(ValueError, match="format"):
        DataSplit.from_dict({"format": "nope"})


def test_written_part_reads_back_and_other_cohort_is_refused(humans, tmp_path):
    s = DataSplit.of(humans, seed=0, n_folds=5, fold=0)
    ev = load_humans(s.write_part(humans, "evaluation", tmp_path / "evaluation.csv.gz"))
    assert len(ev) == len(s.evaluation(humans)) and ev.is_reconstruction
    with pytest.raises(ValueError, match="not from"):
        s.train(ev)


def test_a_part_file_is_named_as_that_part_of_its_split_in_every_reference(humans, tmp_path):
    from huesenv.humans import HumanReference

    s = DataSplit.of(humans, seed=0)
    s.save(tmp_path / "split.json")
    for part in ("evaluation", "train"):
        loaded = load_humans(s.write_part(humans, part, tmp_path / f"{part}.csv.gz"))
        assert HumanReference.of(loaded).description.endswith(f"; {s.part_label(part)}")
    named = tmp_path / "named"
    s.save(named / f"split-{s.fingerprint}.json")
    loaded = load_humans(
        s.write_part(humans, "evaluation", named / f"split-{s.fingerprint}-evaluation.csv.gz")
    )
    assert f"evaluation part of split {s.fingerprint}" in HumanReference.of(loaded).description
    # no record, another split's record, or a file whose people are not that part: named as itself
    alone = tmp_path / "alone"
    loaded = load_humans(s.write_part(humans, "evaluation", alone / "evaluation.csv.gz"))
    assert "part of split" not in HumanReference.of(loaded).description
    DataSplit.of(humans, seed=1).save(alone / "split.json")
    assert "part of split" not in HumanReference.of(load_humans(alone / "evaluation.csv.gz")).description
    s.save(alone / "split.json")
    swapped = load_humans(s.write_part(humans, "train", alone / "evaluation.csv.gz"))
    assert "part of split" not in HumanReference.of(swapped).description
