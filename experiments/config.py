"""Experiment configuration: YAML files with every value overridable from the command line.

Why one plain-dict schema with dotted overrides (``--set games=10``,
``--set agents.random.kwargs.seed=3``): the same file drives the tournament,
the word-level sweep and the report, and a run folder stores the resolved
config so that rerunning the same command resumes the same experiment.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.config``.
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

from pydantic import ValidationError

from huesenv.agents.devices import with_device
from huesenv.agents.registry import has_capability
from huesenv.experiments.config_schema import AgentEntry, ExperimentSchema, section_keys
from huesenv.secrets import mask
from huesenv.trust import code_kwargs, read_user_bytes
from huesenv.validation import (
    describe_error,
    did_you_mean,
    dump_yaml,
    key_line,
    line_at,
    load_yaml,
    load_yaml_file,
    parse_yaml_value,
    validate,
    yaml_lines,
)

MAX_CONFIG_BYTES = 4 << 20  # a YAML config is a few kB

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

AGENT_KEYS: tuple[str, ...] = tuple(AgentEntry.model_fields)
FREE_MAPPINGS: tuple[str, ...] = ("agents",)  # keys are names chosen by the user


def allowed_keys(path: tuple[str, ...]) -> tuple[str, ...] | None:
    """The keys a mapping at ``path`` may hold (``None``: any key, e.g. agent names or agent kwargs);
    read from :class:`~huesenv.experiments.config_schema.ExperimentSchema`."""
    if not path:
        return tuple(k for k in ExperimentSchema.model_fields if k != "allow_code")
    if path[0] in FREE_MAPPINGS:
        if len(path) == 1:
            return None
        if len(path) == 2:
            return AGENT_KEYS
        return None  # agents.NAME.kwargs: the agent's own keyword arguments
    if len(path) == 1 and path[0] in ExperimentSchema.model_fields:
        return section_keys(path[0])
    return ()


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
    data = load_yaml_file(bundled_config_path(name))
    return "training" if isinstance(data, dict) and "train" in data else "tournament"


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
        raise ValueError(f"--set {text!r}: expected KEY=VALUE with a dotted KEY (e.g. games=10)")
    key, raw = text.split("=", 1)
    path = [p for p in key.strip().split(".")]
    if not key.strip() or any(not p for p in path):
        raise ValueError(f"--set {text!r}: empty key part in {key!r}")
    return path, parse_yaml_value(raw, f"override {text!r}")


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
                f"config {source!r}: no such file and not a bundled config (bundled tournament configs: "
                f"{', '.join(bundled_configs('tournament'))}; training configs run with `huesenv train "
                f"experiment`: {', '.join(bundled_configs('training'))})"
            )
    try:
        text = read_user_bytes(path, max_bytes=MAX_CONFIG_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{label}: not UTF-8 text, expected a YAML config") from None
    data = load_yaml(text, label) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{label}, line 1: expected a mapping of config keys, got {type(data).__name__}")
    if "train" in data and "train" not in DEFAULTS:
        raise ValueError(
            f"{label}{key_line(text, 'train')}: a training config (key 'train'); expected a tournament config, "
            f"or run this one with `huesenv train experiment {source}`"
        )
    if data.get("allow_code", False) is not False:
        raise ValueError(
            f"{label}{key_line(text, 'allow_code')}: allow_code cannot be set in a config file "
            "(a shared config must not grant itself code execution); pass --allow-code on the command line"
        )
    data.pop("allow_code", None)
    lines = yaml_lines(text)
    _refuse_unknown_keys(_merge(DEFAULTS, data), label, lines)
    overrides = list(overrides)
    for text_ in overrides:
        keys, _ = parse_override(text_)
        if keys[0] == "allow_code":
            raise ValueError(f"override {text_!r}: allow_code is only granted by --allow-code")
        _check_override_path(keys, text_)
        # that key's value now comes from the command line: no line of the file is its place
        lines = {path: n for path, n in lines.items() if path[: len(keys)] != tuple(keys)}
        lines[tuple(keys)] = 0
    merged = apply_overrides(_merge(DEFAULTS, data), overrides)
    merged["allow_code"] = bool(allow_code)
    try:
        return ExperimentConfig(_merge(DEFAULTS, merged), source=label, lines=lines)
    except ValueError as err:
        if not overrides:
            raise
        raise ValueError(f"{err} (after the overrides {' '.join(overrides)})") from None


def _refuse_unknown_keys(data: dict[str, Any], source: str, lines: Mapping[tuple[str, ...], int]) -> None:
    """A misspelt key in the file is reported as such (with its line), before any override is applied."""
    try:
        ExperimentSchema.model_validate(data)
    except ValidationError as err:
        if any(e["type"] == "extra_forbidden" for e in err.errors(include_url=False)):
            where = lambda loc: line_at(lines, loc)  # noqa: E731
            raise ValueError(describe_error(err, ExperimentSchema, source, where=where)) from None


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

    def __init__(
        self,
        data: dict[str, Any],
        source: str = "<dict>",
        *,
        lines: Mapping[tuple[str, ...], int] | None = None,
    ) -> None:
        self.data = data
        self.source = source
        # key path -> line in the source file (:func:`yaml_lines`); 0 marks a value set by an override
        self._lines: Mapping[tuple[str, ...], int] = lines or {}
        self.model: ExperimentSchema
        self._validate()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> ExperimentConfig:
        return cls(_merge(DEFAULTS, data), source=source)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    # -- validation -----------------------------------------------------------
    def _validate(self) -> None:
        """Check ``self.data`` against :class:`ExperimentSchema` (one line naming the field on failure)."""
        d = self.data
        d.setdefault("allow_code", False)
        if isinstance(d.get("agents"), dict):
            for name, entry in d["agents"].items():
                if isinstance(entry, str):
                    d["agents"][name] = {"spec": entry}  # ``random: random`` is ``random: {spec: random}``
        self.model = validate(ExperimentSchema, d, self.source, where=self._where)
        for name, entry in d["agents"].items():  # trust_remote_code & co. run a model folder's Python
            code = code_kwargs(entry.get("kwargs") or {})
            if code and not d["allow_code"]:
                raise ValueError(
                    f"{self.source}{self._where(('agents',))}, field agents.{name}.kwargs.{code[0]}: expected "
                    "false unless --allow-code is on the command line (it runs code shipped with the model)"
                )

    def _where(self, loc: tuple[int | str, ...]) -> str:
        """``, line N`` of the deepest key of the file that an error at ``loc`` concerns (when known)."""
        at = line_at(self._lines, loc)
        return "" if at == ", line 0" else at

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
        return dump_yaml(self.data)

    def masked_yaml(self) -> str:
        """The config as YAML with its secrets masked by key name and by value (what a run folder keeps)."""
        return dump_yaml(mask(self.data))
