"""GCA questions: colour attribution, introspective threshold (four orderings), coverage.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.probes.gca.questions``.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from huesenv.probes.choices import distinct
from huesenv.probes.gca.objects import MANIPULATION_COLOURS
from huesenv.probes.gca.stimuli import DEFAULT_SEED, GCAStimulus, gca_stimuli
from huesenv.probes.trials import IMAGE_SIZE, ProbeTrial

QUESTION_TYPES: tuple[str, ...] = ("colour", "introspection", "coverage")
COLOUR_QUESTIONS: tuple[str, ...] = ("open", "options")  # the models' open prompt | the humans' buttons
ORDERINGS: tuple[str, ...] = ("standard", "visual-prior", "post-hoc", "text-prior")
PRIOR_IMAGES: tuple[str, ...] = ("none", "white")
INTRO_RULE = (
    "For any object, x% of its pixels should be colored for it to be considered that color. "
    "At what point would you say that the {object} in the image is {colour}? What value should x% be?"
)
INTRO_RULE_NO_IMAGE = (
    "For any object, x% of its pixels should be colored for it to be considered that color. "
    "At what point would you say that a black-and-white drawing of a {object} that is partly colored {colour} "
    "is {colour}? What value should x% be?"
)
COLOUR_Q = "What color is the {object} in the image?"
ONE_WORD = "Answer with one word."  # the GCA authors' model prompt (test_MLLMs.py)
COVERAGE_Q = (
    "What percent of pixels in the {object} are {colour}? Reply with the format: estimated_percentage=x%."
)
_NO_DISTRACTOR = {"grey"}  # anti-aliased outline edges are grey: never "absent from the image"


def _rng(seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, zlib.crc32(key.encode("utf-8"))])


def colour_options(stim: GCAStimulus, seed: int = DEFAULT_SEED) -> tuple[tuple[str, str, str], str]:
    """The three shuffled options and the distractor (seeded per stimulus)."""
    rng = _rng(seed, "options/" + stim.stimulus_id)
    pool = [c for c in MANIPULATION_COLOURS if c != stim.colour and c not in _NO_DISTRACTOR]
    distractor = pool[int(rng.integers(len(pool)))]
    opts = ["white", stim.colour, distractor]
    order = rng.permutation(3)
    return tuple(opts[i] for i in order), distractor


def _blank() -> np.ndarray:
    return np.full((IMAGE_SIZE, IMAGE_SIZE, 3), 255, dtype=np.uint8)


def _fields(stim: GCAStimulus, **more: Any) -> dict:
    d = {
        "object": stim.subject,
        "base": stim.base,
        "condition": stim.condition,
        "colour": stim.colour,
        "tau": stim.tau,
        "coverage": round(float(stim.coverage()), 4),
        "stimulus_id": stim.stimulus_id,
        "question_type": None,
        "ordering": None,
        "distractor": None,
    }
    d.update(more)
    return d


def stimulus_trials(
    stim: GCAStimulus,
    *,
    seed: int = DEFAULT_SEED,
    question_types: Iterable[str] = QUESTION_TYPES,
    orderings: Iterable[str] = ORDERINGS,
    colour_question: str = "open",
) -> list[ProbeTrial]:
    """The image-bearing trials of one stimulus (text-prior introspection is per pair, see :func:`gca_trials`)."""
    if colour_question not in COLOUR_QUESTIONS:
        raise ValueError(f"colour_question: {colour_question!r} is not one of {COLOUR_QUESTIONS}")
    qtypes = tuple(question_types)
    obj, col = stim.subject, stim.colour
    sid = stim.stimulus_id
    out: list[ProbeTrial] = []
    opts, distractor = colour_options(stim, seed)
    majority = col if stim.coverage() >= 50.0 else "white"
    if "colour" in qtypes:
        open_q = colour_question == "open"
        out.append(
            ProbeTrial(
                "gca",
                f"gca/{sid}/colour",
                f"{COLOUR_Q.format(object=obj)} {ONE_WORD}" if open_q else COLOUR_Q.format(object=obj),
                None if open_q else opts,
                majority,
                obj,
                "colour" if open_q else "option",
                _fields(stim, question_type="colour", distractor=distractor),
                stim.image,
            )
        )
    if "introspection" in qtypes:
        rule = INTRO_RULE.format(object=obj, colour=col)
        texts = {
            "standard": f"{rule} Then answer: {COLOUR_Q.format(object=obj)} Choose white or {col}. "
            "Reply with the format: threshold=x%, color=<color>.",
            "visual-prior": f"Look at the image. {rule} Reply with the format: threshold=x%.",
            "post-hoc": f"{COLOUR_Q.format(object=obj)} Choose white or {col}. After answering, {rule[0].lower()}{rule[1:]} "
            "Reply with the format: color=<color>, threshold=x%.",
        }
        for ordering in orderings:
            if ordering not in texts:
                continue
            kind = "threshold" if ordering == "visual-prior" else "threshold+colour"
            out.append(
                ProbeTrial(
                    "gca",
                    f"gca/{sid}/introspection/{ordering}",
                    texts[ordering],
                    None,
                    None,
                    obj,
                    kind,
                    _fields(stim, question_type="introspection", ordering=ordering),
                    stim.image,
                )
            )
    if "coverage" in qtypes:
        cov = round(float(stim.coverage()), 2)
        out.append(
            ProbeTrial(
                "gca",
                f"gca/{sid}/coverage",
                COVERAGE_Q.format(object=obj, colour=col),
                None,
                f"{cov:g}",
                obj,
                "coverage",
                _fields(stim, question_type="coverage"),
                stim.image,
            )
        )
    return out


def text_prior_trial(stim: GCAStimulus, seed: int = DEFAULT_SEED, prior_image: str = "none") -> ProbeTrial:
    """The no-stimulus introspection trial of a stimulus's (object, colour) pair (see ``prior_image`` above)."""
    if prior_image not in PRIOR_IMAGES:
        raise ValueError(f"prior_image: {prior_image!r} is not one of {PRIOR_IMAGES}")
    obj, col = stim.subject, stim.colour
    pid = f"{stim.condition}/{stim.base.replace(' ', '_')}/{col}"
    fields = {
        "object": obj,
        "base": stim.base,
        "condition": stim.condition,
        "colour": col,
        "tau": None,
        "coverage": None,
        "stimulus_id": pid,
        "question_type": "introspection",
        "ordering": "text-prior",
        "distractor": None,
        "prior_image": prior_image,
    }
    q = INTRO_RULE_NO_IMAGE.format(object=obj, colour=col) + " Reply with the format: threshold=x%."
    return ProbeTrial(
        "gca",
        f"gca/{pid}/introspection/text-prior",
        q,
        None,
        None,
        obj,
        "threshold",
        fields,
        _blank,
        text_only=prior_image == "none",
    )


