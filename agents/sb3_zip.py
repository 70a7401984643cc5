"""Read an sb3-contrib ``MaskablePPO`` zip without unpickling anything.

Why not ``MaskablePPO.load``: SB3 stores every value of its ``data`` JSON that
JSON cannot hold (the policy class, the spaces, the schedules, sometimes
``policy_kwargs``) as a base64 cloudpickle (``":serialized:"``) and unpickles
all of them on load, so a zip from anyone can run any code.  huesenv only needs
the policy network to play, and everything that network is can be read from
plain data:

* the weights: ``policy.pth``, read with ``torch.load(weights_only=True)``;
* the architecture: the layer shapes of those weights (observation size, the
  ``net_arch`` of the policy and value MLPs, the number of actions), checked
  against ``policy_kwargs``;
* the observation settings: the ``huesenv_settings`` entry (plain JSON, written
  by ``huesenv train``), or inferred (below).

The serialized entries are never decoded.  Those a playing policy does not need
(``policy_class`` — always sb3-contrib's ``MaskableActorCriticPolicy`` —, the
spaces, rebuilt from the weights' shapes and the settings, the schedules and
the rollout buffer class) are ignored.  A pickled ``policy_kwargs`` is read
from the readable copy SB3 writes beside it (:func:`readable_policy_kwargs`):
``net_arch`` and the other plain keys, and an ``activation_fn`` that names one
of ``torch.nn``'s activations; anything else (a feature extractor, a custom
class) and a pickled ``huesenv_settings`` are refused, and ``--allow-code``
then loads the zip with ``MaskablePPO.load``.

**A bring-your-own zip** (``MaskablePPO("MlpPolicy", gymnasium.make("huesenv/Guesser-v1"))``
saved by ``model.save``, with no ``huesenv_settings``) gets its settings from
what the zip holds as data (:func:`infer_settings`):

* the role from the number of actions: 480 cells → a guesser on
  ``huesenv/Guesser-v1``; ``480 + V + 1`` (cells, words, pass) → a cue giver on
  ``huesenv/CueGiver-v1``, with ``V`` the vocabulary size (``role="selfplay"``
  for one policy trained on every seat of ``hues_cues_v1`` through a wrapper);
* the cue encoding and the optional board from the observation size: the flat
  layout of :class:`~huesenv.envs.hues_cues.encoding.ObservationEncoder` is
  ``5815 + cue block (+ 1440 board)`` at the default rules, the cue block being
  ``2 (V + 3)`` (index) or ``2 × 384`` (MiniLM embeddings);
* the vocabulary: huesenv's 100 words when ``V`` is 100, else it must be given;
* ``flat_cue_weight`` from the observation space's readable bounds
  (``low_repr`` is ``-max(1, w)``);
* the activation from ``policy_kwargs``' readable ``activation_fn`` string
  (SB3 writes ``str(value)`` beside each pickled entry; only the activations of
  ``torch.nn`` are mapped, nothing is unpickled).

Anything these leave open (two layouts that fit the size, a vocabulary that is
not huesenv's, a weight at most 1) is a one-line error naming the zip and the
agent option that settles it (``role``, ``cue_encoding``, ``include_board``,
``vocabulary``, ``flat_cue_weight``: ``--opt role=guesser`` or
``agents.NAME.kwargs``).  Such settings are marked ``extra["inferred"]``.
A zip with ``huesenv_settings`` but no ``role`` gets the role of its env id.
"""

from __future__ import annotations

import io
import json
import re
import warnings
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from huesenv.board import N_CELLS, N_COLS, N_ROWS
from huesenv.envs.hues_cues.encoding import ObservationEncoder
from huesenv.game.rules import DEFAULT_RULES
from huesenv.trust import MAX_TENSOR_BYTES, UnsafeTensorFile, check_tensor_archive, read_at_most
from huesenv.vocabulary import normalise_word, word_texts

