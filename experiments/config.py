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
                                # also agent_factory / play_fn: a registered name replacing make_agent /
                                # play_game (see huesenv.experiments.backends); any "module:attr" only
                                # with ``--allow-code`` (load_config(allow_code=True)), recorded as
                                # ``allow_code: true`` in the run's config.yaml and summary
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

**Strict.**  Every key must be one of the schema's (:data:`DEFAULTS` plus
:data:`OPTIONAL_KEYS`; agent names, agent ``kwargs`` and list items are free):
an unknown or misspelt key is an error naming where it came from (file and
line, or the ``--set`` override) with a did-you-mean, never a silently ignored
value that runs the default.  ``allow_code`` is never read from a file or a
``--set``: only the command line's ``--allow-code`` grants it.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from huesenv.agents.devices import with_device
from huesenv.agents.registry import available_agents, has_capability, split_spec
from huesenv.experiments.callables import check_callable_name
from huesenv.game.rules import DEFAULT_RULES
from huesenv.secrets import mask

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

# Keys a config may set that have no default value.
OPTIONAL_KEYS: dict[str, tuple[str, ...]] = {"tournament": ("agent_factory", "play_fn")}
AGENT_KEYS: tuple[str, ...] = ("spec", "kwargs", "gpu")
FREE_MAPPINGS: tuple[str, ...] = ("agents",)  # keys are names chosen by the user
CUE_MODES: tuple[str, ...] = ("vocabulary", "text")
REPORT_FORMATS: tuple[str, ...] = ("markdown", "html")
CODE_KEYS: tuple[str, ...] = ("tournament.agent_factory", "tournament.play_fn")
_RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+@=-]{0,127}$")


def allowed_keys(path: tuple[str, ...]) -> tuple[str, ...] | None:
    """The keys a mapping at ``path`` may hold (``None``: any key, e.g. agent names or agent kwargs)."""
    if not path:
        return tuple(DEFAULTS)
    if path[0] in FREE_MAPPINGS:
        if len(path) == 1:
            return None
        if len(path) == 2:
            return AGENT_KEYS
        return None  # agents.NAME.kwargs: the agent's own keyword arguments
    if len(path) == 1 and isinstance(DEFAULTS.get(path[0]), dict):
        return tuple(DEFAULTS[path[0]]) + OPTIONAL_KEYS.get(path[0], ())
    return ()


def did_you_mean(key: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(key, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_keys(data: Any, source: str, path: tuple[str, ...] = ()) -> None:
    """Unknown keys anywhere in ``data`` → ``ValueError`` naming ``source``, the dotted key and a suggestion."""
    if not isinstance(data, Mapping):
        return
    allowed = allowed_keys(path)
    for key, value in data.items():
        dotted = ".".join((*path, str(key)))
        if allowed is not None and key not in allowed:
            expected = f"one of {', '.join(allowed)}" if allowed else "no keys (a value, not a mapping)"
            raise ValueError(
                f"{source}: unknown config key {dotted!r}{did_you_mean(str(key), allowed)}; expected {expected}"
            )
        if path and path[0] in FREE_MAPPINGS and len(path) >= 2:
            continue  # inside agents.NAME.kwargs
        if isinstance(value, Mapping) and not (
            path and path[0] in FREE_MAPPINGS and len(path) == 1 and key == "kwargs"
        ):
            check_keys(value, source, (*path, str(key)))


def _key_line(text: str, key: str) -> str:
    """``, line N`` of a top-level ``key:`` in a YAML text (empty when not found)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if re.match(rf"^{re.escape(key)}\s*:", line):
            return f", line {number}"
    return ""


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
        return has_capability(self.spec, "needs_weights")


def bundled_config_path(name: str) -> Path:
    """The path of a config shipped in ``huesenv/experiments/configs/`` (``name`` without ``.yaml``)."""
    ref = resources.files("huesenv.experiments") / "configs" / f"{name}.yaml"
    return Path(str(ref))


def bundled_configs(kind: str | None = None) -> list[str]:
    """The bundled configs' names; ``kind="tournament"`` or ``"training"`` (key ``train``) picks one kind."""
    folder = resources.files("huesenv.experiments") / "configs"
    names = sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))
    if kind is None:
        return names
    if kind not in ("tournament", "training"):
        raise ValueError(f"kind {kind!r}: expected 'tournament' or 'training'")
    return [n for n in names if bundled_config_kind(n) == kind]


