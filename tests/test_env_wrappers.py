"""The single-agent Gymnasium wrappers: registration, Gymnasium's env checker, opponents, determinism."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import huesenv
from huesenv.agents import RandomAgent
from huesenv.agents.protocol import Answer, BaseAgent
from huesenv.board import N_CELLS
from huesenv.envs import CueGiverEnv, GuesserEnv
from huesenv.envs.registration import ENV_IDS
from huesenv.probes.registry import probe_env_ids

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_ids_registered_idempotently():
    huesenv.register_envs()
    huesenv.register_envs()
    for env_id, entry in {**ENV_IDS, **probe_env_ids()}.items():
        assert gym.registry[env_id].entry_point == entry
    # the probes register their own ids: the env layer names no probe module
    assert probe_env_ids()["huesenv/GCA-v0"] == "huesenv.probes.gca.env:GCAEnv"
    assert (
        probe_env_ids()["huesenv/TextInterference-v0"]
        == "huesenv.probes.interference.env:TextInterferenceEnv"
    )
    assert not any("probes" in entry for entry in ENV_IDS.values())


@pytest.mark.parametrize("cls", [GuesserEnv, CueGiverEnv])
@pytest.mark.parametrize("mode", ["flat", "dict"])
def test_gymnasium_check_env(cls, mode):
    check_env(cls(num_players=3, observation_mode=mode), skip_render_check=True)


def _run(env, seed):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps, trace = 0.0, 0, []
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        trace.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
        done = terminated or truncated
    return total, steps, trace, info


@pytest.mark.parametrize(
    "env_id,role", [("huesenv/Guesser-v1", "guesser"), ("huesenv/CueGiver-v1", "cue_giver")]
)
def test_make_and_rewards_are_the_learner_role_points(env_id, role):
    env = gym.make(env_id, num_players=4)
    assert isinstance(env.observation_space, gym.spaces.Box)  # flat by default
    total, steps, _, info = _run(env, seed=3)
    game = env.unwrapped.game
    assert total == game.state_obj.points_by_role[0][role]
    assert steps == (12 if role == "guesser" else 6)  # 6 rounds x 2 cones / 2 rounds x 3 decisions
    assert info["phase"] == 5 and info["score"] == game.state_obj.scores[0]


def test_v0_ids_are_gone():
    with pytest.raises(gym.error.DeprecatedEnv, match="Guesser-v1"):
        gym.make("huesenv/Guesser-v0")


def test_default_opponents_are_replayed_humans_one_per_seat():
    from huesenv.agents.human_replay import HumanReplayAgent

    env = GuesserEnv(num_players=4)
    agents = list(env.opponents.values())
    assert all(isinstance(a, HumanReplayAgent) for a in agents) and len({id(a) for a in agents}) == 3
    env.reset(seed=0)
    # answers are drawn without replacement within the game: the driver tells the game apart
    assert env._driver.game == 0
    env.reset(seed=1)
    assert env._driver.game == 1


def test_opponents_as_spec_strings():
    env = GuesserEnv(num_players=3, opponents=["random", "human-replay"], stand_in="random")
    kinds = [type(a).__name__ for a in env.opponents.values()]
    assert kinds == ["RandomAgent", "HumanReplayAgent"]
    env.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent kind"):
        GuesserEnv(num_players=3, opponents="no-such-kind")


def test_one_policy_runs_at_3_to_10_players():
    spaces_ = [GuesserEnv(num_players=n, opponents="random").observation_space for n in (3, 4, 6, 10)]
    assert all(s == spaces_[0] for s in spaces_)
    env = GuesserEnv(num_players=6, opponents="random")
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs) and env.action_masks().shape == (N_CELLS,)


def test_guesser_action_space_is_cells():
    env = GuesserEnv(num_players=5, seat=2, observation_mode="dict")
    obs, _ = env.reset(seed=0)
    assert env.action_space == gym.spaces.Discrete(N_CELLS) and obs["action_mask"].shape == (N_CELLS,)
    assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks())
    assert env.game.agent_selection == "player_2" and env.game.state_obj.phase in ("guess_1", "guess_2")


def test_same_seed_same_episode():
    a, b = GuesserEnv(num_players=3), GuesserEnv(num_players=3)
    assert _run(a, 11)[2] == _run(b, 11)[2]
    assert _run(a, 11)[0] == _run(b, 11)[0]


class _Oracle(BaseAgent):
    """Guesses the cue giver's target: lets a test see that opponents really play the seats."""

    name = "oracle"

    def __init__(self, env):
        self.env = env
        self.calls = 0

    def guess(self, query):
        self.calls += 1
        s = self.env.game.state_obj
        ranked = [s.target] + [c for c in range(N_CELLS) if c != s.target]
        return Answer(cells=np.asarray(ranked))

    def give_cue(self, query):
        return RandomAgent(seed=0).give_cue(query)


