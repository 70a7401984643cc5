"""Learned policies on disk: the torch networks, the checkpoint format, and the observation-settings check.

Why a checkpoint records its observation settings: a policy is only meaningful
on the observations it was trained on.  A guesser trained with the cue as a
vocabulary index cannot read an embedding, and index ``17`` means another word
under another vocabulary.  Every checkpoint therefore stores
:class:`PolicySettings` (env id and version, role, cue encoding, observation
mode, vocabulary) and :func:`check_settings` refuses a mismatching env with one
line naming the file, the field, what the policy expects and what the env has.

**Checkpoint (torch).** ``torch.save`` of a plain dict (loaded with
``weights_only=True``, so opening a checkpoint never runs code)::

    {"format": "huesenv-policy", "format_version": 1,
     "settings": {...PolicySettings...},
     "nets": {"guesser": {"arch": {...}, "state_dict": {...}},
              "speaker": {...}},              # self-play checkpoints only
     "train": {"steps": ..., "seed": ..., ...}}

**Networks** (built by functions so that torch loads only when a policy does):

* guesser (:func:`build_guesser_net`): ``cue index → embedding`` (index ``V`` is
  the reserved "no known cue" row, kept at zero), or with ``cue_dim > 0`` a
  linear read of the cue's text-encoder vector (``cue_encoding="embedding"``;
  ``settings.extra["text_encoder"]`` names the encoder), plus a linear read of the
  occupied cells, two ReLU layers, a 480-way policy head and a value head.
* speaker (:func:`build_speaker_net`): the target cell's learned embedding
  plus a linear read of its CIELAB colour (the colour the cue giver sees), two
  ReLU layers, a ``V``-way word head and a value head.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from huesenv.atomic import write_bytes_atomic
from huesenv.board import N_CELLS, load_board
from huesenv.trust import UnsafeTensorFile, check_tensor_archive
from huesenv.validation import validate
from huesenv.vocabulary import normalise_word

CHECKPOINT_FORMAT = "huesenv-policy"
CHECKPOINT_VERSION = 1
CUE_ENCODINGS = ("index", "embedding", "text")
ROLES = ("guesser", "cue_giver", "selfplay")


class PolicyMismatchError(ValueError):
    """A policy's recorded observation settings differ from the env it is asked to play."""


@dataclass(frozen=True)
class PolicySettings:
    """What a policy saw while training; compared field by field with an env (:func:`check_settings`)."""

    env_id: str
    role: str
    cue_encoding: str = "index"
    observation_mode: str = "flat"
    vocabulary: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role: expected one of {ROLES}, got {self.role!r}")
        if self.cue_encoding not in CUE_ENCODINGS:
            raise ValueError(f"cue_encoding: expected one of {CUE_ENCODINGS}, got {self.cue_encoding!r}")
        object.__setattr__(self, "vocabulary", tuple(self.vocabulary))
        object.__setattr__(self, "extra", dict(self.extra))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["vocabulary"] = list(self.vocabulary)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "settings") -> PolicySettings:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"{source}: unknown settings field(s) {unknown}; expected {sorted(known)}")
        missing = [k for k in ("env_id", "role") if k not in data]
        if missing:
            raise ValueError(f"{source}: settings lack {missing}")
        return cls(**dict(data))


# the fields an env must agree on; vocabulary differences are summarised, not dumped
CHECKED_FIELDS = ("env_id", "cue_encoding", "observation_mode", "vocabulary")


def _env_family(env_id: str) -> tuple[str, str]:
    """``"huesenv/Guesser-v1"`` → ``("huesenv/Guesser", "v1")``."""
    name, sep, version = env_id.rpartition("-v")
    return (name, "v" + version) if sep and version.isdigit() else (env_id, "")


