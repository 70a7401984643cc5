"""Gymnasium and multi-agent batched APIs over :class:`~huesenv.envs.vector_game.game.HuesCuesVectorGame`.

* :class:`HuesCuesVectorEnv` — a ``gymnasium.vector.VectorEnv`` of ``num_envs``
  complete games for one learner seat: ``role="guesser"`` (``Discrete(480)``,
  reward = its guesser points, what ``huesenv/Guesser-v1`` is) or
  ``role="cue_giver"`` (``Discrete(480 + V + 1)``, reward = its cue-giver
  points, ``huesenv/CueGiver-v1``); the learner's other role is played by
  ``stand_in`` and the other seats by ``opponents`` (:class:`TableOpponent`
  tables, or agent spec strings such as ``"human-replay"``, ``"random"``,
  ``"text-embedding"``, ``"policy:PATH"``, turned into tables by the table factory
  the package installs, :mod:`huesenv.envs.hues_cues.defaults`; default ``None``:
  replayed people, as ``gymnasium.make`` of the same id).  ``gymnasium.make_vec(
  "huesenv/Guesser-v1", num_envs=N, vectorization_mode="vector_entry_point")``
  returns it.  Observations (``observation_mode``, table below) are
  ``hues_cues_v1``'s flat vector (index or embedding cues; ``"flat"``, the
  default), the same vector in sparse form (``"sparse"``), or the fast
  trainer's ``{"cue": latest known word index (V: none), "occupied",
  "action_mask"}`` (``"compact"``); :meth:`HuesCuesVectorEnv.action_masks` and
  ``infos["action_mask"]`` give the ``(N, A)`` legal actions (bool, as sb3-contrib reads them; the
  compact observation's ``"action_mask"`` is int8, as PettingZoo's and the single env's dict masks).  Rewards come at
  the reveal (``reward_timing="reveal"``, as ``Guesser-v1``); a guesser can
  instead be paid each cone's points when it is placed (``"decision"``: the
  same total per game, credited to the decision that earned it).
  Auto-reset: ``AutoresetMode.SAME_STEP``: an ended game's last observation is
  in ``infos["final_obs"]`` (an object array, entries only where
  ``infos["_final_obs"]``), its scores in ``infos["final_info"]["scores"]``.
* :class:`SelfPlayVectorEnv` — the batched multi-agent API (PGX / JaxMARL
  shape): ``reset(seed)`` / ``step(actions)`` on batches return a
  :class:`SelfPlayStep` with the seat on turn (``current_player``), its
  observation and mask, per-seat ``rewards`` ``(N, 10)`` and ``terminated``;
  the caller plays every seat in both roles (or the seats in ``caller``, the
  rest by table opponents).  One step is one decision per game.

Both run on numpy, or on torch with ``xp=torch, device=...`` (observations,
masks and rewards are then tensors on that device).

==============================  ========================================  ==================================
``observation_mode``            observation per game                      cost at 4,096 games (see
                                                                          ``benchmarks/bench_vector_game.py``)
==============================  ========================================  ==================================
``"flat"`` (default)            ``Box((6021,), float32)``, the AEC env's  ~1.3x sparse: a new array per step
                                ``hues_cues_v1`` flat vector              over a recycled buffer, only the
                                                                          ~50 changed entries per game written
``"flat"``, ``copy=False``      the same, one persistent array updated    only the ~50 changed entries per
                                in place (overwritten by the next step)   game are written
``"sparse"``                    ``Dict(index=Box((L,), int32),            408 B per game (L = 51 with index
                                value=Box((L,), float32))``: the flat     cues); a first layer
                                vector's possible non-zero entries        ``EmbeddingBag(F, H, mode="sum")``
                                (:mod:`~huesenv.envs.vector_game.encode`) with ``per_sample_weights=value``
                                                                          equals ``Linear(F, H)`` on "flat"
``"compact"`` (guesser trainer)  ``cue``, ``occupied``, ``action_mask``     not the AEC observation
==============================  ========================================  ==================================

``to_dense(index, value, F)`` rebuilds the flat vector byte for byte from the sparse one.

*Outputs are the caller's.*  Every array a step returns (observations, masks, rewards, scores,
``action_masks()``) is the caller's to keep: nothing the env does later changes it, except the one
persistent array of ``"flat"`` with ``copy=False``: every other output is a new array.

*Rewards of moves the caller did not make.*  A step's ``rewards`` are every
point scored from the caller's decision until the caller's next decision,
opponents' moves and reveals included, so an ended game's trailing rounds
(played by opponents alone) are paid in its terminal step.  Points scored in a
*new* game before the caller's first decision in it (a round opened by a
table-played cue giver, when the caller is only some seats' guesser) are not
paid at the old game's terminal step: they are carried to the step of that first
decision (as the game's first rewards), so each game's rewards sum to its final
scores (:meth:`HuesCuesVectorGame.step`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from huesenv.board import N_CELLS
from huesenv.envs.hues_cues.defaults import TableFactory, default_table_factory
from huesenv.envs.vector_game.encode import DenseBuffer, FlatEncoder, FreshDense
from huesenv.envs.vector_game.game import GIVER_ROLE, GUESSER_ROLE, HuesCuesVectorGame
from huesenv.envs.vector_game.opponents import RANDOM, TableOpponent
from huesenv.game.rules import HuesCuesRules

OpponentLike = TableOpponent | str | None
ROLES = ("guesser", "cue_giver")
OBSERVATION_MODES = ("flat", "sparse", "compact")
SELF_PLAY_OBSERVATION_MODES = ("flat", "sparse")
REWARD_TIMINGS = ("reveal", "decision")


class HuesCuesVectorEnv(VectorEnv):
    """``num_envs`` full games, one learner seat in one role (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
    autoreset_mode = AutoresetMode.SAME_STEP  # where Gymnasium's own vector envs say it (torchrl reads it)

    def __init__(
        self,
        num_envs: int = 256,
        num_players: int | Sequence[int] = 4,
        role: str = "guesser",
        seat: int = 0,
        opponents: OpponentLike | Sequence[OpponentLike] = None,
        stand_in: OpponentLike = None,
        table_factory: TableFactory | None = None,
        cue_encoding: str = "index",
        cue_embeddings: np.ndarray | None = None,
        flat_cue_weight: float = 4.0,
        vocabulary: Sequence[str] | None = None,
        rules: HuesCuesRules | None = None,
        illegal_reward: float = -1.0,
        observation_mode: str = "flat",
        reward_timing: str = "reveal",
        copy: bool = True,
        xp: Any = None,
        device: Any = None,
        seed: int | None = None,
    ) -> None:
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(
                f"observation_mode: expected one of {OBSERVATION_MODES}, got {observation_mode!r}"
            )
        if reward_timing not in REWARD_TIMINGS or (reward_timing == "decision" and role != "guesser"):
            raise ValueError(
                f"reward_timing: expected 'reveal', or 'decision' for the guesser role, got {reward_timing!r} ({role})"
            )
        self.observation_mode = observation_mode
        self.reward_timing = reward_timing
        if role not in ROLES:
            raise ValueError(f"role: expected one of {ROLES}, got {role!r}")
        players = [num_players] if isinstance(num_players, (int, np.integer)) else list(num_players)
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < min(players):
            raise ValueError(f"seat: expected an integer 0-{min(players) - 1}, got {seat!r}")
        self.role = role
        self.seat = int(seat)
        self.role_index = GUESSER_ROLE if role == "guesser" else GIVER_ROLE
        probe = HuesCuesVectorGame(1, players[0], vocabulary=vocabulary, rules=rules)
        s = probe.S
        #: the table of each seat (the learner's seat: its stand-in in its other role)
        self.opponents = seq = seat_tables(probe, max(players), self.seat, opponents, stand_in, table_factory)
        caller = np.zeros((s, 2), dtype=bool)
        caller[self.seat, self.role_index] = True
        self.game = HuesCuesVectorGame(
            num_envs,
            num_players,
            vocabulary=vocabulary,
            rules=rules,
            caller=caller,
            opponents=seq,
            illegal_reward=illegal_reward,
            xp=xp,
            device=device,
            seed=seed,
        )
        self.num_envs = self.game.num_games
        self.encoder = FlatEncoder(self.game, cue_encoding, cue_embeddings, flat_cue_weight)
        self.n_actions = N_CELLS if role == "guesser" else self.game.A
        self._dense = (FreshDense if copy else DenseBuffer)(self.num_envs, self.encoder.size, self.game.ops)
        self._final_dense = FreshDense(self.num_envs, self.encoder.size, self.game.ops)
        if observation_mode == "flat":
            self.single_observation_space = self.encoder.space
        elif observation_mode == "sparse":
            self.single_observation_space = self.encoder.sparse_space
        else:
            self.single_observation_space = spaces.Dict(
                {
                    "cue": spaces.Discrete(self.game.V + 1),
                    "occupied": spaces.Box(0, 1, (N_CELLS,), np.int8),
                    "action_mask": spaces.Box(0, 1, (self.n_actions,), np.int8),
                }
            )
        self.single_action_space = spaces.Discrete(self.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._final: dict[int, Any] = {}
        self.game.end_listeners.append(self._on_end)
        self._mask: Any = None

    @property
    def ops(self) -> Any:
        return self.game.ops

    def _on_end(self, rows: Any, illegal: bool) -> None:
        o = self.ops
        seats = o.full(int(rows.shape[0]), self.seat, o.int64)
        if self.observation_mode == "sparse":
            idx, val = self.encoder.sparse(rows, seats)
            for i, r in enumerate(o.to_numpy(rows).tolist()):
                self._final[r] = {"index": idx[i], "value": val[i]}
            return
        if self.observation_mode == "compact":  # the ended game's board and cue; nothing is legal any more
            c = self._compact(rows, o.zeros((int(rows.shape[0]), self.n_actions), o.bool))
            for i, r in enumerate(o.to_numpy(rows).tolist()):
                self._final[r] = {k: v[i] for k, v in c.items()}
            return
        obs = self._final_dense.update(*self.encoder.sparse(rows, seats))
        for i, r in enumerate(o.to_numpy(rows).tolist()):
            self._final[r] = obs[i]

    def _compact(self, rows: Any, mask: Any) -> dict[str, Any]:
        g, o = self.game, self.ops
        cue = g.cue[rows]
        known = (cue >= 1) & (cue <= g.V)
        latest = o.where(known[:, 1], cue[:, 1] - 1, o.where(known[:, 0], cue[:, 0] - 1, g.V))
        return {
            "cue": latest,
            "occupied": o.astype(g.occupied[rows], o.int8),
            "action_mask": o.astype(mask, o.int8),
        }

    def _observe(self) -> Any:
        if self.observation_mode != "compact":
            return observe(self.encoder, self.observation_mode, self._dense)
        return self._compact(self.game.rows, self._mask)

    def action_masks(self) -> Any:
        """``(num_envs, A)`` bool legal actions of the learner now (sb3-contrib's name)."""
        return self._mask

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is None and not self.game._has_reset:
            seed = int(self.np_random.integers(2**63))
        ts = self.game.reset(seed=seed)
        self._final = {}
        self._mask = ts.action_mask[:, : self.n_actions]
        return self._observe(), {"action_mask": self._mask}

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        o = self.ops
        a = actions if o.is_torch else np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        self._final = {}
        g = self.game
        if self.reward_timing == "decision":
            # the cone's own guesser points, known once it is placed (the round's target is set): the same
            # total per game as at the reveal, credited to the decision that earned it
            legal = g.legal(g.rows, a)
            cone = o.astype(g.points[g.target, o.where(legal, a, 0)] * legal, o.float32)
        ts = g.step(a)
        penalty = o.astype(ts.illegal, o.float32) * g.illegal_reward
        if self.reward_timing == "decision":
            rewards = cone + penalty
        else:
            rewards = ts.role_rewards[:, self.seat, self.role_index] + penalty
        self._mask = ts.action_mask[:, : self.n_actions]
        infos: dict[str, Any] = {"action_mask": self._mask, "legal": ~ts.illegal}
        ended = o.to_numpy(ts.terminated)
        if ended.any():
            final_obs = np.empty(self.num_envs, dtype=object)
            for r, x in self._final.items():
                final_obs[r] = x
            infos["final_obs"], infos["_final_obs"] = final_obs, ended
            infos["final_info"] = {
                "scores": ts.final_scores,
                "illegal": ts.illegal,
                # a copy: the game's array is rewritten when the next game in a slot ends
                "learner_points": o.copy(self.game.final_role_points[:, self.seat, self.role_index]),
            }
            infos["_final_info"] = ended
        truncated = o.zeros(self.num_envs, o.bool)
        return self._observe(), rewards, ts.terminated, truncated, infos


def seat_tables(
    probe: HuesCuesVectorGame,
    players: int,
    seat: int,
    opponents: OpponentLike | Sequence[OpponentLike],
    stand_in: OpponentLike,
    factory: TableFactory | None,
) -> list[TableOpponent]:
    """One table per seat (the learner's seat: its stand-in), as :class:`~huesenv.envs.wrappers.GuesserEnv`
    takes its opponents: one spec string, table or ``None`` (the default opponent, replayed people) for every
    seat, or one per seat other than ``seat`` of a ``players``-player game."""
    made: dict[str | None, TableOpponent] = {}

    def table(x: OpponentLike, what: str) -> TableOpponent:
        if isinstance(x, TableOpponent):
            return x
        if x is not None and not isinstance(x, str):
            raise ValueError(
                f"{what}: expected a TableOpponent, an agent spec string or None, got {type(x).__name__}"
            )
        if x not in made:
            made[x] = (factory or default_table_factory())(x, vocabulary=probe.vocabulary, rules=probe.rules)
        return made[x]

    single = opponents is None or not isinstance(opponents, Sequence) or isinstance(opponents, str)
    if single:
        seq = [table(opponents, "opponents")] * probe.S  # type: ignore[arg-type]
    else:
        given = list(opponents)  # type: ignore[arg-type]
        if len(given) != players - 1:
            raise ValueError(
                f"opponents: expected one opponent (a TableOpponent, spec string or None) or {players - 1} "
                f"(the seats other than {seat} of a {players}-player game, in order), got {len(given)}"
            )
        seq = [table(x, f"opponents[{i}]") for i, x in enumerate(given)]
        seq.insert(seat, RANDOM)
        seq += [RANDOM] * (probe.S - players)
    seq[seat] = table(stand_in if stand_in is not None else (opponents if single else None), "stand_in")  # type: ignore[arg-type]
    return seq


def observe(encoder: FlatEncoder, mode: str, dense: DenseBuffer | FreshDense) -> Any:
    """Every game's observation of the seat on turn: flat (fresh, or the in-place buffer) or sparse."""
    g = encoder.game
    idx, val = encoder.sparse(g.rows, g.current)
    return {"index": idx, "value": val} if mode == "sparse" else dense.update(idx, val)


def make_guesser_vector(num_envs: int = 256, **kwargs: Any) -> HuesCuesVectorEnv:
    """``gymnasium.make_vec("huesenv/Guesser-v1", vectorization_mode="vector_entry_point")``."""
    kwargs.pop("max_episode_steps", None)
    return HuesCuesVectorEnv(num_envs=num_envs, role="guesser", **kwargs)


def make_cue_giver_vector(num_envs: int = 256, **kwargs: Any) -> HuesCuesVectorEnv:
    """``gymnasium.make_vec("huesenv/CueGiver-v1", vectorization_mode="vector_entry_point")``."""
    kwargs.pop("max_episode_steps", None)
    return HuesCuesVectorEnv(num_envs=num_envs, role="cue_giver", **kwargs)


@dataclass
class SelfPlayStep:
    """One batched step of :class:`SelfPlayVectorEnv` (arrays of the env's namespace, batch first; the
    caller's to keep, see *Outputs are the caller's* in the module docstring)."""

    observation: Any  # (N, F) float32 (or {"index", "value"}, sparse): the observation of the seat on turn
    action_mask: Any  # (N, A) bool
    current_player: Any  # (N,) seat on turn
    rewards: Any  # (N, 10) per-seat points since the previous step (penalties included)
    terminated: Any  # (N,) the game ended in this step (already reset)
    final_scores: Any  # (N, 10) the ended games' scores


class SelfPlayVectorEnv:
    """The batched multi-agent API: every decision of ``num_envs`` games goes to the caller (see the module docstring)."""

    def __init__(
        self,
        num_envs: int = 256,
        num_players: int | Sequence[int] = 4,
        *,
        caller: Any = None,
        opponents: TableOpponent | Sequence[TableOpponent] = RANDOM,
        cue_encoding: str = "index",
        cue_embeddings: np.ndarray | None = None,
        flat_cue_weight: float = 4.0,
        vocabulary: Sequence[str] | None = None,
        rules: HuesCuesRules | None = None,
        illegal_reward: float = -1.0,
        observation_mode: str = "flat",
        copy: bool = True,
        xp: Any = None,
        device: Any = None,
        seed: int | None = None,
    ) -> None:
        if observation_mode not in SELF_PLAY_OBSERVATION_MODES:
            raise ValueError(
                f"observation_mode: expected one of {SELF_PLAY_OBSERVATION_MODES}, got {observation_mode!r}"
            )
        self.observation_mode = observation_mode
        self.game = HuesCuesVectorGame(
            num_envs,
            num_players,
            vocabulary=vocabulary,
            rules=rules,
            caller=caller,
            opponents=opponents,
            illegal_reward=illegal_reward,
            xp=xp,
            device=device,
            seed=seed,
        )
        self.num_envs = self.game.num_games
        self.encoder = FlatEncoder(self.game, cue_encoding, cue_embeddings, flat_cue_weight)
        self._dense = (FreshDense if copy else DenseBuffer)(self.num_envs, self.encoder.size, self.game.ops)
        self.observation_space = (
            self.encoder.space if observation_mode == "flat" else self.encoder.sparse_space
        )
        self.action_space = spaces.Discrete(self.game.A)
        self.num_seats = self.game.S

    def _wrap(self, ts: Any) -> SelfPlayStep:
        return SelfPlayStep(
            observation=observe(self.encoder, self.observation_mode, self._dense),
            action_mask=ts.action_mask,
            current_player=ts.current_player,
            rewards=ts.rewards,
            terminated=ts.terminated,
            final_scores=ts.final_scores,
        )

    def reset(self, seed: int | None = None) -> SelfPlayStep:
        return self._wrap(self.game.reset(seed=seed))

    def step(self, actions: Any) -> SelfPlayStep:
        return self._wrap(self.game.step(actions))