def test_opponents_play_the_other_seats():
    env = GuesserEnv(num_players=3)
    oracle = _Oracle(env)
    env2 = GuesserEnv(num_players=3, opponents={"player_1": oracle, "player_2": RandomAgent(seed=1)})
    oracle.env = env2
    _run(env2, seed=0)
    pbr = env2.game.state_obj.points_by_role
    assert oracle.calls > 0 and pbr[1]["guesser"] >= 3 * oracle.calls // 2
    with pytest.raises(ValueError, match="missing seat"):
        GuesserEnv(num_players=3, opponents={"player_1": oracle})
    with pytest.raises(ValueError, match="expected 2 agents"):
        GuesserEnv(num_players=3, opponents=[oracle])
    GuesserEnv(num_players=4, opponents=RandomAgent(seed=2)).reset(seed=0)


def test_penalise_mode_lets_the_learner_retry():
    env = GuesserEnv(num_players=3, illegal_action="penalise", observation_mode="dict")
    obs, _ = env.reset(seed=0)
    occupied = np.flatnonzero(obs["observation"]["occupied"])
    if occupied.size == 0:
        obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        occupied = np.flatnonzero(obs["observation"]["occupied"])
    before = env.game.state_obj.moves
    obs, reward, *_, info = env.step(int(occupied[0]))
    assert reward == -1.0 and info["illegal"] == 1 and env.game.state_obj.moves == before
    assert "already holds a cone" in env.game.last_illegal


def test_illegal_learner_action_ends_the_episode_by_default():
    env = GuesserEnv(num_players=3, opponents="random")
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0]) if (~env.action_masks()).any() else None
    if bad is None:
        env.step(int(np.flatnonzero(env.action_masks())[0]))
        bad = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.warns(UserWarning, match="Illegal move"):
        _, reward, terminated, truncated, _ = env.step(bad)
    assert reward == -1.0 and terminated and not truncated


def test_spec_strings_and_the_default_go_through_the_agent_factory(monkeypatch):
    """The env layer names no agent: spec strings and the default opponent are the factory's to build."""
    from huesenv.envs.hues_cues import defaults

    made = []

    def factory(spec, *, vocabulary):
        made.append(spec)
        return RandomAgent(seed=0, vocabulary=tuple(vocabulary))

    GuesserEnv(num_players=3, opponents="anything", agent_factory=factory)
    assert made == ["anything"] * 3  # two seats and the learner's stand-in
    made.clear()
    GuesserEnv(num_players=3, agent_factory=factory)
    assert made == [None] * 3  # None: the factory's default opponent
    monkeypatch.setattr(defaults, "_agent_factory", None)
    with pytest.raises(ValueError, match="no agent factory installed"):
        GuesserEnv(num_players=3)
    GuesserEnv(
        num_players=3, opponents=RandomAgent(seed=0), stand_in=RandomAgent(seed=1)
    )  # objects: no factory
