"""Scoring learned policies only against people they never saw: the check behind every experiment.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.experiments.evaluation``.
"""

from __future__ import annotations

import copy
import functools
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from huesenv.agents.policy_net import load_checkpoint
from huesenv.agents.sb3_zip import read_sb3_zip
from huesenv.humans import load_humans
from huesenv.humans.reference import part_file_split
from huesenv.humans.splits import (
    DataSplit,
    answers_sha256,
    describe_training,
    training_overlap,
    training_record,
    whole_cohort_record,
)
from huesenv.validation import StrictModel, validate

ALLOW_KEY = "allow_trained_on"


LEARNED_KINDS = (
    "policy",
    "lookup",
)  # agents that learned from a file: a checkpoint, or a lookup's answer table


class HumanDataRecord(StrictModel):
    """The human training record a checkpoint carries (:func:`huesenv.humans.splits.training_record`)."""

    format: Literal["huesenv-human-data"]
    split: dict[str, Any] | None
    source: str | None
    cohort_sha256: str
    train_participants: list[str] = Field(min_length=1)
    train_words: list[str] = Field(min_length=1)


def learned_spec(spec: Any) -> bool:
    """Whether ``spec`` is a ``policy:PATH`` or ``lookup:PATH`` agent (one whose training data is checked)."""
    if not isinstance(spec, str):
        return False
    kind, sep, arg = spec.partition(":")
    return bool(sep and arg) and kind in LEARNED_KINDS


def spec_file(spec: str, base: str | Path | None = None) -> Path | None:
    """The file of a ``policy:``/``lookup:`` spec: as given (relative: to the working folder), else a relative
    path taken in ``base`` (a run folder whose config.yaml names it); ``None`` when it is found in neither."""
    path = Path(spec.partition(":")[2])
    if path.is_file():
        return path
    if base is not None and not path.is_absolute() and (Path(base) / path).is_file():
        return Path(base) / path
    return None


def absolute_spec(spec: Any) -> Any:
    """``policy:``/``lookup:`` with an existing relative path made absolute (what a run folder stores)."""
    if not learned_spec(spec):
        return spec
    kind, _, arg = spec.partition(":")
    path = Path(arg)
    return f"{kind}:{path.absolute()}" if not path.is_absolute() and path.is_file() else spec


@functools.lru_cache(maxsize=8)
def _lookup_record(path: str, _mtime_ns: int, _split_mtime_ns: int | None = None) -> dict[str, Any]:
    """A lookup table's training data: the split's training part when ``path`` is one a split wrote
    (``split/train.csv.gz`` beside ``split.json``), else every answer of the file."""
    humans = load_humans(path)
    found = part_file_split(Path(path), set(humans.frame["user_id"].astype(str)))
    if found is not None and found[1] == "train":
        return training_record(found[0], humans)
    return whole_cohort_record(humans)


def valid_record(record: Any, source: str) -> dict[str, Any]:
    """A checkpoint's human training record, checked: one-line ``ValueError`` naming ``source`` when invalid.

    *(Choice: an invalid record is refused, never read as "unknown".)*  A record
    that is there but malformed (``{}``, a serialized blob, no participants or
    words) is a damaged or hand-edited file; taking it as unknown would run a
    policy whose file claims something it cannot back.  The refusal names the
    file and field, so the user can strip the field (then: TRAINING DATA
    UNKNOWN) or restore the checkpoint.
    """
    checked = validate(HumanDataRecord, record, source).model_dump()
    if checked["split"] is not None:
        DataSplit.from_dict(checked["split"], source=f"{source}.split")
    return checked


