"""The Graded Color Attribution (GCA) survey: per-participant item plans and response validation.

Structure, after the GCA paper's human trials (Section 3.2, Appendix B).

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.tasks.gca``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from huesenv.collect.db import transaction, utc_now

PAPER_ATTENTION_POSITIONS: tuple[int, ...] = (5, 25, 45, 65, 85)
PAPER_TRIALS = 90
# The paper's wording says "the object in the image", but this question is asked on a page of its own
# with no image (and, for half the participants, before any image has been seen); "an object in an
# image" asks the same general rule without referring to a picture that is not there.  The answer has
# no preset value (the page's slider starts unset), so the slider's start does not anchor it.
INTROSPECTION_QUESTION = (
    "For any object, x% of its pixels should be colored for it to be considered that color. "
    "At what point would you personally say that an object in an image is the given color? "
    "What value should x% be?"
)
INTROSPECTION_MODES = ("first", "last", "alternate")


@dataclass(frozen=True)
class GCAServedStimulus:
    """One recoloured image and its ground truth, as the survey needs it."""

    stimulus_id: str
    object: str
    condition: str
    colour: str
    tau: float
    distractor: str
    png: bytes | Callable[[], bytes]  # a callable renders on demand (only when the database lacks the image)

    def png_bytes(self) -> bytes:
        return self.png() if callable(self.png) else bytes(self.png)


StimulusSource = Callable[[np.random.Generator, int, int], Sequence[GCAServedStimulus]]
"""``source(rng, n_trials, n_attention)`` → ``n_trials`` trial stimuli then ``n_attention`` attention-check
stimuli, drawn with ``rng``, none repeated within one survey."""


class ResponseRefused(ValueError):
    """A response for an item that is not the participant's current one."""


@dataclass(frozen=True)
class GCAItem:
    position: int
    kind: str  # "trial" | "attention" | "introspection"
    stimulus_id: str | None
    question: str
    options: tuple[str, ...]
    distractor: str | None
    expected: str | None


def introspection_condition(mode: str, serial: int) -> str:
    """``"first"`` or ``"last"`` for a participant (see the module docstring)."""
    if mode not in INTROSPECTION_MODES:
        raise ValueError(f"introspection position {mode!r}: expected one of {', '.join(INTROSPECTION_MODES)}")
    if mode == "alternate":
        return "first" if serial % 2 == 1 else "last"
    return mode


def attention_slots(n_trials: int, positions: Sequence[int], condition: str) -> list[int]:
    """The 1-based item numbers that hold attention checks in a survey of ``n_trials`` trials.

    Numbers beyond the survey's end or on the introspection question's slot are
    dropped (one at a time, largest first, since each drop shortens the survey).
    """
    if condition not in ("first", "last"):
        raise ValueError(f"introspection condition {condition!r}: expected 'first' or 'last'")
    slots = sorted({int(p) for p in positions if int(p) >= 1})
    while True:
        n_items = n_trials + 1 + len(slots)
        intro = 1 if condition == "first" else n_items
        bad = [p for p in slots if p > n_items or p == intro]
        if not bad:
            return slots
        slots.remove(max(bad))


def plan_items(
    stimuli: Sequence[GCAServedStimulus],
    attention: Sequence[GCAServedStimulus],
    condition: str,
    attention_positions: Sequence[int],
    rng: np.random.Generator,
) -> list[GCAItem]:
    """Lay out one survey: trials in the given order, attention checks at their 1-based item numbers
    (see :func:`attention_slots`), the introspection question first or last."""
    slots = set(attention_slots(len(stimuli), attention_positions, condition))
    if len(attention) < len(slots):
        raise ValueError(f"{len(slots)} attention checks need as many stimuli, got {len(attention)}")
    n_items = len(stimuli) + 1 + len(slots)
    introspection_at = 0 if condition == "first" else n_items - 1
    trials, checks = iter(stimuli), iter(attention)
    items: list[GCAItem] = []
    for pos in range(n_items):
        if pos == introspection_at:
            items.append(GCAItem(pos, "introspection", None, INTROSPECTION_QUESTION, (), None, None))
            continue
        kind = "attention" if pos + 1 in slots else "trial"
        stim = next(checks if kind == "attention" else trials)
        options = tuple(str(o) for o in rng.permutation(["white", stim.colour, stim.distractor]))
        if kind == "attention":
            expected: str | None = options[int(rng.integers(3))]
            question = f"Attention check: please click the button labelled \u201c{expected}\u201d."
        else:
            expected, question = None, f"What color is the {stim.object} in the image?"
        items.append(GCAItem(pos, kind, stim.stimulus_id, question, options, stim.distractor, expected))
    return items


