"""On-disk embedding cache: npz files (``allow_pickle=False``), keys that cannot leave the folder.

Why npz: it stores plain arrays (no pickle, so loading a cache file never runs
code) and needs nothing beyond numpy.  Why hashed keys: model names come from
users and hubs (``hf-hub:org/name``, local paths, ``../``); a file name is the
sanitised name (letters, digits, ``.-_`` only, truncated) plus a SHA-256 of every
part of the key, so two keys never share a file and no key can name a path
outside the cache folder.

The folder is ``$HUESENV_CACHE`` or ``~/.cache/huesenv`` (``cache_dir`` overrides);
``cache_dir=False`` disables disk caching.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def default_cache_dir() -> Path:
    env = os.environ.get("HUESENV_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "huesenv"


def resolve_cache_dir(cache_dir: str | os.PathLike | bool | None) -> Path | None:
    """``None``/``True`` → the default folder; ``False`` → no disk cache; else the given folder."""
    if cache_dir is False:
        return None
    if cache_dir is None or cache_dir is True:
        return default_cache_dir()
    return Path(cache_dir)


def cache_key(*parts: object) -> str:
    """A file-name-safe key: sanitised readable prefix + SHA-256 of all parts."""
    digest = hashlib.sha256("\x1f".join(repr(p) for p in parts).encode("utf-8")).hexdigest()[:32]
    readable = _UNSAFE.sub("_", "-".join(str(p) for p in parts[:2])).strip("._-")[:60] or "key"
    return f"{readable}-{digest}"


def cache_path(cache_dir: Path, kind: str, *parts: object) -> Path:
    """The file for a key inside ``cache_dir/<kind>/``; always a direct child of that folder."""
    folder = Path(cache_dir) / _UNSAFE.sub("_", kind)
    path = folder / f"{cache_key(*parts)}.npz"
    if path.resolve().parent != folder.resolve():  # defensive: cannot happen with the sanitised key
        raise ValueError(f"cache key for {parts!r} escapes {folder}")
    return path


def load_arrays(path: Path) -> dict[str, np.ndarray] | None:
    """Arrays of a cache file, or ``None`` when absent or unreadable (a corrupt file is ignored and rewritten)."""
    try:
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile):
        return None


def save_arrays(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write atomically (temp file + rename) so a crash never leaves a half-written cache file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **{k: np.asarray(v) for k, v in arrays.items()})  # type: ignore[arg-type]  # numpy's stub types **kwds as allow_pickle
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class TextEmbeddingCache:
    """Word → embedding rows, in memory and (optionally) in one npz file per model + prompt template."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._rows: dict[str, np.ndarray] = {}
        self._dirty = False
        if path is not None:
            data = load_arrays(path)
            if data is not None and "texts" in data and "embeddings" in data:
                for text, row in zip(data["texts"].tolist(), data["embeddings"]):
                    self._rows[str(text)] = row

    def get(self, texts: list[str]) -> list[np.ndarray | None]:
        return [self._rows.get(t) for t in texts]

    def missing(self, texts: list[str]) -> list[str]:
        return list(dict.fromkeys(t for t in texts if t not in self._rows))

    def put(self, texts: list[str], embeddings: np.ndarray) -> None:
        for t, row in zip(texts, np.asarray(embeddings, dtype=np.float32)):
            self._rows[t] = row
        self._dirty = self._dirty or bool(texts)

    def stack(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._rows[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)

    def flush(self) -> None:
        if self.path is None or not self._dirty or not self._rows:
            return
        texts = list(self._rows)
        save_arrays(
            self.path,
            {"texts": np.asarray(texts, dtype=str), "embeddings": np.stack([self._rows[t] for t in texts])},
        )
        self._dirty = False
