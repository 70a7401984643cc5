"""The participant split behind the held-out check: disjoint halves that together are the cohort."""

from __future__ import annotations

from huesenv.experiments.rl.heldout import split_participants
from huesenv.humans import load_humans


def test_split_is_disjoint_and_complete():
    humans = load_humans()
    a, b = split_participants(humans, seed=0)
    ids_a, ids_b = set(a.frame["user_id"]), set(b.frame["user_id"])
    assert not ids_a & ids_b
    assert ids_a | ids_b == set(humans.frame["user_id"])
    assert abs(len(ids_a) - len(ids_b)) <= 1 and len(a) + len(b) == len(humans)
    word = humans.words[0]
    assert len(a.cells(word)) + len(b.cells(word)) == len(humans.cells(word))
    c, _ = split_participants(humans, seed=0)
    assert set(c.frame["user_id"]) == ids_a  # seeded
    d, _ = split_participants(humans, seed=1)
    assert set(d.frame["user_id"]) != ids_a
