"""Text-interference trials: one free-text question per stimulus ("Answer the question shown in the image.").

Types 1–2 expect one colour (``answer_kind="colour"``); types 3–4 expect the set
of colours (``"colours"``).  The subject passed to agents is ``"text"``; the
trial's ``shown_word`` is the word(s) drawn in the image (unmasked, space-joined),
so the parser never takes the word the image *shows* for the colour it is
*drawn in* (:func:`huesenv.probes.answers.parse_answer`, rule 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from huesenv.probes.interference.stimuli import (
    PER_TYPE,
    PROMPT,
    SUBSETS,
    TYPES,
    InterferenceStimulus,
    interference_stimuli,
)
from huesenv.probes.trials import ProbeTrial

SUBJECT = "text"


def stimulus_trial(stim: InterferenceStimulus) -> ProbeTrial:
    """The one trial of a stimulus; its log fields are those of the schema (subset, type, colours, words)."""
    fields = {
        "subset": stim.subset,
        "type": stim.type,
        "stimulus_id": stim.stimulus_id,
        "text_colour": stim.truth,
        "question_colour": stim.question_colour,
        "text_words": list(stim.words),
        "named_colours": list(stim.named_colours),
        "image_question": stim.question,
        "masked": [list(m) for m in stim.masked],
    }
    kind = "colour" if stim.type in (1, 2) else "colours"
    return ProbeTrial(
        "interference",
        f"interference/{stim.stimulus_id}",
        PROMPT,
        None,
        stim.truth,
        SUBJECT,
        kind,
        fields,
        stim.image,
        shown_word=" ".join(stim.words),
    )


def interference_trials(
    stimuli: Sequence[InterferenceStimulus] | None = None,
    *,
    seed: int = 0,
    subsets: Iterable[str] = SUBSETS,
    types: Iterable[int] = TYPES,
    per_type: int = PER_TYPE,
) -> list[ProbeTrial]:
    """Every trial of the seeded set (or of the given stimuli), subset-major."""
    if stimuli is None:
        stimuli = interference_stimuli(seed=seed, subsets=subsets, types=types, per_type=per_type)
    return [stimulus_trial(s) for s in stimuli]


__all__ = ["SUBJECT", "interference_trials", "stimulus_trial"]