def policy_training_data(spec: str, base: str | Path | None = None) -> dict[str, Any] | None:
    """The human training data of a ``policy:PATH`` checkpoint or a ``lookup:PATH`` table (``None``: none recorded,
    no such file, or not a learned agent); ``base``: the run folder relative paths are also looked for in.

    A lookup's table *is* its training data: every participant and word of the export, named as a split's
    training part when the export is one (``split/train.csv.gz`` beside its ``split.json``).
    """
    if not learned_spec(spec):
        return None
    path = spec_file(spec, base)
    if path is None:
        return None
    if spec.startswith("lookup:"):
        split = path.resolve().parent / "split.json"  # the record names its split when one is beside it
        split_mtime = split.stat().st_mtime_ns if split.is_file() else None
        return _lookup_record(str(path.resolve()), path.stat().st_mtime_ns, split_mtime)
    if path.suffix == ".zip":  # an sb3 zip: its plain-JSON data (nothing unpickled), see sb3_train
        data, _ = read_sb3_zip(path)
        record, field = data.get("huesenv_human_data"), "huesenv_human_data"
    else:
        record, field = load_checkpoint(path).train.get("human_data"), "train.human_data"
    if record is None:
        return None
    return valid_record(record, f"policy {path}, field {field}")


def overlaps(
    agents: Mapping[str, str], humans: Any, base: str | Path | None = None
) -> dict[str, tuple[int, dict[str, Any]]]:
    """Per agent name whose policy (or lookup table) was trained on answers of ``humans``: (overlapping answers,
    its record)."""
    out = {}
    for name, spec in agents.items():
        record = policy_training_data(spec, base)
        n = training_overlap(record, humans)
        if n and record is not None:
            out[name] = (n, record)
    return out


def spec_in(spec: str, base: str | Path) -> str:
    """A run folder's ``policy:``/``lookup:`` spec with the file as found (:func:`spec_file`: the working
    folder, else the run folder ``base``); unchanged when found in neither (then TRAINING DATA UNKNOWN)."""
    path = spec_file(spec, base) if learned_spec(spec) else None
    return spec if path is None else f"{spec.partition(':')[0]}:{path}"


def check_references(config: Any, humans: Any, agents: Mapping[str, str] | None = None) -> list[str]:
    """Refuse (``ValueError``, one line) a policy scored against answers it trained on; else the labels to print."""
    if agents is None:
        agents = {a.name: a.spec for a in config.agents()}
    found = overlaps(agents, humans)
    allowed = bool((config["humans"] or {}).get(ALLOW_KEY, False))
    if found and not allowed:
        name, (n, record) = next(iter(found.items()))
        raise ValueError(
            f"{config.source}, agents.{name}: {agents[name]} was trained on {n} of the {len(humans)} answers of "
            f"the human reference ({describe_training(record)}); score it against the split's evaluation part "
            f"(humans.path), or set humans.{ALLOW_KEY}: true to score it on its training data (labelled as such)"
        )
    return overlap_labels(found)


def overlap_labels(found: Mapping[str, tuple[int, Mapping[str, Any]]]) -> list[str]:
    return [
        f"TRAINED ON THE REFERENCE: {name} is scored against {n} answers it was trained on "
        f"(humans.{ALLOW_KEY}: true); its numbers are not a held-out evaluation"
        for name, (n, _record) in found.items()
    ]


def learned_without_people(spec: str, base: str | Path | None = None) -> bool:
    """Whether a ``policy:PATH`` torch checkpoint says it learned from no people (self-play)."""
    path = spec_file(spec, base) if learned_spec(spec) and spec.startswith("policy:") else None
    if path is None or path.suffix == ".zip":
        return False
    return load_checkpoint(path).train.get("trainer") == "selfplay"


def unknown_training(agents: Mapping[str, str], base: str | Path | None = None) -> list[str]:
    """The learned agents whose human training data is unknown (no record or no such file, and not self-play)."""
    return [
        name
        for name, spec in agents.items()
        if learned_spec(spec)
        and policy_training_data(spec, base) is None
        and not learned_without_people(spec, base)
    ]


def training_labels(agents: Mapping[str, str], base: str | Path | None = None) -> list[str]:
    """One line per learned agent naming its human training data (for reports); see the module docstring."""
    out = []
    unknown = set(unknown_training(agents, base))
    for name, spec in agents.items():
        if not learned_spec(spec):
            continue
        if name in unknown and spec_file(spec, base) is None:
            where = "the working folder" + (f" or {base}" if base is not None else "")
            out.append(
                f"TRAINING DATA UNKNOWN: {name} ({spec}): no such file in {where}, so its human training data "
                "could not be checked: it may have learned from the reference's answers, so its numbers are "
                "not a held-out evaluation"
            )
        elif name in unknown:
            out.append(
                f"TRAINING DATA UNKNOWN: {name} ({spec}) records no human training data (a plain SB3 "
                "model.save, an RLlib or older checkpoint): it may have learned from the reference's answers, "
                "so its numbers are not a held-out evaluation"
            )
        elif learned_without_people(spec, base):
            out.append(f"{name}: human training data: none (self-play, no human answers)")
        else:
            out.append(f"{name}: human training data: {describe_training(policy_training_data(spec, base))}")
    return out


