"""Device and precision choice for the torch-backed agents.

``device="auto"`` picks the first CUDA device when torch sees one, else the CPU.
Half precision (fp16) is used on GPUs and fp32 on the CPU, where fp16 matmuls are
slow or unsupported; ``precision`` overrides that.
"""

from __future__ import annotations

import re

from huesenv.agents.registry import has_capability

_DEVICE_RE = re.compile(r"^(auto|cpu|cuda|cuda:\d+|mps)$")


def resolve_device(device: str | None = "auto") -> str:
    """Return a concrete torch device string for ``"auto"|"cpu"|"cuda[:n]"`` (``ValueError`` otherwise)."""
    spec = "auto" if device is None else str(device).strip().lower()
    if not _DEVICE_RE.match(spec):
        raise ValueError(f"device {device!r}: expected 'auto', 'cpu', 'cuda' or 'cuda:<n>'")
    if spec == "auto":
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    if spec.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ValueError(f"device {device!r}: torch sees no CUDA device")
        if ":" in spec and int(spec.split(":")[1]) >= torch.cuda.device_count():
            raise ValueError(f"device {device!r}: only {torch.cuda.device_count()} CUDA device(s) visible")
    return spec


def resolve_precision(device: str, precision: str | None = None) -> str:
    """``"fp16"`` on CUDA, ``"fp32"`` elsewhere, unless ``precision`` says otherwise."""
    if precision is None or precision == "auto":
        return "fp16" if device.startswith("cuda") else "fp32"
    if precision not in {"fp16", "bf16", "fp32"}:
        raise ValueError(f"precision {precision!r}: expected 'auto', 'fp16', 'bf16' or 'fp32'")
    return precision


def torch_dtype(precision: str):
    """The torch dtype of a precision name."""
    import torch

    return {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[precision]


def with_device(spec: str, kwargs: dict, device: str | None) -> dict:
    """``kwargs`` plus ``device`` for a spec whose kind takes one (``AgentKind.takes_device``; ``--device`` of
    the CLI), unchanged for the others and when ``device`` is None or the kwargs already name one."""
    if device is None or "device" in kwargs or not has_capability(spec, "takes_device"):
        return dict(kwargs)
    if not _DEVICE_RE.match(str(device).strip().lower()):
        raise ValueError(f"--device {device!r}: expected 'auto', 'cpu', 'cuda' or 'cuda:<n>'")
    return {**kwargs, "device": device}