def check_settings(policy: PolicySettings, env: Mapping[str, Any], source: str = "policy") -> None:
    """Raise :class:`PolicyMismatchError` (one line) unless ``env``'s settings match the policy's.

    ``env`` holds any of :data:`CHECKED_FIELDS` (missing ones are not checked).
    The env id must match in name *and* version: a v0 policy on a v1 env sees a
    different observation layout even when the name is the same.
    """
    if "env_id" in env and env["env_id"] != policy.env_id:
        (pn, pv), (en, ev) = _env_family(policy.env_id), _env_family(str(env["env_id"]))
        what = "version" if pn == en else "env id"
        raise PolicyMismatchError(
            f"{source}: trained on env {policy.env_id!r}, cannot play {env['env_id']!r} ({what} differs"
            + (f": {pv} vs {ev})" if what == "version" else ")")
        )
    for key in ("cue_encoding", "observation_mode"):
        if key in env and env[key] != getattr(policy, key):
            raise PolicyMismatchError(
                f"{source}: trained with {key}={getattr(policy, key)!r}, the env has {key}={env[key]!r}"
            )
    if "vocabulary" in env and policy.cue_encoding == "index":
        theirs = tuple(env["vocabulary"])
        if theirs != policy.vocabulary:
            diff = next(
                (i for i, (a, b) in enumerate(zip(policy.vocabulary, theirs)) if a != b),
                min(len(policy.vocabulary), len(theirs)),
            )
            mine_w = policy.vocabulary[diff] if diff < len(policy.vocabulary) else "<end>"
            their_w = theirs[diff] if diff < len(theirs) else "<end>"
            raise PolicyMismatchError(
                f"{source}: trained with a {len(policy.vocabulary)}-word cue vocabulary, the env has "
                f"{len(theirs)} words (first difference at index {diff}: {mine_w!r} vs {their_w!r})"
            )


def env_settings(env: Any) -> dict[str, Any]:
    """The observation settings an env exposes (what :func:`check_settings` compares).

    Reads, unwrapping Gymnasium wrappers, an env's ``policy_settings()`` when it
    has one, else its ``spec.id``, ``cue_encoding``/``cue_mode``,
    ``observation_mode`` and vocabulary (``vocabulary`` or ``game.layout.vocabulary``).
    """
    base = getattr(env, "unwrapped", env)
    for obj in (env, base):
        getter = getattr(obj, "policy_settings", None)
        if callable(getter):
            return dict(getter())
    out: dict[str, Any] = {}
    spec = getattr(base, "spec", None) or getattr(env, "spec", None)
    if spec is not None and getattr(spec, "id", None):
        out["env_id"] = spec.id
    enc = getattr(base, "cue_encoding", None)
    if enc is None and getattr(base, "cue_mode", None) == "vocabulary":
        enc = "index"
    if enc is not None:
        out["cue_encoding"] = enc
    mode = getattr(base, "observation_mode", None)
    if mode is not None:
        out["observation_mode"] = mode
    vocab = getattr(base, "vocabulary", None)
    if vocab is None:
        layout = getattr(getattr(base, "game", None), "layout", None) or getattr(base, "layout", None)
        vocab = getattr(layout, "vocabulary", None)
    if vocab is not None:
        out["vocabulary"] = tuple(vocab)
    return out


# -- networks -----------------------------------------------------------------------------------------------------
def build_guesser_net(vocab_size: int, hidden: int = 256, cue_dim: int = 0):
    """Guesser: (cue, occupied cells) → 480 cell logits and a value (see the module docstring).

    ``cue_dim == 0``: the cue is a vocabulary index (an embedding row per word);
    ``cue_dim > 0``: the cue is a text-encoder vector of that size, read by a
    linear layer, so any word or phrase the encoder reads is an input.
    """
    import torch.nn as nn

    if vocab_size < 1 or hidden < 1 or cue_dim < 0:
        raise ValueError(
            f"guesser net: expected vocab_size, hidden >= 1 and cue_dim >= 0, got {vocab_size}, {hidden}, {cue_dim}"
        )
    cue = (
        nn.Linear(cue_dim, hidden)
        if cue_dim
        else nn.Embedding(vocab_size + 1, hidden, padding_idx=vocab_size)
    )
    return nn.ModuleDict(
        {
            "cue": cue,
            "occupied": nn.Linear(N_CELLS, hidden, bias=False),
            "body": nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()),
            "pi": nn.Linear(hidden, N_CELLS),
            "v": nn.Linear(hidden, 1),
        }
    )


def guesser_forward(net, cue, occupied):
    """Cue indices ``(B,)`` (``V`` = no known cue) or cue vectors ``(B, D)``, and ``(B, 480)`` occupancy →
    logits ``(B, 480)``, value ``(B,)``."""
    h = net["body"](net["cue"](cue) + net["occupied"](occupied.float()))
    return net["pi"](h), net["v"](h).squeeze(-1)


