"""The experiment config's schema as pydantic models (what :class:`~huesenv.experiments.config.ExperimentConfig` checks).

Why models and not a hand-written checker: every key, its type, its range and the
text a mistake prints live on one field, unknown keys are refused with a
did-you-mean by :func:`huesenv.validation.validate`, and ``huesenv config show``
and the docs can list the same fields.  Cross-field rules (lineup length, agent
names, ``games`` vs ``tournament.enabled``, code keys vs ``allow_code``) are the
model validator at the end, each naming the exact field it refuses.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from huesenv.agents.registry import available_agents, split_spec
from huesenv.experiments.callables import check_callable_name
from huesenv.game.rules import DEFAULT_RULES
from huesenv.validation import FieldProblem, StrictModel, did_you_mean

__all__ = ["AgentEntry", "ExperimentSchema", "RUN_NAME", "section_keys"]

RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+@=-]{0,127}$")
_DEVICE = re.compile(r"(auto|cpu|mps|cuda(:\d{1,3})?)")
MAPPING = "a mapping (see configs/default.yaml)"
MAX_GAMES = 100_000  # games per lineup; `--set games=1000000000000` ran on until killed


def _expected(text: str) -> Any:
    """A field's ``expected ...`` text in errors (:func:`huesenv.validation.describe_error` reads it)."""
    return {"expected": text}


def _positive_int(default: Any = ...) -> Any:
    return Field(default, ge=1, json_schema_extra=_expected("a positive integer"))


def _optional_positive_int() -> Any:
    return Field(None, ge=1, json_schema_extra=_expected("a positive integer or null"))


def _optional_str() -> Any:
    return Field(None, json_schema_extra=_expected("a string or null"))


def _flag(default: Any = ...) -> Any:
    return Field(default, json_schema_extra=_expected("true or false"))


class TournamentSection(StrictModel):
    enabled: bool = _flag()
    batch_size: int = _positive_int()
    agent_factory: str | None = None  # checked with allow_code by ExperimentSchema
    play_fn: str | None = None


class WordlevelSection(StrictModel):
    enabled: bool = _flag()
    agents: list[str] | None = Field(
        None, json_schema_extra=_expected("a list of agent names, or null for every non-human agent")
    )
    top_k: int = _positive_int()


class MetricsSection(StrictModel):
    alpha: float = Field(gt=0, lt=1, json_schema_extra=_expected("a number strictly between 0 and 1"))
    top_k: int = _positive_int()


class HumansSection(StrictModel):
    path: str | None = _optional_str()
    cvd: str | list[str | int] | None = Field(
        None, json_schema_extra=_expected("a CVD participant list: a file path, a list of ids, or null")
    )
    # score a policy:PATH on answers it trained on (refused otherwise; labelled; huesenv.experiments.evaluation)
    allow_trained_on: bool = _flag(False)


class ReportSection(StrictModel):
    formats: list[Literal["markdown", "html"]] = Field(
        json_schema_extra=_expected("a list of markdown, html")
    )
    board_images: int = Field(ge=0, json_schema_extra=_expected("a non-negative integer"))


class WandbSection(StrictModel):
    mode: Literal["auto", "online", "offline", "disabled"] = Field(
        json_schema_extra=_expected("one of auto, online, offline, disabled")
    )
    project: str | None = _optional_str()
    entity: str | None = _optional_str()


class BackendSection(StrictModel):
    name: Literal["inprocess", "ray"] = Field(json_schema_extra=_expected("inprocess or ray"))
    address: str | None = _optional_str()
    num_cpus: int | None = _optional_positive_int()
    num_workers: int | None = _optional_positive_int()


class WeightsSection(StrictModel):
    required: bool = _flag()
    offline: bool = _flag()
    dir: str | None = _optional_str()


class AgentEntry(StrictModel):
    """One named agent: a ``make_agent`` spec, its keyword arguments (free keys) and whether it wants a GPU."""

    spec: str = Field(
        min_length=1,
        json_schema_extra=_expected("an agent spec string such as 'random' or 'clip:ViT-B-32/openai'"),
    )
    kwargs: dict[str, Any] | None = Field(None, json_schema_extra=_expected("a mapping of keyword arguments"))
    gpu: bool = _flag(False)

    @field_validator("spec")
    @classmethod
    def _known_kind(cls, spec: str) -> str:
        """An unknown agent kind is an error now, not after the other agents' games have run."""
        try:
            kind, _arg = split_spec(spec)
        except ValueError as err:
            raise FieldProblem((), f"expected '<kind>' or '<kind>:<argument>' ({err})", spec) from None
        kinds = available_agents()
        if kind not in kinds:
            raise FieldProblem(
                (), f"expected one of the agent kinds {kinds}{did_you_mean(kind, kinds)}", spec
            )
        return spec


