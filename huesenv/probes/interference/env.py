"""``huesenv/TextInterference-v0``: one "What color is it" trial per episode.

``seed`` fixes the stimulus set; ``reset(seed=…)`` seeds which trial is drawn.
Reward 1 for a correct answer (see :mod:`huesenv.probes.interference.metrics`), else 0.
"""

from __future__ import annotations

from collections.abc import Iterable

from huesenv.probes.env_base import ProbeEnv
from huesenv.probes.interference.metrics import score_trial
from huesenv.probes.interference.questions import interference_trials
from huesenv.probes.interference.stimuli import PER_TYPE, SUBSETS, TYPES
from huesenv.probes.trials import ParsedAnswer, ProbeTrial


class TextInterferenceEnv(ProbeEnv):
    """The text-interference benchmark as a single-step gymnasium env."""

    task = "interference"

    def __init__(
        self,
        *,
        seed: int = 0,
        subsets: Iterable[str] = SUBSETS,
        types: Iterable[int] = TYPES,
        per_type: int = PER_TYPE,
        render_mode: str | None = None,
        run_id: str = "env",
        agent_id: str = "env-user",
    ) -> None:
        trials = interference_trials(seed=seed, subsets=subsets, types=types, per_type=per_type)
        super().__init__(trials, render_mode=render_mode, run_id=run_id, agent_id=agent_id)

    def reward(self, trial: ProbeTrial, parsed: ParsedAnswer) -> float:
        f = trial.fields
        s = score_trial(
            parsed.answer, parsed.valid, f["type"], trial.truth, f["named_colours"], f["question_colour"]
        )
        return 1.0 if s["correct"] else 0.0


__all__ = ["TextInterferenceEnv"]
