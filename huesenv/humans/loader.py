"""Load a human-response export (the study web app's table) into a validated :class:`HumanResponses`.

**Export formats** — one row per answer, as ``.csv``, ``.csv.gz`` or ``.parquet``;
extra columns are ignored:

* the *authors' app export* (public source ``Rietta5/HuesAndCues``,
  ``src/App.tsx``), columns :data:`APP_COLUMNS`
  ``userId,timestamp,clueCategory,clueId,word,coordinate,language,gender,ageRange``:
  the app asks no colour-vision question in its submitted row, so every
  participant's colour vision is *unknown* (``colorblind`` is ``<NA>``) unless
  a CVD list is supplied (``cvd=``, below);
* this project's export (``huesenv collect export``, the packaged cohort):
  the same columns plus ``colorBlind`` (:data:`EXPORT_COLUMNS`).

Per row (first failure reported):

* ``userId``, ``word``, ``coordinate``, ``timestamp``, ``language``, ``gender``,
  ``ageRange`` (and ``colorBlind`` when the column exists) must be non-empty;
  ``clueCategory`` and ``clueId`` may be empty (the category is taken from the
  vocabulary for the paper's words; ``clueCategory`` only names the category of
  a custom word).
* ``timestamp``: ISO 8601 (naive = UTC; JavaScript's ``Date`` as JSON is
  ISO 8601 with milliseconds and ``Z``), a spreadsheet's rendering of it that
  pandas reads (``3/1/2025 10:00:00``, month first, as a Google Sheet exported
  to CSV writes it) or a number of seconds since the epoch (milliseconds when
  above 1e11, as JavaScript's ``Date.now()`` writes).
* ``language`` is stored lower-case as written (the apps write ``spanish`` /
  ``english``, the packaged cohort ``es`` / ``en``); the ``language`` filter
  compares ISO 639-1 codes (``spanish``/``español`` → ``es``,
  ``english``/``inglés`` → ``en``), so ``language="es"`` and
  ``language="spanish"`` select the same rows of either export.  The app shows
  Spanish speakers the Spanish words: such rows name a word outside the paper's
  English vocabulary and need ``vocabulary=`` (below) to load.
* ``word`` goes through :func:`huesenv.vocabulary.normalise_word` (``STITCH`` →
  ``(LILO AND) STITCH``) and must be in the vocabulary (below).
* ``coordinate`` must be a board cell (:func:`huesenv.board.parse_coord`).
* ``colorBlind``: true/false, 1/0, yes/no, y/n, si/sí.
* one answer per (user, word): a later duplicate is the bad row.

Errors are ``ValueError("<file>, line N, field F: ...")`` (CSV line numbers count
the header as line 1; for Parquet, N is the 1-based row).  With
``on_error="skip"`` bad rows are kept out of the data and listed in
``HumanResponses.skipped`` (``source, line, field, reason``), never dropped
silently; a file without a required column still raises.

**Vocabulary (custom exports).**  ``vocabulary=None`` accepts the paper's 100
words; ``"any"`` accepts every word (category from ``clueCategory``, else
``"Custom"``); an iterable of words or :class:`huesenv.vocabulary.Word` or a
path to a vocabulary file (:func:`huesenv.vocabulary.read_vocabulary_file`)
accepts exactly those words.

**Colour vision supplied separately** (``cvd=``): a file or an iterable naming
the participants who reported a colour-vision deficiency — a text file with
one ``userId`` a line (blank lines and ``#`` comments ignored) or a CSV with a
``userId`` column.  The list is taken as *complete*: listed participants are
CVD, everyone else in the export is not (colour vision becomes known for all).
With a ``colorBlind`` column too, a participant is CVD when either says so.
An id on the list that is not in the export is an error (a wrong list must not
pass silently).

**Filters** are applied after validation: colour-vision-deficient participants
are excluded by default (the paper's 316-person cohort); participants whose
colour vision is unknown cannot be excluded and are kept, counted in
``HumanResponses.colour_vision_unknown`` (participants) so reports can say so;
``language``, ``gender`` and ``age_range`` keep rows matching one value or any
of several (case-insensitive).  Counts of filtered rows are in
``HumanResponses.filtered``.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from huesenv.board import format_coord, load_board, parse_coord
from huesenv.reports import csv_unquote
from huesenv.trust import check_parquet, read_user_text
from huesenv.vocabulary import Word, category_of, normalise_word, read_vocabulary_file, word_texts

EXPORT_COLUMNS: tuple[str, ...] = (
    "userId",
    "timestamp",
    "clueCategory",
    "clueId",
    "word",
    "coordinate",
    "language",
    "gender",
    "ageRange",
    "colorBlind",
)
APP_COLUMNS: tuple[str, ...] = EXPORT_COLUMNS[:-1]  # the authors' app: no colour-vision column
COLOUR_VISION_COLUMN = "colorBlind"
REQUIRED_VALUES: tuple[str, ...] = (
    "userId",
    "timestamp",
    "word",
    "coordinate",
    "language",
    "gender",
    "ageRange",
    "colorBlind",
)
LANGUAGE_CODES: dict[str, str] = {
    "spanish": "es",
    "español": "es",
    "espanol": "es",
    "castellano": "es",
    "english": "en",
    "inglés": "en",
    "ingles": "en",
}
FRAME_COLUMNS: tuple[str, ...] = (
    "user_id",
    "timestamp",
    "word",
    "category",
    "cell",
    "coord",
    "x",
    "y",
    "language",
    "gender",
    "age_range",
    "colorblind",
)
SKIPPED_COLUMNS: tuple[str, ...] = ("source", "line", "field", "reason")
RECONSTRUCTION_PREFIX = "reconstructed-"
PACKAGED_COHORT = "reconstructed_cohort.csv.gz"
CUSTOM_CATEGORY = "Custom"

_TRUE = {"true", "1", "yes", "y", "si", "sí", "t"}
_FALSE = {"false", "0", "no", "n", "f"}

Vocabulary = None | str | os.PathLike | Iterable[object]
Filter = None | str | Iterable[str]
CvdList = None | str | os.PathLike | Iterable[str]


def packaged_cohort_path() -> Path:
    """Path of the packaged reconstructed cohort (see ``huesenv/data/humans/README.md``)."""
    return Path(str(resources.files("huesenv") / "data" / "humans" / PACKAGED_COHORT))


@dataclass(frozen=True, eq=False)
class HumanResponses:
    """Validated human answers: a tidy frame plus per-word arrays of cells and CIE xy.

    ``frame`` columns are :data:`FRAME_COLUMNS` (``colorblind`` is a nullable
    boolean, ``<NA>`` where colour vision is unknown); ``skipped`` lists rejected
    rows (:data:`SKIPPED_COLUMNS`); ``filtered`` counts valid rows removed by each
    filter; ``colour_vision_unknown`` counts the kept participants whose colour
    vision is unknown; ``is_reconstruction`` is True when every participant id carries the
    reconstruction prefix (the packaged cohort, or one regenerated with
    ``huesenv humans reconstruct``), so that no report can pass it off as people.
    """

    frame: pd.DataFrame
    skipped: pd.DataFrame
    source: str
    filtered: Mapping[str, int] = field(default_factory=dict)
    custom_categories: Mapping[str, str] = field(default_factory=dict)
    colour_vision_unknown: int = 0

    @cached_property
    def is_reconstruction(self) -> bool:
        ids = self.frame["user_id"].astype(str)
        return bool(len(ids)) and bool(ids.str.startswith(RECONSTRUCTION_PREFIX).all())

    @cached_property
    def _groups(self) -> dict[str, np.ndarray]:
        cells = self.frame["cell"].to_numpy(dtype=np.int64)
        return {
            w: cells[np.asarray(idx)] for w, idx in self.frame.groupby("word", sort=False).indices.items()
        }

    @cached_property
    def words(self) -> tuple[str, ...]:
        """Words with at least one answer: the paper's in Table 6 order, then custom ones as first seen."""
        present = set(self._groups)
        known = [w for w in word_texts() if w in present]
        return tuple(known + [w for w in self._groups if w not in set(known)])

    def _key(self, word: str) -> str:
        key = normalise_word(word)
        if key not in self._groups:
            raise ValueError(f"{self.source}: no answers for word {word!r} (normalised {key!r})")
        return key

    def cells(self, word: str) -> np.ndarray:
        """Flat cell indices of every answer to ``word`` (file order)."""
        return self._groups[self._key(word)].copy()

    def xy(self, word: str) -> np.ndarray:
        """CIE xy of every answer to ``word``, shape (n, 2)."""
        return load_board().xy[self._groups[self._key(word)]]

    def mode_cell(self, word: str) -> int:
        """The most frequent cell; ties go to the tied cell nearest the answers' xy mean, then the lowest index."""
        cells = self._groups[self._key(word)]
        counts = np.bincount(cells)
        tied = np.flatnonzero(counts == counts.max())
        if len(tied) == 1:
            return int(tied[0])
        xy = load_board().xy
        dist = np.linalg.norm(xy[tied] - xy[cells].mean(axis=0), axis=1)
        return int(tied[np.lexsort((tied, dist))[0]])

    def category(self, word: str) -> str:
        """Semantic category of a word of this data set (vocabulary, else the export's ``clueCategory``)."""
        key = self._key(word)
        if key in self.custom_categories:
            return self.custom_categories[key]

        return category_of(key)

    @property
    def n_participants(self) -> int:
        return int(self.frame["user_id"].nunique())

    def __len__(self) -> int:
        return len(self.frame)


