""" "What color is it" text interference: stimuli, trials, env and metrics."""

from huesenv.probes.interference.metrics import interference_table, paper_layout, score_frame, score_trial
from huesenv.probes.interference.questions import interference_trials
from huesenv.probes.interference.stimuli import (
    MIN_DELTA_E,
    SUBSETS,
    TEXT_COLOURS,
    TEXT_RGB,
    TYPES,
    InterferenceStimulus,
    delta_e,
    interference_stimuli,
    make_stimulus,
)

__all__ = [
    "InterferenceStimulus",
    "MIN_DELTA_E",
    "SUBSETS",
    "TEXT_COLOURS",
    "TEXT_RGB",
    "TYPES",
    "delta_e",
    "interference_stimuli",
    "interference_table",
    "interference_trials",
    "make_stimulus",
    "paper_layout",
    "score_frame",
    "score_trial",
]
