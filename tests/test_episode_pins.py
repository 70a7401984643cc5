"""Seeded episodes of the versioned envs stay byte for byte what they were when the pins were taken.

Why: a versioned id (``hues_cues_v1``, ``huesenv/Guesser-v1``, ``huesenv/CueGiver-v1``)
promises its episodes; speed work on the env, the observation encoders or the
replayed-human opponents must not change a single observation, reward, info or
random draw.  Each pin hashes a few seeded episodes (random legal play from the
action spaces' own ``sample``, seeded play with illegal and odd actions in both cue
modes, replayed-human and random opponents), types included.  The pins were
taken on main a006f65 (before the third wave's speed work on the single-game
paths).  If a change is *meant* to alter episodes, it
needs a new env version, not new pins.  NumPy and Gymnasium do not promise their
random streams across minor versions: the pins are checked on every version,
and a mismatch fails on the versions they were taken with and is skipped
(saying so) on others.
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
from huesenv.vocabulary import word_texts

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
    # taken on a006f65 too (review4): text mode, illegal and odd actions, max_cycles, fallbacks of the opponents
    "aec4_text_hostile": "d933210b767599aa225b63cd541932d9eb365e96e3bd89d21d35bdc6f26af13c",
    "aec5_flat_hostile": "e7490f88b5c388f5ab245eb3d5197ee2ac983a014b8b29187cd9016b23a92608",
    "aec3_end_hostile": "bd5ffdbd33575779cd821f6776001daf2ac4cb67b4f5a28e273631f285f2273b",
    "guesser5_text_dict": "8078f5f42b2ca2d0838e26a69eef4b15c9f0bc3b95ad8ac1c50d54e4ff92009a",
    "cuegiver6_small_vocabulary": "1a6884a68f15524cf7b7323d3ed056927942246505418776d0eacb7ccce2c0b5",
    "guesser4_small_vocabulary": "977cec2d368016217c3edacd3aa6f58e7ad37ef0c6e3eafb4b36d07b38912032",
}
# a vocabulary of answered and unanswered words (the opponents' fallbacks)
SMALL_VOCABULARY = (*word_texts()[:24], "qwertyuiop", "zxcvbnm", "asdfghjkl")


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


PINNED_VERSIONS = (
    _minor(np.__version__) == PINNED_WITH["numpy"]
    and _minor(gymnasium.__version__) == PINNED_WITH["gymnasium"]
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


def _aec_hostile(games: int, **kwargs: Any) -> str:
    """Seeded play that also sends illegal and odd actions (text cues, numpy and float indices, None)."""
    h = hashlib.sha256()
    env = hues_cues_v1.env(**kwargs)
    raw = env.unwrapped
    env.reset(seed=5)
    rng = np.random.default_rng(8)
    odd = ["", "sky", "Ocean ", "red", "a b c", "lighter", "x" * 70, "mud"]
    for _ in range(games):
        for agent in env.agent_iter(3000):
            obs, reward, term, trunc, info = env.last()
            _feed(h, (agent, obs, reward, term, trunc, info, env.rewards, raw._cumulative_rewards))
            _feed(h, (env.truncations, raw.last_illegal, raw.game_over))
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            action: Any = int(legal[rng.integers(legal.size)])
            roll = rng.random()
            if roll < 0.08:  # illegal or odd: a cell out of range, a numpy or float index, a bare word
                action = [raw.layout.n + 2, np.int64(action), float(action), "sky", None][rng.integers(5)]
            elif raw.cue_mode == "text" and action == raw.layout.text_action:
                words = odd if rng.random() < 0.3 else raw.layout.vocabulary
                action = {"action": action, "cue": words[rng.integers(len(words))]}
            env.step(action)
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
    "aec4_text_hostile": lambda: _aec_hostile(3, cue_mode="text", illegal_action="penalise", info_text=True),
    "aec5_flat_hostile": lambda: _aec_hostile(
        3, num_players=5, observation_mode="flat", illegal_action="penalise", max_cycles=45
    ),
    "aec3_end_hostile": lambda: _aec_hostile(4, num_players=3),
    "guesser5_text_dict": lambda: _single(
        "huesenv/Guesser-v1",
        3,
        num_players=5,
        seat=4,
        cue_mode="text",
        observation_mode="dict",
        max_cycles=60,
    ),
    "cuegiver6_small_vocabulary": lambda: _single(
        "huesenv/CueGiver-v1", 3, num_players=6, seat=3, vocabulary=SMALL_VOCABULARY
    ),
    "guesser4_small_vocabulary": lambda: _single("huesenv/Guesser-v1", 3, vocabulary=SMALL_VOCABULARY),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_episodes_match_their_pin(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        digest = CASES[name]()
    if digest != PINS[name] and not PINNED_VERSIONS:  # run everywhere; only a mismatch needs the versions
        pytest.skip(
            f"{name}: episodes differ under numpy {np.__version__} / gymnasium {gymnasium.__version__}; "
            f"the pins were taken with {PINNED_WITH} (their random streams may have changed)"
        )
    assert digest == PINS[name], f"{name}: the episodes changed (a new env version, not a new pin)"
