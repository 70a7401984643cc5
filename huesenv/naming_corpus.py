"""Colour-naming corpora: name → colour pairs from real naming surveys, each entry with its source.

Why: a guesser that reads a word nobody taught it needs colour knowledge from
somewhere other than the Hues and Cues answers.  :func:`load_naming_corpus`
gives, by name, the XKCD colour survey (``xkcd``: Randall Munroe, 2010: 949
names from about 222,000 participants, CC0; shipped with matplotlib as
``XKCD_COLORS``), the color-name-list (``color-name-list``: 31,881 crowd-curated
names, MIT; packaged, see ``data/SOURCES.md``), several joined with ``+``
(``xkcd+color-name-list``), or any user CSV with a header ``name`` plus ``hex``
(sRGB ``#rrggbb``), ``r,g,b`` (0-255) or ``L,a,b`` (CIELAB D65), and an optional
``source`` column.

:meth:`NamingCorpus.excluding` keeps cue words out of training in two tiers:

* ``exact`` drops the names equal to a cue word (both through
  :func:`huesenv.vocabulary.normalise_word`): "sky" for SKY;
* ``strict`` also drops names containing a cue word as a run of tokens:
  "sky blue", "lime green", "robin's egg" for EGG.

A cue's parenthesised part is optional ("(LILO AND) STITCH" also matches "stitch").
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from huesenv.colourspace import lab_to_srgb, srgb_to_lab
from huesenv.trust import read_user_text
from huesenv.vocabulary import normalise_word

XKCD_SOURCE = "xkcd-2010"  # Randall Munroe's XKCD colour survey, ~222,000 participants, CC0 (via matplotlib)
COLOR_NAME_LIST_SOURCE = "color-name-list-14.29.0"  # npm color-name-list (David Aerne, MIT), packaged
TIERS = ("exact", "strict")
MAX_CORPUS_BYTES = 16 << 20
MAX_ENTRIES = 200_000
_TOKEN = re.compile(r"[A-Z0-9]+")
_HEX = re.compile(r"#?[0-9a-fA-F]{6}")


@dataclass(frozen=True)
class CorpusEntry:
    """One name → colour pair: the name as the source spells it, its sRGB in [0, 1], CIELAB (D65), source."""

    name: str
    srgb: tuple[float, float, float]
    lab: tuple[float, float, float]
    source: str

    @property
    def key(self) -> str:
        return normalise_word(self.name)


@lru_cache(maxsize=65536)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(text.upper()))


def _cue_forms(word: str) -> set[tuple[str, ...]]:
    """A cue's token runs: the whole cue and the cue without its parenthesised (optional) part."""
    key = normalise_word(word)
    forms = {_tokens(key), _tokens(re.sub(r"\([^)]*\)", " ", key))}
    return {f for f in forms if f}


def _contains(tokens: tuple[str, ...], run: tuple[str, ...]) -> bool:
    n = len(run)
    return any(tokens[i : i + n] == run for i in range(len(tokens) - n + 1))


@dataclass(frozen=True)
class NamingCorpus:
    """Entries of one or more naming surveys (see the module docstring)."""

    entries: tuple[CorpusEntry, ...]
    label: str

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entries)

    @property
    def lab(self) -> np.ndarray:
        return np.asarray([e.lab for e in self.entries], dtype=np.float64).reshape(-1, 3)

    def matches(self, entry: CorpusEntry, word: str, tier: str) -> bool:
        """Whether ``entry`` is excluded for cue ``word`` under ``tier``."""
        return _excluded(_tokens(entry.key), frozenset(_cue_forms(word)), _tier(tier))

    def matching(self, words: Iterable[str], tier: str) -> dict[str, tuple[CorpusEntry, ...]]:
        """Per cue word, the entries ``tier`` excludes for it (words without any are left out)."""
        tier, out = _tier(tier), {}
        for w in words:
            forms = frozenset(_cue_forms(w))
            hit = tuple(e for e in self.entries if _excluded(_tokens(e.key), forms, tier))
            if hit:
                out[normalise_word(w)] = hit
        return out

    def excluding(self, words: Iterable[str], tier: str = "exact") -> NamingCorpus:
        """The corpus without any entry ``tier`` excludes for any of ``words``."""
        words = list(words)
        forms = frozenset(f for w in words for f in _cue_forms(w))
        keep = tuple(e for e in self.entries if not _excluded(_tokens(e.key), forms, _tier(tier)))
        return NamingCorpus(keep, f"{self.label}, {tier} tier without {len(words)} cue words")


def _tier(tier: str) -> str:
    if tier not in TIERS:
        raise ValueError(f"exclusion tier {tier!r}: expected one of {TIERS}")
    return tier


def _excluded(name: tuple[str, ...], forms: frozenset[tuple[str, ...]], tier: str) -> bool:
    return name in forms if tier == "exact" else any(_contains(name, f) for f in forms)


@lru_cache(maxsize=1)
def xkcd_corpus() -> NamingCorpus:
    """The 949 XKCD survey names (matplotlib's copy), sRGB → CIELAB through :mod:`huesenv.colourspace`."""
    from matplotlib import colors

    names = [k.removeprefix("xkcd:") for k in colors.XKCD_COLORS]
    rgb = np.asarray([colors.to_rgb(v) for v in colors.XKCD_COLORS.values()], dtype=np.float64)
    return _build(names, rgb, srgb_to_lab(rgb, scale=1.0), [XKCD_SOURCE] * len(names), XKCD_SOURCE)


