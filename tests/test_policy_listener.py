"""A speaker-only checkpoint (``train cue-giver --fast``) guesses as the literal listener of its speaker."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from huesenv.agents import make_agent  # noqa: E402
from huesenv.agents.policy_net import (  # noqa: E402
    PolicySettings,
    build_speaker_net,
    save_checkpoint,
    speaker_forward,
)
from huesenv.board import N_CELLS  # noqa: E402
from huesenv.game.protocol import GuessQuery  # noqa: E402

VOCAB = ("APPLE", "BANANA", "KIWI", "OCEAN")


@pytest.fixture()
def speaker(tmp_path):
    torch.manual_seed(3)
    net = build_speaker_net(vocab_size=len(VOCAB), hidden=16)
    settings = PolicySettings(env_id="huesenv/CueGiverVector-v0", role="cue_giver", vocabulary=VOCAB)
    path = save_checkpoint(
        tmp_path / "policy.pt", settings, {"speaker": net}, {"speaker": {"vocab_size": 4, "hidden": 16}}
    )
    with torch.no_grad():
        table = torch.log_softmax(speaker_forward(net, torch.arange(N_CELLS))[0], -1).numpy()
    return make_agent(f"policy:{path}"), table


def test_listener_ranks_cells_by_the_speakers_likelihood_of_the_cue(speaker):
    agent, table = speaker
    legal = np.ones(N_CELLS, bool)
    legal[np.argsort(-table[:, 1])[:2]] = False  # the speaker's two best cells for BANANA are taken
    answer = agent.guess(GuessQuery(cues=("banana",), legal=legal, top_k=5))
    expected = [c for c in np.argsort(-table[:, 1], kind="stable") if legal[c]][:5]
    assert list(answer.cells) == expected and not answer.info
    assert np.all(np.diff(answer.scores) <= 0) and np.all(answer.scores < 0)  # log-probabilities


def test_two_cues_multiply_their_likelihoods(speaker):
    agent, table = speaker
    answer = agent.guess(GuessQuery(cues=("APPLE", "KIWI"), legal=np.ones(N_CELLS, bool), top_k=3))
    joint = table[:, 0] + table[:, 2]
    assert list(answer.cells) == list(np.argsort(-joint, kind="stable")[:3])


def test_no_known_cue_is_a_logged_fallback_on_a_legal_cell(speaker):
    agent, _ = speaker
    legal = np.zeros(N_CELLS, bool)
    legal[[7, 70]] = True
    answer = agent.guess(GuessQuery(cues=("zebra",), legal=legal, top_k=2))
    assert set(answer.cells) == {7, 70} and answer.info == {"fallback": "unknown_cue"}


@pytest.mark.integration  # torch
def test_a_policy_as_a_batched_game_opponent_table(speaker, tmp_path):
    """``policy:PATH`` is a table opponent of the batched game: its empty-board guesses and frame mass."""
    from huesenv.agents.vector_tables import table_for

    agent, _ = speaker
    t = table_for(f"policy:{agent.path}", vocabulary=VOCAB)
    assert t.guess_scores.shape == t.cue_value.shape == (len(VOCAB), N_CELLS)
    for i, word in enumerate(VOCAB):
        assert agent.guess(GuessQuery(cues=(word,))).cells[0] == int(np.argmax(t.guess_scores[i]))
