"""Seeded episodes of the versioned envs stay byte for byte what they were when the pins were taken.

Why: a versioned id (``hues_cues_v1``, ``huesenv/Guesser-v1``, ``huesenv/CueGiver-v1``)
promises its episodes; speed work on the env, the observation encoders or the
replayed-human opponents must not change a single observation, reward, info or
random draw.  Each pin hashes a few seeded episodes (random legal play from the
action spaces' own ``sample``, replayed-human and random opponents), types
included.  The pins were taken on main a006f65 (before the third wave's speed
work on the single-game paths).  If a change is *meant* to alter episodes, it
needs a new env version, not new pins.  NumPy and Gymnasium do not promise their
random streams across minor versions, so the pins are checked only on the
versions they were taken with (the skip says so).
"""

from __future__ import annotations

import hashlib
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest

import huesenv  # noqa: F401 - registers the ids
from huesenv import hues_cues_v1

PINNED_WITH = {"numpy": "2.4", "gymnasium": "1.4"}
PINS = {
    "aec4_dict": "9aad7b5e8b9056b6e258bc410caad96dae904f51616a2c03adbd64afd0aac111",
    "aec3_flat": "8ccad0b518acefb665d7dbdab923f83a236c4e8c9f80e220abd5150ec51df7d2",
    "aec10_dict": "3c9b61555e707bf5a11b994991335d7e6356983a95bbce2bdf71099f4d670bd3",
    "guesser4": "33203035bb756c8a5f8b51cd5efef85ea17346d76e1d80d2d062a923c5495001",
    "guesser6s2": "d6bccaffe677b0d13db4ae73217c6c44f041f1e623c9855546aeda23b441ee01",
    "guesser_random": "d4225a61d0ba5b3196cb4faed2c1211aed8d987ee9dae64fec2dde9e5f8b3253",
    "cuegiver4": "875e8aaa3ca600f1fb1fe68cdb86afe567bb640c5c2eecff49059d6352afe57e",
    "cuegiver3s1": "cf51ed1d9d93594f3f685f84b5f987ba7201387308aedef5a5fa954e5011a7ec",
}


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


pytestmark = pytest.mark.skipif(
    _minor(np.__version__) != PINNED_WITH["numpy"]
    or _minor(gymnasium.__version__) != PINNED_WITH["gymnasium"],
    reason=f"pins taken with {PINNED_WITH}; numpy {np.__version__}, gymnasium {gymnasium.__version__} here",
)


def _feed(h: Any, obj: Any) -> None:
    """Hash ``obj`` with its types: dicts by sorted key, arrays and NumPy scalars by bytes, others by repr."""
    if isinstance(obj, dict):
        for key in sorted(obj):
            h.update(key.encode())
            _feed(h, obj[key])
    elif isinstance(obj, (np.ndarray, np.generic)):  # bytes, not repr: reprs follow NumPy's print options
        h.update(f"{type(obj).__name__}{obj.dtype}{np.shape(obj)}".encode())
        h.update(obj.tobytes())
    elif isinstance(obj, (tuple, list)):
        h.update(b"[")
        for item in obj:
            _feed(h, item)
        h.update(b"]")
    else:
        h.update(repr((type(obj).__name__, obj)).encode())


def _aec(num_players: int, mode: str, games: int) -> str:
    h = hashlib.sha256()
    env = hues_cues_v1.env(num_players=num_players, observation_mode=mode)
    env.reset(seed=11)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(i)
    for _ in range(games):
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            _feed(h, (agent, obs, reward, term, trunc, info, env.rewards, env.terminations))
            env.step(None if term or trunc else env.action_space(agent).sample(obs["action_mask"]))
        env.reset()
    return h.hexdigest()


def _single(env_id: str, games: int, **kwargs: Any) -> str:
    h = hashlib.sha256()
    env = gymnasium.make(env_id, **kwargs)
    rng = np.random.default_rng(3)
    for episode in range(games):
        obs, info = env.reset(seed=500 + episode)
        _feed(h, (obs, info))
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
            obs, reward, terminated, truncated, info = env.step(action)
            _feed(h, (obs, reward, terminated, truncated, info))
            done = terminated or truncated
    return h.hexdigest()


CASES = {
    "aec4_dict": lambda: _aec(4, "dict", 6),
    "aec3_flat": lambda: _aec(3, "flat", 6),
    "aec10_dict": lambda: _aec(10, "dict", 2),
    "guesser4": lambda: _single("huesenv/Guesser-v1", 5),
    "guesser6s2": lambda: _single("huesenv/Guesser-v1", 5, num_players=6, seat=2),
    "guesser_random": lambda: _single("huesenv/Guesser-v1", 2, opponents="random"),
    "cuegiver4": lambda: _single("huesenv/CueGiver-v1", 5),
    "cuegiver3s1": lambda: _single("huesenv/CueGiver-v1", 5, num_players=3, seat=1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_episodes_match_their_pin(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        digest = CASES[name]()
    assert digest == PINS[name], f"{name}: the episodes changed (a new env version, not a new pin)"