# -- reading ------------------------------------------------------------------------------------------------------
def _read_rows(path: Path) -> tuple[list[str], Iterator[tuple[int, list[str]]], str]:
    """Header, an iterator of (line number, values as text), and the unit name ("line" or "row")."""
    name = path.name.lower()
    if name.endswith(".parquet") or name.endswith(".pq"):
        check_parquet(path)
        table = pd.read_parquet(path)
        header = [str(c) for c in table.columns]

        def parquet_rows() -> Iterator[tuple[int, list[str]]]:
            for i, values in enumerate(table.itertuples(index=False, name=None), start=1):
                yield i, [_cell_text(v) for v in values]

        return header, parquet_rows(), "row"
    if name.endswith(".csv.gz") or name.endswith(".csv"):  # utf-8-sig: tolerate a spreadsheet BOM
        text = read_user_text(path, encoding="utf-8-sig", expected="a CSV export")
    else:
        raise ValueError(f"{path}: unknown file type; expected .csv, .csv.gz or .parquet")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise ValueError(
            f"{path}, line 1: empty file; expected the header {','.join(EXPORT_COLUMNS)}"
        ) from None

    def csv_rows() -> Iterator[tuple[int, list[str]]]:
        start = reader.line_num + 1
        for values in reader:
            if values:  # blank lines carry no answer
                yield start, [csv_unquote(v) for v in values]
            start = reader.line_num + 1

    return header, csv_rows(), "line"


