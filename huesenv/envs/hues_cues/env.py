# noqa: D212, D415
"""
# Hues and Cues

| Import             | `from huesenv import hues_cues_v0`                               |
|--------------------|------------------------------------------------------------------|
| Actions            | Discrete (vocabulary mode) / Dict(Discrete, Text) (text mode)    |
| Parallel API       | Yes (turn-based: only the acting agent's action is used)         |
| Manual Control     | `huesenv play` (a person in a pygame window)                     |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`, n = 3-10            |
| Action Shape       | (1)                                                              |
| Action Values      | [0, 480 + V] vocabulary mode (V = vocabulary size), [0, 481] text |
| Observation Shape  | Dict: board (16,30,3), occupied (480,), cues, phase, card, ...   |
| Observation Values | board 0-255, occupied 0/1, cells -1 (hidden) to 479              |

A cue giver describes one of the 480 colours of the board with words; the
other players (guessers) try to put cones on it.  The rules (deck, scoring,
game length, cue restrictions) live in :mod:`huesenv.envs.hues_cues.rules`
(:class:`~huesenv.envs.hues_cues.rules.HuesCuesRules`, every value overridable);
this module is the PettingZoo adapter.

### Round

| Phase         | Who acts                      | Action                                     |
|---------------|-------------------------------|--------------------------------------------|
| `pick_target` | cue giver                     | a cell of its card (4 distinct cells)      |
| `cue_1`       | cue giver                     | a one-word cue                             |
| `guess_1`     | each guesser, clockwise       | an empty cell (cone 1)                     |
| `cue_2`       | cue giver                     | a cue of up to two words, or pass          |
| `guess_2`     | each guesser, counter-clockw. | an empty cell (cone 2)                     |
| reveal        | (automatic after the last cone) | points scored, cones removed, next round |

The cue giver rotates clockwise from `player_0`; each player gives cues twice
with 3-6 players and once with 7-10.  The game ends after the last reveal
(all agents terminated).  With `max_cycles=N` the game is truncated after N
env steps (moves); a full game is never longer than 20 rounds.

### Observation Space

`{"observation": {...}, "action_mask": (A,) int8}`; the inner dict holds

| Key         | Space                         | Meaning                                                  |
|-------------|-------------------------------|----------------------------------------------------------|
| `board`     | Box(0,255,(16,30,3),uint8)    | the board's sRGB colours (row A-P, column 1-30)          |
| `occupied`  | Box(0,1,(480,),int8)          | cells holding a cone this round                          |
| `cues`      | MultiDiscrete([V+2]*2) / Box(0,383,(2,64),int16) | vocabulary: 0 not given, 1+i word i, V+1 pass; text: the normalised cue's code points, 0-padded (also as text in `infos["cues"]`) |
| `phase`     | Discrete(6)                   | index into `pick_target, cue_1, guess_1, cue_2, guess_2, done` |
| `role`      | Discrete(2)                   | 1 when this agent is the cue giver                        |
| `cue_giver` | Discrete(n)                   | seat of the cue giver                                     |
| `round`     | Discrete(rounds)              | round index                                               |
| `card`      | Box(-1,479,(4,),int16)        | the cue giver's own card; -1 for guessers                 |
| `target`    | Box(-1,479,(1,),int16)        | the chosen target, only in the cue giver's observation    |
| `scores`    | Box(0,10000,(n,),int32)       | running scores per seat                                   |

The `action_mask` is all zeros for agents whose turn it is not.

### Action Space

Vocabulary mode (`cue_mode="vocabulary"`, RL-friendly): `Discrete(480 + V + 1)`:
`0-479` a cell (target pick or cone), `480 + i` the cue `vocabulary[i]`, `480 + V`
pass (cue 2 only).  The mask removes occupied cells, cells off the card, cues the
rules forbid (basic colour names, too many words, already used, relative words in
cue 2) and every action of another phase.  Text mode (`cue_mode="text"`, for
language agents): `Dict(action=Discrete(482), cue=Text(64))`: `0-479` a cell,
`480` "give the cue in `cue`", `481` pass; `step` also accepts a bare cell
index or a bare string (the cue; `""` passes).  Free-text cues are validated by
the rules.  PettingZoo's `api_test`/`seed_test` sample actions from a flat mask,
so they run on vocabulary mode; text mode is covered by the project's own tests.

### Rewards

The points an agent scores at that step: zero until a reveal, where each guesser
gets 3 / 2 / 1 per cone on the target / in the 3x3 frame / on the 5x5 ring, and
the cue giver 1 per cone in the frame.  Illegal actions (occupied cell, invalid
cue, action of the wrong phase): `illegal_action="raise"` (default) raises
:class:`~huesenv.envs.hues_cues.rules.IllegalActionError` (a ``ValueError``);
`"penalise"` gives `illegal_reward` (-1) to the agent and lets it act again.

`infos[agent]` carries `round`, `phase`, `scores` (running), `used_cues`, `cues`
(this round's cues as text, `None` = pass); at a
reveal also `target` (cell), `target_coord`, `round_points`; at the end `final_scores`.

### Version History

* v0: Initial release.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from huesenv.board import N_CELLS, N_COLS, N_ROWS, format_coord, load_board
from huesenv.envs.hues_cues.rules import (
    CUE_CHARSET,
    CUE_PHASES,
    DEFAULT_RULES,
    GUESS_PHASES,
    PHASES,
    Action,
    GameState,
    HuesCuesRules,
    IllegalActionError,
    RoundResult,
)
from huesenv.envs.rendering.renderer import BoardRenderer
from huesenv.envs.rendering.view import RenderView
from huesenv.vocabulary import normalise_word, word_texts

MAX_SCORE = 10_000
MAX_CODEPOINT = max(map(ord, CUE_CHARSET))
CUE_MODES = ("vocabulary", "text")
ILLEGAL_MODES = ("raise", "penalise")


class ActionLayout:
    """Flat action indices <-> rule actions, shared by the env, the adapters and the wrappers."""

    def __init__(self, cue_mode: str, vocabulary: Sequence[str]) -> None:
        if cue_mode not in CUE_MODES:
            raise ValueError(f"cue_mode: expected one of {CUE_MODES}, got {cue_mode!r}")
        self.cue_mode = cue_mode
        self.vocabulary = tuple(vocabulary)
        self.word_index = {w: i for i, w in enumerate(self.vocabulary)}
        if cue_mode == "vocabulary":
            self.cue_offset = N_CELLS
            self.pass_action = N_CELLS + len(self.vocabulary)
            self.text_action = -1
        else:
            self.cue_offset = -1
            self.text_action = N_CELLS
            self.pass_action = N_CELLS + 1
        self.n = self.pass_action + 1

    def cue_action(self, word: str) -> int:
        """The action giving vocabulary word ``word`` as a cue (vocabulary mode)."""
        key = normalise_word(word)
        if self.cue_mode != "vocabulary" or key not in self.word_index:
            raise ValueError(f"cue {word!r} is not in the action vocabulary (cue_mode={self.cue_mode!r})")
        return self.cue_offset + self.word_index[key]

    def decode(self, action: Any, phase: str) -> Action:
        """The rule action an env action means in ``phase`` (``IllegalActionError`` if none)."""
        cue_text: str | None = None
        if isinstance(action, Mapping):
            if "action" not in action:
                raise IllegalActionError(f"dict action needs an 'action' key, got keys {sorted(action)}")
            cue_text = action.get("cue")
            action = action["action"]
        elif isinstance(action, str):
            if self.cue_mode != "text":
                raise IllegalActionError(
                    "string cues need cue_mode='text'; in vocabulary mode pass the word's index"
                )
            return Action("cue", cue=action if action.strip() else None)
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if (
                isinstance(action, np.ndarray)
                and action.shape in ((), (1,))
                and np.issubdtype(action.dtype, np.integer)
            ):
                action = int(action.reshape(()))
            else:
                raise IllegalActionError(f"expected an integer action 0-{self.n - 1}, got {action!r}")
        a = int(action)
        if not 0 <= a < self.n:
            raise IllegalActionError(f"action {a} out of range 0-{self.n - 1}")
        if a < N_CELLS:
            if phase == "pick_target":
                return Action("target", cell=a)
            if phase in GUESS_PHASES:
                return Action("cone", cell=a)
            raise IllegalActionError(f"a cell ({format_coord(a)}) is not a valid action in phase {phase!r}")
        if phase not in CUE_PHASES:
            raise IllegalActionError(f"a cue or pass is not a valid action in phase {phase!r}")
        if a == self.pass_action:
            return Action("cue", cue=None)
        if a == self.text_action:
            if not isinstance(cue_text, str):
                raise IllegalActionError("text-mode cue action needs {'action': 480, 'cue': <text>}")
            return Action("cue", cue=cue_text)
        return Action("cue", cue=self.vocabulary[a - self.cue_offset])


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped the PettingZoo way (order enforcing)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def parallel_env(**kwargs: Any):
    """Parallel API: every live agent submits an action each step; only the acting agent's is applied."""
    return turn_based_aec_to_parallel(raw_env(**kwargs))