FALLBACK_MEANING = {
    "unknown_cue": "a cue outside its vocabulary, answered without reading it",
    "no_cue": "no cue to read",
    "exhausted": "no unused human answer left for the word",
}


def fallback_lines(records: Iterable[Any]) -> list[str]:
    """Report lines counting each agent's own fallbacks in game logs (``extra["agent_fallback"]``)."""
    counts = Counter(
        (str(r.extra.get("seat_agent") or r.agent_id), str(r.extra["agent_fallback"]))
        for r in records
        if getattr(r, "extra", None) and r.extra.get("agent_fallback")
    )
    return [
        f"{agent}: {n} answer(s) were its own fallback '{why}' ({FALLBACK_MEANING.get(why, 'see the log')}); "
        "logged as extra.agent_fallback"
        for (agent, why), n in sorted(counts.items())
    ]


def evaluation_default(config: Any, load: Any = None) -> Any:
    """The config a run of learned agents uses: the policies' evaluation part as its human reference, by default.

    When ``humans.path`` is unset, ``humans.allow_trained_on`` is not true, and
    every ``policy:PATH`` that records a split drew it from the cohort the
    config loads (same answers), the evaluation part is written next to the
    checkpoint (``split-<fingerprint>-evaluation.csv.gz`` with its record ``split-<fingerprint>.json``,
    once) and becomes
    ``humans.path``: replayed opponents and the metrics' reference are then
    people the policies never saw.  Otherwise the config is returned unchanged
    (and :func:`check_references` decides).
    """
    humans_cfg = dict(config["humans"] or {})
    if humans_cfg.get("path") or humans_cfg.get(ALLOW_KEY):
        return config
    records = {}
    for a in config.agents():
        record = policy_training_data(a.spec)
        if record and record.get("split"):
            records[a.spec] = record
    if not records:
        return config
    splits = {
        DataSplit.from_dict(r["split"], source=spec).fingerprint: (spec, r) for spec, r in records.items()
    }
    if len(splits) != 1:
        return config  # policies from different splits: no single evaluation part; check_references refuses
    fingerprint, (spec, record) = next(iter(splits.items()))
    split = DataSplit.from_dict(record["split"], source=spec)
    humans = (load or load_humans)(None, cvd=humans_cfg.get("cvd"))
    if answers_sha256(humans) != split.cohort_sha256:
        return config
    target = Path(spec.split(":", 1)[1]).resolve().parent / f"split-{fingerprint}-evaluation.csv.gz"
    if not target.exists():
        split.write_part(humans, "evaluation", target)
    split_file = target.with_name(f"split-{fingerprint}.json")
    if not split_file.exists():  # beside the part, so every table names it as that part (HumanReference.of)
        split.save(split_file)
    data = copy.deepcopy(config.data)
    data["humans"] = {**humans_cfg, "path": str(target)}
    return type(config)(data, source=config.source)


def mark_trained_on(tables: Mapping[str, Any], names: Iterable[str], unknown: Iterable[str] = ()) -> None:
    """Add a ``trained_on_reference`` column to every table with an ``agent`` column (only when some agent is
    trained on the reference or of unknown training data): a nullable boolean, ``<NA>`` for ``unknown``."""
    names, unknown = set(names), set(unknown) - set(names)
    if not names and not unknown:
        return
    for table in tables.values():
        if hasattr(table, "columns") and "agent" in table.columns:
            agent = table["agent"].astype(str)
            column = agent.isin(names).astype("boolean")
            column[agent.isin(unknown)] = None
            table["trained_on_reference"] = column