def gca_trials(
    stimuli: Sequence | None = None,
    *,
    seed: int = DEFAULT_SEED,
    question_types: Iterable[str] = QUESTION_TYPES,
    orderings: Iterable[str] = ORDERINGS,
    prior_image: str = "none",
    colour_question: str = "open",
    **stimulus_kwargs: Any,
) -> list[ProbeTrial]:
    """Every trial of the seeded GCA set (or of the given stimuli), in a fixed order.

    ``colour_question``: ``"open"`` (the paper's model prompt, default) or
    ``"options"`` (the human study's three buttons), see the module docstring.

    ``prior_image``: how the text-prior ordering is asked — ``"none"`` (text only,
    default) or ``"white"`` (a blank white image), see the module docstring.
    """
    if prior_image not in PRIOR_IMAGES:
        raise ValueError(f"prior_image: {prior_image!r} is not one of {PRIOR_IMAGES}")
    qtypes = distinct(question_types, "question type")
    ords = distinct(orderings, "ordering")
    for q in qtypes:
        if q not in QUESTION_TYPES:
            raise ValueError(f"question type: {q!r} is not one of {QUESTION_TYPES}")
    for o in ords:
        if o not in ORDERINGS:
            raise ValueError(f"ordering: {o!r} is not one of {ORDERINGS}")
    if stimuli is None:
        stimuli = gca_stimuli(seed=seed, **stimulus_kwargs)
    out: list[ProbeTrial] = []
    seen_pairs: set[tuple[str, str, str]] = set()
    for stim in stimuli:
        out += stimulus_trials(
            stim, seed=seed, question_types=qtypes, orderings=ords, colour_question=colour_question
        )
        pair = (stim.condition, stim.base, stim.colour)
        if "introspection" in qtypes and "text-prior" in ords and pair not in seen_pairs:
            seen_pairs.add(pair)
            out.append(text_prior_trial(stim, seed, prior_image))
    return out


__all__ = [
    "COLOUR_Q",
    "COLOUR_QUESTIONS",
    "ONE_WORD",
    "COVERAGE_Q",
    "INTRO_RULE",
    "ORDERINGS",
    "PRIOR_IMAGES",
    "QUESTION_TYPES",
    "colour_options",
    "gca_trials",
    "stimulus_trials",
    "text_prior_trial",
]
