"""Training metrics to the terminal, a CSV learning curve, and W&B (offline by default) or TensorBoard.

Why a CSV next to the trackers: the report draws the learning curves from
``curve.csv`` in the run folder, so a run is complete and reportable without an
account or a TensorBoard install.  On resume the CSV is appended to, rows
past the resumed step having been dropped first, so a curve never holds a step twice.

``tracker``: ``"wandb"`` (mode ``offline`` unless ``wandb_mode`` says otherwise;
files under ``<run dir>/wandb``), ``"tensorboard"`` (``<run dir>/tb``; needs the
``tensorboard`` package), or ``"none"``.
"""

from __future__ import annotations

import csv
import io
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from huesenv.atomic import write_with
from huesenv.experiments.tracking import Tracker

TRACKERS = ("wandb", "tensorboard", "none")


def _step_of(row: Mapping[str, Any]) -> float | None:
    """A curve row's step, or ``None`` for a row that is not whole (a field missing or not a number)."""
    if None in row.values() or None in row:
        return None
    try:
        return float(row.get("step", ""))
    except ValueError:
        return None


class TrainLogger:
    """One logger per training run (see the module docstring)."""

    def __init__(
        self,
        run_dir: str | Path,
        *,
        tracker: str = "wandb",
        wandb_mode: str = "offline",
        config: Mapping[str, Any] | None = None,
        name: str = "train",
        resume_step: int = 0,
        quiet: bool = False,
        print_every_s: float = 5.0,
    ) -> None:
        if tracker not in TRACKERS:
            raise ValueError(f"--tracker {tracker!r}: expected one of {', '.join(TRACKERS)}")
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.curve_path = self.run_dir / "curve.csv"
        self.quiet = quiet
        self.print_every_s = float(print_every_s)
        self._last_print = 0.0
        self._fields: list[str] | None = None
        self._truncate_curve(resume_step)
        self._tracker = None
        self._tb = None
        if tracker == "wandb" and wandb_mode != "disabled":
            self._tracker = Tracker(
                wandb_mode, project="huesenv-train", run_dir=self.run_dir, config=config or {}, name=name
            )
        elif tracker == "tensorboard":
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:
                raise ValueError(
                    "--tracker tensorboard needs the tensorboard package (pip install tensorboard)"
                ) from None
            self._tb = SummaryWriter(log_dir=str(self.run_dir / "tb"), purge_step=resume_step or None)

    def _truncate_curve(self, resume_step: int) -> None:
        """Keep the rows up to the resumed step; a torn last line (a kill mid-append) is dropped."""
        if not self.curve_path.exists():
            return
        text = self.curve_path.read_text(encoding="utf-8", errors="replace")
        if text and not text.endswith("\n"):
            text = text[: text.rfind("\n") + 1]
        rows = list(csv.DictReader(io.StringIO(text)))
        header = next(csv.reader(io.StringIO(text)), None)
        if not header:
            return
        self._fields = list(header)
        keep = [r for r in rows if _step_of(r) is not None and _step_of(r) <= resume_step]  # type: ignore[operator]
        self._rewrite(keep)

    def _rewrite(self, rows: list[dict[str, Any]]) -> None:
        """The whole curve through a temporary file renamed into place (a kill keeps the old curve)."""

        def write(tmp: Path) -> None:
            with tmp.open("w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=self._fields or [])
                w.writeheader()
                w.writerows(rows)

        write_with(self.curve_path, write)

    def log(self, step: int, metrics: Mapping[str, float], force_print: bool = False) -> None:
        row = {"step": int(step), **{k: float(v) for k, v in metrics.items()}}
        if self._fields is None:
            self._fields = list(row)
            self._rewrite([])
        elif set(row) - set(self._fields):  # a metric logged only now (e.g. an evaluation): widen the header
            with self.curve_path.open(newline="") as fh:
                rows = list(csv.DictReader(fh))
            self._fields += [k for k in row if k not in self._fields]
            self._rewrite(rows)
        with self.curve_path.open("a", newline="") as fh:
            csv.DictWriter(fh, fieldnames=self._fields).writerow(row)
        if self._tracker is not None and self._tracker.run is not None:
            self._tracker.run.log({f"train/{k}": v for k, v in metrics.items()}, step=int(step))
        if self._tb is not None:
            for k, v in metrics.items():
                self._tb.add_scalar(f"train/{k}", float(v), int(step))
        now = time.monotonic()
        if not self.quiet and (force_print or now - self._last_print >= self.print_every_s):
            self._last_print = now
            shown = "  ".join(f"{k}={v:.3g}" for k, v in metrics.items())
            print(f"step {int(step):>10,d}  {shown}", file=sys.stdout, flush=True)

    def update_config(self, values: Mapping[str, Any]) -> None:
        """Add run facts known only once training starts (e.g. the human reference) to the W&B config."""
        if self._tracker is not None and self._tracker.run is not None:
            self._tracker.run.config.update(dict(values), allow_val_change=True)

    def summary(self, values: Mapping[str, Any]) -> None:
        if self._tracker is not None and self._tracker.run is not None:
            for k, v in values.items():
                self._tracker.run.summary[k] = v

    def close(self) -> None:
        if self._tracker is not None:
            self._tracker.finish()
        if self._tb is not None:
            self._tb.close()

    @property
    def wandb_dir(self) -> Path | None:
        return None if self._tracker is None else self._tracker.run_path
