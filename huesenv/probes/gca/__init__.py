"""Graded Color Attribution (GCA): stimuli, questions, env and metrics."""

from huesenv.probes.gca.metrics import (
    colour_shares,
    coverage_error,
    distractor_rate,
    empirical_consistency,
    empirical_thresholds,
    faithfulness,
    faithfulness_pairs,
    fit_logistic,
    gca_report,
    hallucination,
    stated_thresholds,
    threshold_consistency,
)
from huesenv.probes.gca.objects import (
    CATEGORIES,
    CONDITIONS,
    MANIPULATION_COLOURS,
    MANIPULATION_RGB,
    OBJECTS,
    SHAPES,
    GCAObject,
)
from huesenv.probes.gca.questions import ORDERINGS, PRIOR_IMAGES, QUESTION_TYPES, gca_trials
from huesenv.probes.gca.stimuli import TAUS, FileStimulus, GCAStimulus, gca_stimuli, load_gca_folder

__all__ = [
    "CATEGORIES",
    "CONDITIONS",
    "FileStimulus",
    "GCAObject",
    "GCAStimulus",
    "MANIPULATION_COLOURS",
    "MANIPULATION_RGB",
    "OBJECTS",
    "ORDERINGS",
    "PRIOR_IMAGES",
    "QUESTION_TYPES",
    "SHAPES",
    "TAUS",
    "colour_shares",
    "coverage_error",
    "distractor_rate",
    "empirical_consistency",
    "empirical_thresholds",
    "faithfulness",
    "faithfulness_pairs",
    "fit_logistic",
    "gca_report",
    "gca_stimuli",
    "gca_trials",
    "hallucination",
    "load_gca_folder",
    "stated_thresholds",
    "threshold_consistency",
]
