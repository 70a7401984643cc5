"""Single-agent Gymnasium views of Hues and Cues: the learner takes one seat, given agents play the rest.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.envs.wrappers``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import gymnasium
import numpy as np
from gymnasium import spaces

from huesenv.board import N_CELLS
from huesenv.envs.hues_cues.defaults import AgentFactory, default_agent_factory
from huesenv.envs.hues_cues.env import raw_env
from huesenv.envs.hues_cues.play import Driver
from huesenv.envs.spaces import MaskedDiscrete
from huesenv.game.protocol import Agent
from huesenv.game.rules import HuesCuesRules

AgentLike = Agent | str


class _SeatEnv(gymnasium.Env):
    metadata = {"render_modes": ["human", "rgb_array"], "render_fps": 4}
    learner_role = "guesser"
    #: ask opponents through their narrow methods where they have one (:meth:`Driver.action`); False: a
    #: full query per decision, the same episodes, slower (tests/test_wrappers_fast_opponents.py compares both)
    _fast_opponents = True

    def __init__(
        self,
        num_players: int = 4,
        seat: int = 0,
        opponents: Mapping[str, AgentLike] | Sequence[AgentLike] | AgentLike | None = None,
        stand_in: AgentLike | None = None,
        agent_factory: AgentFactory | None = None,
        cue_mode: str = "vocabulary",
        cue_encoding: str = "index",
        observation_mode: str = "flat",
        include_board: bool = False,
        text_encoder: Any = None,
        flat_cue_weight: float = 4.0,
        vocabulary: Sequence[str] | None = None,
        rules: HuesCuesRules | None = None,
        illegal_action: str = "end",
        illegal_reward: float = -1.0,
        max_cycles: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        self.game = raw_env(
            num_players=num_players,
            cue_mode=cue_mode,
            cue_encoding=cue_encoding,
            observation_mode=observation_mode,
            include_board=include_board,
            text_encoder=text_encoder,
            flat_cue_weight=flat_cue_weight,
            vocabulary=vocabulary,
            rules=rules,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            max_cycles=max_cycles,
            render_mode=render_mode,
        )
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < num_players:
            raise ValueError(f"seat: expected an integer 0-{num_players - 1}, got {seat!r}")
        self.seat = int(seat)
        self.learner = self.game.possible_agents[self.seat]
        self.render_mode = render_mode
        self.observation_mode = observation_mode
        self._factory = agent_factory
        self._agents = self._resolve(opponents)
        stand = stand_in if stand_in is not None else (opponents if isinstance(opponents, str) else None)
        self._stand_in = self._make(stand)
        self._driver: Driver | None = None
        self._points = 0
        self._episode = -1
        self._init_spaces()

    # -- seats ------------------------------------------------------------------------
    def _make(self, spec: AgentLike | None) -> Agent:
        """An agent object as given, or the agent the factory makes of a spec string (``None``: the default)."""
        if spec is not None and not isinstance(spec, str):
            if not isinstance(spec, Agent):
                raise ValueError(f"agent: expected a spec string or an Agent, got {type(spec).__name__}")
            return spec
        factory = self._factory if self._factory is not None else default_agent_factory()
        agent = factory(spec, vocabulary=self.game.layout.vocabulary)
        if not isinstance(agent, Agent):
            raise ValueError(f"agent spec {spec!r}: factory returned {type(agent).__name__}, not an Agent")
        return agent

    def _resolve(self, opponents: Any) -> dict[str, Agent]:
        others = [a for a in self.game.possible_agents if a != self.learner]
        if isinstance(opponents, Mapping):
            missing = [a for a in others if a not in opponents]
            if missing:
                raise ValueError(f"opponents: missing seat(s) {missing}; expected keys {others}")
            return {a: self._make(opponents[a]) for a in others}
        if isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != len(others):
                raise ValueError(
                    f"opponents: expected {len(others)} agents (seats {others}), got {len(opponents)}"
                )
            return {a: self._make(o) for a, o in zip(others, opponents)}
        # a spec string or None: one instance per seat; one agent object: the same for every seat
        return {a: self._make(opponents) for a in others}

    @property
    def opponents(self) -> dict[str, Agent]:
        """The agents of the other seats (seat name → agent)."""
        return dict(self._agents)

    def _reset_agents(self, rng: np.random.Generator) -> None:
        seeds = rng.integers(2**31, size=self.game.num_players + 1)
        for i, a in enumerate(self.game.possible_agents):
            if a in self._agents:
                self._agents[a].reset(seed=int(seeds[i]))
        self._stand_in.reset(seed=int(seeds[-1]))

    # -- gymnasium API --------------------------------------------------------------------
    def _init_spaces(self) -> None:
        space = cast(spaces.Dict, self.game.observation_space(self.learner))
        self.observation_space = space["observation"] if self.observation_mode == "flat" else space
        self.action_space = self.game.action_space(self.learner)

    def _observation(self) -> Any:
        if self.observation_mode == "flat":
            return self.game.observation(self.learner)  # the encoding alone: masks come from action_masks()
        return self.game.observe(self.learner)

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions now (sb3-contrib's ``MaskablePPO`` reads it)."""
        return self.game.action_mask(self.learner).astype(bool)

    def _learner_points(self) -> int:
        return self.game.state_obj.points_by_role[self.seat][self.learner_role]

    def _advance(self) -> None:
        """Let the other agents (and the learner's stand-in) play until the learner must act or the game ends.

        The env builds its infos only when read (``raw_env.infos``): once per
        learner step, after the last of these moves.
        """
        g = self.game
        assert self._driver is not None
        act, fast, agents, learner = self._driver.action, self._fast_opponents, self._agents, self.learner
        s, seat, role = g.state_obj, self.seat, self.learner_role
        # g.game_over, inlined (asked after every move): within a step nothing but these moves can end
        # the game (step() asked game_over, dicts included, before), so _ended says whether it is over
        while not g._ended:
            name = g.agent_selection
            if name == learner and s.role(seat) == role:
                return
            g._step(act(name, self._stand_in if name == learner else agents[name], fast=fast))

    def _info(self) -> dict[str, Any]:
        info = self.game.agent_info(self.learner)
        info["seat"] = self.seat
        return info

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**63))
        self._episode += 1
        self.game.reset(seed=game_seed)
        self._reset_agents(np.random.default_rng(game_seed))
        self._driver = Driver(self.game, game_seed ^ 0x5EED, game=self._episode)
        self._advance()
        self._points = self._learner_points()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._driver is None:
            raise RuntimeError("call reset() before step()")
        g = self.game
        if g.game_over:
            raise RuntimeError("the episode is over: call reset()")
        if isinstance(action, np.ndarray) and action.shape in ((), (1,)):
            action = int(action.reshape(()))
        g._step(action)
        illegal = g.last_illegal is not None
        penalty = float(g.rewards.get(self.learner, 0.0)) if illegal else 0.0
        self._advance()
        now = self._learner_points()
        reward = float(now - self._points) + penalty
        self._points = now
        terminated = truncated = False
        if g.game_over:
            terminated = g.state_obj.done or any(g.terminations.values())
            truncated = not terminated and any(g.truncations.values())
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self) -> np.ndarray | None:
        return self.game.render()

    def close(self) -> None:
        self.game.close()


