"""The vectorised game's observation forms (dense, in-place dense, sparse) against the AEC env's encoder,
and the reward bookkeeping of rounds the caller takes no part in."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import huesenv  # noqa: F401  (registers the ids)
from huesenv.envs.hues_cues.encoding import ObservationEncoder
from huesenv.envs.vector_game.check import Lockstep
from huesenv.envs.vector_game.encode import FlatEncoder, _TableEncoder, sparse_linear, to_dense
from huesenv.envs.vector_game.game import HuesCuesVectorGame
from huesenv.envs.vector_game.gym import HuesCuesVectorEnv, SelfPlayVectorEnv
from huesenv.game.observer import player_view

PLAYERS = [3 + i % 8 for i in range(160)]


def _legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random legal actions from an outside generator (two envs compared must draw the same numbers)."""
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(1)


def _embeddings(v: int, d: int = 6) -> np.ndarray:
    return np.random.default_rng(4).standard_normal((v, d)).astype(np.float32)


@pytest.mark.parametrize("cue_encoding", ["index", "embedding"])
def test_sparse_form_rebuilds_the_aec_flat_observation_byte_for_byte(cue_encoding):
    g = HuesCuesVectorGame(160, PLAYERS, seed=21)
    emb = _embeddings(g.V)
    kw = {"cue_embeddings": emb} if cue_encoding == "embedding" else {}
    enc = FlatEncoder(g, cue_encoding, **kw)
    text = _TableEncoder(g.vocabulary, emb) if cue_encoding == "embedding" else None
    ref = ObservationEncoder(g.rules, g.vocabulary, cue_encoding, text)
    lock = Lockstep(g)
    lock.check(g.reset(seed=21))
    subset = np.arange(3, 160, 7)
    checked = 0
    while len(lock.finished) < 60:
        idx, val = enc.sparse(g.rows, g.current)
        assert idx.dtype == np.int32 and val.dtype == np.float32 and idx.shape == (160, enc.width)
        assert ((idx >= 0) & (idx < enc.size)).all()
        dense = to_dense(idx, val, enc.size)
        for slot in range(0, 160, 3):
            s = lock.states[slot]
            expected = ref.encode_flat(player_view(s, s.current))
            assert dense[slot].tobytes() == expected.tobytes()
            nz = idx[slot][val[slot] != 0]
            assert len(set(nz.tolist())) == nz.size  # non-zero entries never share an index
            checked += 1
        # other observers and a subset of games (the final-observation path)
        seats = (g.current[subset] + 1) % g.n[subset]
        sub = to_dense(*enc.sparse(subset, seats), enc.size)
        for i, slot in enumerate(subset.tolist()):
            s = lock.states[slot]
            assert sub[i].tobytes() == ref.encode_flat(player_view(s, int(seats[i]))).tobytes()
        lock.check(g.step(g.random_actions()))
    assert checked > 4_000
    assert enc.width == (51 if cue_encoding == "index" else 51 - 2 + 2 * emb.shape[1])


def test_sparse_first_layer_equals_the_dense_linear_layer():
    g = HuesCuesVectorGame(64, PLAYERS[:64], seed=2)
    enc = FlatEncoder(g)
    g.reset(seed=2)
    for _ in range(25):
        g.step(g.random_actions())
    idx, val = enc.sparse(g.rows, g.current)
    dense = enc.encode(g.rows, g.current)
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((enc.size, 8)).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    np.testing.assert_allclose(sparse_linear(idx, val, w, b), dense @ w + b, rtol=1e-5, atol=1e-4)
    torch = pytest.importorskip("torch")
    bag = torch.nn.functional.embedding_bag(
        torch.as_tensor(idx).long(), torch.as_tensor(w), per_sample_weights=torch.as_tensor(val), mode="sum"
    )
    np.testing.assert_allclose(bag.numpy(), dense @ w, rtol=1e-5, atol=1e-4)


