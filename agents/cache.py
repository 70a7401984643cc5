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


VERIFY_ROWS = (
    4  # rows re-encoded when a cache file is opened (a poisoned or stale file is caught and rebuilt)
)


def content_digest(texts: np.ndarray, embeddings: np.ndarray) -> str:
    """SHA-256 of a cache file's texts and float32 rows: catches a row edited or torn without the writer."""
    h = hashlib.sha256()
    for t in texts.tolist():
        h.update(str(t).encode("utf-8") + b"\x1f")
    h.update(np.ascontiguousarray(embeddings, dtype=np.float32).tobytes())
    return h.hexdigest()


def cache_problem(data: Mapping[str, np.ndarray]) -> str | None:
    """Why a text-embedding cache file cannot be used as it is (``None`` when its structure holds)."""
    texts, rows = data.get("texts"), data.get("embeddings")
    if texts is None or rows is None or "digest" not in data:
        return "missing texts/embeddings/digest"
    if texts.ndim != 1 or texts.dtype.kind != "U":
        return f"texts: expected a 1-D string array, got {texts.dtype} {texts.shape}"
    if rows.dtype != np.float32 or rows.ndim != 2 or rows.shape[0] != texts.shape[0] or rows.shape[1] < 1:
        return f"embeddings: expected float32 ({len(texts)}, dim), got {rows.dtype} {rows.shape}"
    if not np.isfinite(rows).all():
        return "embeddings: not finite"
    if str(data["digest"]) != content_digest(texts, rows):
        return "content digest does not match (edited or torn)"
    return None


class TextEmbeddingCache:
    """Word → embedding rows, in memory and (optionally) in one npz file per model + prompt template.

    A file is used only after checks (:func:`cache_problem`: shape, dtype,
    finite values, a content digest over texts and rows), and whenever the model
    has to load anyway (some text is not cached) :meth:`verify` re-encodes a few
    cached rows with it: a file failing either is dropped and re-encoded
    (``rejected`` says why), never used.  The digest catches a row edited or torn
    by anything but this writer; it is integrity, not authentication (someone
    who can write the cache folder can also recompute it), so keep
    ``$HUESENV_CACHE`` writable only by you.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._rows: dict[str, np.ndarray] = {}
        self._dirty = False
        self._verified = path is None
        self.rejected: str | None = None
        if path is not None:
            data = load_arrays(path)
            if data is not None:
                self.rejected = cache_problem(data)
                if self.rejected is None:
                    for text, row in zip(data["texts"].tolist(), data["embeddings"]):
                        self._rows[str(text)] = row
                else:
                    self._dirty = True

    def verify(self, encode, atol: float = 1e-4) -> None:
        """Re-encode a few cached rows once; any that differ (a poisoned or stale file) drop the whole file."""
        if self._verified:
            return
        self._verified = True
        texts = list(self._rows)
        if not texts:
            return
        picks = [texts[i] for i in np.linspace(0, len(texts) - 1, min(VERIFY_ROWS, len(texts))).astype(int)]
        fresh = np.asarray(encode(picks), dtype=np.float32)
        cached = np.stack([self._rows[t] for t in picks])
        if fresh.shape != cached.shape or not np.allclose(fresh, cached, atol=atol, rtol=1e-3):
            self.rejected = "cached rows differ from the model's (poisoned or stale)"
            self._rows, self._dirty = {}, True

    def get(self, texts: list[str]) -> list[np.ndarray | None]:
        return [self._rows.get(t) for t in texts]

    def missing(self, texts: list[str]) -> list[str]:
        return list(dict.fromkeys(t for t in texts if t not in self._rows))

    def put(self, texts: list[str], embeddings: np.ndarray) -> None:
        embeddings = np.asarray(embeddings, dtype=np.float32)
        known = next(iter(self._rows.values()), None)
        if known is not None and embeddings.ndim == 2 and known.shape[-1] != embeddings.shape[1]:
            self.rejected = (
                f"cached rows have dimension {known.shape[-1]}, the model gives {embeddings.shape[1]}"
            )
            self._rows = {}  # a file from another model: never mix dimensions (numpy would fail in stack)
        for t, row in zip(texts, np.asarray(embeddings, dtype=np.float32)):
            self._rows[t] = row
        self._dirty = self._dirty or bool(texts)

    def stack(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._rows[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)

    def embed(self, texts: list[str], encode) -> np.ndarray:
        """The rows of ``texts``, encoding (and saving) only the missing ones.

        The model loads anyway when a row is missing, so a few cached rows are
        checked against it first (:meth:`verify`).
        """
        if self.missing(texts):
            self.verify(encode)
            missing = self.missing(texts)
            self.put(missing, encode(missing))
            self.flush()
        return self.stack(texts)

    def flush(self) -> None:
        if self.path is None or not self._dirty or not self._rows:
            return
        texts = np.asarray(list(self._rows), dtype=str)
        rows = np.stack([self._rows[t] for t in texts.tolist()]).astype(np.float32)
        save_arrays(
            self.path, {"texts": texts, "embeddings": rows, "digest": np.asarray(content_digest(texts, rows))}
        )
        self._dirty = False
