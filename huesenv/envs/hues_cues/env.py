# noqa: D212, D415
"""
# Hues and Cues

| Import             | `from huesenv import hues_cues_v1`                                   |
|--------------------|----------------------------------------------------------------------|
| Actions            | Discrete (vocabulary mode) / Dict(Discrete, Text) (text mode)        |
| Parallel API       | Yes (turn-based: only the acting agent's action is used)             |
| Manual Control     | `huesenv play` (a person in a pygame window)                         |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`, n = 3-10                |
| Action Shape       | (1)                                                                  |
| Action Values      | [0, 480 + V] vocabulary mode (V = vocabulary size), [0, 481] text     |
| Observation Shape  | Dict (seat-relative, padded to 10 seats) or one flat float32 Box     |
| Observation Values | cones/occupied 0/1, cells -1 (hidden) to 479, cue codes, scores     |

A cue giver describes one of the 480 colours of the board with words; the
other players (guessers) try to put cones on it.  The rules (deck, scoring,
game length, cue grammar) live in the game layer, :mod:`huesenv.game`
(:class:`~huesenv.game.rules.HuesCuesRules`, every value overridable); this
module is the PettingZoo adapter.  Observations and agent queries are both
derived from one :class:`~huesenv.game.view.PlayerView`
(:mod:`huesenv.game.observer`).

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
(all agents terminated).

### Observation Space

`{"observation": ..., "action_mask": (A,) int8}`.  With
`observation_mode="dict"` (default here) the observation is a dict, with
`"flat"` one float32 vector of the same content (one-hots, scores / 100; layout
in `ObservationEncoder.flat_layout`; the cue block weighted by `flat_cue_weight`,
default 4, so that an MLP starts with word-specific features, see
:mod:`huesenv.envs.hues_cues.encoding`).  Every per-seat field is seat-relative
(the observer is seat 0, then clockwise) and padded to 10 seats, so one policy
runs at 3-10 players:

| Key         | Space                              | Meaning                                                  |
|-------------|------------------------------------|----------------------------------------------------------|
| `cones`     | Box(0,1,(10,480),int8)             | cones of this round per relative seat (row 0: my own)     |
| `occupied`  | Box(0,1,(480,),int8)               | cells holding any cone                                    |
| `cues`      | see `cue_encoding`                 | cue 1 and cue 2 of this round                             |
| `cue_state` | MultiDiscrete([3,3])               | per cue: 0 not given, 1 given, 2 passed                   |
| `phase`     | Discrete(6)                        | index into `pick_target, cue_1, guess_1, cue_2, guess_2, done` |
| `role`      | Discrete(2)                        | 1 when this agent is the cue giver                        |
| `cue_giver` | Discrete(10)                       | relative seat of the cue giver                            |
| `round`     | Discrete(12)                       | round index (a game has at most 12 rounds)                |
| `card`      | Box(-1,479,(4,),int16)             | the cue giver's own card; -1 for guessers                 |
| `target`    | Box(-1,479,(1,),int16)             | the chosen target, only in the cue giver's observation    |
| `scores`    | Box(0,10000,(10,),int32)           | running scores per relative seat (0 beyond the players)   |
| `seat_mask` | Box(0,1,(10,),int8)                | 1 for the seats in the game                               |
| `board`     | Box(0,255,(16,30,3),uint8)         | only with `include_board=True` (the board never changes)  |

`cue_encoding`: `"index"` (default; `MultiDiscrete([V+3]*2)`: 0 not given,
1+i word i, V+1 pass, V+2 a word outside the vocabulary), `"embedding"`
(`Box((2, D), float32)`: the vector of a pluggable `text_encoder`; the default
is the MiniLM of the `embed` extra, and without that extra the env raises a
`ValueError` saying so at construction; a guesser can then answer words it
never trained on), `"text"` (`Box(0,383,(2,64),int16)`, code points).

The `action_mask` is all zeros for agents whose turn it is not (AEC API).  In
the parallel API (`parallel_env()`) those seats get the no-op mask instead: only
action 0 is set and their action is ignored, so samplers that draw every
agent's action from its mask (torchrl, SuperSuit) work unchanged;
`infos[agent]["on_turn"]` marks the seat whose action is applied.

### Action Space

Vocabulary mode (`cue_mode="vocabulary"`, RL-friendly): `Discrete(480 + V + 1)`:
`0-479` a cell (target pick or cone), `480 + i` the cue `vocabulary[i]`, `480 + V`
pass (cue 2 only).  The mask removes occupied cells, cells off the card, cues the
rules forbid (basic colour names, too many words, already used, relative words in
cue 2) and every action of another phase.  Text mode (`cue_mode="text"`, for
language agents): `Dict(action=Discrete(482), cue=Text(64))`: `0-479` a cell,
`480` "give the cue in `cue`", `481` pass; `step` also accepts a bare cell
index or a bare string (the cue; `""` passes).  The `Discrete` spaces are
:class:`~huesenv.envs.spaces.MaskedDiscrete`: Gymnasium's `Discrete` whose
`sample(mask)` returns the same draws with two passes over the mask instead of seven.

### Rewards

The points an agent scores at that step: zero until a reveal, where each guesser
gets 3 / 2 / 1 per cone on the target / in the 3x3 frame / on the 5x5 ring, and
the cue giver 1 per cone in the frame.

Illegal actions (occupied cell, invalid cue, action of the wrong phase), as in
PettingZoo's classic games by default (`illegal_action="end"`): a warning, the
game ends (all agents terminated), the offender gets `illegal_reward` (-1) and
the others 0.  `"penalise"`: the offender gets `illegal_reward` and acts again
(the game goes on); `"raise"`: :class:`~huesenv.game.rules.IllegalActionError`
(a ``ValueError``).

Infos, `max_cycles` (it counts moves, not retries; why PettingZoo's `max_cycles_test` cannot check it) and
the version history: ``docs/design.md``, section ``huesenv.envs.hues_cues.env``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper
from pettingzoo.utils.env_logger import EnvLogger

from huesenv.board import N_CELLS, format_coord
from huesenv.envs.hues_cues.defaults import default_text_encoder
from huesenv.envs.hues_cues.encoding import OBSERVATION_MODES, ObservationEncoder, TextEncoder
from huesenv.envs.rendering.renderer import BoardRenderer
from huesenv.envs.spaces import CueActionSpace, MaskedDiscrete
from huesenv.game.cues import CUE_CHARSET
from huesenv.game.observer import player_view, render_view
from huesenv.game.phase import Phase
from huesenv.game.rules import (
    DEFAULT_RULES,
    Action,
    GameState,
    HuesCuesRules,
    IllegalActionError,
    RoundResult,
)
from huesenv.game.view import PlayerView, RenderView
from huesenv.vocabulary import normalise_word, word_texts

CUE_MODES = ("vocabulary", "text")
_INT_TYPES = frozenset(
    {int, np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32, np.uint64}
)
ILLEGAL_MODES = ("end", "penalise", "raise")


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
        # every cell and word action built once (immutable named tuples): decoding is on every env step
        self._targets = tuple(Action("target", cell=c) for c in range(N_CELLS))
        self._cones = tuple(Action("cone", cell=c) for c in range(N_CELLS))
        self._words = tuple(Action("cue", cue=w) for w in self.vocabulary)
        self._pass = Action("cue", cue=None)

    def cue_action(self, word: str) -> int:
        """The action giving vocabulary word ``word`` as a cue (vocabulary mode)."""
        key = normalise_word(word)
        if self.cue_mode != "vocabulary" or key not in self.word_index:
            raise ValueError(f"cue {word!r} is not in the action vocabulary (cue_mode={self.cue_mode!r})")
        return self.cue_offset + self.word_index[key]

    def decode(self, action: Any, phase: Phase) -> Action:
        """The rule action an env action means in ``phase`` (``IllegalActionError`` if none)."""
        cue_text: str | None = None
        kind = type(action)
        if kind is int:  # the common case first: a plain integer (most often a cell of a guess)
            if phase.is_guess and 0 <= action < N_CELLS:
                return self._cones[action]
            return self._decode_index(action, phase, None)
        if kind in _INT_TYPES:  # a numpy integer
            return self._decode_index(int(action), phase, None)
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
        return self._decode_index(int(action), phase, cue_text)

    def _decode_index(self, a: int, phase: Phase, cue_text: str | None) -> Action:
        if not 0 <= a < self.n:
            raise IllegalActionError(f"action {a} out of range 0-{self.n - 1}")
        if a < N_CELLS:
            if phase.is_guess:
                return self._cones[a]
            if phase is Phase.PICK_TARGET:
                return self._targets[a]
            raise IllegalActionError(
                f"a cell ({format_coord(a)}) is not a valid action in phase {phase.value!r}"
            )
        if not phase.is_cue:
            raise IllegalActionError(f"a cue or pass is not a valid action in phase {phase.value!r}")
        if a == self.pass_action:
            return self._pass
        if a == self.text_action:
            if not isinstance(cue_text, str):
                raise IllegalActionError("text-mode cue action needs {'action': 480, 'cue': <text>}")
            return Action("cue", cue=cue_text)
        return self._words[a - self.cue_offset]


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, with ``last`` and ``step`` passed to the env in one call.

    Why: the generic wrapper reaches ``agents``, ``_cumulative_rewards``,
    ``terminations``, ``truncations`` and ``infos`` one ``__getattr__`` at a time
    on every step; the same checks (nothing before ``reset``, a warning for a
    step after the end) with direct calls keep the env as fast as the game itself.
    """

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> wrappers.order_enforcing.AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


