"""Files replaced whole or not at all: write a temporary file next to the target, flush it, rename it.

Why every rewritten file goes through here: a run killed while it rewrites a
file (a full disk, SIGKILL, a power cut) must leave the old version or the new
one, never an empty or half-written file (a kill inside the ``curve.csv``
rewrite once emptied the learning curve).  ``os.replace`` is atomic on POSIX
and Windows when source and target are on the same file system, which a
sibling temporary file guarantees.  :func:`replace_file` is the single rename
point, so fault-injection tests can stop a run exactly there.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


def temporary_path(path: str | Path) -> Path:
    """The sibling temporary name used while ``path`` is being written (``name.tmp``, same folder)."""
    path = Path(path)
    return path.with_name(f".{path.name}.tmp")


def replace_file(tmp: str | Path, path: str | Path) -> None:
    """Rename ``tmp`` over ``path`` (atomic; the one rename every writer here uses)."""
    os.replace(tmp, path)


def write_with(path: str | Path, writer: Callable[[Path], object]) -> Path:
    """Call ``writer(tmp)`` to write the new content into a temporary file, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_path(path)
    try:
        writer(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        replace_file(tmp, path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        if err.filename in (str(tmp), tmp) and err.errno is not None:  # name the file the user asked for
            raise type(err)(err.errno, err.strerror, str(path)) from None
        raise
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    return write_with(path, lambda tmp: tmp.write_bytes(data))


def write_text_atomic(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    return write_with(path, lambda tmp: tmp.write_text(text, encoding=encoding))
