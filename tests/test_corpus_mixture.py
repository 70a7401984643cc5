"""The corpus-mixture head: a blend of the nearest names' colours, reading no held-out word's names."""

from __future__ import annotations

import numpy as np
import pytest

from huesenv.agents import evaluate_words
from huesenv.agents.text_encoders import HashTextEncoder
from huesenv.board import load_board, parse_coord
from huesenv.colourspace import delta_e2000
from huesenv.experiments.rl import heldout
from huesenv.experiments.rl.corpus_mixture import CorpusMixtureAgent, MixtureConfig
from huesenv.naming_corpus import NamingCorpus, load_naming_corpus
from huesenv.vocabulary import evaluation_inputs, word_texts


def _small() -> NamingCorpus:
    return NamingCorpus(load_naming_corpus().entries[:200], "first 200 XKCD names")


def _embed(texts):
    return HashTextEncoder(32).encode(list(texts))


def test_one_neighbour_peaks_at_the_cell_nearest_that_names_colour() -> None:
    corpus = _small()
    agent = CorpusMixtureAgent(corpus, _embed, MixtureConfig(k=1, tau=0.1, sigma=10.0))
    name = corpus.names[123]
    probs = agent.probabilities([name])
    assert probs.shape == (1, 480) and np.isclose(probs.sum(), 1.0)
    de = delta_e2000(corpus.lab[123][None, :], load_board().lab)
    assert int(np.argmax(probs[0])) == int(np.argmin(de))


def test_more_neighbours_blend_and_the_ranking_is_the_most_probable_cells() -> None:
    agent = CorpusMixtureAgent(_small(), _embed, MixtureConfig(k=50, tau=0.1))
    words = [w for w in evaluation_inputs() if w.text in {"FROG", "SKY"}]
    a = evaluate_words(agent, inputs=words, top_k=5, seed=0)
    b = evaluate_words(agent, inputs=words, top_k=5, seed=1)
    probs = agent.probabilities(["FROG"])[0]
    frog = next(r for r in a if r.word == "FROG")
    assert [r.cells for r in a] == [r.cells for r in b]  # deterministic
    assert [parse_coord(c) for c in frog.cells] == list(np.argsort(-probs, kind="stable")[:5])
    one = CorpusMixtureAgent(_small(), _embed, MixtureConfig(k=1)).probabilities(["FROG"])[0]
    assert (probs > 1e-6).sum() > (one > 1e-6).sum()  # 50 names spread wider than one


def test_the_heldout_row_reads_no_cue_words_names_and_no_answers(monkeypatch) -> None:
    corpus = load_naming_corpus()
    words = word_texts()
    banned = {e.name for entries in corpus.matching(words, "exact").values() for e in entries}
    seen: list[str] = []

    def recording(texts):
        seen.extend(texts)
        return _embed(texts)

    monkeypatch.setattr(heldout, "cached_embedder", lambda name: recording)
    agent = heldout.mixture_agent(corpus, words, "hash:32")
    assert banned and not banned & set(seen) and not banned & set(agent.seen["corpus"])
    assert set(seen) == set(agent.seen["texts"]) and agent.seen["participants"] == []


@pytest.mark.parametrize("bad", [dict(k=0), dict(tau=0.0), dict(sigma=-1.0)])
def test_a_bad_setting_is_a_one_line_error(bad) -> None:
    with pytest.raises(ValueError, match="MixtureConfig"):
        MixtureConfig(**bad)
