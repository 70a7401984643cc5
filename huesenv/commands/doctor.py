"""``huesenv doctor``: what this installation can do — versions, extras, devices, weight caches, offline mode.

Why: "it downloads on the cluster node" and "it is slow because it runs on the CPU"
are the two usual surprises; one command shows where weights would be looked up,
what is already cached, which devices torch sees, and whether downloads are off.
Nothing is downloaded and no model is loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from huesenv.experiments.provenance import git_commit, library_versions, package_version

# environment variables that decide where weights live and whether anything may be downloaded
ENV_VARS: tuple[str, ...] = (
    "HF_HOME",
    "HF_HUB_CACHE",
    "HUGGINGFACE_HUB_CACHE",
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "HF_DATASETS_OFFLINE",
    "TORCH_HOME",
    "XDG_CACHE_HOME",
    "HUESENV_CACHE",
    "WANDB_MODE",
    "WANDB_PROJECT",
    "WANDB_ENTITY",
    "WANDB_DIR",
    "CUDA_VISIBLE_DEVICES",
)
EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([\w.-]+)["']""")
REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
MAX_FILES = 20_000  # stop counting a cache's size after this many files (a huge cache must not stall)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="print versions, installed extras, devices and model-weight caches",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.set_defaults(func=run)


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def extras() -> dict[str, dict[str, Any]]:
    """Per extra of huesenv: its requirements and whether each is installed."""
    try:
        requires = metadata.metadata("huesenv").get_all("Requires-Dist") or []
    except metadata.PackageNotFoundError:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for text in requires:  # e.g. 'open_clip_torch>=2.24; extra == "clip"'
        marker = EXTRA_MARKER.search(text)
        name = REQUIREMENT_NAME.match(text)
        if marker is None or name is None or name.group(0) == "huesenv":  # "all" = the other extras
            continue
        entry = out.setdefault(marker.group(1), {"packages": {}, "installed": True})
        version = _version(name.group(0))
        entry["packages"][name.group(0)] = version
        entry["installed"] = entry["installed"] and version is not None
    return out


def devices() -> dict[str, Any]:
    """What torch sees (only when torch is installed; importing it takes a moment)."""
    if _version("torch") is None:
        return {"torch": None}
    import torch

    info: dict[str, Any] = {"torch": torch.__version__, "cuda_available": torch.cuda.is_available()}
    if torch.cuda.is_available():
        info["cuda"] = [
            {
                "index": i,
                "name": torch.cuda.get_device_name(i),
                "memory_gib": round(torch.cuda.get_device_properties(i).total_memory / 2**30, 1),
            }
            for i in range(torch.cuda.device_count())
        ]
        info["cuda_version"] = torch.version.cuda
    mps = getattr(torch.backends, "mps", None)
    info["mps_available"] = bool(mps and mps.is_available())
    info["auto_device"] = "cuda" if info["cuda_available"] else "cpu"
    info["cpu_threads"] = torch.get_num_threads()
    return info


def _size(path: Path) -> tuple[int, int, bool]:
    """(files, bytes, complete) of a folder, counting at most MAX_FILES files."""
    files = size = 0
    for root, _, names in os.walk(path):
        for name in names:
            files += 1
            try:
                size += (Path(root) / name).stat().st_size
            except OSError:
                pass
            if files >= MAX_FILES:
                return files, size, False
    return files, size, True


def caches() -> dict[str, dict[str, Any]]:
    """Where each library looks for weights, and what is there."""
    home = Path(
        os.environ.get("HF_HOME") or Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")) / "huggingface"
    )
    hub = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE") or str(home / "hub")
    torch_home = os.environ.get("TORCH_HOME") or str(
        Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")) / "torch"
    )
    places = {
        "huggingface hub (open_clip hf-hub: and most tags, transformers, sentence-transformers)": hub,
        "open_clip URL downloads (older OpenAI / LAION tags)": "~/.cache/clip",
        "torch hub": torch_home,
        "huesenv (CLIP board and text embeddings, .npz)": os.environ.get("HUESENV_CACHE")
        or "~/.cache/huesenv",
    }
    out = {}
    for what, raw in places.items():
        path = Path(raw).expanduser()
        entry: dict[str, Any] = {"path": str(path), "exists": path.is_dir()}
        if path.is_dir():
            files, size, complete = _size(path)
            entry.update(files=files, mib=round(size / 2**20, 1), complete_count=complete)
            if "hub" in what:
                entry["models"] = sorted(p.name for p in path.glob("models--*"))[:50]
        out[what] = entry
    return out


def offline() -> dict[str, Any]:
    on = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes")
    return {
        "hf_hub_offline": on,
        "note": "downloads are off (HF_HUB_OFFLINE=1)"
        if on
        else "the hub may download missing weights; `huesenv tournament` switches it off while it runs",
    }


def report() -> dict[str, Any]:
    return {
        "huesenv": package_version(),
        "git_commit": git_commit(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "executable": sys.executable,
        "libraries": library_versions(),
        "extras": extras(),
        "devices": devices(),
        "caches": caches(),
        "offline": offline(),
        "environment": {k: os.environ[k] for k in ENV_VARS if k in os.environ and "KEY" not in k},
        "wandb_api_key": "set" if os.environ.get("WANDB_API_KEY") else "not set",
    }


def _print_text(info: dict[str, Any]) -> None:
    print(f"huesenv {info['huesenv']} (commit {info['git_commit'] or 'n/a'}), Python {info['python']}")
    print(f"  {info['platform']}; {info['executable']}")
    print("libraries:")
    for name, version in info["libraries"].items():
        print(f"  {name:<22} {version or '-- not installed'}")
    print("extras (pip install 'huesenv[NAME]'):")
    for name, entry in info["extras"].items():
        missing = [p for p, v in entry["packages"].items() if v is None]
        state = "installed" if entry["installed"] else f"missing {', '.join(missing)}"
        print(f"  {name:<8} {state}")
    dev = info["devices"]
    print("devices:")
    if dev.get("torch") is None:
        print("  torch not installed: model agents unavailable (extras embed, clip, vlm)")
    else:
        print(
            f"  torch {dev['torch']}; --device auto -> {dev['auto_device']}; CPU threads {dev['cpu_threads']}"
        )
        for gpu in dev.get("cuda", []):
            print(
                f"  cuda:{gpu['index']}  {gpu['name']}  {gpu['memory_gib']} GiB (CUDA {dev.get('cuda_version')})"
            )
        if not dev["cuda_available"]:
            print("  no CUDA device visible" + (" (MPS available)" if dev["mps_available"] else ""))
    print("weight caches:")
    for what, entry in info["caches"].items():
        if entry["exists"]:
            more = "" if entry["complete_count"] else "+"
            print(f"  {what}\n    {entry['path']}: {entry['files']}{more} files, {entry['mib']}{more} MiB")
            for model in entry.get("models", [])[:10]:
                print(f"      {model}")
        else:
            print(f"  {what}\n    {entry['path']}: (empty)")
    print(f"offline: {info['offline']['note']}")
    if info["environment"]:
        print("environment: " + ", ".join(f"{k}={v}" for k, v in info["environment"].items()))
    print(f"WANDB_API_KEY: {info['wandb_api_key']}")


def run(args: argparse.Namespace) -> int:
    info = report()
    if args.json:
        print(json.dumps(info, indent=1, default=str))
    else:
        _print_text(info)
    return 0
