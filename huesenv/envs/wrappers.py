"""Single-agent Gymnasium views of Hues and Cues: the learner takes one seat, given agents play the rest.

* ``huesenv/Guesser-v0`` (:class:`GuesserEnv`): the learner places cones.
  Action ``Discrete(480)`` (a cell), observation the AEC observation with the
  action mask cut to the 480 cells.  When the learner's seat is cue giver, its
  ``stand_in`` agent gives the cues.  Reward: the learner's guesser points.
* ``huesenv/CueGiver-v0`` (:class:`CueGiverEnv`): the learner picks targets and
  gives cues.  Action and observation spaces are the AEC env's (vocabulary mode:
  ``Discrete(480 + V + 1)`` with the mask).  Its guesses are made by ``stand_in``.
  Reward: the learner's cue-giver points.

Why reward by role: the other role is played by someone else, so counting its
points would reward the learner for play it did not make.

The other seats are played by ``opponents`` (protocol agents: a mapping seat
name → agent, a sequence in seat order skipping the learner, or one agent for
all); by default seeded :class:`~huesenv.agents.random_agent.RandomAgent` s.
Illegal learner actions default to penalise-and-retry (``illegal_reward``,
the learner acts again) rather than the AEC env's ``"raise"``, because
Gymnasium tooling (the env checker, learners without action masking) samples
unmasked actions; pass ``illegal_action="raise"`` for strictness.

Every agent is ``reset`` with a seed derived from the episode seed, so
``reset(seed=s)`` replays the same episode.  Unusable answers of the other
agents fall back exactly as in :func:`huesenv.envs.play_game`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from huesenv.agents.protocol import Agent
from huesenv.agents.random_agent import RandomAgent
from huesenv.board import N_CELLS
from huesenv.envs.hues_cues.env import raw_env
from huesenv.envs.hues_cues.play import Driver
from huesenv.envs.hues_cues.rules import HuesCuesRules


class _SeatEnv(gymnasium.Env):
    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 4}
    learner_role = "guesser"

    def __init__(
        self,
        num_players: int = 4,
        seat: int = 0,
        opponents: Mapping[str, Agent] | Sequence[Agent] | Agent | None = None,
        stand_in: Agent | None = None,
        cue_mode: str = "vocabulary",
        vocabulary: Sequence[str] | None = None,
        rules: HuesCuesRules | None = None,
        illegal_action: str = "penalise",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        self.game = raw_env(
            num_players=num_players,
            cue_mode=cue_mode,
            vocabulary=vocabulary,
            rules=rules,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            render_mode=render_mode,
        )
        if not 0 <= seat < num_players:
            raise ValueError(f"seat: expected 0-{num_players - 1}, got {seat!r}")
        self.seat = seat
        self.learner = self.game.possible_agents[seat]
        self.render_mode = render_mode
        self._opponents = self._assign(opponents)
        self._stand_in_given = stand_in
        self._agents: dict[str, Agent] = {}
        self._stand_in: Agent | None = None
        self._driver: Driver | None = None
        self._points = 0
        self._init_spaces()

    # -- seats ------------------------------------------------------------------------
    def _assign(self, opponents: Any) -> dict[str, Agent] | None:
        others = [a for a in self.game.possible_agents if a != self.learner]
        if opponents is None:
            return None
        if isinstance(opponents, Mapping):
            missing = [a for a in others if a not in opponents]
            if missing:
                raise ValueError(f"opponents: missing seat(s) {missing}; expected keys {others}")
            return {a: opponents[a] for a in others}
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != len(others):
                raise ValueError(
                    f"opponents: expected {len(others)} agents (seats {others}), got {len(opponents)}"
                )
            return dict(zip(others, opponents))
        return {a: opponents for a in others}

    def _make_agents(self, rng: np.random.Generator) -> None:
        seeds = rng.integers(2**31, size=self.game.num_players + 1)
        vocab = self.game.layout.vocabulary
        if self._opponents is None:
            self._agents = {
                a: RandomAgent(seed=int(seeds[i]), vocabulary=vocab)
                for i, a in enumerate(self.game.possible_agents)
                if a != self.learner
            }
        else:
            self._agents = dict(self._opponents)
            for i, a in enumerate(self.game.possible_agents):
                if a in self._agents:
                    self._agents[a].reset(seed=int(seeds[i]))
        self._stand_in = self._stand_in_given or RandomAgent(seed=int(seeds[-1]), vocabulary=vocab)
        if self._stand_in_given is not None:
            self._stand_in.reset(seed=int(seeds[-1]))

    # -- gymnasium API --------------------------------------------------------------------
    def _init_spaces(self) -> None:
        self.observation_space = self.game.observation_space(self.learner)
        self.action_space = self.game.action_space(self.learner)

    def _observation(self) -> dict[str, Any]:
        return self.game.observe(self.learner)

    def _is_learner_turn(self) -> bool:
        s = self.game.state_obj
        return (
            not s.done
            and self.game.agent_selection == self.learner
            and s.role(self.seat) == self.learner_role
        )

    def _learner_points(self) -> int:
        return self.game.state_obj.points_by_role[self.seat][self.learner_role]

    def _advance(self) -> None:
        """Let the other agents (and the learner's stand-in) play until the learner must act or the game ends."""
        g = self.game
        while not self._finished() and not self._is_learner_turn():
            name = g.agent_selection
            agent = self._stand_in if name == self.learner else self._agents[name]
            obs, _, _, _, info = g.last()
            action, *_ = self._driver.decide(name, agent, obs, info)
            g.step(action)

    def _finished(self) -> bool:
        g = self.game
        return g.state_obj.done or any(g.truncations.values())

    def _info(self) -> dict[str, Any]:
        g = self.game
        info = dict(g.infos.get(self.learner, {}))
        info["seat"] = self.seat
        return info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**63))
        self.game.reset(seed=game_seed)
        self._make_agents(np.random.default_rng(game_seed))
        self._driver = Driver(self.game, np.random.default_rng(game_seed ^ 0x5EED))
        self._advance()
        self._points = self._learner_points()
        return self._observation(), self._info()

    def _to_env_action(self, action: Any) -> Any:
        return action

    def step(self, action: Any):
        if self._driver is None:
            raise RuntimeError("call reset() before step()")
        if self._finished():
            raise RuntimeError("the episode is over: call reset()")
        g = self.game
        g.step(self._to_env_action(action))
        penalty = (
            float(g.rewards.get(self.learner, 0.0)) if "illegal" in g.infos.get(self.learner, {}) else 0.0
        )
        self._advance()
        now = self._learner_points()
        reward = float(now - self._points) + penalty
        self._points = now
        terminated = g.state_obj.done
        truncated = not terminated and any(g.truncations.values())
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self):
        return self.game.render()

    def close(self) -> None:
        self.game.close()


class GuesserEnv(_SeatEnv):
    """The learner is a guesser: ``Discrete(480)`` cells, reward = its guesser points."""

    learner_role = "guesser"

    def _init_spaces(self) -> None:
        inner = self.game.observation_space(self.learner)["observation"]
        self.observation_space = spaces.Dict(
            {"observation": inner, "action_mask": spaces.Box(0, 1, (N_CELLS,), np.int8)}
        )
        self.action_space = spaces.Discrete(N_CELLS)

    def _observation(self) -> dict[str, Any]:
        obs = self.game.observe(self.learner)
        return {"observation": obs["observation"], "action_mask": obs["action_mask"][:N_CELLS].copy()}

    def _to_env_action(self, action: Any) -> Any:
        if isinstance(action, np.ndarray):
            action = int(action.reshape(()))
        return action


class CueGiverEnv(_SeatEnv):
    """The learner is the cue giver: target pick, cue 1, cue 2 in the AEC action layout; reward = its cue-giver points."""

    learner_role = "cue_giver"
