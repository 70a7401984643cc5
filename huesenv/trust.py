"""Files from users are data, never code: the one switch (``--allow-code``) that lets anything run code.

Why one process-wide switch rather than a flag threaded through every call:
an agent spec can be built from a config, a ``--set``, an ``--opt``, an env's
opponent list or a Ray worker, and every one of those paths must refuse the
same things.  The CLI grants code execution only when the user typed
``--allow-code`` (``cli.main`` wraps the command in :func:`allowing_code`);
a config file can never grant it (``experiments.config``), and a tournament
passes its recorded ``allow_code`` to the workers that build agents.

What needs the switch (:func:`require_code`):

* unpickling anything (an SB3 zip read with ``MaskablePPO.load``; huesenv
  reads such zips itself without it, see ``huesenv.agents.sb3_zip``);
* a model folder's Python (``trust_remote_code=True`` and the other keyword
  arguments in :data:`CODE_KWARGS`).
"""

from __future__ import annotations

import bz2
import contextvars
import gzip
import lzma
import os
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib import format as npy

# keyword arguments that make a library import or run code shipped with a model or file
CODE_KWARGS: tuple[str, ...] = ("trust_remote_code", "allow_pickle", "custom_objects", "code_revision")

_ALLOWED: contextvars.ContextVar[bool] = contextvars.ContextVar("huesenv_allow_code", default=False)


class CodeNotAllowedError(ValueError):
    """Something would run code from a file or model folder and ``--allow-code`` was not given."""


def code_allowed() -> bool:
    """Whether the user granted code execution (``--allow-code``) for what runs now."""
    return _ALLOWED.get()


@contextmanager
def allowing_code(allowed: bool = True) -> Iterator[None]:
    """Run the block with code execution granted (``True``) or refused (``False``)."""
    token = _ALLOWED.set(bool(allowed))
    try:
        yield
    finally:
        _ALLOWED.reset(token)


def require_code(what: str) -> None:
    """Raise :class:`CodeNotAllowedError` (one line naming ``what``) unless code execution is granted."""
    if not code_allowed():
        raise CodeNotAllowedError(f"{what}: this would run code from a file; pass --allow-code to allow it")