def _cell_text(value: object) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NaT:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return str(value)


def _parse_timestamp(text: str) -> pd.Timestamp:
    try:
        number = float(text)
    except ValueError:
        number = None
    if number is not None:
        if not np.isfinite(number):
            raise ValueError(f"{text!r} is not a time")
        return pd.Timestamp(number, unit="ms" if abs(number) > 1e11 else "s", tz="UTC")
    try:
        stamp = pd.Timestamp(text)
    except (ValueError, TypeError):
        raise ValueError(f"{text!r} is not an ISO 8601 time or epoch seconds/milliseconds") from None
    if stamp is pd.NaT:
        raise ValueError(f"{text!r} is not a time")
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def _parse_bool(text: str) -> bool:
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise ValueError(f"{text!r} is not a yes/no value; expected true/false, 1/0, yes/no")


def _vocabulary(vocabulary: Vocabulary) -> tuple[set[str] | None, dict[str, str]]:
    """(accepted normalised words or None for any word, categories given by the vocabulary)."""
    if vocabulary is None:
        return set(word_texts()), {}
    if isinstance(vocabulary, str) and vocabulary.lower() == "any":
        return None, {}
    if isinstance(vocabulary, (str, os.PathLike)):
        items: Iterable[object] = read_vocabulary_file(str(vocabulary))
    else:
        items = vocabulary
    accepted: set[str] = set()
    categories: dict[str, str] = {}
    for item in items:
        if isinstance(item, Word):
            key = normalise_word(item.text)
            if item.category and item.category != CUSTOM_CATEGORY:
                categories[key] = item.category
        else:
            key = normalise_word(item)
        accepted.add(key)
    return accepted, categories