def create_plan(
    conn: sqlite3.Connection,
    participant_id: str,
    serial: int,
    source: StimulusSource,
    n_trials: int,
    attention_positions: Sequence[int],
    condition: str,
    seed: int,
    on_drawn: Callable[[Sequence[GCAServedStimulus]], object] | None = None,
) -> list[GCAItem]:
    """Draw and store a participant's survey (inside a write transaction); renders nothing.

    Stimuli whose PNG is already given as bytes are stored with it; rendered
    ones (a callable ``png``) are left to :class:`ImageStore` (``on_drawn`` receives
    the drawn stimuli, e.g. :meth:`ImageStore.register`).
    """
    if n_trials < 1:
        raise ValueError(f"GCA trials per participant: expected at least 1, got {n_trials}")
    rng = np.random.default_rng((int(seed), int(serial)))
    n_checks = len(attention_slots(n_trials, attention_positions, condition))
    drawn = list(source(rng, n_trials, n_checks))
    if len(drawn) != n_trials + n_checks:
        raise ValueError(f"GCA stimulus source gave {len(drawn)} stimuli, expected {n_trials + n_checks}")
    stimuli, attention = drawn[:n_trials], drawn[n_trials:]
    items = plan_items(stimuli, attention, condition, attention_positions, rng)
    if len({s.stimulus_id for s in drawn}) != len(drawn):
        raise ValueError("GCA stimulus source repeated a stimulus within one survey")
    for stim in drawn:
        if stim.distractor in ("white", stim.colour):
            raise ValueError(
                f"GCA stimulus {stim.stimulus_id}: distractor {stim.distractor!r} must differ from "
                f"white and the manipulation colour {stim.colour!r}"
            )
        conn.execute(
            "INSERT OR IGNORE INTO gca_stimuli (stimulus_id, object, condition, colour, tau) VALUES (?, ?, ?, ?, ?)",
            (stim.stimulus_id, stim.object, stim.condition, stim.colour, float(stim.tau)),
        )
        if not callable(stim.png):
            conn.execute(
                "INSERT OR IGNORE INTO gca_images (stimulus_id, png) VALUES (?, ?)",
                (stim.stimulus_id, bytes(stim.png)),
            )
    conn.executemany(
        "INSERT INTO gca_items (participant_id, position, kind, stimulus_id, question, options, distractor, expected)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                participant_id,
                it.position,
                it.kind,
                it.stimulus_id,
                it.question,
                json.dumps(list(it.options)),
                it.distractor,
                it.expected,
            )
            for it in items
        ],
    )
    if on_drawn is not None:
        on_drawn(drawn)
    return items


def stimulus_object(conn: sqlite3.Connection, stimulus_id: str) -> str:
    """The object name of a stored stimulus (for the question shown with it)."""
    row = conn.execute("SELECT object FROM gca_stimuli WHERE stimulus_id = ?", (stimulus_id,)).fetchone()
    return "" if row is None else str(row[0])


def _item(row: sqlite3.Row | tuple) -> GCAItem:
    pos, kind, sid, question, options, distractor, expected = tuple(row)
    return GCAItem(int(pos), kind, sid, question, tuple(json.loads(options)), distractor, expected)


