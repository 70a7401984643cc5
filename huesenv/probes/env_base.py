"""The gymnasium env shared by the single-step probes: one trial per episode.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.env_base``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from huesenv.logs.schema import LogRecord
from huesenv.probes.trials import CHARSET, IMAGE_SIZE, ParsedAnswer, ProbeTrial, make_record, parse_reply

MAX_QUESTION = 1024
MAX_ANSWER = 2048
OPTION_SEP = " | "


class ProbeEnv(gym.Env):
    """Base class: subclasses build ``self._trials`` and define :meth:`reward`."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 1}
    task = "probe"

    def __init__(
        self,
        trials: Sequence[ProbeTrial],
        *,
        render_mode: str | None = None,
        run_id: str = "env",
        agent_id: str = "env-user",
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: {render_mode!r} is not one of {self.metadata['render_modes']}")
        if not trials:
            raise ValueError(f"{type(self).__name__}: the trial list is empty (check the filters)")
        self._trials = list(trials)
        self._index = {t.trial_id: i for i, t in enumerate(self._trials)}
        self.render_mode = render_mode
        self.run_id = run_id
        self.agent_id = agent_id
        self.observation_space = spaces.Dict(
            {
                "image": spaces.Box(0, 255, (IMAGE_SIZE, IMAGE_SIZE, 3), dtype=np.uint8),
                "question": spaces.Text(max_length=MAX_QUESTION, min_length=0, charset=CHARSET),
                "options": spaces.Text(max_length=MAX_QUESTION, min_length=0, charset=CHARSET),
            }
        )
        self.action_space = spaces.Text(max_length=MAX_ANSWER, min_length=0, charset=CHARSET)
        self._current: ProbeTrial | None = None
        self._image: np.ndarray | None = None
        self._episode = -1
        self._seed: int | None = None
        self.last_record: LogRecord | None = (
            None  # the LogRecord of the last step (kept out of info: it carries a timestamp)
        )

    # ------------------------------------------------------------------ batch access
    def trials(self) -> Iterator[ProbeTrial]:
        """Every trial of the seeded set, in order (images render lazily)."""
        return iter(self._trials)

    def __len__(self) -> int:
        return len(self._trials)

    # ------------------------------------------------------------------ gym API
    def _obs(self) -> dict[str, Any]:
        assert self._current is not None and self._image is not None
        opts = OPTION_SEP.join(self._current.options) if self._current.options else ""
        return {"image": self._image.copy(), "question": self._current.question, "options": opts}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seed = int(seed)
        pick = (options or {}).get("trial")
        if pick is None:
            i = int(self.np_random.integers(len(self._trials)))
        elif isinstance(pick, str):
            if pick not in self._index:
                raise ValueError(f"reset options, field trial: unknown trial id {pick!r}")
            i = self._index[pick]
        else:
            i = int(pick)
            if not 0 <= i < len(self._trials):
                raise ValueError(
                    f"reset options, field trial: index {i} is not in 0..{len(self._trials) - 1}"
                )
        self._current = self._trials[i]
        self._image = self._current.image()
        self._episode += 1
        return self._obs(), {
            "trial_id": self._current.trial_id,
            "truth": self._current.truth,
            "subject": self._current.subject,
            "trial_index": i,
            "text_only": self._current.text_only,  # the image is a white stand-in: ask in text only
        }

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self._current is None:
            raise RuntimeError(f"{type(self).__name__}.step called before reset")
        trial = self._current
        parsed = parse_reply(trial, action)
        self.last_record = make_record(
            trial, parsed, agent_id=self.agent_id, run_id=self.run_id, seed=self._seed, episode=self._episode
        )
        reward = float(self.reward(trial, parsed))
        return self._obs(), reward, True, False, {"parsed": parsed, "trial_id": trial.trial_id}

    def reward(self, trial: ProbeTrial, parsed: ParsedAnswer) -> float:  # pragma: no cover - overridden
        return 0.0

    def render(self) -> np.ndarray | None:
        if self.render_mode == "rgb_array":
            return None if self._image is None else self._image.copy()
        return None


__all__ = ["OPTION_SEP", "ProbeEnv"]