def test_in_place_dense_buffer_equals_fresh_observations():
    fresh = SelfPlayVectorEnv(48, PLAYERS[:48], seed=5)
    inplace = SelfPlayVectorEnv(48, PLAYERS[:48], seed=5, copy=False)
    a, b = fresh.reset(seed=5), inplace.reset(seed=5)
    buffer = b.observation
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(150):
        assert b.observation is buffer  # one array, overwritten in place
        assert a.observation.tobytes() == b.observation.tobytes()
        actions = _legal(a.action_mask, rng)
        a, b = fresh.step(actions), inplace.step(actions)
        ends += int(a.terminated.sum())
    assert ends > 0


def test_sparse_observation_mode_in_the_gymnasium_env():
    env = gymnasium.make_vec(
        "huesenv/Guesser-v1",
        num_envs=12,
        vectorization_mode="vector_entry_point",
        num_players=3,
        observation_mode="sparse",
    )
    dense_env = HuesCuesVectorEnv(12, 3, seed=0)
    obs, _ = env.reset(seed=0)
    dense, _ = dense_env.reset(seed=0)
    assert env.observation_space.contains(obs)
    size = dense_env.encoder.size
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(60):
        assert to_dense(obs["index"], obs["value"], size).tobytes() == dense.tobytes()
        actions = _legal(env.action_masks(), rng)
        obs, _, term, _, info = env.step(actions)
        dense, _, _, _, dinfo = dense_env.step(actions)
        for i in np.flatnonzero(term):
            ends += 1
            f = info["final_obs"][i]
            assert (
                to_dense(f["index"][None], f["value"][None], size)[0].tobytes()
                == dinfo["final_obs"][i].tobytes()
            )
    assert ends > 0


def test_new_game_rounds_without_the_caller_are_paid_in_the_new_game():
    """A slot's new game may play a round before the caller's first decision (here the caller is seat 0's
    guesser and round 0's cue giver is seat 0, played by a table): its points must not land in the old
    game's terminal step, or the games' rewards would not sum to their scores."""
    caller = np.zeros((10, 2), dtype=bool)
    caller[0, 1] = True
    env = SelfPlayVectorEnv(64, PLAYERS[:64], caller=caller, seed=8)
    ts = env.reset(seed=8)
    assert not np.asarray(ts.rewards).any()
    carried = bool(np.asarray(env.game._carry).any())  # round 0 of every game was played at the reset
    total = np.zeros((64, 10))
    games = 0
    while games < 150:
        ts = env.step(env.game.random_actions())
        total += ts.rewards
        for i in np.flatnonzero(ts.terminated):
            np.testing.assert_array_equal(total[i], ts.final_scores[i])
            total[i] = 0
            games += 1
        carried |= bool((np.asarray(env.game._carry)[ts.terminated] != 0).any())
    assert carried  # the case arose (the test can fail)


def test_outputs_kept_across_steps_never_change():
    """Step outputs are the caller's own: outputs kept whole, as a view, as a torch tensor or in an env's
    ``action_masks()`` keep their bytes."""
    env = SelfPlayVectorEnv(48, PLAYERS[:48], seed=4, observation_mode="sparse")
    gym_env = HuesCuesVectorEnv(48, PLAYERS[:48], role="cue_giver", seed=4, observation_mode="sparse")
    env.reset(seed=4)
    gym_env.reset(seed=4)
    rng = np.random.default_rng(0)
    kept: list[tuple[object, bytes]] = []

    def keep(x: object, raw: np.ndarray) -> None:
        kept.append((x, raw.tobytes()))

    torch = None
    try:
        import torch
    except ImportError:
        pass
    for i in range(60):
        ts = env.step(env.game.random_actions())
        obs, _, _, _, info = gym_env.step(_legal(gym_env.action_masks(), rng))
        if i % 4 == 0:
            keep(ts.action_mask, ts.action_mask)
            keep(ts.observation["index"], ts.observation["index"])
            keep(ts.rewards, ts.rewards)
            keep(ts.final_scores, ts.final_scores)
            keep(obs["value"], obs["value"])
            keep(gym_env.action_masks(), gym_env.action_masks())  # a view of the step's mask
        if "final_info" in info:  # the finished games' scores and the learner's points
            for value in info["final_info"].values():
                keep(value, value)
        elif i % 4 == 1:
            keep(ts.action_mask[:, :480], ts.action_mask[:, :480])  # a view keeps its base
            keep(ts.observation["value"][3], ts.observation["value"][3])
            if torch is not None:
                tensor = torch.from_numpy(ts.observation["index"])
                kept.append((tensor, tensor.numpy().tobytes()))
        for x, raw in kept:
            now = x.numpy() if torch is not None and isinstance(x, torch.Tensor) else x
            assert now.tobytes() == raw
    assert len(kept) > 60


