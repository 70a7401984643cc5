"""Weights & Biases tracking: config, per-agent metrics, leaderboard and word-level tables, board images.

Modes: ``online``, ``offline`` (run files under ``<run dir>/wandb``, to upload
later with ``wandb sync``), ``disabled``, and ``auto`` — online when an API key
is configured (``WANDB_API_KEY`` or a ``api.wandb.ai`` netrc entry), offline
otherwise, so a machine without an account never blocks on a login prompt.
Secrets never reach W&B: the config is masked by key name and by value (:mod:`huesenv.secrets`).
"""

from __future__ import annotations

import netrc
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from huesenv.secrets import SECRET_NAME_RE, mask

SECRET_KEY_RE = SECRET_NAME_RE
MODES = ("auto", "online", "offline", "disabled")


def api_key_configured() -> bool:
    """Whether W&B would find credentials (checks their presence only; the value is never read out)."""
    if os.environ.get("WANDB_API_KEY"):
        return True
    try:
        return netrc.netrc().authenticators("api.wandb.ai") is not None
    except (FileNotFoundError, netrc.NetrcParseError, OSError):
        return False


def resolve_mode(mode: str | None) -> str:
    mode = (mode or "auto").lower()
    if mode not in MODES:
        raise ValueError(f"--wandb {mode!r}: expected one of {', '.join(MODES)}")
    if mode == "auto":
        return "online" if api_key_configured() else "offline"
    return mode


def redact(value: Any) -> Any:
    """A copy of a config masked by key name and by value (:func:`huesenv.secrets.mask`)."""
    return mask(value)


class Tracker:
    """One W&B run per experiment run; a no-op when disabled."""

    def __init__(
        self,
        mode: str | None,
        *,
        project: str,
        run_dir: Path,
        config: Mapping[str, Any],
        name: str,
        entity: str | None = None,
        run_id: str | None = None,
    ) -> None:
        self.mode = resolve_mode(mode)
        self.run = None
        if self.mode == "disabled":
            return
        import wandb

        self._wandb = wandb
        run_dir.mkdir(parents=True, exist_ok=True)
        settings = wandb.Settings(silent=True, console="off", x_disable_stats=True, x_disable_meta=True)
        self.run = wandb.init(
            project=project,
            entity=entity,
            name=name,
            id=run_id,
            dir=str(run_dir),
            config=redact(dict(config)),
            mode=self.mode,
            resume="allow" if run_id else None,
            job_type="tournament",
            settings=settings,
            reinit="finish_previous",
        )

    @property
    def active(self) -> bool:
        return self.run is not None

    @property
    def run_path(self) -> Path | None:
        """The local folder of the W&B run (where offline runs keep their files)."""
        if self.run is None:
            return None
        return Path(self.run.dir).parent

    def log_tables(self, tables: Mapping[str, Any]) -> None:
        if self.run is None:
            return
        payload = {}
        for name, frame in tables.items():
            if frame is None or len(frame) == 0:
                continue
            clean = frame.copy()
            for col in clean.columns:
                if clean[col].dtype == object:
                    clean[col] = clean[col].map(
                        lambda v: v if v is None or isinstance(v, (str, int, float, bool)) else str(v)
                    )
            payload[name] = self._wandb.Table(dataframe=clean.reset_index(drop=True))
        if payload:
            self.run.log(payload)

    def log_agent_metrics(
        self, leaderboard: Any, extra: Mapping[str, Mapping[str, float]] | None = None
    ) -> None:
        """Per-agent numbers as summary metrics (``<agent>/mean_points`` ...), easy to compare across runs."""
        if self.run is None:
            return
        for row in leaderboard.to_dict(orient="records"):
            agent = row["agent"]
            for key in ("mean_points", "se_points", "mean_cue_giver", "mean_guesser", "win_rate", "rank"):
                if key in row and row[key] == row[key]:
                    self.run.summary[f"{agent}/{key}"] = float(row[key])
        for agent, values in (extra or {}).items():
            for key, value in values.items():
                self.run.summary[f"{agent}/{key}"] = value

    def log_images(self, images: Mapping[str, Path]) -> None:
        if self.run is None or not images:
            return
        self.run.log({"boards": [self._wandb.Image(str(p), caption=c) for c, p in images.items()]})

    def log_plots(self, plots: Mapping[str, Path]) -> None:
        if self.run is None or not plots:
            return
        self.run.log({f"plots/{k}": self._wandb.Image(str(p)) for k, p in plots.items()})

    def finish(self) -> None:
        if self.run is not None:
            self.run.finish()
            self.run = None
            # The run file is written by W&B's service process; tearing it down flushes it, so the
            # offline files are complete (ready for `wandb sync`) when the experiment returns.
            self._wandb.teardown()