class _OrderEnforcingIterable(wrappers.order_enforcing.AECOrderEnforcingIterable):
    def __iter__(self) -> _OrderEnforcingIterator:
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(wrappers.order_enforcing.AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing ``agent_iter``, reading the env's agents without two ``__getattr__`` hops.

    Same contract: stops when no agent is left or after ``max_iter``, and
    asserts that ``step`` or ``reset`` was called between two agents.
    """

    def __next__(self) -> str:
        raw = self.env.env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return raw.agent_selection


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped the PettingZoo way (order enforcing)."""
    return OrderEnforcing(raw_env(**kwargs))


NOOP_ACTION = 0  # parallel API: the one action offered to seats not on turn (ignored by the step)


class ParallelHuesCues(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based parallel conversion, with the no-op mask for the seats not on turn.

    Why: samplers that draw every agent's action from its mask (torchrl's
    PettingZoo wrapper, SuperSuit's vector envs, masked categorical policies)
    fail on an all-zero mask.  In the parallel API a seat with nothing to do
    (not on turn, or the game is over) gets a mask with only
    :data:`NOOP_ACTION` (0) set; its action is ignored whatever it is.
    ``infos[agent]["on_turn"]`` is 1 for the seat whose action is applied (it
    replaces PettingZoo's string ``"active_agent"``: the infos stay numeric).
    """

    def _fill(self, observations: dict[str, Any], infos: dict[str, Any]) -> dict[str, Any]:
        env = self.aec_env.unwrapped
        turn = env.agent_selection if env.agents and not env.game_over else None
        for agent, obs in observations.items():
            if agent != turn:
                noop = np.zeros(env.layout.n, dtype=np.int8)
                noop[NOOP_ACTION] = 1
                observations[agent] = {"observation": obs["observation"], "action_mask": noop}
            if agent in infos:  # numbers only: "on_turn" replaces the wrapper's string "active_agent"
                info = {k: v for k, v in infos[agent].items() if k != "active_agent"}
                infos[agent] = {**info, "on_turn": int(agent == turn)}
        return observations

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        observations, infos = super().reset(seed=seed, options=options)
        return self._fill(observations, infos), infos

    def step(self, actions: dict[str, Any]) -> Any:
        out = super().step(actions)
        if len(out) != 5:
            return out
        observations, rewards, terminations, truncations, infos = out
        return self._fill(observations, infos), rewards, terminations, truncations, infos


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """Parallel API: every live agent submits an action each step; only the acting agent's is applied.

    Seats not on turn get the no-op mask (only action 0), see :class:`ParallelHuesCues`.
    """
    return ParallelHuesCues(raw_env(**kwargs))


class raw_env(AECEnv):  # noqa: N801 - PettingZoo naming
    """Hues and Cues for 3-10 players (see the module docstring)."""

    metadata: dict[str, Any] = {
        "render_modes": ["human", "rgb_array"],
        "name": "hues_cues_v1",
        "is_parallelizable": True,
        "render_fps": 4,
    }

    def __init__(
        self,
        num_players: int = 4,
        cue_mode: str = "vocabulary",
        cue_encoding: str = "index",
        observation_mode: str = "dict",
        include_board: bool = False,
        text_encoder: TextEncoder | None = None,
        flat_cue_weight: float = 4.0,
        vocabulary: Sequence[str] | None = None,
        rules: HuesCuesRules | None = None,
        illegal_action: str = "end",
        illegal_reward: float = -1.0,
        max_cycles: int | None = None,
        info_text: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = rules or DEFAULT_RULES
        self.num_players = self.rules.check_players(num_players)
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action: expected one of {ILLEGAL_MODES}, got {illegal_action!r}")
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(
                f"observation_mode: expected one of {OBSERVATION_MODES}, got {observation_mode!r}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode: expected None or one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if max_cycles is not None and (isinstance(max_cycles, bool) or int(max_cycles) < 1):
            raise ValueError(f"max_cycles: expected a positive integer or None, got {max_cycles!r}")
        words = tuple(normalise_word(w) for w in (vocabulary if vocabulary is not None else word_texts()))
        if len(set(words)) != len(words) or not words:
            raise ValueError("vocabulary: expected a non-empty list of distinct words (after normalise_word)")
        self.layout = ActionLayout(cue_mode, words)
        self.cue_mode = cue_mode
        if cue_encoding == "embedding" and text_encoder is None:
            text_encoder = default_text_encoder()  # installed from above (huesenv.envs.hues_cues.defaults)
        self.encoder = ObservationEncoder(
            self.rules, words, cue_encoding, text_encoder, include_board, flat_cue_weight=flat_cue_weight
        )
        self.encoder.prime(words)
        self.cue_encoding = cue_encoding
        self.observation_mode = observation_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self.info_text = bool(info_text)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._seat_pairs = tuple(enumerate(self.possible_agents))
        self._no_points = (0,) * self.num_players
        # static cue validity of each vocabulary word for cue 1 / cue 2 (used cues are removed per game)
        self._vocab_ok = {
            k: np.array([self.rules.cue_problem(w, k) is None for w in words], dtype=np.int8) for k in (1, 2)
        }
        inner = self.encoder.flat_space if observation_mode == "flat" else self.encoder.dict_space
        # one space object per agent (PettingZoo seeds them per agent)
        self._obs_spaces = {
            a: spaces.Dict({"observation": inner, "action_mask": spaces.Box(0, 1, (self.layout.n,), np.int8)})
            for a in self.possible_agents
        }
        self._act_spaces = {a: self._make_action_space() for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._renderer: BoardRenderer | None = None
        self._last_reveal: RoundResult | None = None
        self.last_illegal: str | None = None
        self._moves = 0
        self._ended = False
        self._mask_cache: tuple[int, np.ndarray] | None = None
        # cue index -> (state, used cues counted, allowed words then): see _allowed
        self._allowed_cache: dict[int, tuple[GameState, int, np.ndarray]] = {}
        self._infos_now: dict[str, dict[str, Any]] = {}
        self._infos_stale = False

    # -- spaces -------------------------------------------------------------------
    def _make_action_space(self) -> spaces.Space:
        if self.cue_mode == "vocabulary":
            return MaskedDiscrete(self.layout.n)
        return CueActionSpace(
            {
                "action": MaskedDiscrete(self.layout.n),
                "cue": spaces.Text(min_length=0, max_length=self.rules.max_cue_chars, charset=CUE_CHARSET),
            }
        )

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    @property
    def render_mode(self) -> str | None:
        """``None``, ``"human"`` or ``"rgb_array"`` (a property: the per-move render check reads a flag)."""
        return self._render_mode

    @render_mode.setter
    def render_mode(self, value: str | None) -> None:
        self._render_mode = value
        self._render_human = value == "human"  # asked after every move

    # -- state access ---------------------------------------------------------------
    #: The rules-level :class:`GameState` (read it; mutate only through ``step``).  A plain attribute
    #: set by ``reset`` (why: it is read several times a move, and a property cost more than the read);
    #: before the first reset, :meth:`__getattr__` raises the ``RuntimeError`` a property would.
    state_obj: GameState

    def __getattr__(self, name: str) -> Any:
        """Only for attributes not set: ``state_obj`` before the first ``reset``."""
        if name == "state_obj":
            raise RuntimeError("call reset() before using the environment")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def last_reveal(self) -> RoundResult | None:
        """The round revealed by the last step (``None`` after any other move)."""
        return self._last_reveal

    @property
    def moves(self) -> int:
        """Moves made in this game (what ``max_cycles`` counts)."""
        return self._moves

    def seat(self, agent: str) -> int:
        return self._seat[agent]

    def view(self, agent: str) -> PlayerView:
        """What ``agent`` may know now (the source of its observation and its agent query)."""
        return player_view(self.state_obj, self._seat[agent])

    def cue_texts(self) -> tuple[str | None, ...]:
        """This round's cues as text (``None`` = passed): the texts the numeric infos leave out."""
        return tuple(self.state_obj.cues)

    def used_cues(self) -> tuple[str, ...]:
        """Every cue given in this game (normalised)."""
        return tuple(self.state_obj.used_cues)

    def allowed_words(self, copy: bool = True) -> np.ndarray:
        """(V,) int8: vocabulary words valid as the current cue (static checks minus used cues).

        ``copy=False``: the env's own read-only array, valid until the next cue
        is given (why: the fast opponents read it on every cue turn).
        """
        return self._allowed().copy() if copy else self._allowed()

    def _allowed(self) -> np.ndarray:
        """:meth:`allowed_words`, read-only, built once per game, cue and number of used cues.

        Why: every cue turn asks for it (the mask, the opponents' offered words),
        and it only changes when a cue is given.  Used cues only grow in a game,
        so a new count starts from the last array of the same cue index and
        strikes out only the cues given since.
        """
        s = self.state_obj
        cue_index, used = s.cue_index, s.used_cues
        cached = self._allowed_cache.get(cue_index)
        # the state by identity (a GameState compares by value: its deck would draw every card)
        if cached is not None and cached[0] is s and cached[1] <= len(used):
            if cached[1] == len(used):
                return cached[2]
            ok, since = cached[2].copy(), cached[1]
        else:
            ok, since = self._vocab_ok[cue_index].copy(), 0
        index = self.layout.word_index
        for cue in used[since:]:
            i = index.get(cue)
            if i is not None:
                ok[i] = 0
        ok.setflags(write=False)
        self._allowed_cache[cue_index] = (s, len(used), ok)
        return ok

    def _current_mask(self) -> np.ndarray:
        """The acting seat's mask, built once per move (the board is constant; cells change one at a time)."""
        s = self.state_obj
        key = self._moves
        if self._mask_cache is not None and self._mask_cache[0] == key:
            return self._mask_cache[1]
        mask = np.zeros(self.layout.n, dtype=np.int8)
        if s.phase.is_guess:
            np.logical_not(s.occupied, out=mask[:N_CELLS], casting="unsafe")
        elif s.phase is Phase.PICK_TARGET:
            mask[list(s.card)] = 1
        elif s.phase.is_cue:
            if self.cue_mode == "vocabulary":
                off = self.layout.cue_offset
                mask[off : off + len(self.layout.vocabulary)] = self._allowed()
            else:
                mask[self.layout.text_action] = 1
            if s.can_pass():
                mask[self.layout.pass_action] = 1
        self._mask_cache = (key, mask)
        return mask

    def action_mask(self, agent: str) -> np.ndarray:
        """(A,) int8 mask of the legal actions of ``agent`` now (zeros when it is not its turn)."""
        s = self.state_obj
        if (
            s.done
            or self._seat[agent] != s.current
            or self.terminations.get(agent)
            or self.truncations.get(agent)
        ):
            return np.zeros(self.layout.n, dtype=np.int8)
        return self._current_mask().copy()

    def observation(self, agent: str) -> Any:
        """``observe(agent)["observation"]`` alone: what a single-agent wrapper returns (no mask built)."""
        view = self.view(agent)
        enc = self.encoder
        return enc.encode_flat(view) if self.observation_mode == "flat" else enc.encode_dict(view)

    def observe(self, agent: str) -> dict[str, Any]:
        return {"observation": self.observation(agent), "action_mask": self.action_mask(agent)}

    # -- AEC API --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        elif self._rng is None:
            self._rng = np.random.default_rng()
        game_seed = int(self._rng.integers(2**63))  # the game's own generator: GameState.new makes it
        deck = (options or {}).get("deck")
        if deck is not None:  # round r uses deck[r] as dealt (a game replayed from a record)
            self.state_obj = GameState.from_deck(
                self.num_players, [tuple(int(c) for c in card) for card in deck], self.rules
            )
        else:
            self.state_obj = GameState.new(self.num_players, game_seed, self.rules)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._ended = False  # set with the terminations / truncations that end the game (game_over)
        self._moves = 0
        self._mask_cache = None
        self._last_reveal = None
        self.last_illegal = None
        self.agent_selection = self.possible_agents[self.state_obj.current]
        self._infos_of: tuple[RoundResult | None, str | None] = (None, None)
        self._infos_stale = True
        if self.render_mode == "human":
            self.render()

    @property  # AECEnv declares a plain attribute; this one is built when read
    def infos(self) -> dict[str, dict[str, Any]]:
        """Per-agent infos of the last step, built when first read after it (see :meth:`_step`)."""
        if "state_obj" not in vars(self):  # as before a reset set the attribute: no infos yet
            raise AttributeError("infos: call reset() first")
        if self._infos_stale:
            self._infos_now = self._infos(*self._infos_of)
            self._infos_stale = False
        return self._infos_now

    @infos.setter
    def infos(self, value: dict[str, dict[str, Any]]) -> None:
        self._infos_now = value
        self._infos_stale = False

    def agent_info(self, agent: str) -> dict[str, Any]:
        """A fresh copy of ``infos[agent]`` (``{}`` for an agent no longer in the game).

        Why: a single-agent wrapper reads one seat's infos once per step; when
        they are not built yet, only that seat's dict is.
        """
        if not self._infos_stale:
            return dict(self._infos_now.get(agent, {}))
        return self._infos(*self._infos_of, only=agent).get(agent, {})

    def _infos(
        self, result: RoundResult | None, illegal: str | None, only: str | None = None
    ) -> dict[str, dict]:
        """Every live agent's info dict (``only``: that agent's alone)."""
        s = self.state_obj
        rnd, phase, scores = int(s.round), s.phase.index, s.scores
        points = result.points if result is not None else self._no_points
        if only is not None:
            pairs: Any = [(self._seat[only], only)] if only in self.agents else []
        elif len(self.agents) == self.num_players:
            pairs = self._seat_pairs
        else:
            pairs = [(self._seat[a], a) for a in self.agents]
        infos: dict[str, dict[str, Any]] = {
            a: {
                "round": rnd,
                "phase": phase,
                "seat": i,
                "score": scores[i],
                "points": points[i],
                "illegal": 0,
            }
            for i, a in pairs
        }
        if illegal is not None and illegal in infos:
            infos[illegal]["illegal"] = 1
        if self.info_text:
            for a, info in infos.items():
                info["cues"] = tuple(s.cues)
                info["used_cues"] = tuple(s.used_cues)
                info["illegal_reason"] = self.last_illegal if illegal == a else ""
        return infos

    def step(self, action: Any) -> None:
        self._step(action)

    def _step(self, action: Any) -> None:
        """:meth:`step`.  The infos are built when first read after it (:attr:`infos`).

        Why: the single-learner wrappers step the other seats' moves in a row
        and read the infos only after the last one; building every seat's info
        dict after each move cost as much as deciding a replayed human's cone.
        Rewards are cleared on every step, as PettingZoo's ``_clear_rewards``
        does (a wrapper may have written some), and accumulated only when this
        step set some (a reveal, an illegal action): most moves score nothing,
        and adding zeros changes nothing.
        """
        agent = self.agent_selection
        # the dicts, not _ended: a wrapper may end the game by setting them (PettingZoo's
        # TerminateIllegalWrapper, a user's time limit); a dead agent's step is then _was_dead_step
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state_obj
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for a in rewards:  # PettingZoo's _clear_rewards, inlined (it runs on every move)
            rewards[a] = 0
        try:
            rule_action = self.layout.decode(action, s.phase)
            why = s.problem(rule_action)
        except IllegalActionError as err:
            why = str(err)
        if why is None:
            self.last_illegal = None
            result = self._last_reveal = s.apply(rule_action, checked=True)
            self._moves += 1
            if s.phase is Phase.DONE:
                self.terminations = {a: True for a in self.agents}
                self._ended = True
            elif self.max_cycles is not None and self._moves >= self.max_cycles:
                self.truncations = {a: True for a in self.agents}
                self._ended = True
            self._infos_of = (result, None)
            if result is not None:
                for a, p in zip(self.possible_agents, result.points):
                    rewards[a] = float(p)
                self._accumulate_rewards()
        else:
            self._illegal_step(agent, action, why)
        self.agent_selection = self.possible_agents[s.current]
        self._infos_stale = True
        if self._render_human:
            self.render()

    def _illegal_step(self, agent: str, action: Any, why: str) -> None:
        """The part of :meth:`_step` for an illegal action: raise, or penalise (and end the game)."""
        s = self.state_obj
        message = (
            f"{agent} ({s.role(self._seat[agent])}, phase {s.phase.value}): illegal action {action!r}: {why}"
        )
        self._last_reveal = None
        if self.illegal_action == "raise":
            raise IllegalActionError(message)
        self.rewards[agent] = self.illegal_reward
        self.last_illegal = message
        if self.illegal_action == "end":
            # stacklevel 3: the caller of _step, as when this was written in _step
            warnings.warn(f"[WARNING]: Illegal move made, game terminating: {message}", stacklevel=3)
            self.terminations = {a: True for a in self.agents}
            self._ended = True
        self._infos_of = (None, agent)
        self._accumulate_rewards()

    @property
    def game_over(self) -> bool:
        """The game finished, ended on an illegal action, or was truncated.

        ``_ended`` answers the common cases without reading the dicts (asked after
        every move); the dicts still count, since a wrapper may set them itself.
        """
        if self._ended or self.state_obj.phase is Phase.DONE:
            return True
        return any(self.terminations.values()) or any(self.truncations.values())

    # -- rendering --------------------------------------------------------------------------
    def render_view(self, message: str = "") -> RenderView:
        """The current frame (the reveal right after one), from the observer."""
        return render_view(self.state_obj, self.possible_agents, self._last_reveal, message)

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