def _build(
    names: list[str], rgb: np.ndarray, lab: np.ndarray, sources: list[str], label: str
) -> NamingCorpus:
    entries = tuple(
        CorpusEntry(n, tuple(map(float, c)), tuple(map(float, lab_)), s)  # type: ignore[arg-type]
        for n, c, lab_, s in zip(names, rgb, lab, sources)
    )
    return NamingCorpus(entries, label)


def _number(path: Path, line: int, field: str, raw: str | None, lo: float, hi: float) -> float:
    try:
        value = float(raw or "")
    except ValueError:
        value = float("nan")
    if not lo <= value <= hi:
        raise ValueError(
            f"{path}, line {line}, field {field}: expected a number in [{lo:g}, {hi:g}], got {raw!r}"
        )
    return value


def _rows(reader: csv.DictReader, path: Path) -> Iterator[tuple[int, dict]]:
    """``(line, row)`` pairs; a CSV the csv module cannot split is a one-line error naming the line."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            raise ValueError(f"{path}, line {reader.line_num}: not a CSV row ({err})") from None
        yield reader.line_num, row


def read_corpus_csv(path: str | Path) -> NamingCorpus:
    """A user corpus CSV (see the module docstring); one-line ``ValueError`` naming line and field."""
    path = Path(path)
    text = read_user_text(path, encoding="utf-8-sig", expected="a naming CSV", max_bytes=MAX_CORPUS_BYTES)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [c.strip() for c in reader.fieldnames or []]
    reader.fieldnames = header
    kinds = [k for k in (("hex",), ("r", "g", "b"), ("L", "a", "b")) if set(k) <= set(header)]
    if "name" not in header or len(kinds) != 1:
        raise ValueError(
            f"{path}, line 1: expected a header 'name' and exactly one of 'hex', 'r,g,b' or 'L,a,b', got {header}"
        )
    kind = kinds[0]
    names: list[str] = []
    values: list[list[float]] = []
    sources: list[str] = []
    for line, row in _rows(reader, path):
        if None in row:
            raise ValueError(f"{path}, line {line}: more fields than the header's {len(header)}")
        if len(names) >= MAX_ENTRIES:
            raise ValueError(f"{path}, line {line}: more than {MAX_ENTRIES:,} entries; refused")
        name = " ".join((row.get("name") or "").split())
        if not name:
            raise ValueError(f"{path}, line {line}, field name: empty")
        if kind == ("hex",):
            raw = (row.get("hex") or "").strip()
            if not _HEX.fullmatch(raw):
                raise ValueError(f"{path}, line {line}, field hex: expected #rrggbb, got {raw!r}")
            values.append([int(raw.lstrip("#")[i : i + 2], 16) / 255.0 for i in (0, 2, 4)])
        elif kind == ("r", "g", "b"):
            values.append([_number(path, line, f, row.get(f), 0, 255) / 255.0 for f in kind])
        else:
            bounds = {"L": (0, 100), "a": (-200, 200), "b": (-200, 200)}
            values.append([_number(path, line, f, row.get(f), *bounds[f]) for f in kind])
        names.append(name)
        sources.append((row.get("source") or "").strip() or path.name)
    if not names:
        raise ValueError(f"{path}: no entries; expected one 'name,...' row per line after the header")
    arr = np.asarray(values, dtype=np.float64)
    if kind == ("L", "a", "b"):
        rgb, lab = lab_to_srgb(arr), arr
    else:
        rgb, lab = arr, srgb_to_lab(arr, scale=1.0)
    return _build(names, rgb, lab, sources, f"{path.name} ({len(names)} names)")


@lru_cache(maxsize=1)
def color_name_list_corpus() -> NamingCorpus:
    """The packaged color-name-list (31,881 names; its source and licence in ``data/SOURCES.md``)."""
    from importlib import resources

    ref = resources.files("huesenv") / "data" / "naming" / "color-name-list.csv"
    with resources.as_file(ref) as path:
        corpus = read_corpus_csv(path)
    entries = tuple(replace(e, source=COLOR_NAME_LIST_SOURCE) for e in corpus.entries)
    return NamingCorpus(entries, f"{COLOR_NAME_LIST_SOURCE} ({len(entries)} names)")


NAMED_CORPORA = {"xkcd": xkcd_corpus, "color-name-list": color_name_list_corpus}


def load_naming_corpus(path: str | Path | None = None) -> NamingCorpus:
    """The XKCD survey (``path=None``), named corpora joined by ``+`` (:data:`NAMED_CORPORA`), or a user CSV."""
    if path is None:
        return xkcd_corpus()
    parts = str(path).split("+")
    if all(p in NAMED_CORPORA for p in parts):
        loaded = [NAMED_CORPORA[p]() for p in parts]
        return NamingCorpus(tuple(e for c in loaded for e in c.entries), " + ".join(c.label for c in loaded))
    return read_corpus_csv(path)


__all__ = [
    "COLOR_NAME_LIST_SOURCE",
    "MAX_CORPUS_BYTES",
    "NAMED_CORPORA",
    "TIERS",
    "XKCD_SOURCE",
    "CorpusEntry",
    "NamingCorpus",
    "color_name_list_corpus",
    "load_naming_corpus",
    "read_corpus_csv",
    "xkcd_corpus",
]