def current_item(conn: sqlite3.Connection, participant_id: str) -> GCAItem | None:
    row = conn.execute(
        "SELECT i.position, i.kind, i.stimulus_id, i.question, i.options, i.distractor, i.expected FROM gca_items i"
        " LEFT JOIN gca_responses r ON r.participant_id = i.participant_id AND r.position = i.position"
        " WHERE i.participant_id = ? AND r.position IS NULL ORDER BY i.position LIMIT 1",
        (participant_id,),
    ).fetchone()
    return None if row is None else _item(row)


def progress(conn: sqlite3.Connection, participant_id: str) -> tuple[int, int]:
    total = conn.execute(
        "SELECT COUNT(*) FROM gca_items WHERE participant_id = ?", (participant_id,)
    ).fetchone()[0]
    done = conn.execute(
        "SELECT COUNT(*) FROM gca_responses WHERE participant_id = ?", (participant_id,)
    ).fetchone()[0]
    return int(done), int(total)


def _int_field(form, name: str, lo: int, hi: int) -> int:
    raw = form.get(name, "")
    if not isinstance(raw, str) or len(raw) > 4 or not raw.strip().isdigit():
        raise ValueError(f"field {name}: expected a whole number {lo}-{hi}")
    value = int(raw.strip())
    if not lo <= value <= hi:
        raise ValueError(f"field {name}: expected a whole number {lo}-{hi}")
    return value


def record_response(
    conn: sqlite3.Connection,
    participant_id: str,
    form,
    response_ms: int | None = None,
    orientation: str | None = None,
) -> GCAItem:
    """Validate and store the response to the current item (inside a write transaction)."""
    raw_pos = form.get("position", "")
    item = current_item(conn, participant_id)
    if item is None:
        raise ResponseRefused("the survey is already complete")
    if not isinstance(raw_pos, str) or raw_pos.strip() != str(item.position):
        raise ResponseRefused(
            "this item was already answered or is not the current one; answers cannot be changed"
        )
    choice = confidence = threshold = None
    if item.kind == "introspection":
        threshold = _int_field(form, "threshold", 0, 100)
    else:
        choice = form.get("choice", "")
        if choice not in item.options:
            raise ValueError(f"field choice: expected one of {', '.join(item.options)}")
        confidence = _int_field(form, "confidence", 1, 10)
    try:
        conn.execute(
            "INSERT INTO gca_responses (participant_id, position, choice, confidence, threshold, answered_at,"
            " response_ms, orientation) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                participant_id,
                item.position,
                choice,
                confidence,
                threshold,
                utc_now(),
                response_ms,
                orientation,
            ),
        )
    except sqlite3.IntegrityError:
        raise ResponseRefused("this item was already answered; answers cannot be changed") from None
    return item


MAX_POSITION = 10_000  # larger than any survey; bounds the URL's number before it reaches SQLite


def stimulus_at(conn: sqlite3.Connection, participant_id: str, position: int) -> str | None:
    """The stimulus id at a position of this participant's survey (URLs carry positions, not ids)."""
    if not 0 <= int(position) <= MAX_POSITION:
        return None
    row = conn.execute(
        "SELECT stimulus_id FROM gca_items WHERE participant_id = ? AND position = ?",
        (participant_id, int(position)),
    ).fetchone()
    return None if row is None or row[0] is None else str(row[0])


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def cache_name(stimulus_id: str) -> str:
    """A stimulus id as a file name: readable, no path separators, unique (a short hash of the id)."""
    readable = re.sub(r"[^A-Za-z0-9_-]", "_", stimulus_id)[:80]
    return f"{readable}-{hashlib.sha256(stimulus_id.encode('utf-8')).hexdigest()[:12]}.png"


