"""Weights & Biases tracking: a live run with per-game history, summary scalars, tables, figures, an artifact.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.tracking``.
"""

from __future__ import annotations

import json
import netrc
import os
import re
import struct
import sys
from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from huesenv.humans.reference import HumanReference
from huesenv.secrets import mask, mask_text

MODES = ("auto", "online", "offline", "disabled")
DEFAULT_TRACKED_MODE = "offline"


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


def requested_mode(flag: str | None, config_mode: str | None) -> str:
    """The mode asked for: the ``--wandb`` flag, else ``WANDB_MODE``, else the config (then resolved)."""
    env = os.environ.get("WANDB_MODE", "").strip().lower() or None
    if env == "dryrun":  # W&B's old name for offline
        env = "offline"
    if env is not None and env not in MODES:
        raise ValueError(f"WANDB_MODE={env!r}: expected one of {', '.join(MODES)}")
    return resolve_mode(flag or env or config_mode or "disabled")


def redact(value: Any) -> Any:
    """A copy of a config masked by key name and by value (:func:`huesenv.secrets.mask`)."""
    return mask(value)


def _cell(value: Any) -> Any:
    """One table cell as W&B can serialise it: missing (``pd.NA``, ``NaN``, ``NaT``, ``None``) → ``None``,
    numpy scalars → Python numbers, anything else that is not a plain value → its text."""
    import pandas as pd

    if value is None or (not isinstance(value, (list, tuple, dict)) and pd.isna(value)):
        return None
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        value = value.item()
    return value if isinstance(value, (str, int, float, bool)) else str(value)


def wandb_frame(frame: Any) -> Any:
    """A copy of ``frame`` with every cell :func:`_cell`-converted (object columns): nullable pandas dtypes
    (``Int64``, ``string``, ``boolean``) hold ``pd.NA``, which W&B's JSON writer cannot serialise."""
    clean = frame.reset_index(drop=True).astype(object)
    for col in clean.columns:
        clean[col] = clean[col].map(_cell).astype(object)
    return clean