def code_kwargs(kwargs: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Dotted paths of the code-loading keys switched on in ``kwargs``, nested mappings included
    (``generate_kwargs.trust_remote_code``); a false value loads no code."""
    found = []
    for key, value in kwargs.items():
        path = f"{prefix}{key}"
        if key in CODE_KWARGS and value not in (False, None, "", 0):
            found.append(path)
        elif isinstance(value, Mapping):
            found += code_kwargs(value, prefix=f"{path}.")
    return found


def check_code_kwargs(kwargs: Mapping[str, Any], source: str) -> None:
    """Refuse (one line naming ``source`` and the key) code-loading keyword arguments without ``--allow-code``."""
    keys = code_kwargs(kwargs)
    if keys and not code_allowed():
        raise CodeNotAllowedError(
            f"{source}: {keys[0]} runs code shipped with the model; "
            "pass --allow-code on the command line to allow it"
        )


# Everything a tensor file may hold, in bytes: 8 bytes for each of agents.sb3_zip.MAX_PARAMETERS weights.
MAX_TENSOR_BYTES = 8 * (1 << 26)


def read_at_most(fh: Any, limit: int) -> bytes | None:
    """All of ``fh``'s bytes when they are at most ``limit``, else ``None`` (never more than ``limit + 1`` read).

    Why: a user's file or zip member may be far larger than it says (a zip records its own sizes), so
    it is read only one byte past what is allowed, whatever its header claims.
    """
    blob = fh.read(limit + 1)
    return None if len(blob) > limit else blob


class UnsafeTensorFile(ValueError):
    """A file handed to ``torch.load`` that would make it allocate more than it may (see :func:`check_tensor_archive`)."""


def check_tensor_archive(file: Any, max_bytes: int = MAX_TENSOR_BYTES) -> None:
    """Refuse, before ``torch.load``, a ``torch.save`` file whose records would decompress past ``max_bytes``.

    Why: ``torch.load`` allocates every storage of the file (inflating DEFLATE-compressed records, which
    ``torch.save`` never writes) before a caller can look at a single tensor, so a 1.6 MB file could
    claim a GB.  ``file``: a path or a seekable binary file object (left at its start).  Raises
    :class:`UnsafeTensorFile` (the problem, without the file's name: the caller names it)."""
    import zipfile

    try:
        with zipfile.ZipFile(file) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        raise UnsafeTensorFile(f"not torch.save's zip format ({err})") from None
    finally:
        if hasattr(file, "seek"):
            file.seek(0)
    total = 0
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
            raise UnsafeTensorFile(
                f"record {info.filename!r} is compressed (torch.save stores records as is)"
            )
        total += info.file_size
        if total > max_bytes:
            raise UnsafeTensorFile(f"its tensors hold more than {max_bytes:,} bytes; refused")


# Caps on any file a user hands in (configs, exports, logs read whole): on disk, and once inflated.
MAX_FILE_BYTES = 256 << 20
MAX_INFLATED_BYTES = 256 << 20
_INFLATERS: dict[str, Any] = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def read_user_bytes(
    path: str | os.PathLike[str], *, max_bytes: int | None = None, max_inflated: int | None = None
) -> bytes:
    """The bytes of a user's file (a ``.gz``/``.bz2``/``.xz`` one inflated), never more than its caps read.

    Why: a 14 MB gzip can inflate to gigabytes; the one reader every user file goes through stops one byte
    past the cap and says which cap (``ValueError``, one line naming the file)."""
    path = Path(path)
    max_bytes = max_bytes or MAX_FILE_BYTES
    max_inflated = max_inflated or MAX_INFLATED_BYTES
    size = path.stat().st_size
    if size > max_bytes:
        raise ValueError(f"{path}: {size:,} bytes, more than the {max_bytes:,} allowed; refused")
    inflate = _INFLATERS.get(path.suffix.lower())
    try:
        with (inflate or open)(path, "rb") as fh:
            blob = read_at_most(fh, max_inflated if inflate else max_bytes)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as err:
        raise ValueError(f"{path}: not a readable {path.suffix} file ({type(err).__name__})") from None
    if blob is None:
        raise ValueError(f"{path}: inflates past the {max_inflated:,} bytes allowed; refused")
    return blob


def read_user_text(
    path: str | os.PathLike[str],
    *,
    encoding: str = "utf-8",
    expected: str = "a text file",
    max_bytes: int | None = None,
) -> str:
    """:func:`read_user_bytes` decoded (``ValueError`` naming the file and byte when it is not ``encoding``)."""
    try:
        return read_user_bytes(path, max_bytes=max_bytes, max_inflated=max_bytes).decode(encoding)
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text (byte {err.start}); expected {expected}") from None


def check_parquet(path: str | os.PathLike[str]) -> None:
    """Refuse, before reading it, a Parquet file over :data:`MAX_FILE_BYTES` or whose columns inflate past
    ``max_inflated`` (its footer records every row group's size)."""
    import pyarrow.parquet as pq

    path = Path(path)
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"{path}: more than the {MAX_FILE_BYTES:,} bytes allowed; refused")
    try:
        meta = pq.ParquetFile(path).metadata
    except Exception as err:  # noqa: BLE001 - any unreadable footer is the same user mistake
        raise ValueError(f"{path}: not a readable Parquet file ({type(err).__name__})") from None
    total = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if total > MAX_INFLATED_BYTES:
        raise ValueError(f"{path}: inflates past the {MAX_INFLATED_BYTES:,} bytes allowed; refused")


def check_npz(path: str | os.PathLike[str], max_bytes: int = MAX_TENSOR_BYTES) -> None:
    """Refuse (``ValueError`` naming the file), before ``np.load``, an ``.npz`` whose arrays declare more
    bytes than they store or than ``max_bytes`` in all, or hold Python objects.

    Why: ``np.load`` allocates the shape an array's header declares before it reads a byte, so a 1 kB
    member claiming ``(480, 10**9)`` floats is a 1.75 TiB ``MemoryError``."""
    import zipfile

    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                with archive.open(info) as fh:
                    major, _minor = npy.read_magic(fh)
                    header = npy.read_array_header_1_0 if major == 1 else npy.read_array_header_2_0
                    shape, _order, dtype = header(fh)
                need = int(np.prod(shape, dtype=object)) * dtype.itemsize
                total += need
                if dtype.hasobject or need > info.file_size or total > max_bytes:
                    raise UnsafeTensorFile(
                        f"{path}: not a readable npz file: array {info.filename!r} declares {shape} {dtype} "
                        f"({need:,} bytes, {info.file_size:,} stored, {max_bytes:,} allowed in all); refused"
                    )
    except UnsafeTensorFile:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:
        raise ValueError(f"{path}: not a readable npz file ({str(err)[:200]})") from None
