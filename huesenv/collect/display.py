"""Display facts and the screen check: what each participant's screen was like when they answered.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.display``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, fields

# tile id → (background, inner square); an equal pair is a catch tile
SCREEN_CHECK: tuple[tuple[str, str, str], ...] = (
    ("t1", "#1e1e1e", "#262626"),
    ("t2", "#e6e6e6", "#e6e6e6"),
    ("t3", "#ececec", "#f6f6f6"),
    ("t4", "#1e1e1e", "#2c2c2c"),
    ("t5", "#3a3a3a", "#3a3a3a"),
    ("t6", "#e0e0e0", "#eeeeee"),
)
TARGET_TILES = frozenset(t for t, bg, inner in SCREEN_CHECK if bg != inner)
CATCH_TILES = frozenset(t for t, bg, inner in SCREEN_CHECK if bg == inner)
ORIENTATIONS = ("portrait", "landscape")
GAMUTS = ("srgb", "p3", "rec2020", "none")
CONTRASTS = ("no-preference", "more", "less", "custom")
# what the export's --display filter can require
DISPLAY_FILTERS = ("all", "checked", "no-forced-colors", "landscape", "passed")


@dataclass(frozen=True)
class DisplayFacts:
    viewport_w: int | None = None
    viewport_h: int | None = None
    screen_w: int | None = None
    screen_h: int | None = None
    dpr: float | None = None
    orientation: str | None = None
    color_gamut: str | None = None
    forced_colors: int | None = None
    dark_mode: int | None = None
    contrast: str | None = None
    check_seen: str | None = None  # the ticked tiles, in tile order; None: the check was not shown
    check_hits: int | None = None
    check_false_alarms: int | None = None

    def store(self, conn: sqlite3.Connection, participant_id: str) -> None:
        names = [f.name for f in fields(self)]
        conn.execute(
            f"INSERT INTO displays (participant_id, {', '.join(names)}) VALUES ({', '.join('?' * (len(names) + 1))})",
            (participant_id, *(getattr(self, n) for n in names)),
        )


def _size(text: object) -> tuple[int | None, int | None]:
    m = re.fullmatch(r"(\d{1,5})x(\d{1,5})", text) if isinstance(text, str) else None
    if m is None:
        return None, None
    w, h = int(m.group(1)), int(m.group(2))
    return (w, h) if 0 < w <= 20000 and 0 < h <= 20000 else (None, None)


def _choice(text: object, allowed: tuple[str, ...]) -> str | None:
    return text if isinstance(text, str) and text in allowed else None


def _flag(text: object) -> int | None:
    return {"0": 0, "1": 1}.get(text) if isinstance(text, str) else None


def _dpr(text: object) -> float | None:
    try:
        value = float(text) if isinstance(text, str) and len(text) <= 12 else None
    except ValueError:
        return None
    return round(value, 4) if value is not None and 0.1 <= value <= 16 else None


def parse_display(form: Mapping[str, str]) -> DisplayFacts:
    """The onboarding form's display fields (``d_*``) and screen-check ticks (``screen_check``)."""
    vw, vh = _size(form.get("d_viewport"))
    sw, sh = _size(form.get("d_screen"))
    seen = None
    hits = false_alarms = None
    if form.get("screen_check_shown") == "yes":
        getlist = getattr(form, "getlist", None)
        ticked = set(getlist("screen_check") if getlist else [form.get("screen_check", "")])
        order = [t for t, _, _ in SCREEN_CHECK if t in ticked]
        seen = ",".join(order)
        hits = len(TARGET_TILES & ticked)
        false_alarms = len(CATCH_TILES & ticked)
    return DisplayFacts(
        viewport_w=vw,
        viewport_h=vh,
        screen_w=sw,
        screen_h=sh,
        dpr=_dpr(form.get("d_dpr")),
        orientation=_choice(form.get("d_orientation"), ORIENTATIONS),
        color_gamut=_choice(form.get("d_gamut"), GAMUTS),
        forced_colors=_flag(form.get("d_forced")),
        dark_mode=_flag(form.get("d_dark")),
        contrast=_choice(form.get("d_contrast"), CONTRASTS),
        check_seen=seen,
        check_hits=hits,
        check_false_alarms=false_alarms,
    )


def upright_phone(form: Mapping[str, str]) -> bool:
    """Whether an answer was given on a phone held upright (portrait and a viewport under 600 px wide)."""
    width, _ = _size(form.get("d_viewport"))
    return form.get("d_orientation") == "portrait" and width is not None and width < 600


def answer_orientation(form: Mapping[str, str]) -> str | None:
    """The orientation an answer form was sent in (``None`` when the browser did not say)."""
    return _choice(form.get("d_orientation"), ORIENTATIONS)