def bundled_config_kind(name: str) -> str:
    """``"training"`` for a bundled config with a ``train`` section (``huesenv train experiment``), else
    ``"tournament"`` (``huesenv tournament`` / ``config show``)."""
    data = yaml.safe_load(bundled_config_path(name).read_text(encoding="utf-8"))
    return "training" if isinstance(data, dict) and "train" in data else "tournament"


def _merge(base: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, but a key given twice in one mapping is an error (YAML says keys are unique;
    PyYAML silently keeps the last one, so ``games: 1`` then ``games: 500`` would run 500)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice (expected each key once)", key_node.start_mark
                )
        return super().construct_mapping(node, deep=deep)


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"a.b=3"`` → (["a", "b"], 3).  The value is parsed as YAML, so lists and nulls work."""
    if "=" not in text:
        raise ValueError(f"--set {text!r}: expected KEY=VALUE with a dotted KEY (e.g. games=10)")
    key, raw = text.split("=", 1)
    path = [p for p in key.strip().split(".")]
    if not key.strip() or any(not p for p in path):
        raise ValueError(f"--set {text!r}: empty key part in {key!r}")
    try:
        value = yaml.safe_load(raw) if raw.strip() else None
    except RecursionError:
        raise ValueError(f"--set {text!r}: value nested too deeply") from None
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


def load_config(
    source: str | Path | None = None, overrides: Iterable[str] = (), *, allow_code: bool = False
) -> ExperimentConfig:
    """Load a YAML config (a path, or the name of a bundled one; ``None`` = ``default``) and apply overrides.

    ``allow_code`` lets ``tournament.agent_factory``/``play_fn`` name any ``module:attr``
    (it runs that code); only the caller can grant it, never the file.
    """
    source = source or "default"
    path = Path(source)
    label = str(path)  # what messages call the config: the user's path, or the bundled config's name
    if path.exists() and not path.is_file():
        raise ValueError(f"config {source}: is a directory, expected a YAML file")
    if not path.exists():
        if str(source) in bundled_configs():
            path = bundled_config_path(str(source))
            label = f"bundled config {str(source)!r}"
        else:
            raise FileNotFoundError(
                f"config {source!r}: no such file and not a bundled config (bundled: {', '.join(bundled_configs())})"
            )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text, expected a YAML config") from None
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader) or {}  # noqa: S506 - a SafeLoader subclass
    except RecursionError:
        raise ValueError(
            f"{path}: YAML nested too deeply; expected a config of plain keys and values"
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        raise ValueError(f"{path}{where}: not valid YAML ({getattr(err, 'problem', err)})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}, line 1: expected a mapping of config keys, got {type(data).__name__}")
    if "train" in data and "train" not in DEFAULTS:
        raise ValueError(
            f"{path}{_key_line(text, 'train')}: a training config (key 'train'); expected a tournament config, "
            f"or run this one with `huesenv train experiment {source}`"
        )
    if data.get("allow_code", False) is not False:
        raise ValueError(
            f"{path}{_key_line(text, 'allow_code')}: allow_code cannot be set in a config file "
            "(a shared config must not grant itself code execution); pass --allow-code on the command line"
        )
    for key in data:
        if key in DEFAULTS or not isinstance(key, str):
            continue
        check_keys({key: None}, f"{path}{_key_line(text, key)}")
    check_keys(data, str(path))
    overrides = list(overrides)
    for text_ in overrides:
        keys, _ = parse_override(text_)
        if keys[0] == "allow_code":
            raise ValueError(f"override {text_!r}: allow_code is only granted by --allow-code")
        _check_override_path(keys, text_)
    data.pop("allow_code", None)
    merged = apply_overrides(_merge(DEFAULTS, data), overrides)
    merged["allow_code"] = bool(allow_code)
    try:
        return ExperimentConfig.from_dict(merged, source=label)
    except ValueError as err:
        if not overrides:
            raise
        raise ValueError(f"{err} (after the overrides {' '.join(overrides)})") from None


def _check_override_path(keys: list[str], text: str) -> None:
    """An override's dotted key must name a schema key (list indices and free names aside)."""
    path: list[str] = []
    for part in keys:
        if part.lstrip("-").isdigit():
            path.append(part)
            continue
        scope = tuple(p for p in path if not p.lstrip("-").isdigit())
        if scope and scope[0] in ("lineups",):
            return
        allowed = allowed_keys(scope)
        if allowed is not None and part not in allowed:
            dotted = ".".join((*path, part))
            expected = f"one of {', '.join(allowed)}" if allowed else "no deeper key (it holds a value)"
            raise ValueError(
                f"override {text!r}: unknown config key {dotted!r}{did_you_mean(part, allowed)}; expected {expected}"
            )
        if allowed is None and len(scope) >= 2:
            return  # agent kwargs are the agent's own
        path.append(part)


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
        d.setdefault("allow_code", False)
        check_keys({k: v for k, v in d.items() if k != "allow_code"}, self.source)
        if not isinstance(d["allow_code"], bool):
            self._fail("allow_code", "true or false")
        if not isinstance(d["name"], str) or not _RUN_NAME.match(d["name"]) or ".." in d["name"]:
            self._fail(
                "name", "a run name of letters, digits and . _ + @ = - (one folder: no '/', not '.' or '..')"
            )
        if not isinstance(d["output"], str) or not d["output"].strip():
            self._fail("output", "a folder path")
        if not isinstance(d["rotate_seats"], bool):
            self._fail("rotate_seats", "true or false")
        if d["cue_mode"] not in CUE_MODES:
            self._fail("cue_mode", f"one of {', '.join(CUE_MODES)}")
        for section in (
            "tournament",
            "wordlevel",
            "metrics",
            "humans",
            "report",
            "wandb",
            "backend",
            "weights",
        ):
            if not isinstance(d[section], dict):
                self._fail(section, "a mapping (see configs/default.yaml)")
        for key in ("tournament.enabled", "wordlevel.enabled", "weights.required", "weights.offline"):
            if not isinstance(_get(d, key), bool):
                self._fail(key, "true or false")
        alpha = d["metrics"].get("alpha")
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
            self._fail("metrics.alpha", "a number strictly between 0 and 1")
        for key in ("metrics.top_k",):
            value = _get(d, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                self._fail(key, "a positive integer")
        for key in ("report.board_images",):
            value = _get(d, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                self._fail(key, "a non-negative integer")
        for key in ("backend.num_cpus", "backend.num_workers"):
            value = _get(d, key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                self._fail(key, "a positive integer or null")
        for key in ("humans.path", "weights.dir", "backend.address", "wandb.project", "wandb.entity"):
            value = _get(d, key)
            if value is not None and not isinstance(value, str):
                self._fail(key, "a string or null")
        formats = d["report"].get("formats")
        if not isinstance(formats, list) or any(f not in REPORT_FORMATS for f in formats):
            self._fail("report.formats", f"a list of {', '.join(REPORT_FORMATS)}")
        for key in CODE_KEYS:
            self._check_code_key(key)
        for key in ("seed", "num_players", "games"):
            if isinstance(d[key], bool) or not isinstance(d[key], int) or d[key] < 0:
                self._fail(key, "a non-negative integer")
        if d["games"] == 0 and d["tournament"].get("enabled") is True:
            self._fail("games", "at least 1 while tournament.enabled (for no games: `huesenv wordlevel`)")
        low, high = DEFAULT_RULES.min_players, DEFAULT_RULES.max_players
        if not low <= d["num_players"] <= high:
            self._fail("num_players", f"{low}-{high} players (the game's range)")
        if not isinstance(d["agents"], dict) or not d["agents"]:
            self._fail("agents", "a mapping of agent name -> {spec: ...}")
        for name, entry in d["agents"].items():
            if isinstance(entry, str):
                d["agents"][name] = entry = {"spec": entry}
            if not isinstance(entry, dict) or not isinstance(entry.get("spec"), str) or not entry["spec"]:
                self._fail(
                    f"agents.{name}.spec", "an agent spec string such as 'random' or 'clip:ViT-B-32/openai'"
                )
            self._check_agent_kind(name, entry["spec"])
            if not isinstance(entry.get("kwargs") or {}, dict):
                self._fail(f"agents.{name}.kwargs", "a mapping of keyword arguments")
            if not isinstance(entry.get("gpu", False), bool):
                self._fail(f"agents.{name}.gpu", "true or false")
        if not isinstance(d["lineups"], list):
            self._fail("lineups", "a list of lineups (lists of agent names)")
        for i, lineup in enumerate(d["lineups"]):
            if not isinstance(lineup, list) or len(lineup) != d["num_players"]:
                self._fail(f"lineups.{i}", f"a list of {d['num_players']} agent names (num_players)")
            for j, name in enumerate(lineup):
                if name not in d["agents"]:
                    self._fail(f"lineups.{i}.{j}", f"one of the agents {sorted(d['agents'])}")
        wl = d["wordlevel"]
        if wl.get("agents") is not None and not isinstance(wl["agents"], list):
            self._fail("wordlevel.agents", "a list of agent names, or null for every non-human agent")
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
            or not re.fullmatch(r"(auto|cpu|mps|cuda(:\d{1,3})?)", device.strip().lower())
        ):
            self._fail("device", "auto, cpu, cuda, cuda:<n> or null")
        batch = d["tournament"].get("batch_size")
        if isinstance(batch, bool) or not isinstance(batch, int) or batch < 1:
            self._fail("tournament.batch_size", "a positive integer")

    def _check_agent_kind(self, name: str, spec: str) -> None:
        """An unknown agent kind is an error now, not after the other agents' games have run."""
        try:
            kind, _arg = split_spec(spec)
        except ValueError as err:
            self._fail(f"agents.{name}.spec", f"'<kind>' or '<kind>:<argument>' ({err})")
        kinds = available_agents()
        if kind not in kinds:
            close = difflib.get_close_matches(kind, kinds, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            self._fail(f"agents.{name}.spec", f"one of the agent kinds {kinds}{hint}")

    def _check_code_key(self, key: str) -> None:
        value = _get(self.data, key)
        if value is None:
            return
        problem = check_callable_name(key.split(".")[-1], value, allow_code=self.data["allow_code"])
        if problem:
            raise ValueError(f"{self.source}, field {key}: {problem}")

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
        """``<name>-<fingerprint>``; a run already renamed to ``<name>-<fingerprint>`` (a variant whose
        default folder was taken) keeps its name rather than carrying the fingerprint twice."""
        fingerprint = self.fingerprint()
        if self.name.endswith(f"-{fingerprint}"):
            return self.name
        return f"{self.name}-{fingerprint}"

    def run_dir(self) -> Path:
        return Path(self.data["output"]) / self.name

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.data, sort_keys=False)

    def masked_yaml(self) -> str:
        """The config as YAML with its secrets masked by key name and by value (what a run folder keeps)."""
        return yaml.safe_dump(mask(self.data), sort_keys=False)


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        try:
            node = node[int(part)] if isinstance(node, list) else node[part]
        except (KeyError, IndexError, ValueError, TypeError):
            return None
    return node