def _as_values(value: Filter) -> set[str] | None:
    if value is None:
        return None
    values = [value] if isinstance(value, str) else list(value)
    return {str(v).strip().lower() for v in values}


def _check_header(source: str, header: list[str]) -> None:
    """``ValueError`` naming the first missing or repeated column of an export's header."""
    missing = [c for c in APP_COLUMNS if c not in header]
    if missing:
        raise ValueError(
            f"{source}, line 1, field {missing[0]}: missing column(s) {missing}; "
            f"expected the header {','.join(APP_COLUMNS)} (the authors' app export), "
            f"optionally followed by {COLOUR_VISION_COLUMN}"
        )
    twice = sorted({c for c in header if c in EXPORT_COLUMNS and header.count(c) > 1})
    if twice:  # which of the two would be read is a guess: refuse rather than pick one
        raise ValueError(
            f"{source}, line 1, field {twice[0]}: column(s) {twice} appear twice; expected each once"
        )


def _filter(
    frame: pd.DataFrame, exclude_cvd: bool, *, language: Filter, gender: Filter, age_range: Filter
) -> tuple[pd.DataFrame, dict[str, int]]:
    """The rows the filters keep, and how many each filter removed (``HumanResponses.filtered``)."""
    filtered: dict[str, int] = {}
    keep = np.ones(len(frame), dtype=bool)
    if exclude_cvd:
        mask = ~frame["colorblind"].fillna(False).to_numpy(dtype=bool)
        filtered["colour_vision"] = int((keep & ~mask).sum())
        keep &= mask
    for name, column, value in (
        ("language", "language", language),
        ("gender", "gender", gender),
        ("age_range", "age_range", age_range),
    ):
        wanted = _as_values(value)
        if wanted is not None:
            have = frame[column].str.lower()
            if name == "language":
                wanted = {LANGUAGE_CODES.get(v, v) for v in wanted}
                have = have.map(lambda v: LANGUAGE_CODES.get(v, v))
            mask = have.isin(wanted).to_numpy()
            filtered[name] = int((keep & ~mask).sum())
            keep &= mask
    return frame[keep].reset_index(drop=True), filtered


def _category(
    word: str,
    clue_category: str,
    vocab_categories: Mapping[str, str],
    custom_categories: dict[str, str],
    known: Collection[str],
) -> str:
    """A word's category: the given vocabulary's, the paper's, or (a custom word) the export's; custom
    and re-categorised words are remembered in ``custom_categories`` so that every row agrees."""
    if word in vocab_categories:
        category = vocab_categories[word]
    else:
        try:
            category = category_of(word)
        except ValueError:  # a custom word: the export names its category
            category = custom_categories.get(word) or clue_category or CUSTOM_CATEGORY
        else:
            category = custom_categories.get(word, category)
    if word in vocab_categories or word not in known:
        custom_categories.setdefault(word, category)
    return category


