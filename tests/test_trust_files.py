"""Tiny hostile files: a checkpoint asking for 10 GB fails fast; poisoned or misshapen caches are re-encoded."""

from __future__ import annotations

import time

import numpy as np
import pytest

from huesenv.agents.cache import TextEmbeddingCache, content_digest, load_arrays, save_arrays
from huesenv.cli import main
from huesenv.vocabulary import word_texts


def _tiny_checkpoint(path, arch, state=None):
    import torch

    payload = {
        "format": "huesenv-policy",
        "format_version": 1,
        "settings": {
            "env_id": "huesenv/GuesserVector-v0",
            "role": "guesser",
            "vocabulary": list(word_texts()),
        },
        "nets": {"guesser": {"arch": arch, "state_dict": state or {}}},
        "train": {},
    }
    torch.save(payload, path)
    return path


@pytest.mark.parametrize(
    ("arch", "field"),
    [
        ({"vocab_size": 10_000_000, "hidden": 256}, "arch.vocab_size: expected 100"),
        ({"vocab_size": 100, "hidden": 10_000_000}, "arch.hidden: expected 1..8192"),
        ({"vocab_size": 100, "hidden": 16, "layers": 9}, "expected integers vocab_size and hidden"),
        ({"vocab_size": 100, "hidden": 16}, "state_dict["),
    ],
)
def test_checkpoint_architecture_checked_before_any_tensor(tmp_path, capsys, arch, field):
    path = _tiny_checkpoint(tmp_path / "bomb.pt", arch)
    assert path.stat().st_size < 4096
    t0 = time.perf_counter()
    code = main(["agents", "guess", f"policy:{path}", "BANANA"])
    elapsed = time.perf_counter() - t0
    err = capsys.readouterr().err.strip()
    assert code == 2 and field in err and "\n" not in err, err
    assert elapsed < 10  # main built a 10 GB embedding here before failing


def _encode(texts):
    """A deterministic stand-in for a text model (8-dim rows)."""
    return np.stack(
        [np.frombuffer(t.encode().ljust(32, b"_")[:32], dtype=np.uint8)[:8] / 255.0 for t in texts]
    ).astype(np.float32)


def _cache_file(tmp_path, texts=("red", "green", "blue")):
    path = tmp_path / "c.npz"
    cache = TextEmbeddingCache(path)
    cache.put(list(texts), _encode(list(texts)))
    cache.flush()
    return path


def test_cache_written_with_a_digest_is_reused(tmp_path):
    path = _cache_file(tmp_path)
    again = TextEmbeddingCache(path)
    assert again.rejected is None and again.missing(["red", "green"]) == []


def test_poisoned_row_is_dropped_and_reencoded(tmp_path):
    path = _cache_file(tmp_path)
    data = load_arrays(path)
    data["embeddings"][1] += 0.5  # a poisoned row, digest left as it was
    save_arrays(path, data)
    again = TextEmbeddingCache(path)
    assert again.rejected and "digest" in again.rejected
    assert again.missing(["red", "green", "blue"]) == ["red", "green", "blue"]


def test_poison_with_a_recomputed_digest_is_caught_by_the_model_check(tmp_path):
    path = _cache_file(tmp_path)
    data = load_arrays(path)
    data["embeddings"][0] += 0.5
    data["digest"] = np.asarray(content_digest(data["texts"], data["embeddings"]))
    save_arrays(path, data)
    again = TextEmbeddingCache(path)
    assert again.rejected is None
    again.verify(_encode)  # what the agents do when the model loads
    assert again.rejected and "differ" in again.rejected and again.missing(["red"]) == ["red"]


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.update(embeddings=d["embeddings"][:, :3].copy()),  # a wrong dimension...
        lambda d: d.update(embeddings=d["embeddings"].astype(np.float64)),
        lambda d: d.update(embeddings=d["embeddings"][:2]),
        lambda d: d.update(texts=np.arange(3)),
        lambda d: d.pop("digest"),
    ],
)
def test_misshapen_cache_is_rejected_not_a_numpy_error(tmp_path, edit):
    path = _cache_file(tmp_path)
    data = load_arrays(path)
    edit(data)
    if "digest" in data:
        data["digest"] = np.asarray(content_digest(data["texts"].astype(str), data["embeddings"]))
    save_arrays(path, data)
    again = TextEmbeddingCache(path)
    again.put(["red"], _encode(["red"]))  # the model's rows: a file of another dimension goes
    assert again.rejected
    assert again.stack(["red"]).shape == (1, 8)
    again.flush()
    assert TextEmbeddingCache(path).rejected is None  # rewritten whole
