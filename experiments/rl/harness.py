"""What every ``huesenv train`` trainer shares: its config model, the run folder, device and threads,
the resume check, atomic state files, one time-budget rule, and the summary.

Why one harness: the three trainers (``ppo_fast``, ``selfplay``, ``sb3_train``)
had each written these, with the same error text copied and the time budget
meaning "stop before exceeding" in two and "stop after reaching" in the third.
The algorithms stay in their own modules, readable top to bottom; they call
this module at the few points where a run touches the disk or the clock.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.rl.harness``.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator

from huesenv.agents.devices import resolve_device
from huesenv.atomic import write_bytes_atomic, write_text_atomic, write_with
from huesenv.trust import UnsafeTensorFile, check_tensor_archive, read_user_bytes
from huesenv.validation import StrictModel, did_you_mean, shown

# the number types of the trainers' fields: NaN and infinity are never a hyper-parameter
PositiveFloat = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegativeFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
UnitFloat = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
PositiveInt = Annotated[int, Field(ge=1)]
DEVICE_RE = re.compile(r"auto|cpu|mps|cuda(:\d{1,3})?")
# Fields that size an allocation (envs, games, layers, batches), bounded before anything is built:
# ``--set num_envs=100000000`` is a one-line error, not gigabytes.
SIZE_CAPS: dict[str, int] = {
    "num_envs": 1 << 16,
    "num_games": 1 << 16,
    "num_steps": 1 << 12,
    "hidden": 1 << 13,
    "eval_decisions": 1 << 20,
    "batch_decisions": 1 << 20,
    "eval_games": 1 << 16,
    "guessers": 64,
    "num_minibatches": 1 << 16,
    "update_epochs": 1 << 10,
    "n_steps": 1 << 16,
    "batch_size": 1 << 16,
    "n_epochs": 1 << 10,
}


class TrainerConfig(StrictModel):
    """Fields every trainer has; subclasses add their hyper-parameters and ``RESUME_FIXED``
    (the project's :class:`~huesenv.validation.StrictModel`: unknown keys refused, no silent coercion)."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=True)

    seed: Annotated[int, Field(ge=0)] = 0
    device: str = "auto"
    time_budget_s: PositiveFloat | None = None
    budget_clock: Literal["wall", "cpu"] = "wall"  # the clock time_budget_s is read on (module docstring)
    torch_threads: PositiveInt | None = None

    RESUME_FIXED: ClassVar[tuple[str, ...]] = ("seed",)

    @model_validator(mode="after")
    def _sizes(self) -> Any:
        for name, cap in SIZE_CAPS.items():
            value = getattr(self, name, None)
            if isinstance(value, int) and value > cap:
                raise ValueError(f"{name}: expected at most {cap:,}, got {shown(value)}")
        layers = getattr(self, "net_arch", ())
        if len(layers) > 16 or any(width > SIZE_CAPS["hidden"] for width in layers):
            raise ValueError(
                f"net_arch: expected at most 16 layers of at most {SIZE_CAPS['hidden']:,}, got {shown(layers)}"
            )
        return self

    @field_validator("device")
    @classmethod
    def _device(cls, value: str) -> str:
        if not DEVICE_RE.fullmatch(value.strip().lower()):
            raise ValueError(f"device: expected auto, cpu, mps, cuda or cuda:<n>, got {value!r}")
        return value.strip().lower()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "trainer config") -> Any:
        """Build from plain data; ``ValueError`` (one line naming ``source`` and the field) on anything wrong."""
        known = sorted(cls.model_fields)
        unknown = sorted(str(key) for key in set(data) - set(known))
        if unknown:
            # the phrase of every config error (huesenv.validation.describe_error): key, did-you-mean, choices
            key = repr(unknown[0]) if len(unknown) == 1 else str(unknown)
            raise ValueError(
                f"{source}: unknown config key{'s' if len(unknown) > 1 else ''} {key}"
                f"{did_you_mean(unknown[0], known)}; expected one of {', '.join(known)}"
            )
        try:
            return cls(**dict(data))
        except ValidationError as err:
            raise ValueError(f"{source}: {describe_validation(err)}") from None

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def check_resume(self, stored: Mapping[str, Any], state_path: Path) -> None:
        """Refuse (one line) to resume a run whose fixed fields differ from this config's."""
        for key in self.RESUME_FIXED:
            mine = self.to_dict()[key]
            field = type(self).model_fields[key]
            before = stored.get(key, field.default)  # a run from before the field existed had its default
            if isinstance(before, list) and isinstance(mine, (list, tuple)):
                before = list(before)
            if before != mine:
                raise ValueError(
                    f"{state_path}: cannot resume with {key}={shown(mine)}, the run was started with "
                    f"{shown(before)} (use a new --out or --fresh)"
                )


def describe_validation(err: ValidationError) -> str:
    """The first error of a pydantic validation as ``field: what was expected, got VALUE``."""
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"])
    if first["type"] == "value_error":
        return str(first["ctx"]["error"])
    return f"{loc}: {first['msg'].lower()}, got {shown(first.get('input'))}"


def positive(name: str, value: int) -> int:
    if int(value) < 1:
        raise ValueError(f"{name}: expected a positive integer, got {value!r}")
    return value