MAX_DATA_BYTES = 16 * 2**20  # the data JSON of a real model is a few kB
MAX_WIDTH = 1 << 16  # units per layer / observation size / actions
MAX_PARAMETERS = 1 << 26  # 64M weights (256 MB in float32): far above any MlpPolicy huesenv trains
MAX_WEIGHTS_BYTES = MAX_TENSOR_BYTES  # 8 bytes a weight: policy.pth's size and what torch.load may allocate
MAX_VOCABULARY_BYTES = 1 << 20  # a cue_vocabulary= word list
MAX_VOCABULARY_WORDS = 100_000
ROLE_OF_ENV = {"huesenv/Guesser": "guesser", "huesenv/CueGiver": "cue_giver"}
ENV_OF_ROLE = {
    "guesser": "huesenv/Guesser-v1",
    "cue_giver": "huesenv/CueGiver-v1",
    "selfplay": "hues_cues_v1",
}
PLAIN_POLICY_KWARGS = {"net_arch", "ortho_init", "share_features_extractor", "normalize_images"}
TRAINING_ONLY_KWARGS = {"optimizer_class", "optimizer_kwargs"}  # shape how it learned, not how it plays
# torch.nn activations SB3 instantiates without arguments (``activation_fn()``), by class name
ACTIVATIONS = (
    "ReLU",
    "Tanh",
    "ELU",
    "LeakyReLU",
    "GELU",
    "SiLU",
    "Sigmoid",
    "SELU",
    "Softplus",
    "Mish",
    "ReLU6",
)
ACTIVATION_STR = re.compile(r"^<class 'torch\.nn\.modules\.activation\.(\w+)'>$")
HINTS = ("role", "cue_encoding", "include_board", "cue_vocabulary", "flat_cue_weight")
MINILM_DIM = 384  # the env's default text encoder for cue_encoding="embedding"


@dataclass
class SB3Policy:
    """What :func:`load_sb3_policy` returns: the policy network, its settings and the zip's plain data."""

    policy: Any
    huesenv_settings: dict[str, Any]
    data: dict[str, Any]
    num_timesteps: int


def _member(archive: zipfile.ZipFile, name: str, limit: int, source: str) -> bytes:
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise ValueError(f"{source}: not an SB3 zip (no {name!r} inside)") from None
    if info.file_size > limit:
        raise ValueError(f"{source}: {name!r} is {info.file_size:,} bytes, more than the {limit:,} allowed")
    with archive.open(info) as fh:
        blob = read_at_most(fh, limit)
    if blob is None:
        raise ValueError(f"{source}: {name!r} is larger than the {limit:,} bytes allowed")
    return blob


def is_serialized(value: Any) -> bool:
    return isinstance(value, Mapping) and ":serialized:" in value


def read_sb3_zip(path: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The zip's ``data`` JSON (serialized entries left undecoded) and its policy weights (tensors only)."""
    import torch

    path = Path(path)
    source = f"policy {path}"
    if not path.is_file():
        raise FileNotFoundError(f"{source}: no such file")
    try:
        with zipfile.ZipFile(path) as archive:
            raw = _member(archive, "data", MAX_DATA_BYTES, source)
            weights = _member(archive, "policy.pth", MAX_WEIGHTS_BYTES, source)
    except zipfile.BadZipFile as err:
        raise ValueError(f"{source}: not a readable zip ({err})") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as err:  # also Python's int digit limit (a 6,000-digit number)
        raise ValueError(f"{source}: 'data' is not JSON ({str(err)[:200]})") from None
    except RecursionError:
        raise ValueError(f"{source}: 'data' is JSON nested too deeply to read") from None
    if not isinstance(data, dict):
        raise ValueError(f"{source}: 'data': expected a JSON object")
    try:
        check_tensor_archive(io.BytesIO(weights), MAX_WEIGHTS_BYTES)
    except UnsafeTensorFile as err:
        raise ValueError(
            f"{source}: 'policy.pth' is not a plain tensor file ({err}; nothing was unpickled)"
        ) from None
    try:
        with warnings.catch_warnings():  # a foreign pickle's protocol warning: the refusal below says it
            warnings.simplefilter("ignore")
            state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - an unreadable or code-carrying file is the same refusal
        raise ValueError(
            f"{source}: 'policy.pth' is not a plain tensor file ({type(err).__name__}; nothing was unpickled)"
        ) from None
    if not isinstance(state, Mapping) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{source}: 'policy.pth': expected a state dict of tensors")
    check_tensor_sizes(state, source)
    for name, tensor in state.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"{source}: 'policy.pth' tensor {name!r} holds NaN or infinite weights")
    return data, dict(state)


