"""The paper's vocabularies and the one word normalisation every module goes through.

* :data:`WORDS` — the 100 cue words with their 7 semantic categories (Table 6).
* :data:`NONSENSE` — the 16 semantically void inputs, 4 rows × 4 (numbers, stop
  words with the empty input, pseudowords, random strings), as the authors ran them.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.vocabulary``.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from huesenv.trust import read_user_text

EMPTY_INPUT = " "
CATEGORIES = ("Food", "Animal", "Plant", "Mineral", "Environment", "Subjective", "Pop Culture")
NONSENSE_CATEGORY = "Nonsense"

ALIASES: dict[str, str] = {
    "STITCH": "(LILO AND) STITCH",
    "LILO AND STITCH": "(LILO AND) STITCH",
    "LILO & STITCH": "(LILO AND) STITCH",
    "BERT": "BERT (AND ERNIE)",
    "ERNIE": "ERNIE (AND BERT)",
    "HAPPINESS": "HAPINESS",
    "SHREK": "SHRECK",
    "THE SIMPSONS": "SIMPSON",
    "SIMPSONS": "SIMPSON",
}


@dataclass(frozen=True)
class Word:
    """A cue word with its semantic category (one of :data:`CATEGORIES` or ``"Nonsense"``)."""

    text: str
    category: str


@dataclass(frozen=True)
class NonsenseInput:
    """One cell of the 4×4 nonsense mosaic: row (0–3), its type, position (0–3), and the input."""

    row: int
    row_type: str
    position: int
    text: str


def normalise_word(word: object) -> str:
    """The canonical form of a cue word (see the module docstring for the rules)."""
    if not isinstance(word, str):
        raise ValueError(f"invalid word {word!r}: expected a string")
    return _normalise(word)


@lru_cache(maxsize=65536)
def _normalise(word: str) -> str:
    """:func:`normalise_word` of a string, cached: agents normalise the same hundred words on every cue."""
    if word != "" and word.strip() == "":
        return EMPTY_INPUT
    key = " ".join(word.split()).upper()
    if not key:
        raise ValueError(
            "invalid word '': expected a non-empty string (a single space is the empty nonsense input)"
        )
    return ALIASES.get(key, key)


def _read(name: str) -> list[dict[str, str]]:
    ref = resources.files("huesenv") / "data" / name
    with ref.open("rb") as raw, io.TextIOWrapper(raw, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@lru_cache(maxsize=1)
def _words() -> tuple[Word, ...]:
    return tuple(Word(r["word"], r["category"]) for r in _read("vocabulary.csv"))


@lru_cache(maxsize=1)
def _nonsense() -> tuple[NonsenseInput, ...]:
    return tuple(
        NonsenseInput(int(r["row"]), r["row_type"], int(r["position"]), r["input"])
        for r in _read("nonsense.csv")
    )


def words() -> tuple[Word, ...]:
    """The 100 words of the paper, in Table 6 order."""
    return _words()


def word_texts() -> tuple[str, ...]:
    return tuple(w.text for w in _words())


def nonsense_inputs() -> tuple[NonsenseInput, ...]:
    """The 16 nonsense inputs, row by row."""
    return _nonsense()


def evaluation_inputs() -> tuple[Word, ...]:
    """The 116 inputs of the paper's word-level evaluation: the 100 words then the 16 nonsense inputs."""
    return _words() + tuple(Word(n.text, NONSENSE_CATEGORY) for n in _nonsense())


@lru_cache(maxsize=1)
def _category_by_word() -> dict[str, str]:
    return {w.text: w.category for w in evaluation_inputs()}


def category_of(word: str) -> str:
    """Semantic category of a (normalised or raw) word; ``ValueError`` for words outside both vocabularies."""
    key = normalise_word(word)
    try:
        return _category_by_word()[key]
    except KeyError:
        raise ValueError(
            f"unknown word {word!r} (normalised {key!r}): not in the 100-word vocabulary nor the 16 nonsense inputs"
        ) from None


def is_known(word: str) -> bool:
    try:
        return normalise_word(word) in _category_by_word()
    except ValueError:
        return False


MAX_WORDS = 100_000


def read_vocabulary_file(path: str) -> tuple[Word, ...]:
    """A user vocabulary: a CSV with a ``word`` column (and optional ``category``), or one word per line."""
    text = read_user_text(path, expected="a word list or CSV", max_bytes=16 << 20)
    lines = text.splitlines()
    if len(lines) > MAX_WORDS + 1:  # the vocabulary sizes a network's embedding and every per-word table
        raise ValueError(f"{path}: {len(lines):,} lines, more than the {MAX_WORDS:,} words allowed")
    if lines and "word" in [c.strip().lower() for c in lines[0].split(",")]:
        rows = list(csv.DictReader(lines))
        out = []
        for i, r in enumerate(rows, start=2):
            raw = r.get("word") or ""
            if not raw.strip():
                raise ValueError(f"{path}, line {i}, field word: empty")
            out.append(Word(normalise_word(raw), (r.get("category") or "Custom").strip() or "Custom"))
    else:
        out = [Word(normalise_word(x), "Custom") for x in lines if x.strip()]
    if not out:  # an empty list would refuse every answer with a message about the answers, not this file
        raise ValueError(f"{path}: no words; expected one word per line or a CSV with a 'word' column")
    return tuple(out)
