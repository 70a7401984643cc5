"""Experiment configuration: YAML files with every value overridable from the command line.

Why one plain-dict schema with dotted overrides (``--set games=10``,
``--set agents.random.kwargs.seed=3``): the same file drives the tournament,
the word-level sweep and the report, and a run folder stores the resolved
config so that rerunning the same command resumes the same experiment.

Schema (all keys optional except where noted; see ``configs/default.yaml``)::

    name: default               # run folder name under ``output``
    output: runs                # where run folders go
    seed: 0                     # base seed; every game/agent seed derives from it
    num_players: 4
    games: 12                   # games per lineup
    cue_mode: vocabulary
    agents:                     # name -> {spec, kwargs, gpu}
      random: {spec: random}
    lineups:                    # one list of agent names per lineup (len == num_players)
      - [random, human, human, human]
    rotate_seats: true          # lineup j-th game is rotated by j seats (cue-giver order varies)
    tournament: {enabled: true, batch_size: 4}   # games per unit (per Ray task)
                                # also agent_factory / play_fn: "module:attr" replacing make_agent / play_game
    wordlevel: {enabled: true, agents: [random], top_k: 5}   # agents null = every non-human agent
    metrics: {alpha: 0.05, top_k: 5}
    humans: {path: null, cvd: null}   # cvd: CVD participant list for an export without colorBlind
    report: {formats: [markdown, html], board_images: 2}
    wandb: {mode: disabled, project: huesenv}
    backend: {name: inprocess, address: null, num_cpus: null, num_workers: null}
    weights: {required: true, offline: true, dir: null}   # see huesenv.experiments.weights
    device: null                # torch device of the model agents (clip, vlm, text-embedding):
                                # auto | cpu | cuda[:n]; null = each agent's default; an agent's own
                                # kwargs.device wins.  Not part of the run's identity.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from huesenv.agents.devices import with_device

DEFAULTS: dict[str, Any] = {
    "name": "default",
    "output": "runs",
    "seed": 0,
    "num_players": 4,
    "games": 12,
    "cue_mode": "vocabulary",
    "agents": {},
    "lineups": [],
    "rotate_seats": True,
    "tournament": {"enabled": True, "batch_size": 4},
    "wordlevel": {"enabled": True, "agents": None, "top_k": 5},
    "metrics": {"alpha": 0.05, "top_k": 5},
    "humans": {"path": None, "cvd": None},
    "report": {"formats": ["markdown", "html"], "board_images": 2},
    "wandb": {"mode": "disabled", "project": "huesenv", "entity": None},
    "backend": {"name": "inprocess", "address": None, "num_cpus": None, "num_workers": None},
    "weights": {"required": True, "offline": True, "dir": None},
    "device": None,
}

# Keys whose change would alter what a game or query produces; a resumed run must match them.
IDENTITY_KEYS: tuple[str, ...] = (
    "seed",
    "num_players",
    "cue_mode",
    "agents",
    "lineups",
    "rotate_seats",
    "wordlevel",
    "humans",
)


@dataclass(frozen=True)
class AgentSpec:
    """One named agent of an experiment: a ``make_agent`` spec string plus keyword arguments."""

    name: str
    spec: str
    kwargs: Mapping[str, Any]
    gpu: bool = False  # a model agent that wants one GPU per worker when GPUs exist

    @property
    def is_model(self) -> bool:
        return self.spec.split(":", 1)[0] in {"clip", "vlm"}


def bundled_config_path(name: str) -> Path:
    """The path of a config shipped in ``huesenv/experiments/configs/`` (``name`` without ``.yaml``)."""
    ref = resources.files("huesenv.experiments") / "configs" / f"{name}.yaml"
    return Path(str(ref))


def bundled_configs() -> list[str]:
    folder = resources.files("huesenv.experiments") / "configs"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))


def _merge(base: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"a.b=3"`` → (["a", "b"], 3).  The value is parsed as YAML, so lists and nulls work."""
    if "=" not in text:
        raise ValueError(f"override {text!r}: expected KEY=VALUE with a dotted KEY (e.g. games=10)")
    key, raw = text.split("=", 1)
    path = [p for p in key.strip().split(".")]
    if not key.strip() or any(not p for p in path):
        raise ValueError(f"override {text!r}: empty key part in {key!r}")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except yaml.YAMLError as err:
        raise ValueError(f"override {text!r}: value is not valid YAML ({err})") from None
    return path, value


