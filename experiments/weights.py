"""Checking that model weights are on disk before a sweep starts, so it fails fast instead of downloading.

How a user provides the weights of an open_clip checkpoint (any one works).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.weights``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

CHECKPOINT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")
HOW_TO_PROVIDE = (
    "Provide the weights in one of three ways: (1) an existing Hugging Face cache (set HF_HOME or HF_HUB_CACHE "
    "to the folder holding 'hub/'), (2) open_clip's URL cache in ~/.cache/clip, or (3) local checkpoint files "
    "'<model>-<tag>.safetensors|.bin|.pt|.pth' in a folder given as --set weights.dir=/path. "
    "Nothing is downloaded: the sweep runs with HF_HUB_OFFLINE=1."
)


@dataclass(frozen=True)
class WeightCheck:
    name: str  # "<model>-<tag>" as in the paper's Table 5
    model: str | None
    tag: str | None
    path: str | None  # where the weights were found; None = missing

    @property
    def found(self) -> bool:
        return self.path is not None


@lru_cache(maxsize=1)
def _pretrained_pairs() -> tuple[tuple[str, str], ...]:
    import open_clip

    return tuple((m, t) for m, t in open_clip.list_pretrained())


def split_checkpoint_name(name: str) -> tuple[str, str]:
    """Split the paper's ``<model>-<tag>`` into open_clip's (model, tag) pair.

    The dash is ambiguous (model names contain dashes), so the split is looked up
    in ``open_clip.list_pretrained()``; ``model/tag`` is accepted too.
    """
    if "/" in name:
        model, tag = name.split("/", 1)
        return model, tag
    matches = [(m, t) for m, t in _pretrained_pairs() if f"{m}-{t}" == name]
    if not matches:
        raise ValueError(
            f"checkpoint {name!r}: not an open_clip '<model>-<pretrained tag>' pair "
            f"(see open_clip.list_pretrained())"
        )
    return max(matches, key=lambda mt: len(mt[0]))


def _local_file(folder: str | None, model: str, tag: str) -> str | None:
    if not folder:
        return None
    for stem in (f"{model}-{tag}", f"{model}_{tag}", f"{model}/{tag}"):
        for suffix in CHECKPOINT_SUFFIXES:
            path = Path(folder) / f"{stem}{suffix}"
            if path.is_file():
                return str(path)
    return None


def _hf_cached(hub: str) -> str | None:
    """open_clip's ``hf_hub`` field is ``org/repo/`` (default file names) or ``org/repo/<file>``;
    like open_clip, a ``.safetensors`` alternative is preferred."""
    from huggingface_hub import try_to_load_from_cache
    from open_clip.constants import HF_SAFE_WEIGHTS_NAME, HF_WEIGHTS_NAME

    parts = hub.strip("/").split("/")
    repo_id, filename = "/".join(parts[:2]), "/".join(parts[2:])
    if filename:
        names = [filename[:-4] + ".safetensors"] if filename.endswith((".bin", ".pth")) else []
        names.append(filename)
    else:
        names = [HF_SAFE_WEIGHTS_NAME, HF_WEIGHTS_NAME]
    for name in names:
        hit = try_to_load_from_cache(repo_id, name)
        if isinstance(hit, str):
            return hit
    return None


def _url_cached(url: str, cache_dir: str | None = None) -> str | None:
    if not url:
        return None
    folder = Path(cache_dir or os.path.expanduser("~/.cache/clip"))
    path = folder / os.path.basename(url.split("?")[0])
    return str(path) if path.is_file() else None


def check_checkpoint(name: str, weights_dir: str | None = None) -> WeightCheck:
    """Where the weights of one checkpoint are on this machine (never touches the network)."""
    import open_clip

    model, tag = split_checkpoint_name(name)
    local = _local_file(weights_dir, model, tag)
    if local:
        return WeightCheck(name, model, tag, local)
    cfg = open_clip.get_pretrained_cfg(model, tag) or {}
    hub = cfg.get("hf_hub") or ""
    found = _hf_cached(hub) if hub.strip("/") else None
    found = found or _url_cached(cfg.get("url") or "")
    return WeightCheck(name, model, tag, found)


OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


@contextmanager
def offline_env(enabled: bool = True) -> Iterator[None]:
    """Make Hugging Face / transformers refuse downloads in this process (and the workers it starts)
    while the block runs; the previous values are restored afterwards."""
    if not enabled:
        yield
        return
    saved = {k: os.environ.get(k) for k in OFFLINE_VARS}
    os.environ.update({k: "1" for k in OFFLINE_VARS})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def require_weights(names: list[str], weights_dir: str | None = None) -> list[WeightCheck]:
    """Check every checkpoint; raise ``FileNotFoundError`` with :data:`HOW_TO_PROVIDE` if any is missing."""
    checks = [check_checkpoint(n, weights_dir) for n in names]
    missing = [c.name for c in checks if not c.found]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise FileNotFoundError(
            f"weights missing for {len(missing)} of {len(names)} checkpoint(s): {shown}. {HOW_TO_PROVIDE}"
        )
    return checks


def local_spec(check: WeightCheck, weights_dir: str | None) -> str | None:
    """``clip:<model>/<file>`` when the weights are a local file from ``weights_dir`` (ClipAgent takes a path
    as ``pretrained``); ``None`` when they come from a cache and the usual spec works."""
    if check.path and weights_dir and Path(check.path).parent.resolve() == Path(weights_dir).resolve():
        return f"clip:{check.model}/{check.path}"
    return None
