"""The single-learner envs' fast opponent path plays exactly the episodes of the full-query path.

``Driver.action`` asks replayed humans through their narrow methods instead of
a query (issue 24, speed); a versioned env id must not change its episodes, so
both paths must give the same observations, rewards, infos and endings.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import huesenv  # noqa: F401 - registers the ids


def _episodes(env_id: str, fast: bool, episodes: int, **kwargs) -> list:
    env = gymnasium.make(env_id, **kwargs)
    env.unwrapped._fast_opponents = fast
    rng = np.random.default_rng(7)
    out = []
    for ep in range(episodes):
        obs, info = env.reset(seed=1000 + ep)
        trace = [(np.asarray(obs).tobytes(), sorted(info.items()))]
        done = False
        while not done:
            legal = np.flatnonzero(env.unwrapped.action_masks())
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            trace.append((np.asarray(obs).tobytes(), reward, terminated, truncated, sorted(info.items())))
            done = terminated or truncated
        out.append(trace)
    env.close()
    return out


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [
        ("huesenv/Guesser-v1", {}),
        ("huesenv/Guesser-v1", {"num_players": 6, "seat": 2}),
        ("huesenv/CueGiver-v1", {}),
        ("huesenv/CueGiver-v1", {"num_players": 3, "seat": 1}),
    ],
)
def test_fast_opponents_play_the_same_episodes(env_id: str, kwargs: dict) -> None:
    fast = _episodes(env_id, True, 12, **kwargs)
    slow = _episodes(env_id, False, 12, **kwargs)
    assert sum(len(t) for t in fast) > 12 * 5  # whole games, not one step each
    assert fast == slow


def test_fast_path_is_taken_for_replayed_humans(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: with the fast path on, replayed opponents never get a query (guessing or giving cues)."""
    from huesenv.envs.hues_cues import play

    calls = {"decide": 0}
    decide = play.Driver.decide

    def counting(self, name, agent):
        calls["decide"] += 1
        return decide(self, name, agent)

    monkeypatch.setattr(play.Driver, "decide", counting)
    _episodes("huesenv/Guesser-v1", True, 2)
    assert calls["decide"] == 0
    _episodes("huesenv/Guesser-v1", False, 2)
    assert calls["decide"] > 0


def test_other_agents_take_the_query_path() -> None:
    """Agents without the narrow methods (here: random) still play, the same either way."""
    assert _episodes("huesenv/Guesser-v1", True, 3, opponents="random") == _episodes(
        "huesenv/Guesser-v1", False, 3, opponents="random"
    )
