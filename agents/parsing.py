"""Turning free model text into board cells, cue words and probe answers.

Coordinates (:func:`parse_coordinates`), in text order, duplicates dropped.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.agents.parsing``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from huesenv.board import parse_coord
from huesenv.probes.answers import parse_answer
from huesenv.vocabulary import normalise_word

_COORD = re.compile(r"(?<![A-Za-z0-9])(?:([A-P])[ \t]?-?[ \t]?|([a-p]))([1-9][0-9]?)(?![0-9])")
_ROW_COL = re.compile(
    r"\brow\s*([A-Pa-p])\b[\s,;]*(?:and\s+)?(?:col(?:umn)?)\s*([1-9][0-9]?)\b", re.IGNORECASE
)


def parse_coordinates(
    text: str | None, legal: np.ndarray | None = None, limit: int | None = None
) -> list[int]:
    """Flat cell indices named in ``text`` (see the module docstring); only legal ones when ``legal`` is given."""
    if not text:
        return []
    found: list[tuple[int, int | None]] = []  # (position, cell or None when the name is no cell)
    for m in _ROW_COL.finditer(text):
        found.append((m.start(), _cell(m.group(1) + m.group(2))))
    for m in _COORD.finditer(text):
        found.append((m.start(), _cell((m.group(1) or m.group(2)) + m.group(3))))
    out: list[int] = []
    for _, cell in sorted(found, key=lambda t: t[0]):
        if cell is None or cell in out or (legal is not None and not bool(legal[cell])):
            continue
        out.append(cell)
        if limit is not None and len(out) >= limit:
            break
    return out


def _cell(text: str) -> int | None:
    try:
        return parse_coord(text)
    except ValueError:
        return None


def parse_coordinate(text: str | None, legal: np.ndarray | None = None) -> int | None:
    """The first (legal) cell named in ``text``, or ``None``."""
    cells = parse_coordinates(text, legal, limit=1)
    return cells[0] if cells else None


def parse_cue(
    text: str | None,
    vocabulary: Sequence[str] | None = None,
    forbidden: Iterable[str] = (),
    max_words: int = 1,
) -> str | None:
    """A cue from model text.

    With a vocabulary: the allowed word mentioned earliest (longest first at the same
    place).  Without: the first ``max_words`` letter words that are not a forbidden word.
    """
    if not text:
        return None
    banned = {normalise_word(f) for f in forbidden if isinstance(f, str) and f.strip()}
    if vocabulary:
        best: tuple[int, int, str] | None = None
        for w in vocabulary:
            if normalise_word(w) in banned:
                continue
            m = re.search(r"(?<![A-Za-z])" + re.escape(w.strip()) + r"(?![A-Za-z])", text, re.IGNORECASE)
            if m and (best is None or (m.start(), -len(w)) < (best[0], best[1])):
                best = (m.start(), -len(w), w)
        return None if best is None else best[2]
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text) if normalise_word(w) not in banned]
    return " ".join(words[:max_words]) if words else None


def parse_probe(
    text: str | None,
    options: Sequence[str] | None,
    subject: str | None = None,
    kind: str | None = None,
) -> tuple[int | None, str | None]:
    """``(option index, answer text)`` for a probe reply; ``(None, None)`` when it does not give ``kind``.

    ``kind`` is the query's answer kind (default: ``option`` with options, else
    ``colour``).  The answer text is canonical: a colour name, sorted
    comma-joined colours, a number (``"35"``), ``"yes"``/``"no"``, or for
    ``threshold+colour`` ``"threshold=35;color=white"``.
    """
    kind = kind or ("option" if options else "colour")
    if kind == "option":
        if not options:
            return None, None
        i = parse_answer("option", text, options=list(options), subject=subject)
        return (i, options[i]) if i is not None else (None, None)
    if kind == "threshold+colour":
        t = parse_answer("threshold", text)
        c = parse_answer("colour", text, subject=subject)
        return (None, f"threshold={t:g};color={c}") if t is not None and c is not None else (None, None)
    if kind == "percent":
        kind = "coverage"
    value = parse_answer(kind, text, subject=subject)
    if value is None:
        return None, None
    if kind == "colours":
        return None, ",".join(sorted(value))
    if kind in ("threshold", "coverage"):
        return None, f"{value:g}"
    if kind == "yes_no":
        return None, "yes" if value else "no"
    return None, value
