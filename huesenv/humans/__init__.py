"""Human baseline: load human-response exports, the packaged reconstructed cohort, Human Consistency (LOO).

``load_humans()`` with no path loads the packaged cohort, which is a
*reconstruction from the paper's published summary statistics, not human data*
(see ``huesenv/data/humans/README.md``); pass the path of a real export to use
people's answers.
"""

from huesenv.humans.consistency import (
    consistency_by_category,
    consistency_table,
    loo_outliers,
    overall_consistency,
    word_consistency,
)
from huesenv.humans.loader import (
    APP_COLUMNS,
    EXPORT_COLUMNS,
    FRAME_COLUMNS,
    RECONSTRUCTION_PREFIX,
    HumanResponses,
    load_humans,
    packaged_cohort_path,
)
from huesenv.humans.reconstruct import DEFAULT_SEED, Reconstruction, reconstruct_cohort, write_export
from huesenv.humans.reference import REFERENCE_COLUMN, SELF_SCORED_COLUMN, HumanReference

__all__ = [
    "APP_COLUMNS",
    "DEFAULT_SEED",
    "EXPORT_COLUMNS",
    "FRAME_COLUMNS",
    "RECONSTRUCTION_PREFIX",
    "HumanReference",
    "HumanResponses",
    "REFERENCE_COLUMN",
    "SELF_SCORED_COLUMN",
    "consistency_by_category",
    "consistency_table",
    "load_humans",
    "loo_outliers",
    "overall_consistency",
    "packaged_cohort_path",
    "Reconstruction",
    "reconstruct_cohort",
    "word_consistency",
    "write_export",
]
