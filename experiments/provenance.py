"""Where a run's numbers come from: the human reference it was scored against, versions, commit, config hash.

Why: a leaderboard is only comparable with another one scored against the same
human answers by the same code.  ``summary.json`` carries this block, the
report prints it in its header, and ``huesenv leaderboard`` refuses to merge
runs whose human references differ (:attr:`HumanReference.key`).
"""

from __future__ import annotations

import hashlib
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from huesenv import __version__
from huesenv.humans.reference import (
    HumanReference as HumanReference,  # re-exported: one description everywhere
)

# the libraries whose versions change numbers or files (reported in summary.json and by `huesenv doctor`)
LIBRARIES: tuple[str, ...] = (
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "colour-science",
    "matplotlib",
    "gymnasium",
    "pettingzoo",
    "torch",
    "sentence-transformers",
    "open_clip_torch",
    "transformers",
    "pygame",
    "wandb",
    "ray",
    "flask",
)


def library_versions(names: tuple[str, ...] = LIBRARIES) -> dict[str, str | None]:
    """Installed version of each library (None when not installed)."""
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def git_commit(start: Path | None = None) -> str | None:
    """The commit of the checkout huesenv runs from (``-dirty`` when modified); None outside git."""
    here = Path(start or Path(__file__).resolve().parent)
    try:
        head = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5
        )
        if head.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def package_version() -> str:
    return __version__


def config_hash(config: Any) -> str:
    """SHA-256 of the resolved config (canonical YAML), the full one, not only its identity keys."""
    return hashlib.sha256(config.to_yaml().encode()).hexdigest()


def run_metadata(config: Any) -> dict[str, Any]:
    """The provenance block of ``summary.json``."""
    return {
        "huesenv_version": package_version(),
        "git_commit": git_commit(),
        "config_hash": config_hash(config),
        "config_fingerprint": config.fingerprint(),
        "run_id": config.run_id,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "libraries": {k: v for k, v in library_versions().items() if v is not None},
    }