@lru_cache(maxsize=8)
def _packaged(on_error: Literal["raise", "skip"], exclude_cvd: bool, *filters: str | None) -> HumanResponses:
    language, gender, age_range = filters
    return load_humans(
        packaged_cohort_path(),
        on_error=on_error,
        exclude_cvd=exclude_cvd,
        language=language,
        gender=gender,
        age_range=age_range,
    )


def load_humans(
    path: str | os.PathLike | None = None,
    *,
    on_error: Literal["raise", "skip"] = "raise",
    exclude_cvd: bool = True,
    language: Filter = None,
    gender: Filter = None,
    age_range: Filter = None,
    vocabulary: Vocabulary = None,
    cvd: CvdList = None,
) -> HumanResponses:
    """Read and validate a human-response export (``None``: the packaged *reconstructed* cohort).

    See the module docstring for the formats, the checks, ``on_error``,
    ``vocabulary``, the CVD list ``cvd`` and the filters.
    """
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")
    filters = [f for f in (language, gender, age_range) if f is None or isinstance(f, str)]
    if path is None and vocabulary is None and cvd is None and len(filters) == 3:
        cohort = _packaged(on_error, exclude_cvd, *filters)  # validated once per process: 0.2 s a read
        return replace(
            cohort,
            frame=cohort.frame.copy(),
            skipped=cohort.skipped.copy(),
            filtered=dict(cohort.filtered),
            custom_categories=dict(cohort.custom_categories),
        )

    file = packaged_cohort_path() if path is None else Path(path)
    source = str(file)
    if not file.is_file():
        raise FileNotFoundError(f"{source}: no such human-response export")
    cvd_ids, cvd_source = _cvd_list(cvd)
    header, rows, unit = _read_rows(file)
    _check_header(source, header)
    has_colour_vision = COLOUR_VISION_COLUMN in header
    columns = EXPORT_COLUMNS if has_colour_vision else APP_COLUMNS
    required = tuple(c for c in REQUIRED_VALUES if c in columns)
    col = {name: header.index(name) for name in columns}
    accepted, vocab_categories = _vocabulary(vocabulary)
    users_seen: set[str] = set()

    good: list[dict[str, object]] = []
    skipped: list[dict[str, object]] = []
    first_seen: dict[tuple[str, str], int] = {}
    custom_categories: dict[str, str] = {}
    known = _known_words()

    def reject(line: int, fieldname: str, reason: str) -> None:
        if on_error == "raise":
            raise ValueError(f"{source}, {unit} {line}, field {fieldname}: {reason}")
        skipped.append({"source": source, "line": line, "field": fieldname, "reason": reason})

    for line, values in rows:
        if len(values) > len(header):
            reject(line, "(row)", f"{len(values)} values for {len(header)} columns")
            continue
        values = values + [""] * (len(header) - len(values))
        get = {name: values[i].strip() for name, i in col.items()}
        if get["userId"]:
            users_seen.add(get["userId"])
        empty = next((name for name in required if not get[name]), None)
        if empty is not None:
            reject(line, empty, "empty; a value is required")
            continue
        try:
            stamp = _parse_timestamp(get["timestamp"])
        except ValueError as err:
            reject(line, "timestamp", str(err))
            continue
        try:
            word = normalise_word(get["word"])
        except ValueError as err:
            reject(line, "word", str(err))
            continue
        if accepted is not None and word not in accepted:
            what = (
                "the paper's 100 words (pass vocabulary= for a custom export)"
                if vocabulary is None
                else "the given vocabulary"
            )
            reject(
                line, "word", f"unknown word {get['word']!r} (normalised {word!r}): expected one of {what}"
            )
            continue
        try:
            cell = parse_coord(get["coordinate"])
        except ValueError as err:
            reject(line, "coordinate", str(err))
            continue
        colorblind: bool | None = None
        if has_colour_vision:
            try:
                colorblind = _parse_bool(get[COLOUR_VISION_COLUMN])
            except ValueError as err:
                reject(line, COLOUR_VISION_COLUMN, str(err))
                continue
        if cvd_ids is not None:
            colorblind = bool(colorblind) or get["userId"] in cvd_ids
        key = (get["userId"], word)
        if key in first_seen:
            reject(
                line,
                "word",
                f"duplicate answer of user {get['userId']!r} to {word!r} "
                f"(first at {unit} {first_seen[key]}); expected one answer per (user, word)",
            )
            continue
        first_seen[key] = line
        category = _category(word, get["clueCategory"], vocab_categories, custom_categories, known)
        good.append(
            {
                "user_id": get["userId"],
                "timestamp": stamp,
                "word": word,
                "category": category,
                "cell": cell,
                "coord": format_coord(cell),
                "language": get["language"].lower(),
                "gender": get["gender"].lower(),
                "age_range": get["ageRange"],
                "colorblind": colorblind,
            }
        )

    frame = pd.DataFrame(good, columns=[c for c in FRAME_COLUMNS if c not in ("x", "y")])
    xy = load_board().xy[frame["cell"].to_numpy(dtype=np.int64)]
    frame.insert(FRAME_COLUMNS.index("x"), "x", xy[:, 0])
    frame.insert(FRAME_COLUMNS.index("y"), "y", xy[:, 1])
    frame = frame.astype({"cell": "int64", "colorblind": "boolean"})
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], utc=True)
    if cvd_ids is not None:
        unknown_ids = sorted(cvd_ids - users_seen)
        if unknown_ids:
            raise ValueError(
                f"{cvd_source}: {len(unknown_ids)} listed CVD participant(s) not in {source}, "
                f"e.g. {unknown_ids[0]!r}; expected userIds of this export"
            )

    frame, filtered = _filter(frame, exclude_cvd, language=language, gender=gender, age_range=age_range)
    skipped_frame = pd.DataFrame(skipped, columns=list(SKIPPED_COLUMNS)).astype({"line": "int64"})
    return HumanResponses(
        frame=frame,
        skipped=skipped_frame,
        source=source,
        filtered=filtered,
        custom_categories=custom_categories,
        colour_vision_unknown=int(frame.loc[frame["colorblind"].isna(), "user_id"].nunique()),
    )