class GuesserEnv(_SeatEnv):
    """The learner is a guesser: ``Discrete(480)`` cells, reward = its guesser points."""

    learner_role = "guesser"

    def _init_spaces(self) -> None:
        space = cast(spaces.Dict, self.game.observation_space(self.learner))
        if self.observation_mode == "flat":
            self.observation_space = space["observation"]
        else:
            self.observation_space = spaces.Dict(
                {"observation": space["observation"], "action_mask": spaces.Box(0, 1, (N_CELLS,), np.int8)}
            )
        self.action_space = MaskedDiscrete(N_CELLS)

    def _observation(self) -> Any:
        if self.observation_mode == "flat":
            return self.game.observation(self.learner)
        obs = self.game.observe(self.learner)
        return {"observation": obs["observation"], "action_mask": obs["action_mask"][:N_CELLS].copy()}

    def action_masks(self) -> np.ndarray:
        """The free cells when the learner places a cone: the rules' ``legal_cells`` (the AEC mask's cells)."""
        g = self.game
        s = g.state_obj
        if not g.game_over and g.agent_selection == self.learner and s.phase.is_guess:
            return s.legal_cells()  # a fresh bool array, as the mask's copy was
        return g.action_mask(self.learner)[:N_CELLS].astype(bool)


class CueGiverEnv(_SeatEnv):
    """The learner is the cue giver: target pick, cue 1, cue 2 in the AEC action layout; reward = its cue-giver points."""

    learner_role = "cue_giver"
