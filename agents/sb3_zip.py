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
  against ``policy_kwargs`` when it is plain JSON;
* the observation settings: the ``huesenv_settings`` entry (plain JSON, written
  by ``huesenv train``).

The serialized entries are never decoded.  Those a playing policy does not need
(``policy_class`` — always sb3-contrib's ``MaskableActorCriticPolicy`` —, the
spaces, rebuilt from the weights' shapes and the settings, the schedules and
the rollout buffer class) are ignored; ``policy_kwargs`` or ``huesenv_settings``
stored serialized are refused (they may carry a custom activation or feature
extractor that only unpickling could rebuild): ``--allow-code`` then loads the
zip with ``MaskablePPO.load``.

A zip without ``role`` in its settings (a bring-your-own model trained on
``huesenv/Guesser-v1``) gets the role of its env id when the number of actions
agrees with it (480 cells for a guesser, 480 + vocabulary + 1 for a cue giver).
"""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from huesenv.board import N_CELLS

MAX_DATA_BYTES = 16 * 2**20  # the data JSON of a real model is a few kB
MAX_WEIGHTS_BYTES = 2 * 2**30
MAX_WIDTH = 1 << 16  # units per layer / observation size / actions
MAX_PARAMETERS = 1 << 26  # 64M weights (256 MB in float32): far above any MlpPolicy huesenv trains
ROLE_OF_ENV = {"huesenv/Guesser": "guesser", "huesenv/CueGiver": "cue_giver"}
PLAIN_POLICY_KWARGS = {"net_arch", "ortho_init", "share_features_extractor", "normalize_images"}


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
        blob = fh.read(limit + 1)
    if len(blob) > limit:
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
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{source}: 'data' is not JSON ({err})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{source}: 'data': expected a JSON object")
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
        return {"pi": [int(x) for x in arch], "vf": [int(x) for x in arch]}
    if isinstance(arch, Mapping):
        return {"pi": [int(x) for x in arch.get("pi", [])], "vf": [int(x) for x in arch.get("vf", [])]}
    raise ValueError(f"{source}: policy_kwargs.net_arch: expected a list or a {{pi, vf}} mapping")


def settings_of(data: Mapping[str, Any], n_actions: int, source: str) -> dict[str, Any]:
    """The zip's ``huesenv_settings`` (plain JSON), with ``role`` inferred from the env id when absent."""
    raw = data.get("huesenv_settings")
    if raw is None:
        raise ValueError(
            f"{source}: the zip has no huesenv_settings (train it with `huesenv train`, "
            "or set model.huesenv_settings before model.save)"
        )
    if is_serialized(raw) or not isinstance(raw, Mapping):
        raise ValueError(f"{source}: huesenv_settings is stored pickled; expected plain JSON (a dict)")
    settings = dict(raw)
    if "role" not in settings:
        family = str(settings.get("env_id", "")).rpartition("-v")[0]
        role = ROLE_OF_ENV.get(family)
        vocab = settings.get("vocabulary") or ()
        expected = {"guesser": N_CELLS, "cue_giver": N_CELLS + len(vocab) + 1}
        if role is None or expected[role] != n_actions:
            raise ValueError(
                f"{source}: huesenv_settings has no 'role' and it cannot be inferred from env_id "
                f"{settings.get('env_id')!r} and {n_actions} actions; add role: guesser or cue_giver"
            )
        settings["role"] = role
    return settings


def load_sb3_policy(path: str | Path, device: str = "cpu") -> SB3Policy:
    """The zip's ``MaskableActorCriticPolicy`` rebuilt from plain data (see the module docstring)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    source = f"policy {path}"
    data, state = read_sb3_zip(path)
    kwargs = data.get("policy_kwargs") or {}
    if is_serialized(kwargs):
        raise ValueError(
            f"{source}: policy_kwargs is stored pickled (a custom class inside); huesenv reads only plain "
            "MlpPolicy settings without --allow-code"
        )
    if not isinstance(kwargs, Mapping) or set(kwargs) - PLAIN_POLICY_KWARGS:
        extra = sorted(set(kwargs) - PLAIN_POLICY_KWARGS) if isinstance(kwargs, Mapping) else kwargs
        raise ValueError(f"{source}: policy_kwargs {extra}: only {sorted(PLAIN_POLICY_KWARGS)} are read")
    arch = infer_architecture(state, source)
    declared = _declared_arch(kwargs, source)
    if declared is not None and declared != arch["net_arch"]:
        raise ValueError(
            f"{source}: policy_kwargs.net_arch {declared} does not match the weights' {arch['net_arch']}"
        )
    settings = settings_of(data, arch["n_actions"], source)
    policy = MaskableActorCriticPolicy(
        spaces.Box(-np.inf, np.inf, (arch["obs_dim"],), np.float32),
        spaces.Discrete(arch["n_actions"]),
        lambda _: 0.0,
        net_arch=arch["net_arch"],
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