def apply_overrides(config: dict[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """Apply dotted ``KEY=VALUE`` overrides; list items are addressed by index (``lineups.0.1=random``)."""
    config = copy.deepcopy(config)
    for text in overrides:
        path, value = parse_override(text)
        node: Any = config
        for depth, part in enumerate(path[:-1]):
            if isinstance(node, list):
                node = node[_list_index(node, part, text)]
            else:
                if part not in node or node[part] is None:
                    node[part] = {}
                node = node[part]
            if not isinstance(node, (dict, list)):
                raise ValueError(
                    f"override {text!r}: {'.'.join(path[: depth + 1])} is a value, not a mapping"
                )
        last = path[-1]
        if isinstance(node, list):
            node[_list_index(node, last, text)] = value
        else:
            node[last] = value
    return config


def _list_index(node: list, part: str, text: str) -> int:
    if not part.lstrip("-").isdigit() or not -len(node) <= int(part) < len(node):
        raise ValueError(f"override {text!r}: {part!r} is not an index of a list of {len(node)}")
    return int(part)


def load_config(source: str | Path | None = None, overrides: Iterable[str] = ()) -> ExperimentConfig:
    """Load a YAML config (a path, or the name of a bundled one; ``None`` = ``default``) and apply overrides."""
    source = source or "default"
    path = Path(source)
    if not path.exists():
        if str(source) in bundled_configs():
            path = bundled_config_path(str(source))
        else:
            raise FileNotFoundError(
                f"config {source!r}: no such file and not a bundled config (bundled: {', '.join(bundled_configs())})"
            )
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        raise ValueError(f"{path}{where}: not valid YAML ({getattr(err, 'problem', err)})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}, line 1: expected a mapping of config keys, got {type(data).__name__}")
    merged = apply_overrides(_merge(DEFAULTS, data), overrides)
    return ExperimentConfig.from_dict(merged, source=str(path))


class ExperimentConfig:
    """A validated experiment config (a plain dict underneath, see the module docstring)."""

    def __init__(self, data: dict[str, Any], source: str = "<dict>") -> None:
        self.data = data
        self.source = source
        self._validate()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> ExperimentConfig:
        return cls(_merge(DEFAULTS, data), source=source)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    # -- validation -----------------------------------------------------------
    def _fail(self, key: str, expected: str) -> None:
        raise ValueError(f"{self.source}, field {key}: expected {expected}, got {_get(self.data, key)!r}")

    def _validate(self) -> None:
        d = self.data
        if not isinstance(d["name"], str) or not d["name"] or "/" in d["name"]:
            self._fail("name", "a non-empty run name without '/'")
        for key in ("seed", "num_players", "games"):
            if isinstance(d[key], bool) or not isinstance(d[key], int) or d[key] < 0:
                self._fail(key, "a non-negative integer")
        if not 2 <= d["num_players"] <= 10:
            self._fail("num_players", "2-10 players (the game's range)")
        if not isinstance(d["agents"], dict) or not d["agents"]:
            self._fail("agents", "a mapping of agent name -> {spec: ...}")
        for name, entry in d["agents"].items():
            if isinstance(entry, str):
                d["agents"][name] = entry = {"spec": entry}
            if not isinstance(entry, dict) or not isinstance(entry.get("spec"), str) or not entry["spec"]:
                self._fail(
                    f"agents.{name}.spec", "an agent spec string such as 'random' or 'clip:ViT-B-32/openai'"
                )
            if not isinstance(entry.get("kwargs") or {}, dict):
                self._fail(f"agents.{name}.kwargs", "a mapping of keyword arguments")
        if not isinstance(d["lineups"], list):
            self._fail("lineups", "a list of lineups (lists of agent names)")
        for i, lineup in enumerate(d["lineups"]):
            if not isinstance(lineup, list) or len(lineup) != d["num_players"]:
                self._fail(f"lineups.{i}", f"a list of {d['num_players']} agent names (num_players)")
            for j, name in enumerate(lineup):
                if name not in d["agents"]:
                    self._fail(f"lineups.{i}.{j}", f"one of the agents {sorted(d['agents'])}")
        wl = d["wordlevel"]
        if wl.get("agents") is not None:
            for j, name in enumerate(wl["agents"]):
                if name not in d["agents"]:
                    self._fail(f"wordlevel.agents.{j}", f"one of the agents {sorted(d['agents'])}")
        if isinstance(wl.get("top_k"), bool) or not isinstance(wl.get("top_k"), int) or wl["top_k"] < 1:
            self._fail("wordlevel.top_k", "a positive integer")
        if d["wandb"].get("mode") not in ("auto", "online", "offline", "disabled"):
            self._fail("wandb.mode", "one of auto, online, offline, disabled")
        if d["backend"].get("name") not in ("inprocess", "ray"):
            self._fail("backend.name", "inprocess or ray")
        device = d.get("device")
        if device is not None and (
            not isinstance(device, str)
            or device.strip().lower().split(":")[0] not in ("auto", "cpu", "cuda", "mps")
        ):
            self._fail("device", "auto, cpu, cuda, cuda:<n> or null")
        batch = d["tournament"].get("batch_size")
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            self._fail("tournament.batch_size", "a positive integer")

    # -- views ----------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.data["name"]

    def agent(self, name: str) -> AgentSpec:
        entry = self.data["agents"][name]
        kwargs = dict(entry.get("kwargs") or {})
        humans_path = (self.data.get("humans") or {}).get("path")
        if (
            entry["spec"] == "human-replay"
            and humans_path
            and "path" not in kwargs
            and "humans" not in kwargs
        ):
            kwargs["path"] = humans_path  # replayed humans come from the cohort the metrics compare with
            cvd = (self.data.get("humans") or {}).get("cvd")
            if cvd and "cvd" not in kwargs:
                kwargs["cvd"] = cvd
        kwargs = with_device(entry["spec"], kwargs, self.data.get("device"))
        return AgentSpec(name=name, spec=entry["spec"], kwargs=kwargs, gpu=bool(entry.get("gpu", False)))

    def agents(self) -> list[AgentSpec]:
        return [self.agent(n) for n in self.data["agents"]]

    def wordlevel_agents(self) -> list[AgentSpec]:
        names = self.data["wordlevel"].get("agents")
        if names is None:  # every agent that is not a human replay
            names = [n for n, e in self.data["agents"].items() if not e["spec"].startswith("human")]
        return [self.agent(n) for n in names]

    def identity(self) -> dict[str, Any]:
        """What a resumed run must share with the logged one.  The number of games and which agents the
        word-level stage covers may grow (their units are numbered independently), so they are left out."""
        out = {k: self.data.get(k) for k in IDENTITY_KEYS}
        out["wordlevel"] = {"top_k": self.data["wordlevel"].get("top_k")}
        return out

    def fingerprint(self) -> str:
        """A short hash of what determines the games' content (not their number nor the output options)."""
        blob = json.dumps(self.identity(), sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:10]

    @property
    def run_id(self) -> str:
        return f"{self.name}-{self.fingerprint()}"

    def run_dir(self) -> Path:
        return Path(self.data["output"]) / self.name

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.data, sort_keys=False)


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        try:
            node = node[int(part)] if isinstance(node, list) else node[part]
        except (KeyError, IndexError, ValueError, TypeError):
            return None
    return node
