"""Measured displays: a CSV ``display,cell,x,y,Y`` of colorimeter readings (CIE xyY) per display.

``cell`` is a board coordinate (``I18``) or ``white`` (the display's full white, which sets its white
point and normalises Y).  Every display needs a white row and the same cells as the others, and there
must be at least two displays.  The file is read whole but bounded (size, rows, displays); anything
else is refused in one line naming the file, the line and the field.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass

import numpy as np

from huesenv.board import format_coord, parse_coord
from huesenv.colourspace import xyy_to_xyz
from huesenv.trust import read_user_text

HEADER = ("display", "cell", "x", "y", "Y")
MAX_BYTES = 8_000_000
MAX_DISPLAYS = 64
MAX_NAME = 64


@dataclass(frozen=True)
class MeasuredDisplay:
    """One display's readings: XYZ with its white at Y = 1, cells as flat indices (sorted)."""

    name: str
    white_xyz: np.ndarray
    cells: np.ndarray
    xyz: np.ndarray
    line: int  # the line of its first row, for messages

    def show(self, cells: np.ndarray) -> np.ndarray:
        """The XYZ of the given cells (each one measured)."""
        return self.xyz[np.searchsorted(self.cells, cells)]


def _number(value: str, where: str, field: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{where}, field {field}: {value!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{where}, field {field}: {value!r} is not a finite number")
    return number


def _row(row: list[str], where: str) -> tuple[str, int | None, float, float, float]:
    if len(row) != len(HEADER):
        raise ValueError(f"{where}: expected {len(HEADER)} fields ({','.join(HEADER)}), got {len(row)}")
    name, cell = row[0].strip(), row[1].strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(
            f"{where}, field display: {name!r} is not a name of 1-{MAX_NAME} printable characters"
        )
    index = None
    if cell.lower() != "white":
        try:
            index = parse_coord(cell)
        except ValueError as err:
            raise ValueError(f"{where}, field cell: {err} (or 'white')") from None
    x, y, big_y = (_number(row[k].strip(), where, HEADER[k]) for k in (2, 3, 4))
    for field, value in (("x", x), ("y", y)):
        if not 0 < value < 1:
            raise ValueError(f"{where}, field {field}: {value!r} is not a chromaticity in (0, 1)")
    if x + y >= 1:
        raise ValueError(f"{where}, fields x, y: x + y = {x + y:g} is not a chromaticity (needs x + y < 1)")
    if big_y <= 0:
        raise ValueError(f"{where}, field Y: {big_y!r} must be > 0 (a luminance)")
    return name, index, x, y, big_y


def read_measurements(path: str | os.PathLike[str]) -> list[MeasuredDisplay]:
    """The displays of a measurement CSV, in file order (see the module docstring for the rules)."""
    text = read_user_text(path, encoding="utf-8-sig", expected="a measurement CSV", max_bytes=MAX_BYTES)
    readings: dict[str, dict[int | None, tuple[float, float, float]]] = {}
    first: dict[str, int] = {}
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        header = [h.strip() for h in next(reader, [])]
        if tuple(header) != HEADER:
            raise ValueError(f"{path}, line 1: header {','.join(header)!r}; expected {','.join(HEADER)}")
        for row in reader:
            where = f"{path}, line {reader.line_num}"
            if not any(field.strip() for field in row):
                continue
            name, index, x, y, big_y = _row(row, where)
            cells = readings.setdefault(name, {})
            first.setdefault(name, reader.line_num)
            if len(readings) > MAX_DISPLAYS:
                raise ValueError(f"{where}: more than {MAX_DISPLAYS} displays")
            if index in cells:
                cell = "white" if index is None else format_coord(index)
                raise ValueError(f"{where}, field cell: display {name!r} measures {cell} twice")
            cells[index] = (x, y, big_y)
    except csv.Error as err:
        raise ValueError(f"{path}: not a CSV file ({err})") from None
    return _displays(readings, first, str(path))


def _displays(
    readings: dict[str, dict[int | None, tuple[float, float, float]]], first: dict[str, int], path: str
) -> list[MeasuredDisplay]:
    if len(readings) < 2:
        names = ", ".join(repr(n) for n in readings) or "none"
        raise ValueError(f"{path}: {len(readings)} display(s) ({names}); the comparison needs at least 2")
    out: list[MeasuredDisplay] = []
    for name, cells in readings.items():
        if None not in cells:
            raise ValueError(f"{path}, line {first[name]}, field cell: display {name!r} has no 'white' row")
        white = cells.pop(None)
        if not cells:
            raise ValueError(f"{path}, line {first[name]}: display {name!r} measures no board cell")
        index = np.array(sorted(c for c in cells if c is not None), dtype=np.int64)
        xyy = np.array([cells[int(i)] for i in index], dtype=np.float64)
        xyy[:, 2] /= white[2]  # white Y = 1
        white_xyz = xyy_to_xyz([white[0], white[1], 1.0])
        out.append(MeasuredDisplay(name, white_xyz, index, xyy_to_xyz(xyy), first[name]))
    reference = out[0]
    for display in out[1:]:
        if not np.array_equal(display.cells, reference.cells):
            raise ValueError(
                f"{path}, line {display.line}: display {display.name!r} measures other cells than "
                f"{reference.name!r} ({len(display.cells)} vs {len(reference.cells)}); every display must "
                "measure the same cells"
            )
    return out