def check_tensor_sizes(state: Mapping[str, Any], source: str) -> None:
    """Refuse a weights file whose tensors claim more values than the file holds, or too many in all.

    Why: ``torch.load`` keeps views, so a few kB of stride-0 tensors (``zeros(1).expand(60000, 60000)``)
    would declare layers of billions of weights, which building the policy then allocates.  A real
    checkpoint stores every weight it declares (contiguous, with its own storage)."""
    total = 0
    for name, tensor in state.items():
        need = int(tensor.numel()) * int(tensor.element_size())
        have = int(tensor.untyped_storage().nbytes()) - int(tensor.storage_offset()) * int(
            tensor.element_size()
        )
        if not tensor.is_contiguous() or have < need:
            raise ValueError(
                f"{source}: 'policy.pth' tensor {name!r} declares {tuple(tensor.shape)} without storing its "
                "values (a view); expected plain saved weights"
            )
        total += int(tensor.numel())
        if total > MAX_PARAMETERS:
            raise ValueError(f"{source}: 'policy.pth' holds more than {MAX_PARAMETERS:,} weights; refused")


def _mlp_widths(state: Mapping[str, Any], prefix: str, source: str) -> tuple[int, list[int]]:
    """``(input size, hidden widths)`` of an SB3 MLP stored as ``prefix.0``, ``prefix.2``... linear layers."""
    widths, inputs, i = [], None, 0
    while f"{prefix}.{i}.weight" in state:
        w = state[f"{prefix}.{i}.weight"]
        if w.ndim != 2 or state.get(f"{prefix}.{i}.bias") is None:
            raise ValueError(f"{source}: {prefix}.{i}: expected a linear layer with a bias")
        if inputs is None:
            inputs = int(w.shape[1])
        elif int(w.shape[1]) != widths[-1]:
            raise ValueError(f"{source}: {prefix}.{i}: input {int(w.shape[1])} does not follow {widths[-1]}")
        widths.append(int(w.shape[0]))
        i += 2
    return (-1 if inputs is None else inputs), widths


def infer_architecture(state: Mapping[str, Any], source: str) -> dict[str, Any]:
    """Observation size, ``net_arch`` and action count of a ``MaskableActorCriticPolicy`` MLP from its weights."""
    for key in ("action_net.weight", "action_net.bias", "value_net.weight", "value_net.bias"):
        if key not in state:
            raise ValueError(f"{source}: 'policy.pth' lacks {key!r} (not a MaskablePPO MlpPolicy)")
    known_prefixes = ("mlp_extractor.policy_net.", "mlp_extractor.value_net.", "action_net.", "value_net.")
    odd = [k for k in state if not k.startswith(known_prefixes)]
    if odd:
        raise ValueError(
            f"{source}: 'policy.pth' has {odd[0]!r}: only MlpPolicy networks are read without --allow-code"
        )
    pi_in, pi = _mlp_widths(state, "mlp_extractor.policy_net", source)
    vf_in, vf = _mlp_widths(state, "mlp_extractor.value_net", source)
    action_w = state["action_net.weight"]
    if action_w.ndim != 2:
        raise ValueError(f"{source}: action_net.weight: expected a linear layer's 2-D weight")
    obs = pi_in if pi else (vf_in if vf else int(action_w.shape[1]))
    if (pi and pi_in != obs) or (vf and vf_in != obs):
        raise ValueError(f"{source}: policy and value networks read different observation sizes")
    if int(action_w.shape[1]) != (pi[-1] if pi else obs):
        raise ValueError(
            f"{source}: action_net reads {int(action_w.shape[1])} features, the body gives another"
        )
    n_actions = int(action_w.shape[0])
    for what, value in [("observation size", obs), ("actions", n_actions), *(("layer", w) for w in pi + vf)]:
        if not 1 <= value <= MAX_WIDTH:
            raise ValueError(f"{source}: {what} {value} outside 1..{MAX_WIDTH}")
    return {"obs_dim": obs, "n_actions": n_actions, "net_arch": {"pi": pi, "vf": vf}}


