"""The prompts the VLM agents send (local transformers model and chat-completions API alike).

They are part of the method, so they are fixed text here, versioned by
:data:`PROMPT_VERSION` (logged in ``Answer.info``).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.prompts``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PROMPT_VERSION = "2"

BOARD_DESCRIPTION = (
    "The image shows a board of 480 coloured cells in 16 rows labelled A to P (top to bottom) "
    "and 30 columns labelled 1 to 30 (left to right). A cell is named by its row letter followed by "
    "its column number, for example I18."
)

GUESS = BOARD_DESCRIPTION + (
    ' Which cell\'s colour best matches the word "{cue}"?{taken} '
    "Answer with the coordinate only, for example C5."
)
GUESS_TOP_K = BOARD_DESCRIPTION + (
    ' Which cells\' colours best match the word "{cue}"?{taken} '
    "Answer with your {k} best coordinates, best first, separated by commas, for example C5, C6, D5."
)
GUESS_TWO_CUES = 'the words "{first}" and "{second}" together'
TAKEN = " Crossed-out cells are taken and cannot be chosen."

CUE_FREE = BOARD_DESCRIPTION + (
    " The cell {target} is outlined. Give a clue of {n} that would make another person point at "
    "that cell's colour. Do not use colour names, the coordinate or these words: {forbidden}. "
    "Answer with the clue only."
)
CUE_VOCABULARY = BOARD_DESCRIPTION + (
    " The cell {target} is outlined. Which one of these words would make another person point at "
    "that cell's colour? {words}. Answer with one word from the list only."
)

PROBE_OPTIONS = "{question} Options: {options}. Answer with one of the options only."
PROBE_SUFFIX = {
    "colour": "Answer with one color name only.",
    "colours": "Answer with every color name, separated by commas, and nothing else.",
    "threshold": "Answer with a number from 0 to 100 followed by %, for example 40%.",
    "coverage": "Answer with a number from 0 to 100 followed by %, for example 40%.",
    "yes_no": "Answer yes or no.",
}
PROBE_JSON = "{question} Reply with one JSON object only, in this form: {example}"
_JSON_EXAMPLES = {
    "option": '{{"answer": "<one of: {options}>"}}',
    "colour": '{{"color": "<one color name>"}}',
    "colours": '{{"colors": ["<color name>", "..."]}}',
    "threshold": '{{"threshold": <number from 0 to 100>}}',
    "coverage": '{{"estimated_percentage": <number from 0 to 100>}}',
    "threshold+colour": '{{"threshold": <number from 0 to 100>, "color": "<color name>"}}',
    "yes_no": '{{"answer": "yes" or "no"}}',
}
_HAS_FORMAT = ("reply with the format", "answer with the format")

RETRY_SUFFIX = " Your previous answer could not be read. Reply with the requested format only."


def guess_prompt(cues: Sequence[str], k: int = 1, taken: bool = False) -> str:
    cue = cues[-1].strip().lower() if len(cues) == 1 else None
    words = f'{cues[0].strip().lower()}" and "{cues[-1].strip().lower()}' if cue is None else cue
    template = GUESS if k <= 1 else GUESS_TOP_K
    return template.format(cue=words, k=k, taken=TAKEN if taken else "")


def cue_prompt(
    target: str, vocabulary: Sequence[str] | None, forbidden: Sequence[str], cue_index: int
) -> str:
    if vocabulary:
        return CUE_VOCABULARY.format(target=target, words=", ".join(w.lower() for w in vocabulary))
    n = "one word" if cue_index == 1 else "one or two words"
    return CUE_FREE.format(target=target, n=n, forbidden=", ".join(sorted(forbidden)) or "none")


def probe_kind(options: Sequence[str] | None, kind: str | None) -> str:
    """The answer kind a probe prompt asks for (``percent`` is the v0 name of ``coverage``)."""
    if kind == "percent":
        return "coverage"
    return kind or ("option" if options else "colour")


def probe_prompt(
    question: str, options: Sequence[str] | None, kind: str | None = None, *, structured: bool = False
) -> str:
    """The text of a probe request: the question plus the format its answer kind needs."""
    kind = probe_kind(options, kind)
    q = question.strip()
    if structured:
        q = _drop_format_line(q)  # the JSON form replaces any free-text format line
        example = _JSON_EXAMPLES[kind].format(options=", ".join(options or ()))
        prefix = f"{q} Options: {', '.join(options)}." if kind == "option" and options else q
        return PROBE_JSON.format(question=prefix, example=example)
    if kind == "option" and options:
        return PROBE_OPTIONS.format(question=q, options=", ".join(options))
    if kind in ("threshold", "coverage", "threshold+colour") and any(h in q.lower() for h in _HAS_FORMAT):
        return q
    if kind == "colour" and "answer with one word" in q.lower():
        return q  # the question already asks for its format (the GCA authors' open prompt)
    suffix = PROBE_SUFFIX.get(kind, PROBE_SUFFIX["colour"] if kind != "threshold+colour" else "")
    return f"{q} {suffix}".strip()


def _drop_format_line(q: str) -> str:
    low = q.lower()
    for h in _HAS_FORMAT:
        i = low.find(h)
        if i >= 0:
            return q[:i].strip()
    return q


def probe_schema(options: Sequence[str] | None, kind: str | None) -> dict:
    """The JSON schema of a structured reply (OpenAI-compatible ``response_format`` ``json_schema``)."""
    kind = probe_kind(options, kind)
    number = {"type": "number", "minimum": 0, "maximum": 100}
    props: dict[str, Any] = {
        "option": {"answer": {"type": "string", "enum": list(options or ())}},
        "colour": {"color": {"type": "string"}},
        "colours": {"colors": {"type": "array", "items": {"type": "string"}}},
        "threshold": {"threshold": number},
        "coverage": {"estimated_percentage": number},
        "threshold+colour": {"threshold": number, "color": {"type": "string"}},
        "yes_no": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    }[kind]  # type: ignore[assignment]  # each value is a dict of JSON-schema properties
    return {
        "name": "probe_answer_" + kind.replace("+", "_"),
        "strict": True,
        "schema": {
            "type": "object",
            "properties": props,
            "required": list(props),
            "additionalProperties": False,
        },
    }
