"""The prompts the VLM agents send (local transformers model and chat-completions API alike).

They are part of the method, so they are fixed text here, versioned by
:data:`PROMPT_VERSION` (logged in ``Answer.info``).  The board image (see
:mod:`huesenv.agents.images`) shows row letters A–P down the left side and column
numbers 1–30 along the top; cells that may not be chosen are crossed out, and the
cue giver's target is outlined.
"""

from __future__ import annotations

from collections.abc import Sequence

PROMPT_VERSION = "1"

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
PROBE_FREE = "{question} Answer with one colour name only."

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


def probe_prompt(question: str, options: Sequence[str] | None) -> str:
    if options:
        return PROBE_OPTIONS.format(question=question.strip(), options=", ".join(options))
    return PROBE_FREE.format(question=question.strip())