def _declared_arch(kwargs: Mapping[str, Any], source: str) -> dict[str, list[int]] | None:
    arch = kwargs.get("net_arch")
    if arch is None:
        return None
    if isinstance(arch, list):
        return {"pi": _widths(arch, "net_arch", source), "vf": _widths(arch, "net_arch", source)}
    if isinstance(arch, Mapping):
        return {k: _widths(arch.get(k, []), f"net_arch.{k}", source) for k in ("pi", "vf")}
    raise ValueError(f"{source}: policy_kwargs.net_arch: expected a list or a {{pi, vf}} mapping")


def _widths(value: Any, field: str, source: str) -> list[int]:
    if not isinstance(value, list) or not all(type(x) is int for x in value):
        raise ValueError(
            f"{source}: policy_kwargs.{field} {str(value)[:80]}: expected a list of layer widths"
        )
    return list(value)


def readable_policy_kwargs(kwargs: Any, source: str) -> tuple[dict[str, Any], str]:
    """``policy_kwargs`` as plain data and the activation's ``torch.nn`` class name (``"Tanh"``: SB3's default).

    A ``policy_kwargs`` holding a class (``activation_fn=nn.ReLU``) is stored
    pickled, with SB3's readable copy of each entry beside it (``str(value)`` for
    what JSON cannot hold); that copy is read, the pickle never is.  Only the
    plain MlpPolicy keys, a ``torch.nn`` activation and the optimiser (which does
    not change how the policy plays) are accepted.
    """
    if kwargs is None:
        return {}, "Tanh"
    pickled = is_serialized(kwargs)
    if not isinstance(kwargs, Mapping) or (pickled and kwargs.get(":type:") != "<class 'dict'>"):
        raise ValueError(f"{source}: policy_kwargs: expected a mapping, got {type(kwargs).__name__}")
    plain = {k: v for k, v in kwargs.items() if k not in (":type:", ":serialized:")}
    unknown = sorted(set(plain) - PLAIN_POLICY_KWARGS - TRAINING_ONLY_KWARGS - {"activation_fn"})
    if unknown:
        raise ValueError(
            f"{source}: policy_kwargs {unknown}: only MlpPolicy settings ({sorted(PLAIN_POLICY_KWARGS)}, "
            "activation_fn, the optimiser) are read without --allow-code"
        )
    activation = "Tanh"
    if "activation_fn" in plain:
        match = ACTIVATION_STR.match(str(plain["activation_fn"]))
        if not match or match.group(1) not in ACTIVATIONS:
            raise ValueError(
                f"{source}: policy_kwargs.activation_fn {str(plain['activation_fn'])[:80]!r}: only torch.nn's "
                f"{', '.join(ACTIVATIONS)} are read without --allow-code"
            )
        activation = match.group(1)
    elif (
        pickled and not set(plain) & TRAINING_ONLY_KWARGS
    ):  # nothing in it needed pickling: not SB3's writing
        raise ValueError(
            f"{source}: policy_kwargs is stored pickled with no readable activation_fn (a custom class "
            "inside); huesenv reads only plain MlpPolicy settings without --allow-code"
        )
    return plain, activation


