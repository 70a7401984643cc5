""" "What color is it" text interference as a registered probe (:class:`huesenv.probes.registry.Probe`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from huesenv.probes.interference.metrics import interference_table, paper_layout
from huesenv.probes.interference.questions import interference_trials
from huesenv.probes.interference.stimuli import PER_TYPE, SUBSETS, TYPES, interference_stimuli
from huesenv.probes.trials import ProbeTrial

INTERFERENCE_COLUMNS = (
    "file",
    "stimulus_id",
    "subset",
    "type",
    "text_words",
    "text_colours",
    "char_colours",
    "named_colours",
    "question",
    "question_colour",
    "masked",
    "truth",
    "seed",
)


class InterferenceProbe:
    """Text drawn in one colour naming another: which colour is it drawn in?"""

    name = "interference"
    title = '"What color is it" text-interference benchmark'
    stimulus_columns = INTERFERENCE_COLUMNS
    reply_kinds = ("colour", "colours")

    def trials(self, *, seed: int, **kwargs: Any) -> list[ProbeTrial]:
        """:func:`~huesenv.probes.interference.questions.interference_trials` kwargs."""
        return interference_trials(seed=seed, **kwargs)

    def stimuli(self, *, seed: int, **kwargs: Any) -> list[Any]:
        return list(interference_stimuli(seed=seed, **kwargs))

    def manifest_row(self, stimulus: Any, seed: int) -> dict[str, Any]:
        return {"question": stimulus.question}

    def report_tables(self, records: Any) -> dict[str, Any]:
        table = interference_table(records)
        tables = {"interference": table}
        for subset in sorted(table["subset"].unique()) if not table.empty else []:
            tables[f"table_{subset}"] = paper_layout(table, subset).reset_index()
        return tables

    def figures(self, tables: Mapping[str, Any], out: Path) -> list[Path]:
        return []

    def add_arguments(self, parser: argparse.ArgumentParser, count: Callable[[str], int]) -> None:
        parser.add_argument(
            "--subsets",
            nargs="+",
            default=None,
            choices=list(SUBSETS),
            help="word subsets: colour words, simple words, masked text (default: all three)",
        )
        parser.add_argument(
            "--types",
            nargs="+",
            type=int,
            default=None,
            choices=list(TYPES),
            help="the paper's stimulus types within each subset, by number (default: all)",
        )
        parser.add_argument(
            "--per-type",
            type=count,
            default=PER_TYPE,
            help=f"images per subset × type (default {PER_TYPE})",
        )

    def task_kwargs(self, args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
        stim = {k: v for k, v in {"subsets": args.subsets, "types": args.types}.items() if v}
        stim["per_type"] = args.per_type
        return dict(stim), stim


INTERFERENCE = InterferenceProbe()

__all__ = ["INTERFERENCE", "INTERFERENCE_COLUMNS", "InterferenceProbe"]
