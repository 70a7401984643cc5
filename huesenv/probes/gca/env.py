"""``huesenv/GCA-v0``: one Graded Color Attribution trial per episode.

Constructor arguments pick the seeded trial list (``seed`` is the stimulus-set
seed: patch orders, option orders, distractors); ``reset(seed=…)`` seeds which
trial is drawn.  ``data_dir`` evaluates a local copy of the published dataset
instead (layout: :func:`huesenv.probes.gca.stimuli.load_gca_folder`).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.gca.env``.
"""

from __future__ import annotations

from collections.abc import Iterable

from huesenv.probes.env_base import ProbeEnv
from huesenv.probes.gca.objects import CONDITIONS
from huesenv.probes.gca.questions import ORDERINGS, QUESTION_TYPES, gca_trials
from huesenv.probes.gca.stimuli import DEFAULT_SEED, TAUS, load_gca_folder
from huesenv.probes.trials import ParsedAnswer, ProbeTrial


class GCAEnv(ProbeEnv):
    """Graded Color Attribution as a single-step gymnasium env (see module docstring)."""

    task = "gca"

    def __init__(
        self,
        *,
        seed: int = DEFAULT_SEED,
        conditions: Iterable[str] = CONDITIONS,
        question_types: Iterable[str] = QUESTION_TYPES,
        orderings: Iterable[str] = ORDERINGS,
        objects: Iterable[str] | None = None,
        taus: Iterable[int] = TAUS,
        data_dir: str | None = None,
        colour_question: str = "open",
        render_mode: str | None = None,
        run_id: str = "env",
        agent_id: str = "env-user",
    ) -> None:
        if data_dir is not None:
            conds = set(conditions)
            stimuli = [s for s in load_gca_folder(data_dir) if s.condition in conds]
            trials = gca_trials(
                stimuli,
                seed=seed,
                question_types=question_types,
                orderings=orderings,
                colour_question=colour_question,
            )
        else:
            trials = gca_trials(
                seed=seed,
                question_types=question_types,
                orderings=orderings,
                conditions=conditions,
                objects=objects,
                taus=taus,
                colour_question=colour_question,
            )
        super().__init__(trials, render_mode=render_mode, run_id=run_id, agent_id=agent_id)

    def reward(self, trial: ProbeTrial, parsed: ParsedAnswer) -> float:
        qtype = trial.fields.get("question_type")
        if qtype == "colour":
            plain = parsed.answer in (trial.fields.get("colour"), "white")
            return 0.0 if parsed.valid and plain else -1.0
        if qtype == "coverage":
            v = parsed.values.get("value")
            return -1.0 if v is None else -abs(float(v) - float(trial.fields["coverage"])) / 100.0
        return 0.0


__all__ = ["GCAEnv"]
