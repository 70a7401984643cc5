"""The single-agent Gymnasium wrappers: registration, Gymnasium's env checker, opponents, determinism."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import huesenv  # noqa: F401 - registers the ids
from huesenv.agents import RandomAgent
from huesenv.agents.protocol import Answer, BaseAgent
from huesenv.board import N_CELLS
from huesenv.envs import CueGiverEnv, GuesserEnv, register_envs
from huesenv.envs.registration import ENV_IDS

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_ids_registered_idempotently():
    register_envs()
    register_envs()
    for env_id, entry in ENV_IDS.items():
        assert gym.registry[env_id].entry_point == entry
    assert ENV_IDS["huesenv/GCA-v0"] == "huesenv.probes.gca.env:GCAEnv"
    assert ENV_IDS["huesenv/TextInterference-v0"] == "huesenv.probes.interference.env:TextInterferenceEnv"


@pytest.mark.parametrize("cls", [GuesserEnv, CueGiverEnv])
def test_gymnasium_check_env(cls):
    check_env(cls(num_players=3), skip_render_check=True)


def _run(env, seed):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, steps, trace = 0.0, 0, []
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
        done = terminated or truncated
    return total, steps, trace, info


@pytest.mark.parametrize(
    "env_id,role", [("huesenv/Guesser-v0", "guesser"), ("huesenv/CueGiver-v0", "cue_giver")]
)
def test_make_and_rewards_are_the_learner_role_points(env_id, role):
    env = gym.make(env_id, num_players=4)
    total, steps, _, info = _run(env, seed=3)
    game = env.unwrapped.game
    assert total == game.state_obj.points_by_role[0][role]
    assert steps == (12 if role == "guesser" else 6)  # 6 rounds x 2 cones / 2 rounds x 3 decisions
    assert info["phase"] == "done" and "final_scores" in info


def test_guesser_action_space_is_cells():
    env = GuesserEnv(num_players=5, seat=2)
    obs, _ = env.reset(seed=0)
    assert env.action_space == gym.spaces.Discrete(N_CELLS) and obs["action_mask"].shape == (N_CELLS,)
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
    env = GuesserEnv(num_players=3, illegal_action="penalise")
    obs, _ = env.reset(seed=0)
    occupied = np.flatnonzero(obs["observation"]["occupied"])
    if occupied.size == 0:
        obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        occupied = np.flatnonzero(obs["observation"]["occupied"])
    before = env.game.state_obj.moves
    obs, reward, *_, info = env.step(int(occupied[0]))
    assert reward == -1.0 and "already holds a cone" in info["illegal"] and env.game.state_obj.moves == before
