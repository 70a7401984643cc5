"""Stable-Baselines3 at the batched game's speed: a ``VecEnv`` over :class:`HuesCuesVectorEnv`.

``MaskablePPO("MlpPolicy", sb3_vec_env("huesenv/Guesser-v1", num_envs=64))`` trains on
``num_envs`` complete games stepped as arrays, where ``make_vec_env`` over the single env
steps one Python game per sub-env.  Why an adapter: SB3 refuses a ``gymnasium.vector.VectorEnv``,
and its own ``VecEnv`` API differs (``step_async``/``step_wait``, ``dones``, one info dict per
game with ``terminal_observation``).  What SB3 and sb3-contrib ask of it:

* ``action_masks()`` (and ``env_method("action_masks")``, how MaskablePPO reads them): the
  ``(num_envs, A)`` bool legal actions;
* infos: per game, ``terminal_observation`` and ``TimeLimit.truncated`` (False) when its game
  ended, plus ``learner_points`` (its final points), which ``VecMonitor`` passes through;
* ``get_attr``/``set_attr``/``env_method``: the one batched env's attribute or method, the
  same for every index (``action_masks``: each game's own row); ``env_is_wrapped``: False
  (the batched env has no gymnasium wrappers).

Seeds: ``seed(s)`` (``model.set_random_seed``) makes the next ``reset()`` call
``reset(seed=s)`` of the batched env, so a seed replays the same games.

Speed: ``step_wait`` builds info dicts only for the games that ended, and ``env_method("action_masks")``
hands out views of the one mask array.  What is left of a learner step is mostly SB3's (its policy call,
480-way masked sampling, buffers, the update) and, at 64 games, the batched step's fixed cost.
:data:`SparseFlatExtractor` (``policy_kwargs={"features_extractor_class": SparseFlatExtractor}``) makes
the first layer read only the flat observation's ~50 non-zero entries, the same function as ``Linear``;
with ``observation_mode="sparse"`` (``"MultiInputPolicy"``) the rollout buffer also stores 408 bytes per
step instead of 24 kB.  ``benchmarks/bench_trainers.py --only sb3`` measures both against ``make_vec_env``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import gymnasium
import numpy as np

import huesenv  # noqa: F401  (registers the ids)
from huesenv.envs.vector_game.gym import HuesCuesVectorEnv

_OWN_ATTRS = ("action_masks", "render_mode")  # answered by the adapter itself, not the batched env


class _Adapter:
    """The methods of :data:`SB3VecEnv` (its SB3 base class loads with the ``rl`` extra, on first use)."""

    def __init__(self, env: HuesCuesVectorEnv) -> None:
        if env.ops.is_torch:
            raise ValueError("SB3VecEnv: the batched env must run on numpy (xp=None), SB3 steps numpy arrays")
        self.env = env
        self.render_mode = None
        self._actions: np.ndarray | None = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)  # type: ignore[call-arg]

    def _rows(self, indices: int | Iterable[int] | None) -> list[int]:
        if indices is None:
            return list(range(self.env.num_envs))
        return [int(indices)] if isinstance(indices, (int, np.integer)) else [int(i) for i in indices]

    def reset(self) -> Any:
        vec: Any = self  # the VecEnv base's seeds (``seed(s)`` sets them; one seed for the batch)
        obs, _ = self.env.reset(seed=vec._seeds[0])
        vec._reset_seeds()
        vec._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.env.num_envs)

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        assert self._actions is not None, "step_wait before step_async"
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        dones = terminated | truncated
        # an info dict per game, as SB3 asks, but filled only where a game ended (most steps: none)
        infos: list[dict[str, Any]] = [{} for _ in range(self.env.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            final_obs, points = info["final_obs"], info["final_info"]["learner_points"]
            for i in ended.tolist():
                infos[i] = {
                    "terminal_observation": final_obs[i],
                    "TimeLimit.truncated": bool(truncated[i]),
                    "learner_points": float(points[i]),
                }
        return obs, np.asarray(rewards, dtype=np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, A)`` bool legal actions (what ``MaskablePPO`` stacks from ``env_method``)."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in _OWN_ATTRS or hasattr(self.env, attr_name)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        target = self if attr_name in _OWN_ATTRS else self.env
        return [getattr(target, attr_name)] * len(self._rows(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.env, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == "action_masks":  # MaskablePPO stacks this list every step: views, no copies
            masks = self.action_masks()
            return list(masks) if indices is None else list(masks[self._rows(indices)])
        rows = self._rows(indices)
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: Any = None) -> list[bool]:
        return [False] * len(self._rows(indices))


class _SparseFirstLayer:
    """The methods of :data:`SparseFlatExtractor` (an SB3 ``BaseFeaturesExtractor``, built on first use)."""

    def __init__(self, observation_space: gymnasium.Space, features_dim: int = 128) -> None:
        import torch

        if isinstance(observation_space, gymnasium.spaces.Dict):  # the sparse form: index, value
            index: Any = observation_space["index"]
            size = int(index.high.max()) + 1
        else:
            size = int(np.prod(observation_space.shape or (0,)))
        super().__init__(observation_space, features_dim)  # type: ignore[call-arg]
        bound = 1.0 / np.sqrt(size)  # nn.Linear's initialisation
        self.weight = torch.nn.Parameter(torch.empty(size, features_dim).uniform_(-bound, bound))
        self.bias = torch.nn.Parameter(torch.empty(features_dim).uniform_(-bound, bound))

    def forward(self, obs: Any) -> Any:
        import torch
        import torch.nn.functional as F

        if isinstance(obs, dict):  # (B, L) index (floats after SB3's preprocessing) and value
            out = F.embedding_bag(
                obs["index"].long(), self.weight, per_sample_weights=obs["value"], mode="sum"
            )
        else:  # dense (B, F): its non-zero entries, row by row
            rows, cols = obs.nonzero(as_tuple=True)
            offsets = torch.searchsorted(rows, torch.arange(obs.shape[0], device=obs.device))
            out = F.embedding_bag(cols, self.weight, offsets, per_sample_weights=obs[rows, cols], mode="sum")
        return torch.relu(out + self.bias)


@functools.cache
def _extractor_class() -> type:
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    doc = """``relu(x @ W + b)`` over the flat observation, computed from its non-zero entries.

    Why: the flat vector has 6,021 entries of which about 50 are non-zero, so a dense first layer
    (``MlpPolicy``'s ``Linear(6021, 64)``, twice: policy and value) is most of SB3's time per step and
    per update; this gathers the rows of ``W`` the entries select (``embedding_bag``), the same function
    and gradient.  Takes the dense flat observation (``Box``, as ``Guesser-v1`` and ``make_vec``'s
    default give it) or the batched env's sparse one (``observation_mode="sparse"``, a ``Dict`` of
    ``index`` / ``value``).  ``policy_kwargs={"features_extractor_class": SparseFlatExtractor}``.
    """
    return type(
        "SparseFlatExtractor",
        (_SparseFirstLayer, BaseFeaturesExtractor),
        {"__doc__": doc, "__module__": __name__},
    )


@functools.cache
def _adapter_class() -> type:
    from stable_baselines3.common.vec_env import VecEnv

    return type("SB3VecEnv", (_Adapter, VecEnv), {"__doc__": _Adapter.__doc__, "__module__": __name__})


def __getattr__(name: str) -> Any:
    if name == "SB3VecEnv":  # ``from huesenv.experiments.rl.sb3_vec import SB3VecEnv``: a VecEnv subclass
        return _adapter_class()
    if name == "SparseFlatExtractor":  # an SB3 BaseFeaturesExtractor subclass (torch loads on first use)
        return _extractor_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sb3_vec_env(env_id: str = "huesenv/Guesser-v1", num_envs: int = 64, **kwargs: Any) -> Any:
    """``gymnasium.make_vec(env_id, num_envs, vectorization_mode="vector_entry_point", **kwargs)`` for SB3."""
    env = gymnasium.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)
    if not isinstance(env, HuesCuesVectorEnv):
        raise ValueError(f"{env_id}: not a huesenv batched game id (got {type(env).__name__})")
    return _adapter_class()(env)
