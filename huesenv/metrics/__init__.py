"""Alignment metrics over episode logs: Mahalanobis top-1, Hotelling top-k, severity, nonsense baseline, families."""

from huesenv.metrics.aggregate import (
    agent_level,
    category_level,
    family_level,
    pooled_human_fail_rate,
    skipped_words,
    word_level,
    word_summary,
)
from huesenv.metrics.collect import AnswerSet, agent_label, answer_sets
from huesenv.metrics.distributional import hotelling_cloud
from huesenv.metrics.families import (
    architecture_family,
    data_family,
    families_of,
    split_agent_id,
    split_checkpoint,
)
from huesenv.metrics.nonsense import (
    behaviour_counts,
    cell_colour,
    classify_behaviour,
    classify_mode,
    focal_rows,
    mode_counts,
    nonsense_table,
    row_collapse,
)
from huesenv.metrics.pointwise import mahalanobis_top1
from huesenv.metrics.report import MetricsReport, print_report, write_metrics
from huesenv.metrics.severity import severity

__all__ = [
    "AnswerSet",
    "MetricsReport",
    "agent_label",
    "agent_level",
    "answer_sets",
    "architecture_family",
    "behaviour_counts",
    "category_level",
    "cell_colour",
    "classify_behaviour",
    "classify_mode",
    "data_family",
    "families_of",
    "focal_rows",
    "family_level",
    "hotelling_cloud",
    "mahalanobis_top1",
    "mode_counts",
    "nonsense_table",
    "pooled_human_fail_rate",
    "print_report",
    "row_collapse",
    "severity",
    "skipped_words",
    "split_agent_id",
    "split_checkpoint",
    "word_level",
    "word_summary",
    "write_metrics",
]