def _readable(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


def _space_bound(space: Mapping[str, Any], key: str) -> float | None:
    """A Box's uniform bound from SB3's readable copy: ``low_repr`` (a number, when gymnasium had made it)
    or the printed array ``low`` (``'[-4. -4. ..., -4.]'``); ``None`` when absent or not uniform."""
    for text in (space.get(f"{key}_repr"), space.get(key)):
        if not isinstance(text, str):
            continue
        values = set(re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|[-+]?inf", text))
        try:
            numbers = {float(v) for v in values}
        except ValueError:
            continue
        if len(numbers) == 1:
            return numbers.pop()
    return None


def _flat_cue_weight(data: Mapping[str, Any], hint: Any, source: str) -> float:
    """``flat_cue_weight`` from the observation space's readable bounds (``[-max(1, w), max(100, w)]``)."""
    space = _readable(data, "observation_space")
    low, high = _space_bound(space, "low"), _space_bound(space, "high")
    if hint is not None:
        try:
            w = float(hint)
        except (TypeError, ValueError):
            raise ValueError(f"{source}: flat_cue_weight {hint!r}: expected a positive number") from None
        if not 0 < w < float("inf") or (low is not None and low != -max(1.0, w)):
            raise ValueError(f"{source}: flat_cue_weight {hint!r} does not fit the zip's bound {low}")
        return w
    if low is not None and not np.isfinite(low) or high is not None and not np.isfinite(high):
        raise ValueError(
            f"{source}: observation_space bounds {low}, {high}: not finite; pass flat_cue_weight=<w>"
        )
    if low is not None and low < -1.0:
        return -low
    if high is not None and high > 100.0:
        return high
    why = "at most 1" if low == -1.0 else "not recorded (no readable observation_space bounds)"
    raise ValueError(f"{source}: the observation weight of the cues is {why}; pass flat_cue_weight=<w>")


def _vocabulary_hint(hint: Any, source: str) -> tuple[str, ...]:
    """A ``vocabulary`` option: a list of words or a text file of one word a line, in the env's order."""
    if isinstance(hint, (str, Path)):
        path = Path(hint)
        try:
            if not path.is_file():
                raise OSError("not a regular file")
            with path.open("rb") as fh:
                blob = read_at_most(fh, MAX_VOCABULARY_BYTES)
            if blob is None:
                raise OSError(f"larger than {MAX_VOCABULARY_BYTES:,} bytes")
            words: Any = [w for w in blob.decode("utf-8").splitlines() if w.strip()]
        except (OSError, UnicodeDecodeError) as err:
            raise ValueError(
                f"{source}: vocabulary {str(hint)!r}: not a readable word list ({err})"
            ) from None
    elif isinstance(hint, (list, tuple)):
        words = list(hint)
    else:
        raise ValueError(f"{source}: vocabulary: expected a word-list file or a list of words")
    if len(words) > MAX_VOCABULARY_WORDS:
        raise ValueError(f"{source}: vocabulary: more than {MAX_VOCABULARY_WORDS:,} words")
    try:
        out = tuple(normalise_word(str(w)) for w in words)
    except ValueError as err:
        raise ValueError(f"{source}: vocabulary: {err}") from None
    if not out or len(set(out)) != len(out):
        raise ValueError(
            f"{source}: vocabulary: expected distinct words, got {len(out)} ({len(set(out))} distinct)"
        )
    return out


def _role(n_actions: int, hint: Any, source: str) -> tuple[str, int | None]:
    """The role (and, for cue givers, the vocabulary size) the action count allows."""
    opt = "pass role=guesser, cue_giver or selfplay"
    if hint is not None and (not isinstance(hint, str) or hint not in ENV_OF_ROLE):
        raise ValueError(f"{source}: role {hint!r}: expected one of {sorted(ENV_OF_ROLE)}")
    if n_actions == N_CELLS:
        if hint not in (None, "guesser"):
            raise ValueError(f"{source}: {n_actions} actions are the cells only: a guesser, not a {hint}")
        return "guesser", None
    if n_actions > N_CELLS + 1:
        if hint == "guesser":
            raise ValueError(f"{source}: a guesser has {N_CELLS} actions, this policy {n_actions}")
        return str(hint or "cue_giver"), n_actions - N_CELLS - 1
    raise ValueError(
        f"{source}: {n_actions} actions fit neither Guesser-v1 ({N_CELLS}) nor CueGiver-v1 "
        f"({N_CELLS} + words + 1); {opt}"
    )


def observation_layouts(obs_dim: int, vocab_size: int | None) -> list[dict[str, Any]]:
    """Every flat layout of the default rules with ``obs_dim`` entries (see the module docstring)."""
    index_one = ObservationEncoder(DEFAULT_RULES, ("x",), "index")
    base = index_one.flat_size - 2 * (1 + 3)
    board = N_ROWS * N_COLS * 3
    out: list[dict[str, Any]] = []
    for include_board in (False, True):
        rest = obs_dim - base - board * include_board
        if rest <= 0 or rest % 2:
            continue
        v = rest // 2 - 3
        if v >= 1 and vocab_size in (None, v):
            out.append({"cue_encoding": "index", "include_board": include_board, "vocab_size": v})
        if rest // 2 == MINILM_DIM:
            out.append(
                {"cue_encoding": "embedding", "include_board": include_board, "vocab_size": vocab_size}
            )
        if rest // 2 == DEFAULT_RULES.max_cue_chars:
            out.append({"cue_encoding": "text", "include_board": include_board, "vocab_size": vocab_size})
    return out


def infer_settings(
    data: Mapping[str, Any], obs_dim: int, n_actions: int, source: str, hints: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``PolicySettings`` of a zip that records none, from its plain data (see the module docstring)."""
    hints = {k: v for k, v in (hints or {}).items() if v is not None}
    obs_space, act_space = _readable(data, "observation_space"), _readable(data, "action_space")
    kind = str(obs_space.get(":type:", ""))
    if kind and "Box" not in kind:
        raise ValueError(f"{source}: trained on {kind} observations; expected huesenv's flat Box")
    if obs_space.get("_shape") not in (None, [obs_dim]) or str(act_space.get("n", n_actions)) != str(
        n_actions
    ):
        raise ValueError(
            f"{source}: the recorded spaces do not match the weights' {obs_dim} inputs, {n_actions} actions"
        )
    if hints.get("cue_encoding", "index") not in ("index", "embedding", "text"):
        raise ValueError(
            f"{source}: cue_encoding {hints['cue_encoding']!r}: expected index, embedding or text"
        )
    if not isinstance(hints.get("include_board", False), bool):
        raise ValueError(f"{source}: include_board {hints['include_board']!r}: expected true or false")
    role, vocab_size = _role(n_actions, hints.get("role"), source)
    vocabulary = _vocabulary_hint(hints["cue_vocabulary"], source) if "cue_vocabulary" in hints else None
    if vocabulary is not None and vocab_size not in (None, len(vocabulary)):
        raise ValueError(
            f"{source}: cue_vocabulary has {len(vocabulary)} words, the actions give {vocab_size}"
        )
    layouts = observation_layouts(obs_dim, vocab_size or (len(vocabulary) if vocabulary else None))
    fitting = layouts
    for key in ("cue_encoding", "include_board"):
        if key in hints:
            layouts = [lay for lay in layouts if lay[key] == hints[key]]
    if fitting and not layouts:
        raise ValueError(
            f"{source}: {obs_dim} observation entries do not fit "
            + ", ".join(f"{k}={hints[k]}" for k in ("cue_encoding", "include_board") if k in hints)
            + " (they fit "
            + "; ".join(
                f"cue_encoding={lay['cue_encoding']}, include_board={lay['include_board']}" for lay in fitting
            )
            + ")"
        )
    default_size = len(word_texts())
    if len(layouts) > 1:  # prefer what needs no word list beyond huesenv's own
        usable = [lay for lay in layouts if vocabulary or lay["vocab_size"] in (None, default_size)]
        layouts = usable if len(usable) == 1 else layouts
    if len(layouts) != 1:
        found = "; ".join(
            f"cue_encoding={lay['cue_encoding']}, include_board={lay['include_board']}, {lay['vocab_size']} words"
            for lay in layouts
        )
        raise ValueError(
            f"{source}: {obs_dim} observation entries fit "
            + (
                f"{len(layouts)} layouts ({found}); pass cue_encoding= and include_board="
                if layouts
                else "no flat layout of huesenv's envs at the default rules; train with the env's defaults or use --allow-code"
            )
        )
    layout = layouts[0]
    size = layout["vocab_size"] or default_size
    if vocabulary is None:
        if size != default_size:
            raise ValueError(
                f"{source}: trained with a {size}-word cue vocabulary, not huesenv's {default_size} words; "
                "pass cue_vocabulary=<file of one word a line, in the env's order>"
            )
        vocabulary = tuple(normalise_word(w) for w in word_texts())
    extra: dict[str, Any] = {
        "include_board": bool(layout["include_board"]),
        "num_players": 4,  # the wrappers' default; observations are padded to every seat count
        "flat_cue_weight": _flat_cue_weight(data, hints.get("flat_cue_weight"), source),
        "inferred": "from the zip's weights and spaces (no huesenv_settings)",
    }
    if layout["cue_encoding"] == "embedding":
        extra.update(text_encoder="minilm", cue_dim=MINILM_DIM)
    return {
        "env_id": ENV_OF_ROLE[role],
        "role": role,
        "cue_encoding": layout["cue_encoding"],
        "observation_mode": "flat",
        "vocabulary": list(vocabulary),
        "extra": extra,
    }


def settings_of(
    data: Mapping[str, Any],
    n_actions: int,
    source: str,
    *,
    obs_dim: int | None = None,
    hints: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The zip's ``huesenv_settings`` (plain JSON), with ``role`` inferred from the env id when absent.

    A zip with no ``huesenv_settings`` gets :func:`infer_settings` when ``obs_dim`` is
    given (playing it); ``hints`` are the agent's options, which fill what the zip leaves open.
    """
    hints = {k: v for k, v in (hints or {}).items() if v is not None}
    raw = data.get("huesenv_settings")
    if raw is None:
        if obs_dim is None:
            raise ValueError(
                f"{source}: the zip has no huesenv_settings (train it with `huesenv train`, "
                "or set model.huesenv_settings before model.save)"
            )
        return infer_settings(data, obs_dim, n_actions, source, hints)
    if is_serialized(raw):
        raise ValueError(f"{source}: huesenv_settings is stored pickled; expected plain JSON (a dict)")
    if not isinstance(raw, Mapping):
        raise ValueError(
            f"{source}: huesenv_settings is a JSON {type(raw).__name__}; expected an object (a dict)"
        )
    settings = dict(raw)
    extra_hints = sorted(set(hints) - {"role"})
    if extra_hints:
        raise ValueError(
            f"{source}: the zip records its settings (huesenv_settings); {extra_hints} are only for zips without them"
        )
    if "role" in hints and settings.get("role", hints["role"]) != hints["role"]:
        raise ValueError(f"{source}: role {hints['role']!r}, but the zip records role {settings['role']!r}")
    if "role" not in settings and "role" in hints:
        settings["role"] = hints["role"]
    if "role" not in settings:
        family = str(settings.get("env_id", "")).rpartition("-v")[0]
        role = ROLE_OF_ENV.get(family)
        vocab = settings.get("vocabulary") or ()
        expected = {"guesser": N_CELLS, "cue_giver": N_CELLS + len(vocab) + 1}
        if role is None or expected[role] != n_actions:
            raise ValueError(
                f"{source}: huesenv_settings has no 'role' and it cannot be inferred from env_id "
                f"{settings.get('env_id')!r} and {n_actions} actions; pass role=guesser or cue_giver"
            )
        settings["role"] = role
    return settings


def load_sb3_policy(
    path: str | Path, device: str = "cpu", hints: Mapping[str, Any] | None = None
) -> SB3Policy:
    """The zip's ``MaskableActorCriticPolicy`` rebuilt from plain data (see the module docstring).

    ``hints``: the agent's options for a zip that records no settings (:data:`HINTS`).
    """
    import torch.nn as nn
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    source = f"policy {path}"
    data, state = read_sb3_zip(path)
    kwargs, activation = readable_policy_kwargs(data.get("policy_kwargs"), source)
    arch = infer_architecture(state, source)
    declared = _declared_arch(kwargs, source)
    if declared is not None and declared != arch["net_arch"]:
        raise ValueError(
            f"{source}: policy_kwargs.net_arch {declared} does not match the weights' {arch['net_arch']}"
        )
    settings = settings_of(data, arch["n_actions"], source, obs_dim=arch["obs_dim"], hints=hints)
    policy = MaskableActorCriticPolicy(
        spaces.Box(-np.inf, np.inf, (arch["obs_dim"],), np.float32),
        spaces.Discrete(arch["n_actions"]),
        lambda _: 0.0,
        net_arch=arch["net_arch"],
        activation_fn=getattr(nn, activation),
        ortho_init=False,
        share_features_extractor=bool(kwargs.get("share_features_extractor", True)),
    )
    try:
        policy.load_state_dict(state, strict=True)
    except RuntimeError as err:
        raise ValueError(f"{source}: weights do not fit the policy: {str(err).splitlines()[0]}") from None
    policy.set_training_mode(False)
    policy.to(device)
    steps = data.get("num_timesteps", 0)
    return SB3Policy(policy, settings, data, int(steps) if isinstance(steps, int) else 0)