# -- the run ---------------------------------------------------------------------------------------------------
def start_run(run_dir: str | Path, cfg: TrainerConfig) -> tuple[Path, str]:
    """Create the run folder, resolve the device and apply ``torch_threads``; returns ``(folder, device)``."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    device = resolve_device(cfg.device)
    if cfg.torch_threads:
        import torch

        torch.set_num_threads(int(cfg.torch_threads))
    return run_dir, device


class Clock:
    """Wall and CPU seconds of a run across its sessions (the ``before`` values come from the state)."""

    def __init__(self, wall_before: float = 0.0, cpu_before: float = 0.0) -> None:
        self.wall_before, self.cpu_before = float(wall_before), float(cpu_before)
        self._wall0, self._cpu0 = time.perf_counter(), time.process_time()

    @property
    def session_wall(self) -> float:
        return time.perf_counter() - self._wall0

    @property
    def wall(self) -> float:
        return self.wall_before + self.session_wall

    @property
    def cpu(self) -> float:
        return self.cpu_before + time.process_time() - self._cpu0


class TimeBudget:
    """The one time-budget rule (see the module docstring): :meth:`exhausted` at each boundary.

    ``measure`` is the clock: ``"wall"`` or ``"cpu"`` (a config's ``budget_clock``).
    """

    def __init__(self, budget_s: float | None, clock: Clock, measure: str = "wall") -> None:
        if measure not in ("wall", "cpu"):
            raise ValueError(f"budget_clock: expected 'wall' or 'cpu', got {measure!r}")
        self.budget_s, self.clock, self.measure = budget_s, clock, measure
        self._last = self._now()
        self.stopped = False

    def _now(self) -> float:
        return self.clock.cpu if self.measure == "cpu" else self.clock.wall

    @classmethod
    def of(cls, cfg: TrainerConfig, clock: Clock) -> TimeBudget:
        """The budget a trainer config asks for (``time_budget_s`` on ``budget_clock``)."""
        return cls(cfg.time_budget_s, clock, cfg.budget_clock)

    def exhausted(self) -> bool:
        """Whether one more unit, as long as the one that just ended, would end past the budget."""
        now = self._now()
        last_dt, self._last = now - self._last, now
        if self.budget_s is None:
            return False
        self.stopped = now + last_dt > self.budget_s
        return self.stopped


# -- state files -----------------------------------------------------------------------------------------------
def save_state(path: Path, state: Mapping[str, Any]) -> None:
    """``torch.save`` of the whole state into a temporary file renamed over ``path`` (one atomic unit)."""
    import torch

    buffer = io.BytesIO()
    torch.save(dict(state), buffer)
    write_bytes_atomic(path, buffer.getvalue())


def load_state(path: Path, device: str = "cpu") -> dict[str, Any]:
    """A state written by :func:`save_state` (tensors only, ``weights_only=True``); errors name the file."""
    import torch

    try:
        check_tensor_archive(path)
    except UnsafeTensorFile as err:
        raise ValueError(f"{path}: not a readable trainer state ({err}); use --fresh to start over") from None
    try:
        with warnings.catch_warnings():  # a foreign pickle's protocol warning: the refusal below says it
            warnings.simplefilter("ignore")
            state = torch.load(path, map_location=device, weights_only=True)
    except Exception as err:  # noqa: BLE001 - a truncated, empty or foreign file is the same user-facing fault
        raise ValueError(
            f"{path}: not a readable trainer state ({type(err).__name__}); use --fresh to start over"
        ) from None
    if not isinstance(state, dict):
        raise ValueError(f"{path}: not a trainer state (expected a mapping); use --fresh to start over")
    return state


def require(state: Mapping[str, Any], keys: tuple[str, ...], path: Path) -> None:
    if not isinstance(state, Mapping):
        raise ValueError(f"{path}: trainer state is not a mapping; use --fresh to start over")
    missing = [k for k in keys if k not in state]
    if missing:
        raise ValueError(f"{path}: trainer state lacks {missing}; use --fresh to start over")


def write_json(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, indent=1, default=list) + "\n")


def read_json(path: Path, hint: str = "use --fresh to start over") -> dict[str, Any]:
    """A JSON object from a run folder; one line naming the file when it is empty, torn or not an object."""
    try:
        data = json.loads(read_user_bytes(path))
    except (OSError, ValueError, RecursionError) as err:  # ValueError: bad UTF-8, JSON, caps, 6000-digit ints
        raise ValueError(f"{path}: not readable JSON ({str(err)[:200]}); {hint}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object; {hint}")
    return data


def write_csv(path: Path, frame: Any) -> None:
    """A pandas frame to CSV through a temporary file (a kill mid-write keeps the previous file)."""
    write_with(path, lambda tmp: frame.to_csv(tmp, index=False))


def write_summary(run_dir: Path, summary: Mapping[str, Any]) -> dict[str, Any]:
    """``train.json`` (atomic), with the machine facts every trainer reports."""
    out = dict(summary)
    out.setdefault("cpu_count", os.cpu_count())
    write_json(run_dir / "train.json", out)
    return out