class ImageStore:
    """Stimulus PNGs: rendered on first need outside any transaction, kept in a file cache.

    The cache is a folder of its own (default: the database path plus
    ``.gca-images``), not the participant database: ~7000 stimuli are ~170 MB,
    which made every copy and backup of the answers that much bigger.  Files
    are written atomically (a temporary file renamed into place) and read back
    only if they start with the PNG signature (anything else is rendered
    again).  Images a schema-2 database holds in ``gca_images`` are still served.

    ``renderers`` maps stimulus ids to callables producing PNG bytes (filled by
    :meth:`register` from drawn plans, and by ``lookup`` — e.g. the probes
    source's ``render_png`` — for stimuli drawn before a restart).  One lock per
    stimulus id keeps concurrent requests for the same new image from rendering
    it twice in this process.
    """

    def __init__(
        self,
        lookup: Callable[[str], Callable[[], bytes] | None] | None = None,
        write_lock: threading.Lock | None = None,
        cache_dir: str | Path | None = None,
    ) -> None:
        self.lookup = lookup
        self.write_lock = write_lock if write_lock is not None else threading.Lock()
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._renderers: dict[str, Callable[[], bytes]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def register(self, stimuli: Iterable[GCAServedStimulus]) -> None:
        with self._guard:
            for stim in stimuli:
                if callable(stim.png):
                    self._renderers.setdefault(stim.stimulus_id, stim.png)

    def _renderer(self, stimulus_id: str) -> Callable[[], bytes] | None:
        with self._guard:
            fn = self._renderers.get(stimulus_id)
        if fn is None and self.lookup is not None:
            fn = self.lookup(stimulus_id)
        return fn

    def _lock(self, stimulus_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(stimulus_id, threading.Lock())

    def path(self, stimulus_id: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / cache_name(stimulus_id)

    def stored(self, conn: sqlite3.Connection, stimulus_id: str) -> bytes | None:
        """The image from the file cache, else from the database (schema 2 kept them there), else ``None``."""
        path = self.path(stimulus_id)
        if path is not None and path.is_file():
            data = path.read_bytes()
            if data.startswith(PNG_SIGNATURE):
                return data
        row = conn.execute("SELECT png FROM gca_images WHERE stimulus_id = ?", (stimulus_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def _save(self, conn: sqlite3.Connection, stimulus_id: str, data: bytes) -> None:
        path = self.path(stimulus_id)
        if path is None:  # no cache folder: the database (tests, or a caller that wants one file)
            with self.write_lock, transaction(conn):
                conn.execute(
                    "INSERT OR IGNORE INTO gca_images (stimulus_id, png) VALUES (?, ?)", (stimulus_id, data)
                )
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".png")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def png(self, conn: sqlite3.Connection, stimulus_id: str) -> bytes | None:
        """The image, rendering and storing it if needed; ``None`` if it is unknown.  No transaction may be open."""
        data = self.stored(conn, stimulus_id)
        if data is not None:
            return data
        with self._lock(stimulus_id):
            data = self.stored(conn, stimulus_id)  # rendered by another thread meanwhile
            if data is not None:
                return data
            fn = self._renderer(stimulus_id)
            if fn is None:
                return None
            data = bytes(fn())  # the slow part: no lock of SQLite's is held
            if not data.startswith(PNG_SIGNATURE):
                raise ValueError(f"GCA stimulus {stimulus_id}: the renderer returned no PNG image")
            self._save(conn, stimulus_id, data)
            with self._guard:
                self._renderers.pop(stimulus_id, None)
                self._locks.pop(stimulus_id, None)
            return data

    def prerender(
        self,
        conn: sqlite3.Connection,
        stimulus_ids: Iterable[str],
        stop: threading.Event | None = None,
        progress: Callable[[int, int], object] | None = None,
    ) -> int:
        """Render every listed image not stored yet; returns the count rendered.

        ``progress(done, total)`` is called after each image (done counts the
        ones already cached too), e.g. to drive a progress bar.
        """
        ids = list(stimulus_ids)
        n = 0
        for k, sid in enumerate(ids, 1):
            if stop is not None and stop.is_set():
                break
            if self.stored(conn, sid) is None and self.png(conn, sid) is not None:
                n += 1
            if progress is not None:
                progress(k, len(ids))
        return n
