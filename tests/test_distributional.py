"""The distributional guesser: nothing held out reaches training, in any fold and tier; it plays as policy:PATH."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from huesenv.agents import make_agent  # noqa: E402
from huesenv.agents.policy_net import load_checkpoint  # noqa: E402
from huesenv.agents.protocol import GuessQuery  # noqa: E402
from huesenv.agents.text_encoders import HashTextEncoder  # noqa: E402
from huesenv.experiments.rl import distributional as dist  # noqa: E402
from huesenv.humans import load_humans  # noqa: E402
from huesenv.humans.splits import DataSplit  # noqa: E402
from huesenv.naming_corpus import load_naming_corpus  # noqa: E402
from huesenv.vocabulary import normalise_word  # noqa: E402

TINY = {"hidden": 8, "pretrain_epochs": 1, "finetune_epochs": 1, "text_encoder": "hash:16"}


@pytest.mark.integration  # 10 tiny trainings (5 folds x 2 tiers), ~10-40 s
def test_no_held_out_word_entry_or_evaluation_answer_reaches_training(tmp_path, monkeypatch) -> None:
    humans, corpus = load_humans(), load_naming_corpus()
    encoder = HashTextEncoder(16)
    seen_texts: list[str] = []
    seen_answers: list[
        tuple[set[str], set[str]]
    ] = []  # (participants, words) of every answer table trained on

    def embed(texts):
        seen_texts.extend(texts)
        return encoder.encode(list(texts))

    targets = dist.human_targets

    def recording_targets(part, words, sigma):
        seen_answers.append((set(part.frame["user_id"].astype(str)), set(part.frame["word"])))
        return targets(part, words, sigma)

    monkeypatch.setattr(dist, "human_targets", recording_targets)
    base = DataSplit.of(humans, seed=0)
    for fold in range(5):
        split = base.with_fold(fold, 5)
        held = set(split.evaluation_words)
        for tier in ("exact", "strict"):
            seen_texts.clear(), seen_answers.clear()
            cfg = dist.DistributionalConfig(tier=tier, **TINY)
            path = dist.train_distributional(tmp_path / f"{fold}{tier}", split, humans, cfg, embed=embed)
            banned = {e.name for entries in corpus.matching(held, tier).values() for e in entries}
            assert banned and not banned & set(seen_texts)  # no held-out word's corpus entry
            assert not held & {normalise_word(t) for t in seen_texts}  # no held-out word itself
            (people, words), *more = seen_answers
            assert not more and not people & set(split.eval_participants) and not words & held
            assert people <= set(split.train_participants)
            seen = load_checkpoint(path).train["seen"]
            assert set(seen["texts"]) == set(seen_texts) and set(seen["participants"]) == people


@pytest.mark.integration  # 3 tiny trainings and the ΔE2000 kernels, ~3 s
def test_checkpoint_plays_as_a_policy_and_is_deterministic(tmp_path) -> None:
    humans = load_humans()
    split = DataSplit.of(humans, seed=0).with_fold(0, 5)
    cfg = dist.DistributionalConfig(**TINY)
    a = dist.train_distributional(tmp_path / "a", split, humans, cfg)
    b = dist.train_distributional(tmp_path / "b", split, humans, cfg)
    assert a.read_bytes() == b.read_bytes()
    agent = make_agent(f"policy:{a}")
    answer = agent.act(GuessQuery(cues=(split.evaluation_words[0],), top_k=5))
    assert len(answer.cells) == 5 and np.all(np.diff(answer.scores) <= 0)
    corpus_only = dist.train_distributional(
        tmp_path / "c", split, humans, dist.DistributionalConfig(use_humans=False, **TINY)
    )
    assert load_checkpoint(corpus_only).train["seen"]["participants"] == []


def test_a_prompted_encoder_reads_the_text_inside_its_template() -> None:
    from huesenv.agents.text_encoders import make_text_encoder

    prompted = make_text_encoder("hash:16@the colour of {word}")
    assert prompted.dim == 16
    assert np.array_equal(prompted.encode(["frog"]), HashTextEncoder(16).encode(["the colour of frog"]))
    with pytest.raises(ValueError, match="expected one"):
        make_text_encoder("hash:16@no word here")


def test_gaussian_target_peaks_at_the_cell_closest_to_peoples_xy_mean() -> None:
    from huesenv.board import load_board
    from huesenv.stats import mahalanobis_d2, sample_covariance

    humans = load_humans()
    words = list(humans.words[:3])
    target = dist.gaussian_targets(humans, words)
    assert target.shape == (3, 480)
    np.testing.assert_allclose(target.sum(axis=1), 1.0)
    xy = load_board().xy
    for w, row in zip(words, target):
        pts = xy[humans.cells(w)]
        d2 = mahalanobis_d2(xy, pts.mean(axis=0), sample_covariance(pts))
        assert int(np.argmax(row)) == int(np.argmin(d2))
        assert np.all(np.diff(row[np.argsort(d2)]) <= 1e-15)  # falls off with the distance


def test_an_unknown_people_target_is_a_one_line_error() -> None:
    humans = load_humans()
    with pytest.raises(ValueError, match="human_target"):
        dist.people_targets(humans, list(humans.words[:1]), dist.DistributionalConfig(human_target="mode"))