_NON_NEGATIVE = _expected("a non-negative integer")


class ExperimentSchema(StrictModel):
    """Every key of an experiment config (see the docstring of :mod:`huesenv.experiments.config`)."""

    name: str = Field(
        json_schema_extra=_expected(
            "a run name of letters, digits and . _ + @ = - (one folder: no '/', not '.' or '..')"
        )
    )
    output: str = Field(pattern=r"\S", json_schema_extra=_expected("a folder path"))
    seed: int = Field(ge=0, json_schema_extra=_NON_NEGATIVE)
    num_players: int = Field(ge=0, json_schema_extra=_NON_NEGATIVE)
    games: int = Field(ge=0, le=MAX_GAMES, json_schema_extra=_expected(f"0 to {MAX_GAMES:,} games"))
    cue_mode: Literal["vocabulary", "text"] = Field(json_schema_extra=_expected("one of vocabulary, text"))
    agents: dict[str, AgentEntry] = Field(
        min_length=1, json_schema_extra=_expected("a mapping of agent name -> {spec: ...}")
    )
    lineups: list[list[str]] = Field(json_schema_extra=_expected("a list of lineups (lists of agent names)"))
    rotate_seats: bool = _flag()
    tournament: TournamentSection = Field(json_schema_extra=_expected(MAPPING))
    wordlevel: WordlevelSection = Field(json_schema_extra=_expected(MAPPING))
    metrics: MetricsSection = Field(json_schema_extra=_expected(MAPPING))
    humans: HumansSection = Field(json_schema_extra=_expected(MAPPING))
    report: ReportSection = Field(json_schema_extra=_expected(MAPPING))
    wandb: WandbSection = Field(json_schema_extra=_expected(MAPPING))
    backend: BackendSection = Field(json_schema_extra=_expected(MAPPING))
    weights: WeightsSection = Field(json_schema_extra=_expected(MAPPING))
    device: str | None = Field(None, json_schema_extra=_expected("auto, cpu, cuda, cuda:<n> or null"))
    allow_code: bool = _flag(False)

    @field_validator("name")
    @classmethod
    def _run_name(cls, name: str) -> str:
        if not RUN_NAME.match(name) or ".." in name:
            raise ValueError("not a run name")  # the field's expected text says what is
        return name

    @field_validator("device")
    @classmethod
    def _device(cls, device: str | None) -> str | None:
        if device is not None and not _DEVICE.fullmatch(device.strip().lower()):
            raise ValueError("not a device")
        return device

    @model_validator(mode="after")
    def _cross_fields(self) -> ExperimentSchema:
        if self.games == 0 and self.tournament.enabled:
            raise FieldProblem(
                ("games",),
                "expected at least 1 while tournament.enabled (for no games: `huesenv wordlevel`)",
                self.games,
            )
        low, high = DEFAULT_RULES.min_players, DEFAULT_RULES.max_players
        if not low <= self.num_players <= high:
            raise FieldProblem(
                ("num_players",), f"expected {low}-{high} players (the game's range)", self.num_players
            )
        for key in ("agent_factory", "play_fn"):
            value = getattr(self.tournament, key)
            problem = None if value is None else check_callable_name(key, value, allow_code=self.allow_code)
            if problem:
                raise FieldProblem(("tournament", key), problem)
        agents = sorted(self.agents)
        for i, lineup in enumerate(self.lineups):
            if len(lineup) != self.num_players:
                raise FieldProblem(
                    ("lineups", i), f"expected a list of {self.num_players} agent names (num_players)", lineup
                )
            for j, name in enumerate(lineup):
                if name not in self.agents:
                    raise FieldProblem(("lineups", i, j), f"expected one of the agents {agents}", name)
        for j, name in enumerate(self.wordlevel.agents or []):
            if name not in self.agents:
                raise FieldProblem(("wordlevel", "agents", j), f"expected one of the agents {agents}", name)
        return self


def section_keys(section: str) -> tuple[str, ...]:
    """The keys the config section ``section`` (``tournament``, ``wordlevel``, ...) may hold."""
    annotation = ExperimentSchema.model_fields[section].annotation
    if isinstance(annotation, type) and issubclass(annotation, StrictModel):
        return tuple(annotation.model_fields)
    return ()