def test_torch_sparse_and_in_place_forms_match_numpy_rules():
    torch = pytest.importorskip("torch")
    fresh = SelfPlayVectorEnv(32, PLAYERS[:32], xp=torch, device="cpu", seed=6)
    inplace = SelfPlayVectorEnv(32, PLAYERS[:32], xp=torch, device="cpu", seed=6, copy=False)
    sparse = SelfPlayVectorEnv(32, PLAYERS[:32], xp=torch, device="cpu", seed=6, observation_mode="sparse")
    steps = [env.reset(seed=6) for env in (fresh, inplace, sparse)]
    rng = np.random.default_rng(2)
    size = fresh.encoder.size
    for _ in range(80):
        a, b, c = steps
        assert torch.equal(a.observation, b.observation)
        sp = c.observation
        assert sp["index"].dtype == torch.int32 and sp["value"].dtype == torch.float32
        assert torch.equal(to_dense(sp["index"], sp["value"], size), a.observation)
        actions = torch.as_tensor(_legal(a.action_mask.numpy(), rng))
        steps = [env.step(actions) for env in (fresh, inplace, sparse)]


def _script(name: str) -> str:
    from pathlib import Path

    return str(Path(__file__).resolve().parents[1] / "benchmarks" / name)


@pytest.mark.integration  # runs each script as a command in a new interpreter
@pytest.mark.parametrize(
    ("name", "args", "expect"),
    [
        (
            "gpu_vector_check.py",
            [
                "--device",
                "cpu",
                "--num-games",
                "32",
                "--cpu-games",
                "32",
                "--seconds",
                "0.05",
                "--equivalence",
                "3",
            ],
            "equivalence on cpu",
        ),
        (
            "bench_vector_game.py",
            ["--num-games", "32", "--seconds", "0.15", "--equivalence", "3"],
            "vector + sparse observation",
        ),
    ],
)
def test_vector_benchmark_scripts_run_without_a_gpu(tmp_path, name, args, expect):
    """The prepared one-command scripts stay runnable (tiny sizes, CPU only; their numbers are not checked)."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    out = subprocess.run(
        [sys.executable, "-P", _script(name), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert expect in out.stdout


def test_a_recycled_buffer_is_never_reachable_from_a_dropped_output():
    """Dropped outputs' buffers are reused, each time under a new array object: a weak reference to a
    dropped output is dead, and a held output's buffer is not reused."""
    import weakref

    env = SelfPlayVectorEnv(16, PLAYERS[:16], seed=5, observation_mode="sparse")
    env.reset(seed=5)
    first = env.step(env.game.random_actions()).action_mask
    ref, base = weakref.ref(first), id(first.base)  # the id: a reference would hold the buffer
    held = env.step(env.game.random_actions()).action_mask
    del first
    later = env.step(env.game.random_actions()).action_mask
    assert ref() is None and id(later.base) == base  # the buffer came back, the old array did not
    assert held.base is not later.base


def test_fresh_flat_observations_from_recycled_buffers_are_exact_and_kept():
    """The default flat observation (recycled buffers cleared entry by entry) equals the zeroed dense
    encoding every step, and the arrays a caller keeps (whole or as a view) never change."""
    env = HuesCuesVectorEnv(24, PLAYERS[:24], opponents="random", seed=6)
    obs, _ = env.reset(seed=6)
    rng = np.random.default_rng(1)
    kept: list[tuple[np.ndarray, bytes]] = []
    for i in range(80):
        g = env.game
        assert obs.tobytes() == to_dense(*env.encoder.sparse(g.rows, g.current), env.encoder.size).tobytes()
        if i % 3 == 0:
            kept.append((obs if i % 2 else obs[2:5], (obs if i % 2 else obs[2:5]).tobytes()))
        obs, *_ = env.step(_legal(env.action_masks(), rng))
        assert all(x.tobytes() == raw for x, raw in kept)