def build_speaker_net(vocab_size: int, hidden: int = 256):
    """Speaker (cue giver): the target cell → ``V`` word logits and a value."""
    import torch
    import torch.nn as nn

    lab = torch.as_tensor(np.asarray(load_board().lab, dtype=np.float32) / 100.0)
    net = nn.ModuleDict(
        {
            "cell": nn.Embedding(N_CELLS, hidden),
            "colour": nn.Linear(3, hidden),
            "body": nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()),
            "pi": nn.Linear(hidden, vocab_size),
            "v": nn.Linear(hidden, 1),
        }
    )
    net.register_buffer("lab", lab)
    return net


def speaker_forward(net, target):
    """``(B,)`` target cells → word logits ``(B, V)``, value ``(B,)``."""
    h = net["body"](net["cell"](target) + net["colour"](net.lab[target]))
    return net["pi"](h), net["v"](h).squeeze(-1)


BUILDERS = {"guesser": build_guesser_net, "speaker": build_speaker_net}


def build_net(kind: str, arch: Mapping[str, Any]):
    if kind not in BUILDERS:
        raise ValueError(f"network kind {kind!r}: expected one of {sorted(BUILDERS)}")
    return BUILDERS[kind](**dict(arch))


MAX_HIDDEN = 8192  # far above any trained here; bounds what a file can make us allocate


def expected_shapes(kind: str, vocab_size: int, hidden: int, cue_dim: int = 0) -> dict[str, tuple[int, ...]]:
    """The state-dict shapes :func:`build_net` gives (checked against a file before building it)."""
    if kind == "guesser":
        cue = {"cue.weight": (hidden, cue_dim), "cue.bias": (hidden,)} if cue_dim else {}
        return {
            "cue.weight": (vocab_size + 1, hidden),
            **cue,
            "occupied.weight": (hidden, N_CELLS),
            "body.1.weight": (hidden, hidden),
            "body.1.bias": (hidden,),
            "pi.weight": (N_CELLS, hidden),
            "pi.bias": (N_CELLS,),
            "v.weight": (1, hidden),
            "v.bias": (1,),
        }
    return {
        "lab": (N_CELLS, 3),
        "cell.weight": (N_CELLS, hidden),
        "colour.weight": (hidden, 3),
        "colour.bias": (hidden,),
        "body.1.weight": (hidden, hidden),
        "body.1.bias": (hidden,),
        "pi.weight": (vocab_size, hidden),
        "pi.bias": (vocab_size,),
        "v.weight": (1, hidden),
        "v.bias": (1,),
    }


def check_arch(kind: str, entry: Any, settings: PolicySettings, source: str) -> None:
    """A network entry's arch is bounded, agrees with the recorded vocabulary, and its tensors have the
    shapes that arch builds: one line naming the field otherwise (a 3 kB file cannot ask for 10 GB)."""
    if kind not in BUILDERS:
        raise ValueError(f"{source}: network kind {kind!r}: expected one of {sorted(BUILDERS)}")
    if not isinstance(entry, Mapping) or not isinstance(entry.get("arch"), Mapping):
        raise ValueError(f"{source}: nets.{kind}: expected {{arch, state_dict}}")
    arch = dict(entry["arch"])
    if not {"vocab_size", "hidden"} <= set(arch) <= {"vocab_size", "hidden", "cue_dim"} or not all(
        isinstance(arch[k], int) and not isinstance(arch[k], bool) for k in arch
    ):
        raise ValueError(
            f"{source}: nets.{kind}.arch: expected integers vocab_size and hidden (and cue_dim), got {arch}"
        )
    cue_dim = int(arch.get("cue_dim", 0))
    if not 0 <= cue_dim <= MAX_HIDDEN:
        raise ValueError(f"{source}: nets.{kind}.arch.cue_dim: expected 0..{MAX_HIDDEN}, got {cue_dim}")
    if arch["vocab_size"] != len(settings.vocabulary):
        raise ValueError(
            f"{source}: nets.{kind}.arch.vocab_size: expected {len(settings.vocabulary)} (the recorded "
            f"vocabulary), got {arch['vocab_size']}"
        )
    if not 1 <= arch["hidden"] <= MAX_HIDDEN:
        raise ValueError(f"{source}: nets.{kind}.arch.hidden: expected 1..{MAX_HIDDEN}, got {arch['hidden']}")
    state = entry.get("state_dict")
    if not isinstance(state, Mapping):
        raise ValueError(f"{source}: nets.{kind}.state_dict: expected a mapping of tensors")
    want = expected_shapes(kind, arch["vocab_size"], arch["hidden"], cue_dim)
    got = {k: tuple(getattr(v, "shape", ())) for k, v in state.items()}
    if got != want:
        bad = next((k for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)), "?")
        raise ValueError(
            f"{source}: nets.{kind}.state_dict[{bad!r}]: expected shape {want.get(bad)}, got {got.get(bad)}"
        )


