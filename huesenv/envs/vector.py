"""Many guesser decisions at once, in numpy: the fast path for RL on the guessing half of the game.

A guesser's decision in Hues and Cues is: given the cue and the cones already on
the board, put a cone on a free cell; its value is the 3/2/1 score against the
hidden target.  :class:`GuesserVectorEnv` plays ``num_envs`` such decisions per
``step`` with no Python loop over environments: each sub-episode is one decision
(a contextual bandit), auto-reset in the same step (Gymnasium's ``SAME_STEP``
mode).  As in Gymnasium's own vector envs, ``infos["final_obs"]`` is an object
array holding each sub-env's answered observation (unbatched) with the mask
``infos["_final_obs"]``, and ``infos["final_info"]`` / ``"_final_info"`` its
per-env info (``target``, ``points``, ``legal``); every sub-env ends each step.

How a decision is drawn (all from the env's ``numpy`` generator):

* the cue: uniform over the vocabulary (``V`` words);
* the target: by default uniform over the board (the random cue giver's target
  from a random card); with ``cue_cells`` (one array of cells per vocabulary
  word, e.g. ``HumanResponses.cells(word)``), a uniformly drawn cell that people
  chose for that cue, so that the cue carries information about the target;
* the cones already placed: a count uniform in 0..``max_occupied`` (default
  17, the most a 10-player round leaves before the last cone), each on a
  uniform cell drawn with replacement (a repeat leaves one cone fewer).

Scoring goes through :func:`huesenv.game.rules.score_cones` (the same
points matrix as the game), so both paths score identically.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from huesenv.board import N_CELLS
from huesenv.game.rules import DEFAULT_RULES, HuesCuesRules, score_cones
from huesenv.vocabulary import normalise_word, word_texts


def batch_guess_points(
    targets: np.ndarray, cells: np.ndarray, rules: HuesCuesRules | None = None
) -> np.ndarray:
    """Guesser points of ``cells`` against ``targets`` (same shape; any batch size), vectorised."""
    return score_cones(targets, cells, rules).astype(np.int64)


class GuesserVectorEnv(VectorEnv):
    """``num_envs`` independent one-decision guesser episodes stepped together."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1024,
        vocabulary: Sequence[str] | None = None,
        cue_cells: Sequence[np.ndarray] | None = None,
        max_occupied: int = 17,
        illegal_reward: float = -1.0,
        rules: HuesCuesRules | None = None,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs: expected >= 1, got {num_envs}")
        self.num_envs = int(num_envs)
        self.vocabulary = tuple(
            normalise_word(w) for w in (vocabulary if vocabulary is not None else word_texts())
        )
        self.rules = rules or DEFAULT_RULES
        self.max_occupied = int(max_occupied)
        self.illegal_reward = float(illegal_reward)
        if not 0 <= self.max_occupied < N_CELLS - 1:
            raise ValueError(f"max_occupied: expected 0-{N_CELLS - 2}, got {max_occupied}")
        self._cue_cells = None
        if cue_cells is not None:
            if len(cue_cells) != len(self.vocabulary):
                raise ValueError(
                    f"cue_cells: expected one array per vocabulary word ({len(self.vocabulary)}), got {len(cue_cells)}"
                )
            arrays = [np.asarray(c, dtype=np.int64).ravel() for c in cue_cells]
            for w, a in zip(self.vocabulary, arrays):
                if a.size == 0 or a.min() < 0 or a.max() >= N_CELLS:
                    raise ValueError(f"cue_cells[{w!r}]: expected a non-empty array of cells 0-{N_CELLS - 1}")
            # ragged -> padded table + lengths, so sampling stays vectorised
            lengths = np.array([a.size for a in arrays])
            table = np.zeros((len(arrays), lengths.max()), dtype=np.int64)
            for i, a in enumerate(arrays):
                table[i, : a.size] = a
            self._cue_cells = (table, lengths)
        self.single_observation_space = spaces.Dict(
            {
                "cue": spaces.Discrete(len(self.vocabulary)),
                "occupied": spaces.Box(0, 1, (N_CELLS,), np.int8),
                "action_mask": spaces.Box(0, 1, (N_CELLS,), np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(N_CELLS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._targets = np.zeros(self.num_envs, dtype=np.int64)
        self._cues = np.zeros(self.num_envs, dtype=np.int64)
        self._occupied = np.zeros((self.num_envs, N_CELLS), dtype=bool)

    # -- sampling ---------------------------------------------------------------------
    def _draw(self, rows: np.ndarray) -> None:
        rng = self.np_random
        k = rows.size
        cues = rng.integers(len(self.vocabulary), size=k)
        if self._cue_cells is None:
            targets = rng.integers(N_CELLS, size=k)
        else:
            table, lengths = self._cue_cells
            targets = table[cues, (rng.random(k) * lengths[cues]).astype(np.int64)]
        counts = rng.integers(self.max_occupied + 1, size=k)
        # `count` uniform cells per row, drawn with replacement (a repeat just leaves one cone fewer):
        # O(k * max_occupied) instead of a full permutation of the board per row
        occupied = np.zeros((k, N_CELLS), dtype=bool)
        if self.max_occupied:
            draws = rng.integers(N_CELLS, size=(k, self.max_occupied))
            keep = np.arange(self.max_occupied)[None, :] < counts[:, None]
            r = np.broadcast_to(np.arange(k)[:, None], draws.shape)
            occupied[r[keep], draws[keep]] = True
        self._cues[rows], self._targets[rows], self._occupied[rows] = cues, targets, occupied

    def _obs(self) -> dict[str, np.ndarray]:
        occ = self._occupied.astype(np.int8)
        return {"cue": self._cues.copy(), "occupied": occ, "action_mask": (1 - occ).astype(np.int8)}

    # -- gymnasium API --------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self._draw(np.arange(self.num_envs))
        return self._obs(), {}

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        cells = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        if cells.min() < 0 or cells.max() >= N_CELLS:
            raise ValueError(f"actions: expected cells 0-{N_CELLS - 1}")
        rows = np.arange(self.num_envs)
        legal = ~self._occupied[rows, cells]
        points = batch_guess_points(self._targets, cells, self.rules)
        rewards = np.where(legal, points, self.illegal_reward).astype(np.float64)
        answered = self._obs()
        final_obs = np.empty(self.num_envs, dtype=object)
        for i in range(self.num_envs):
            final_obs[i] = {k: v[i] for k, v in answered.items()}
        ended = np.ones(self.num_envs, dtype=bool)
        final_info = {"target": self._targets.copy(), "points": points, "legal": legal}
        infos = {
            **final_info,
            "final_obs": final_obs,
            "_final_obs": ended,
            "final_info": final_info,
            "_final_info": ended.copy(),
        }
        self._draw(rows)
        terminations = np.ones(self.num_envs, dtype=bool)
        truncations = np.zeros(self.num_envs, dtype=bool)
        return self._obs(), rewards, terminations, truncations, infos

    @staticmethod
    def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One uniformly random legal cell per row of a ``(B, 480)`` mask (rejection sampling, vectorised).

        Rows with no legal cell get ``-1``.
        """
        mask = np.asarray(mask).astype(bool, copy=False)
        rows = np.arange(mask.shape[0])
        cells = np.asarray(rng.integers(mask.shape[1], size=mask.shape[0]))
        todo = ~mask[rows, cells] & mask.any(axis=1)
        while todo.any():
            idx = rows[todo]
            cells[idx] = rng.integers(mask.shape[1], size=idx.size)
            todo[idx] = ~mask[idx, cells[idx]]
        cells[~mask.any(axis=1)] = -1
        return cells
