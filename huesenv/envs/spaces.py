"""Action spaces of the Hues and Cues envs: Gymnasium's ``Discrete`` with a cheaper masked ``sample``.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.envs.spaces``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


class MaskedDiscrete(spaces.Discrete):
    """``gymnasium.spaces.Discrete`` whose ``sample(mask)`` makes three cheap passes over the mask (see the module)."""

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if (
            mask is None
            or probability is not None
            or type(mask) is not np.ndarray
            or mask.dtype != np.int8
            or mask.shape != (self.n,)
            # a byte other than 0 / 1 (a negative is one too): bytes.translate deletes the 0 and 1 bytes in
            # one C pass, a quarter of the time of a numpy max over the mask
            or mask.tobytes().translate(None, b"\x00\x01")
        ):
            # Gymnasium's checks, errors and draws; ``probability`` only when given (Gymnasium 1.0's
            # ``Discrete.sample`` takes no such argument, and pyproject allows gymnasium>=1.0)
            if probability is None:
                return super().sample(mask)
            return super().sample(mask, probability)
        legal = mask.nonzero()[0]  # 1-D: flatnonzero without its ravel
        if not legal.size:
            return self.start
        action = legal[self.np_random.integers(legal.size)]
        if not self.start and action.dtype is self.dtype:  # start 0: Gymnasium's sum is this very value
            return action
        return self.start + self.dtype.type(action)


class CueActionSpace(spaces.Dict):
    """Text mode's ``Dict(action=MaskedDiscrete, cue=Text)``, whose ``sample`` also takes the env's flat mask.

    Why: the env's observations carry one ``(A,)`` ``action_mask`` over ``action``
    (PettingZoo's convention: ``pettingzoo.test.api_test`` and masked samplers
    pass it to ``sample``), while Gymnasium's ``Dict.sample`` wants a dict of
    sub-masks.  An array mask is read as ``{"action": mask, "cue": None}`` (the
    cue text is drawn unmasked) and goes to Gymnasium's ``Dict.sample``, as
    does anything else.
    """

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        if isinstance(mask, np.ndarray) and probability is None:
            mask = {key: (mask if key == "action" else None) for key in self.spaces}
        if probability is None:  # Gymnasium 1.0's Dict.sample takes no probability argument
            return super().sample(mask)
        return super().sample(mask, probability)