class raw_env(AECEnv):  # noqa: N801 - PettingZoo naming
    """Hues and Cues for 3-10 players (see the module docstring)."""

    metadata = {
        "render_modes": ["human", "rgb_array"],
        "name": "hues_cues_v0",
        "is_parallelizable": True,
        "render_fps": 4,
    }

    def __init__(
        self,
        num_players: int = 4,
        cue_mode: str = "vocabulary",
        vocabulary: Sequence[str] | None = None,
        rules: HuesCuesRules | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        max_cycles: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = rules or DEFAULT_RULES
        self.num_players = self.rules.check_players(num_players)
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action: expected one of {ILLEGAL_MODES}, got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode: expected None or one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles: expected a positive integer or None, got {max_cycles!r}")
        words = tuple(normalise_word(w) for w in (vocabulary if vocabulary is not None else word_texts()))
        if len(set(words)) != len(words) or not words:
            raise ValueError("vocabulary: expected a non-empty list of distinct words (after normalise_word)")
        self.layout = ActionLayout(cue_mode, words)
        self.cue_mode = cue_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._board_rgb = load_board().rgb.reshape(N_ROWS, N_COLS, 3)
        # static cue validity of each vocabulary word for cue 1 / cue 2 (used cues are removed per game)
        self._vocab_ok = {
            k: np.array([self.rules.cue_problem(w, k) is None for w in words], dtype=bool) for k in (1, 2)
        }
        # one space object per agent (PettingZoo seeds them per agent)
        self._obs_spaces = {a: self._make_observation_space() for a in self.possible_agents}
        self._act_spaces = {a: self._make_action_space() for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._renderer = None
        self.state_: GameState | None = None
        self._last_reveal: RoundResult | None = None

    # -- spaces -------------------------------------------------------------------
    def _make_observation_space(self) -> spaces.Dict:
        n, v, rounds = self.num_players, len(self.layout.vocabulary), self.rules.num_rounds(self.num_players)
        if self.cue_mode == "vocabulary":
            cues: spaces.Space = spaces.MultiDiscrete([v + 2, v + 2])
        else:
            cues = spaces.Box(0, MAX_CODEPOINT, (2, self.rules.max_cue_chars), np.int16)
        inner = spaces.Dict(
            {
                "board": spaces.Box(0, 255, (N_ROWS, N_COLS, 3), np.uint8),
                "occupied": spaces.Box(0, 1, (N_CELLS,), np.int8),
                "cues": cues,
                "phase": spaces.Discrete(len(PHASES)),
                "role": spaces.Discrete(2),
                "cue_giver": spaces.Discrete(n),
                "round": spaces.Discrete(rounds),
                "card": spaces.Box(-1, N_CELLS - 1, (self.rules.card_size,), np.int16),
                "target": spaces.Box(-1, N_CELLS - 1, (1,), np.int16),
                "scores": spaces.Box(0, MAX_SCORE, (n,), np.int32),
            }
        )
        return spaces.Dict({"observation": inner, "action_mask": spaces.Box(0, 1, (self.layout.n,), np.int8)})

    def _make_action_space(self) -> spaces.Space:
        if self.cue_mode == "vocabulary":
            return spaces.Discrete(self.layout.n)
        return spaces.Dict(
            {
                "action": spaces.Discrete(self.layout.n),
                "cue": spaces.Text(min_length=0, max_length=self.rules.max_cue_chars, charset=CUE_CHARSET),
            }
        )

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    # -- state access ---------------------------------------------------------------
    @property
    def state_obj(self) -> GameState:
        """The rules-level :class:`GameState` (read it; mutate only through ``step``)."""
        if self.state_ is None:
            raise RuntimeError("call reset() before using the environment")
        return self.state_

    @property
    def last_reveal(self) -> RoundResult | None:
        """The round revealed by the last step (``None`` after any other legal move)."""
        return self._last_reveal

    def seat(self, agent: str) -> int:
        return self._seat[agent]

    def action_mask(self, agent: str) -> np.ndarray:
        """(A,) int8 mask of the legal actions of ``agent`` now (zeros when it is not its turn)."""
        s = self.state_obj
        mask = np.zeros(self.layout.n, dtype=np.int8)
        if (
            s.done
            or self._seat[agent] != s.current
            or self.terminations.get(agent)
            or self.truncations.get(agent)
        ):
            return mask
        if s.phase in CUE_PHASES:
            if self.cue_mode == "vocabulary":
                ok = self._vocab_ok[s.cue_index].copy()
                for cue in s.used_cues:
                    i = self.layout.word_index.get(cue)
                    if i is not None:
                        ok[i] = False
                mask[self.layout.cue_offset : self.layout.cue_offset + len(ok)] = ok
            else:
                mask[self.layout.text_action] = 1
            if s.can_pass():
                mask[self.layout.pass_action] = 1
        else:
            mask[:N_CELLS] = s.legal_cells()
        return mask

    def _cue_obs(self) -> Any:
        s = self.state_obj
        if self.cue_mode == "vocabulary":
            out = np.zeros(2, dtype=np.int64)
            for k, cue in enumerate(s.cues[:2]):
                out[k] = len(self.layout.vocabulary) + 1 if cue is None else self.layout.word_index[cue] + 1
            return out
        out = np.zeros((2, self.rules.max_cue_chars), dtype=np.int16)
        for k, cue in enumerate(s.cues[:2]):
            if cue:
                out[k, : len(cue)] = [ord(ch) for ch in cue]
        return out

    def observe(self, agent: str) -> dict[str, Any]:
        s = self.state_obj
        seat = self._seat[agent]
        giver = seat == s.cue_giver and not s.done
        card = np.full(self.rules.card_size, -1, dtype=np.int16)
        target = np.full(1, -1, dtype=np.int16)
        if giver:
            card[:] = s.card
            if s.target is not None:
                target[0] = s.target
        inner = {
            "board": self._board_rgb.copy(),
            "occupied": s.occupied.astype(np.int8),
            "cues": self._cue_obs(),
            "phase": np.int64(PHASES.index(s.phase)),
            "role": np.int64(giver),
            "cue_giver": np.int64(s.cue_giver),
            "round": np.int64(s.round),
            "card": card,
            "target": target,
            "scores": np.asarray(s.scores, dtype=np.int32),
        }
        return {"observation": inner, "action_mask": self.action_mask(agent)}

    # -- AEC API --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        elif self._rng is None:
            self._rng = np.random.default_rng()
        game_rng = np.random.default_rng(int(self._rng.integers(2**63)))
        self.state_ = GameState.new(self.num_players, game_rng, self.rules)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._moves = 0
        self._last_reveal: RoundResult | None = None
        self.agent_selection = self.possible_agents[self.state_.current]
        self.infos = self._infos(None, None)
        if self.render_mode == "human":
            self.render()

    def _infos(self, result: RoundResult | None, illegal: tuple[str, str] | None) -> dict[str, dict]:
        s = self.state_obj
        scores = {a: s.scores[i] for i, a in enumerate(self.possible_agents)}
        base: dict[str, Any] = {
            "round": s.round,
            "phase": s.phase,
            "scores": scores,
            "used_cues": tuple(s.used_cues),
            "cues": tuple(s.cues),
        }
        if result is not None:
            base["target"] = result.target
            base["target_coord"] = format_coord(result.target)
            base["round_points"] = {a: result.points[i] for i, a in enumerate(self.possible_agents)}
        if s.done:
            base["final_scores"] = dict(scores)
        infos = {a: dict(base) for a in self.agents}
        if illegal is not None:
            infos[illegal[0]]["illegal"] = illegal[1]
        return infos

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state_obj
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        try:
            rule_action = self.layout.decode(action, s.phase)
            why = s.problem(rule_action)
        except IllegalActionError as err:
            why = str(err)
        result = None
        illegal = None
        if why is not None:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"{agent} ({s.role(self._seat[agent])}, phase {s.phase}): illegal action {action!r}: {why}"
                )
            self.rewards[agent] = self.illegal_reward
            illegal = (agent, why)
        else:
            result = s.apply(rule_action)
            if result is not None:
                self._last_reveal = result
                for i, a in enumerate(self.possible_agents):
                    self.rewards[a] = float(result.points[i])
            else:
                self._last_reveal = None
        self._moves += 1
        if s.done:
            self.terminations = {a: True for a in self.agents}
        elif self.max_cycles is not None and self._moves >= self.max_cycles:
            self.truncations = {a: True for a in self.agents}
        self.agent_selection = self.possible_agents[s.current]
        self.infos = self._infos(result, illegal)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # -- rendering --------------------------------------------------------------------------
    def render_view(self, message: str = ""):
        """The current frame as a :class:`huesenv.envs.rendering.view.RenderView` (the reveal right after one)."""
        s = self.state_obj
        players = tuple(self.possible_agents)
        reveal = (
            self._last_reveal
            if self._last_reveal is not None
            else (s.history[-1] if s.done and s.history else None)
        )
        if reveal is not None:
            return RenderView(
                players=players,
                cones={c.cell: c.seat for c in reveal.cones},
                cues=tuple("(pass)" if c is None else c for c in reveal.cues),
                cue_giver=reveal.cue_giver,
                current=None if s.done else s.current,
                phase="done" if s.done else "reveal",
                scores=tuple(s.scores),
                round=reveal.round,
                target=reveal.target,
                message=message,
            )
        return RenderView(
            players=players,
            cones={c.cell: c.seat for c in s.cones},
            cues=tuple("(pass)" if c is None else c for c in s.cues),
            cue_giver=s.cue_giver,
            current=s.current,
            phase=s.phase,
            scores=tuple(s.scores),
            round=s.round,
            target=None,
            message=message,
        )

    def render(self) -> np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._renderer is None:
            self._renderer = BoardRenderer()
        view = self.render_view()
        if self.render_mode == "rgb_array":
            return self._renderer.frame(view)
        self._renderer.show(view)
        return None

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