# -- checkpoints --------------------------------------------------------------------------------------------------
@dataclass
class PolicyCheckpoint:
    """A loaded checkpoint: settings, networks (torch modules, eval mode, on CPU) and training metadata."""

    settings: PolicySettings
    nets: dict[str, Any]
    archs: dict[str, dict[str, Any]]
    train: dict[str, Any]
    path: str = ""


def save_checkpoint(
    path: str | Path,
    settings: PolicySettings,
    nets: Mapping[str, Any],
    archs: Mapping[str, Mapping[str, Any]],
    train: Mapping[str, Any] | None = None,
) -> Path:
    """Write a policy checkpoint atomically (a temporary file renamed into place)."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": CHECKPOINT_FORMAT,
        "format_version": CHECKPOINT_VERSION,
        "settings": settings.to_dict(),
        "nets": {
            k: {
                "arch": dict(archs[k]),
                "state_dict": {n: t.detach().cpu() for n, t in net.state_dict().items()},
            }
            for k, net in nets.items()
        },
        "train": dict(train or {}),
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return write_bytes_atomic(path, buffer.getvalue())


class _CheckpointMeta(BaseModel):
    """A checkpoint's top-level fields, typed (``format_version: [1]`` is a one-line error, not a TypeError)."""

    model_config = ConfigDict(extra="allow", strict=True)
    format_version: int = -1
    settings: dict[str, Any] = Field(default_factory=dict)
    nets: dict[str, Any] = Field(default_factory=dict)
    train: dict[str, Any] = Field(default_factory=dict)


def load_checkpoint(path: str | Path) -> PolicyCheckpoint:
    """Read a checkpoint written by :func:`save_checkpoint`; one-line ``ValueError`` for anything else."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"policy checkpoint {path}: no such file")
    try:
        check_tensor_archive(path)
    except UnsafeTensorFile as err:
        raise ValueError(f"policy checkpoint {path}: not a readable torch checkpoint ({err})") from None
    try:
        with warnings.catch_warnings():  # a foreign pickle's protocol warning: the refusal below says it
            warnings.simplefilter("ignore")
            payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - any unreadable file is the same user mistake
        raise ValueError(
            f"policy checkpoint {path}: not a readable torch checkpoint ({type(err).__name__})"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"policy checkpoint {path}: field 'format': expected {CHECKPOINT_FORMAT!r}")
    meta = validate(_CheckpointMeta, payload, f"policy checkpoint {path}", quote_field=True)
    if meta.format_version > CHECKPOINT_VERSION:
        raise ValueError(
            f"policy checkpoint {path}: format_version {meta.format_version} is newer than this "
            f"huesenv reads ({CHECKPOINT_VERSION})"
        )
    settings = PolicySettings.from_dict(meta.settings, source=f"policy checkpoint {path}")
    nets, archs = {}, {}
    for kind, entry in meta.nets.items():
        check_arch(kind, entry, settings, source=f"policy checkpoint {path}")  # before any tensor is built
        net = build_net(kind, entry["arch"])
        try:
            net.load_state_dict(entry["state_dict"])
        except RuntimeError as err:
            first = str(err).splitlines()[0]
            raise ValueError(
                f"policy checkpoint {path}: network {kind!r} does not match its arch: {first}"
            ) from None
        net.eval()
        nets[kind], archs[kind] = net, dict(entry["arch"])
    if "guesser" not in nets and "speaker" not in nets:
        raise ValueError(
            f"policy checkpoint {path}: field 'nets': expected a 'guesser' and/or 'speaker' network"
        )
    return PolicyCheckpoint(settings, nets, archs, meta.train, str(path))


def cue_indices(cues: Sequence[Sequence[str]], vocabulary: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the index of its latest cue in ``vocabulary`` (``V`` when none is known) and a known flag.

    Why the latest cue: in the second guessing phase the second cue refines the
    first; a policy trained on one cue reads the most recent one it knows, as
    the replayed humans do.
    """

    index = {w: i for i, w in enumerate(vocabulary)}
    out = np.full(len(cues), len(vocabulary), dtype=np.int64)
    for q, qcues in enumerate(cues):
        for c in reversed(tuple(qcues)):
            try:
                key = normalise_word(c)
            except ValueError:
                continue
            if key in index:
                out[q] = index[key]
                break
    return out, out < len(vocabulary)
