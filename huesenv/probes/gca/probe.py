"""Graded Color Attribution as a registered probe (:class:`huesenv.probes.registry.Probe`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from huesenv.plots import plot_colour_shares
from huesenv.probes.gca.metrics import gca_report
from huesenv.probes.gca.objects import CONDITIONS
from huesenv.probes.gca.questions import ORDERINGS, QUESTION_TYPES, colour_options, gca_trials
from huesenv.probes.gca.stimuli import gca_stimuli, load_gca_folder
from huesenv.probes.trials import ProbeTrial

GCA_COLUMNS = (
    "file",
    "stimulus_id",
    "object",
    "base",
    "kind",
    "condition",
    "colour",
    "tau",
    "coverage",
    "eligible_pixels",
    "mask_pixels",
    "options",
    "distractor",
    "seed",
)


class GCAProbe:
    """Colour / introspection / coverage questions on recoloured outline drawings."""

    name = "gca"
    title = "Graded Color Attribution (colour / introspection / coverage questions)"
    stimulus_columns = GCA_COLUMNS
    reply_kinds = ("option", "colour", "coverage", "threshold", "threshold+colour", "percent")

    def trials(self, *, seed: int, **kwargs: Any) -> list[ProbeTrial]:
        """:func:`~huesenv.probes.gca.questions.gca_trials` kwargs, plus ``data_dir`` (the published images)."""
        data_dir = kwargs.pop("data_dir", None)
        if data_dir is not None:
            conds = set(kwargs.pop("conditions", ("prior", "counterfactual", "shape")))
            kwargs.pop("objects", None)
            kwargs.pop("taus", None)
            stimuli = [s for s in load_gca_folder(data_dir) if s.condition in conds]
            return gca_trials(stimuli, seed=seed, **kwargs)
        return gca_trials(seed=seed, **kwargs)

    def stimuli(self, *, seed: int, **kwargs: Any) -> list[Any]:
        return list(gca_stimuli(seed=seed, **kwargs))

    def manifest_row(self, stimulus: Any, seed: int) -> dict[str, Any]:
        opts, distractor = colour_options(stimulus, seed)
        return {"options": "|".join(opts), "distractor": distractor}

    def report_tables(self, records: Any) -> dict[str, Any]:
        return dict(gca_report(records))

    def figures(self, tables: Mapping[str, Any], out: Path) -> list[Path]:
        shares = tables.get("colour_shares")
        return (
            [plot_colour_shares(shares, out / "colour_shares.png")]
            if shares is not None and len(shares)
            else []
        )

    def add_arguments(self, parser: argparse.ArgumentParser, count: Callable[[str], int]) -> None:
        parser.add_argument(
            "--conditions",
            nargs="+",
            default=None,
            choices=list(CONDITIONS),
            help="stimulus conditions to run: the object in its usual colour (prior), an unusual one "
            "(counterfactual), or a colourless shape (default: all three)",
        )
        parser.add_argument(
            "--question-types",
            nargs="+",
            default=None,
            choices=list(QUESTION_TYPES),
            help="questions to ask: the object's colour, the introspected threshold, the coloured share "
            "(default: all)",
        )
        parser.add_argument(
            "--orderings",
            nargs="+",
            default=None,
            choices=list(ORDERINGS),
            help="the orders of the questions, as in the paper's ablations (default: all)",
        )
        parser.add_argument(
            "--prior-image",
            default="none",
            choices=["none", "white"],
            help="text-prior ordering: ask in text only (none, default) or with a white 512x512 image",
        )
        parser.add_argument(
            "--colour-question",
            default="open",
            choices=["open", "options"],
            help="colour question: the paper's open model prompt (open, default) or the human study's "
            "three options (white, the colour, a distractor)",
        )
        parser.add_argument(
            "--objects", nargs="+", default=None, help="catalogue object names (default: all)"
        )
        parser.add_argument(
            "--data-dir",
            default=None,
            help="folder with a local copy of the published GCA dataset (manifest.csv or <condition>/<object>_<colour>_<tau>.png; default: the stimuli generated here)",
        )

    def task_kwargs(self, args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
        stim = {k: v for k, v in {"conditions": args.conditions, "objects": args.objects}.items() if v}
        trial = dict(stim)
        trial.update(
            {
                k: v
                for k, v in {"question_types": args.question_types, "orderings": args.orderings}.items()
                if v
            }
        )
        if args.prior_image != "none":
            trial["prior_image"] = args.prior_image
        if getattr(args, "colour_question", "open") != "open":
            trial["colour_question"] = args.colour_question
        if args.data_dir:
            if getattr(args, "export", None):
                raise ValueError("--export with --data-dir: the published images are already on disk")
            trial["data_dir"] = args.data_dir
        return trial, stim


GCA = GCAProbe()

__all__ = ["GCA", "GCAProbe", "GCA_COLUMNS"]