def _cvd_list(cvd: CvdList) -> tuple[set[str] | None, str]:
    """The participant ids of a CVD list (see the module docstring) and a name for error messages."""
    if cvd is None:
        return None, ""
    if not isinstance(cvd, (str, os.PathLike)):
        given = [str(v).strip() for v in cvd]
        return {i for i in given if i}, "the CVD list"
    path = Path(cvd)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such CVD participant list")
    text = read_user_text(path, encoding="utf-8-sig", expected="a CVD list")
    lines = text.splitlines()
    first = lines[0].strip() if lines else ""
    if path.suffix.lower() == ".csv" or "," in first:
        header = [h.strip() for h in next(csv.reader([first]))] if first else []
        if "userId" not in header:
            raise ValueError(
                f"{path}, line 1, field userId: missing column; expected a CSV with a userId column "
                "or a text file with one userId per line"
            )
        at = header.index("userId")
        ids: set[str] = set()
        for number, values in enumerate(csv.reader(io.StringIO(text)), start=1):
            if number == 1 or not values:
                continue
            if at >= len(values) or not values[at].strip():
                raise ValueError(f"{path}, line {number}, field userId: empty; a participant id is required")
            ids.add(values[at].strip())
        return ids, str(path)
    listed = {ln.split("#", 1)[0].strip() for ln in lines}
    return {i for i in listed if i}, str(path)


def _known_words() -> frozenset[str]:
    return frozenset(word_texts())