def _number(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if out != out or isinstance(value, bool) else out


@contextmanager
def masked_argv() -> Iterator[None]:
    """``sys.argv`` masked (:func:`huesenv.secrets.mask_text`) while W&B reads it into the run's metadata."""
    saved = list(sys.argv)
    sys.argv[:] = [mask_text(a) for a in saved]
    try:
        yield
    finally:
        sys.argv[:] = saved


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
        self.project = os.environ.get("WANDB_PROJECT") or project
        self.entity = os.environ.get("WANDB_ENTITY") or entity
        self._points: dict[str, list[float]] = defaultdict(list)
        self._wins: dict[str, list[float]] = defaultdict(list)
        self._games = 0
        if self.mode == "disabled":
            return
        import wandb

        self._wandb = wandb
        run_dir.mkdir(parents=True, exist_ok=True)
        resolved = redact(dict(config))
        resolved["wandb"] = {
            **dict(resolved.get("wandb") or {}),
            "mode": self.mode,
            "project": self.project,
            "entity": self.entity,
        }
        settings = wandb.Settings(silent=True, console="off", x_disable_stats=False, x_disable_meta=False)
        with masked_argv():
            self.run = wandb.init(
                project=self.project,
                entity=self.entity,
                name=name,
                group=run_id,  # one W&B run per invocation (each with the full history), grouped by experiment
                dir=str(run_dir),
                config=resolved,
                mode=self.mode,  # type: ignore[arg-type]  # resolve_mode returns one of wandb's modes
                job_type="tournament",
                settings=settings,
                reinit="finish_previous",
            )
        self.run.define_metric("games_done")
        for prefix in ("points/*", "leaderboard/*", "win_rate/*", "game"):
            self.run.define_metric(prefix, step_metric="games_done")

    @property
    def active(self) -> bool:
        return self.run is not None

    @property
    def run_path(self) -> Path | None:
        """The local folder of the W&B run (where offline runs keep their files)."""
        if self.run is None:
            return None
        return Path(self.run.dir).parent

    def sync_command(self) -> str | None:
        """The command that uploads an offline run (None for online or disabled runs)."""
        if self.run is None or self.mode != "offline":
            return None
        return f"wandb sync {self.run_path}"

    # -- live ------------------------------------------------------------------------
    def log_game(self, game: int, agent_points: Mapping[str, list[float]]) -> None:
        """One history step for a finished game: its points per agent and the running leaderboard.

        ``agent_points`` maps config agent name -> the points of each of its seats in that game.
        """
        if self.run is None:
            return
        self._games += 1
        best = max((p for pts in agent_points.values() for p in pts), default=0)
        n_best = sum(p == best for pts in agent_points.values() for p in pts)
        row: dict[str, Any] = {"games_done": self._games, "game": int(game)}
        for agent, pts in agent_points.items():
            self._points[agent].extend(float(p) for p in pts)
            self._wins[agent].extend((1.0 / n_best if p == best else 0.0) for p in pts)
            row[f"points/{agent}"] = sum(pts) / len(pts)
        for agent, pts in self._points.items():
            row[f"leaderboard/{agent}"] = sum(pts) / len(pts)
            row[f"win_rate/{agent}"] = sum(self._wins[agent]) / len(self._wins[agent])
        self.run.log(row)

    # -- at the end ----------------------------------------------------------------------
    def log_tables(self, tables: Mapping[str, Any]) -> None:
        if self.run is None:
            return
        payload = {}
        for name, frame in tables.items():
            if frame is None or len(frame) == 0:
                continue
            payload[f"tables/{name}"] = self._wandb.Table(dataframe=wandb_frame(frame))
        if payload:
            self.run.log(payload)

    def log_summary(self, tables: Mapping[str, Any]) -> dict[str, float]:
        """Per-agent numbers as summary scalars: the leaderboard (with intervals), the word-level and
        first-cone alignment tables; returns what was set."""
        out: dict[str, float] = {}
        sources = (("leaderboard", ""), ("wordlevel_agents", "wordlevel/"), ("guess_alignment", "guess/"))
        for table, prefix in sources:
            frame = tables.get(table)
            if frame is None or len(frame) == 0:
                continue
            for row in frame.to_dict(orient="records"):
                for key, value in row.items():
                    number = _number(value)
                    if key in ("agent", "agent_id") or number is None:
                        continue
                    out[f"{row['agent']}/{prefix}{key}"] = number
        if self.run is not None:
            for key, value in out.items():
                self.run.summary[key] = value
            self.run.summary["games_done"] = self._games
        return out

    def log_reference(self, humans: Mapping[str, Any], agent_ids: Any = ()) -> dict[str, Any]:
        """The human reference in the run's config (``human_reference``: the report's humans block)
        and summary (``human_reference`` = its description, ``self_scored`` = the replayed humans
        scored against their own cohort); returns the summary entries."""
        out: dict[str, Any] = {}
        if humans and humans.get("sha256"):
            ref = HumanReference.from_dict(dict(humans))
            out = {"human_reference": ref.description, "self_scored": ref.self_scored(agent_ids)}
        else:
            out = {"human_reference": "mixed human references (see the runs table)", "self_scored": []}
        if self.run is not None:
            self.run.config.update({"human_reference": dict(humans or {})}, allow_val_change=True)
            for key, value in out.items():
                self.run.summary[key] = value
        return out

    def log_images(self, images: Mapping[str, Path]) -> None:
        if self.run is None or not images:
            return
        self.run.log({"boards": [self._wandb.Image(str(p), caption=c) for c, p in images.items()]})

    def log_plots(self, plots: Mapping[str, Path]) -> None:
        if self.run is None or not plots:
            return
        self.run.log({f"plots/{k}": self._wandb.Image(str(p)) for k, p in plots.items()})

    def log_artifact(self, run_dir: Path, name: str) -> Any:
        """The run's logs, tables, report and summary as one artifact (type ``run-results``)."""
        if self.run is None:
            return None
        safe = re.sub(r"[^A-Za-z0-9_.-]", "-", name)
        art = self._wandb.Artifact(
            name=f"{safe}-results",
            type="run-results",
            description="huesenv run folder: append-only logs, tables (CSV + Parquet), report, summary",
        )
        for file in (
            "games.jsonl",
            "wordlevel.jsonl",
            "config.yaml",
            "summary.json",
            "report.md",
            "report.html",
        ):
            if (run_dir / file).is_file():
                art.add_file(str(run_dir / file), name=file)
        for folder in ("tables", "plots"):
            if (run_dir / folder).is_dir():
                art.add_dir(str(run_dir / folder), name=folder)
        self.run.log_artifact(art)
        return art

    def finish(self) -> None:
        if self.run is not None:
            self.run.finish()
            self.run = None
            # The run file is written by W&B's service process; tearing it down flushes it, so the
            # offline files are complete (ready for `wandb sync`) when the experiment returns.
            self._wandb.teardown()


# -- reading an offline run -----------------------------------------------------------------
# A ``run-*.wandb`` file is W&B's transaction log: a 7-byte header (":W&B", magic 0xBEE1, version 1),
# then LevelDB-log framed records (32 KiB blocks; each chunk: CRC-32, length, type FULL/FIRST/MIDDLE/LAST)
# holding serialised ``wandb.proto.wandb_internal_pb2.Record`` messages.
_BLOCK = 32768
_HEADER = struct.Struct("<4sHB")
_CHUNK = struct.Struct("<IHB")


def _payloads(data: bytes, path: Path) -> Iterator[bytes]:
    ident, magic, version = _HEADER.unpack_from(data, 0)
    if ident != b":W&B" or magic != 0xBEE1:
        raise ValueError(f"{path}: not a W&B run file (header {ident!r}, magic {magic:#x})")
    pos, pending = _HEADER.size, b""
    while pos + _CHUNK.size <= len(data):
        left = _BLOCK - pos % _BLOCK
        if left < _CHUNK.size:  # block trailer padding
            pos += left
            continue
        crc, length, kind = _CHUNK.unpack_from(data, pos)
        if length == 0 and kind == 0:  # zero padding at the end of a block
            pos += left
            continue
        body = data[pos + _CHUNK.size : pos + _CHUNK.size + length]
        pos += _CHUNK.size + length
        if len(body) < length:
            break  # a torn last record (the run is still being written)
        del crc  # checked by W&B itself when syncing; reading tolerates a torn tail instead
        if kind == 1:
            yield body
        elif kind == 2:
            pending = body
        elif kind == 3:
            pending += body
        elif kind == 4:
            yield pending + body
            pending = b""


def read_offline_run(run_path: str | Path) -> dict[str, Any]:
    """History rows, summary, config and artifacts of an offline run folder (``offline-run-*``), decoded
    from its ``run-*.wandb`` file with W&B's own protobuf schema — what ``wandb sync`` would upload."""
    from wandb.proto import wandb_internal_pb2

    run_path = Path(run_path)
    files = sorted(run_path.glob("run-*.wandb"))
    if not files:
        raise FileNotFoundError(f"{run_path}: no run-*.wandb file (not an offline W&B run folder)")
    out: dict[str, Any] = {
        "history": [],
        "summary": {},
        "config": {},
        "artifacts": [],
        "stats": 0,
        "output": 0,
    }
    for payload in _payloads(files[0].read_bytes(), files[0]):
        rec = wandb_internal_pb2.Record()  # type: ignore[attr-defined]  # generated protobuf class
        rec.ParseFromString(payload)
        kind = rec.WhichOneof("record_type")
        if kind == "history":
            out["history"].append(
                {i.key or "/".join(i.nested_key): json.loads(i.value_json) for i in rec.history.item}
            )
        elif kind == "summary":
            for i in rec.summary.update:
                out["summary"][i.key or "/".join(i.nested_key)] = json.loads(i.value_json)
        elif kind == "config":
            for i in rec.config.update:
                out["config"][i.key or "/".join(i.nested_key)] = json.loads(i.value_json)
        elif kind == "run":
            for i in rec.run.config.update:
                out["config"][i.key or "/".join(i.nested_key)] = json.loads(i.value_json)
        elif kind == "artifact":
            out["artifacts"].append(
                {
                    "name": rec.artifact.name,
                    "type": rec.artifact.type,
                    "files": [e.path for e in rec.artifact.manifest.contents],
                }
            )
        elif kind == "stats":
            out["stats"] += 1
        elif kind == "output_raw" or kind == "output":
            out["output"] += 1
    return out
