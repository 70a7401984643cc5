"""The lookup baseline gives cues from its training table (so it plays both seats of a tournament game)."""

from __future__ import annotations

import numpy as np
import pytest

from huesenv.agents.lookup import LookupAgent
from huesenv.agents.protocol import CueQuery
from huesenv.board import frame
from huesenv.humans import load_humans
from huesenv.humans.splits import DataSplit


@pytest.fixture(scope="module")
def train():
    humans = load_humans()
    return DataSplit.of(humans, seed=0).train(humans)


def share(train, word: str, target: int) -> float:
    cells = np.asarray(train.cells(word))
    return float(np.isin(cells, list(frame(target))).mean())


def test_cue_is_the_allowed_word_with_most_training_answers_in_the_frame(train):
    agent = LookupAgent(train)
    card = (5, 130, 257, 400)
    answer = agent.give_cue(CueQuery(card=card, target=None, cue_index=1, forbidden=frozenset()))
    best = max((share(train, w, t), w, t) for w in train.words for t in card)
    assert (answer.target, answer.cue) == (best[2], best[1])
    assert answer.info["frame_share"] == pytest.approx(best[0])
    # the word just given is forbidden for cue 2: the next best for that target
    again = agent.give_cue(
        CueQuery(card=card, target=answer.target, cue_index=2, forbidden=frozenset({answer.cue.lower()}))
    )
    rest = max((share(train, w, answer.target), w) for w in train.words if w != answer.cue)
    assert again.target == answer.target and again.cue == rest[1]


def test_no_word_with_training_answers_passes_at_cue_2(train):
    agent = LookupAgent(train)
    answer = agent.give_cue(
        CueQuery(card=(1, 2, 3, 4), target=2, cue_index=2, forbidden=frozenset(), vocabulary=("ZEBRA",))
    )
    assert answer.cue is None and answer.valid
