"""``policy:RUN/checkpoint`` for RLlib checkpoints (``huesenv.experiments.rl.rllib_train``): load and act.

An RLlib checkpoint is a folder of *pickled* Python objects (``class_and_ctor_args.pkl``,
``state.pkl``): loading one runs code from the file, so it is refused unless the caller
says ``allow_code=True`` (``--allow-code``) for a checkpoint it trusts.  The observation
settings come from ``huesenv_settings.json`` (JSON, validated by
:class:`~huesenv.agents.policy_net.PolicySettings`) that the trainer writes beside the
checkpoint; the module acting is the shared policy's ``RLModule``
(``learner_group/learner/rl_module/<policy id>``).  Observations are the env's flat
observation (:mod:`huesenv.envs.rllib`); masking is the agent's own (legal cells, allowed cues).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from huesenv.agents.policy_net import PolicySettings
from huesenv.trust import CodeNotAllowedError, code_allowed, read_user_text

SETTINGS_FILE = "huesenv_settings.json"
DEFAULT_POLICY_ID = "shared"


def is_rllib_checkpoint(path: Path) -> bool:
    return path.is_dir() and (path / "rllib_checkpoint.json").is_file()


def load_rllib_policy(path: Path, *, allow_code: bool = False) -> tuple[Any, PolicySettings]:
    """The shared policy's RLModule and the recorded settings (``ValueError`` naming what is missing)."""
    source = f"policy {path}"
    settings_path = path / SETTINGS_FILE
    if not settings_path.is_file():
        raise ValueError(
            f"{source}: no {SETTINGS_FILE} beside the RLlib checkpoint (the project's RLlib trainer writes it, "
            "or write it by hand from PolicySettings.to_dict())"
        )
    try:
        raw = json.loads(read_user_text(settings_path, expected="policy settings JSON", max_bytes=1 << 20))
    except json.JSONDecodeError as err:
        raise ValueError(f"{settings_path}: line {err.lineno}: not valid JSON ({err.msg})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"{settings_path}: expected a JSON object of policy settings")
    policy_id = str(raw.pop("policy_id", DEFAULT_POLICY_ID))
    settings = PolicySettings.from_dict(raw, source=str(settings_path))
    module_dir = path / "learner_group" / "learner" / "rl_module" / policy_id
    if not module_dir.is_dir():
        raise ValueError(f"{source}: no RLModule for policy {policy_id!r} at {module_dir}")
    if not (allow_code or code_allowed()):  # the caller's grant, or the CLI's --allow-code switch
        raise CodeNotAllowedError(
            f"{source}: an RLlib checkpoint is pickled Python objects and loading it runs code; "
            "pass --allow-code (allow_code=True) for a checkpoint you trust"
        )
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError:
        raise ValueError(
            f"{source}: RLlib checkpoints need the ray extra (pip install 'huesenv[ray]')"
        ) from None
    return RLModule.from_checkpoint(str(module_dir)), settings


def rllib_logits(module: Any, obs: np.ndarray) -> np.ndarray:
    """``(B, A)`` action logits of the module for flat observations ``(B, D)`` (all actions unmasked)."""
    import torch
    from ray.rllib.core.columns import Columns

    n = int(module.action_space.n)
    batch = {
        Columns.OBS: {
            "observations": torch.as_tensor(np.asarray(obs, dtype=np.float32)),
            "action_mask": torch.ones((len(obs), n), dtype=torch.float32),
        }
    }
    with torch.no_grad():
        out = module.forward_inference(batch)
    return out[Columns.ACTION_DIST_INPUTS].cpu().numpy().astype(np.float64)
