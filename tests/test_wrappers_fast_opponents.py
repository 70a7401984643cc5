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


def test_give_cue_among_with_a_mask_is_give_cue_with_the_offered_words() -> None:
    """The fast cue path (whole vocabulary + mask) answers as the query path (offered words, the rest forbidden)."""
    from itertools import compress

    from huesenv.agents.human_replay import HumanReplayAgent
    from huesenv.envs.hues_cues.env import raw_env
    from huesenv.game.protocol import CueQuery

    env = raw_env(num_players=4)
    vocab = env.layout.vocabulary
    agent = HumanReplayAgent()
    rng = np.random.default_rng(3)
    answered = 0
    for trial in range(300):
        offered = rng.random(len(vocab)) < rng.choice([0.05, 0.5, 0.95])
        used = tuple(rng.choice(vocab, size=int(rng.integers(0, 6)), replace=False))
        forbidden = (*used, *env.rules.forbidden_words, *env.rules.relative_words[: trial % 3 * 7])
        targets = [int(c) for c in rng.choice(480, size=int(rng.choice([1, 4])), replace=False)]
        cue_index = int(rng.integers(1, 3))
        query = CueQuery(
            card=tuple(targets),
            target=targets[0] if len(targets) == 1 else None,
            cue_index=cue_index,
            forbidden=frozenset(forbidden) | frozenset(compress(vocab, (~offered).tolist())),
            vocabulary=tuple(compress(vocab, offered.tolist())) or None,
        )
        if query.vocabulary is None:
            continue  # an empty offer falls back to every answered word (Driver.action asks decide then)
        slow = agent.give_cue(query)
        fast = agent.give_cue_among(query.targets, cue_index, vocab, forbidden, offered)
        assert (fast.target, fast.cue, fast.valid, fast.info) == (
            slow.target,
            slow.cue,
            slow.valid,
            slow.info,
        )
        answered += fast.cue is not None
    assert answered > 100


def test_unusable_narrow_answers_fall_back_alike() -> None:
    """Replayed people whose narrow answers are unusable half the time (an occupied or off-card cell, a word
    not allowed now): the fast path's fallback draws the same actions as the query path's."""
    from huesenv.agents.human_replay import HumanReplayAgent
    from huesenv.game.protocol import Answer

    class Clumsy(HumanReplayAgent):
        def guess_cells(self, legal, cues, *, game=None, top_k=1):
            ans = super().guess_cells(legal, cues, game=game, top_k=top_k)
            return Answer(cells=np.flatnonzero(~legal)[:1]) if self.rng.random() < 0.5 else ans

        def give_cue_among(self, targets, cue_index, vocabulary, forbidden, offered=None):
            ans = super().give_cue_among(targets, cue_index, vocabulary, forbidden, offered)
            if self.rng.random() < 0.5:
                return Answer(target=479 if 479 not in targets else 0, cue="RED")  # off the card; forbidden
            return ans

    def clumsy(spec, vocabulary=None):
        return Clumsy(seed=0)

    from huesenv.envs.hues_cues import play

    fallbacks = {"n": 0}
    draw = play.Driver._random_action

    def counting(self, mask, phase):
        fallbacks["n"] += 1
        return draw(self, mask, phase)

    kwargs = {"agent_factory": clumsy}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(play.Driver, "_random_action", counting)
        fast = _episodes("huesenv/Guesser-v1", True, 6, **kwargs)
    assert fallbacks["n"] > 50  # not vacuous: the fast path fell back, many times
    assert fast == _episodes("huesenv/Guesser-v1", False, 6, **kwargs)
    assert _episodes("huesenv/CueGiver-v1", True, 4, **kwargs) == _episodes(
        "huesenv/CueGiver-v1", False, 4, **kwargs
    )


def test_a_driver_seeded_lazily_draws_as_one_given_the_generator() -> None:
    """``Driver(env, seed)`` makes ``default_rng(seed)`` at its first fallback: the same draws."""
    from huesenv.envs.hues_cues.env import raw_env
    from huesenv.envs.hues_cues.play import Driver
    from huesenv.game.phase import Phase

    env = raw_env(num_players=4)
    env.reset(seed=3)
    mask = env.action_mask(env.agent_selection).astype(bool)
    lazy, eager = Driver(env, 1234), Driver(env, np.random.default_rng(1234))
    drawn = [lazy._random_action(mask, Phase.PICK_TARGET) for _ in range(30)]
    assert drawn == [eager._random_action(mask, Phase.PICK_TARGET) for _ in range(30)]
    assert len(set(drawn)) > 1 and Driver(env, 99).rng is not lazy.rng


def test_guess_cell_is_asked_only_while_it_mirrors_the_classs_guess_cells() -> None:
    """A numpy-int ``guess_cell`` is read as a ranked cell (no fallback); patching ``guess_cells`` on the class
    sends the fast path back to it (the patch is asked, and the episodes are the query path's)."""
    from huesenv.agents.human_replay import HumanReplayAgent
    from huesenv.envs.hues_cues import play

    class NumpyCells(HumanReplayAgent):
        def guess_cell(self, legal, cues, *, game=None):
            cell = super().guess_cell(legal, cues, game=game)
            return None if cell is None else np.int64(cell)

    fallbacks = {"n": 0}
    draw = play.Driver._random_action

    def counting(self, mask, phase):
        fallbacks["n"] += 1
        return draw(self, mask, phase)

    kwargs = {"agent_factory": lambda spec, vocabulary=None: NumpyCells(seed=0)}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(play.Driver, "_random_action", counting)
        fast = _episodes("huesenv/Guesser-v1", True, 3, **kwargs)
    assert fallbacks["n"] == 0 and fast == _episodes("huesenv/Guesser-v1", False, 3, **kwargs)

    asked = {"n": 0}
    original = HumanReplayAgent.guess_cells

    def spy(self, legal, cues, *, game=None, top_k=1):
        asked["n"] += 1
        return original(self, legal, cues, game=game, top_k=top_k)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(HumanReplayAgent, "guess_cells", spy)
        patched = _episodes("huesenv/Guesser-v1", True, 2)
    assert asked["n"] > 20 and patched == _episodes("huesenv/Guesser-v1", True, 2)


def test_a_game_ended_from_outside_gives_no_legal_cell_and_refuses_a_step() -> None:
    """The inner game's dicts set from outside (a user's time limit): no legal cell, and a step says why."""
    env = gymnasium.make("huesenv/Guesser-v1")
    env.reset(seed=0)
    game = env.unwrapped.game
    game.terminations = {a: True for a in game.agents}
    assert not env.unwrapped.action_masks().any()
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)
