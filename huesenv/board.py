"""The Hues and Cues board: 480 cells (rows A–P × columns 1–30) in CIE colour spaces.

The sRGB values are the study's "digital twin" board (``data/HC_RGB.csv``, see
``data/SOURCES.md``).  Every other colour quantity is derived from them with
colour-science, never with hand-written matrices, so the board is exactly as
reproducible as the library.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.board``.
"""

from __future__ import annotations

import csv
import io
import operator
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources
from typing import IO, TYPE_CHECKING

import numpy as np

from huesenv.categories import NEUTRAL_CELLS, classify_board
from huesenv.colourspace import srgb_to_xyz, xyz_to_lab, xyz_to_xy
from huesenv.trust import read_user_text

if TYPE_CHECKING:  # pandas costs ~0.2 s to import; only the table helpers need it
    import pandas as pd

N_ROWS = 16
N_COLS = 30
N_CELLS = N_ROWS * N_COLS
MAX_BOARD_BYTES = 1 << 20  # a 480-row board CSV is ~10 kB
ROW_LETTERS = "ABCDEFGHIJKLMNOP"
VALID_RANGE = f"rows {ROW_LETTERS[0]}-{ROW_LETTERS[-1]} and columns 1-{N_COLS} (e.g. 'I18')"

# Accepted coordinate spellings: one row letter then the column number, in any
# case, with optional surrounding white space and an optional space or hyphen
# in between ("I18", "i18", " I 18 ", "I-18").  Leading zeros are not accepted
# ("I018") because no source writes them and they hide typos.
_COORD_RE = re.compile(r"^\s*([A-Za-z])\s*-?\s*([1-9][0-9]*)\s*$")


def parse_coord(coord: object) -> int:
    """Return the flat cell index of a board coordinate such as ``"I18"``.

    Raises ``ValueError`` naming the input and the valid range for anything
    that is not a cell of the board (``"Z99"``, ``"A0"``, ``"A31"``, ``"Q5"``,
    ``""``, ``None``, numbers...).
    """
    if not isinstance(coord, str):
        raise ValueError(f"invalid board coordinate {coord!r}: expected a string with {VALID_RANGE}")
    match = _COORD_RE.match(coord)
    if match is None:
        raise ValueError(f"invalid board coordinate {coord!r}: expected {VALID_RANGE}")
    letter, number = match.group(1).upper(), int(match.group(2))
    row = ROW_LETTERS.find(letter)
    if row < 0 or not 1 <= number <= N_COLS:
        raise ValueError(f"board coordinate {coord!r} is off the board: expected {VALID_RANGE}")
    return row * N_COLS + (number - 1)


def format_coord(index: int) -> str:
    """Return the coordinate (``"I18"``) of a flat cell index."""
    index = check_index(index)
    return f"{ROW_LETTERS[index // N_COLS]}{index % N_COLS + 1}"


def cell_index(value: object) -> int | None:
    """``value`` as a flat cell index, or ``None`` when it names no cell.

    For agents' answers (:mod:`huesenv.envs.hues_cues.adapters`): a cell from
    a model's reply or a user's policy is data, and ``int()`` would truncate
    ``12.7`` to a real cell or parse ``"12"``.  Cells are integers in 0–479:
    Python's, numpy's, anything with ``__index__`` (an ``IntEnum``, a 0-d
    integer tensor), a 0-d array of one, or a whole float (a ranking built in
    floats, ``12.0`` from JSON: it names its cell exactly).  Bools, strings,
    fractional or non-finite numbers and containers are not.
    :func:`check_index` is the strict check, with errors, for what users write.
    """
    if type(value) is int:  # the common case first
        return value if 0 <= value < N_CELLS else None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (float, np.floating)):
        if not (np.isfinite(value) and value % 1 == 0):
            return None
        index = int(value)
    else:
        try:
            index = operator.index(value)  # type: ignore[arg-type]  # what has no __index__ is refused
        except TypeError:
            return None
    return index if 0 <= index < N_CELLS else None


def check_index(index: object) -> int:
    """Validate a flat cell index (0–479) and return it as ``int``."""
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise ValueError(f"invalid cell index {index!r}: expected an integer 0-{N_CELLS - 1}")
    if not 0 <= int(index) < N_CELLS:
        raise ValueError(f"cell index {index!r} is off the board: expected 0-{N_CELLS - 1}")
    return int(index)


def to_index(cell: int | str) -> int:
    """Accept a flat index or a coordinate string and return the flat index."""
    return parse_coord(cell) if isinstance(cell, str) else check_index(cell)


def chebyshev_distance(a: int | np.ndarray, b: int | np.ndarray) -> np.ndarray:
    """Chebyshev (king-move) distance between cells given as flat indices (vectorised)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.maximum(np.abs(a // N_COLS - b // N_COLS), np.abs(a % N_COLS - b % N_COLS))


def neighbourhood(index: int, radius: int = 1) -> np.ndarray:
    """Flat indices within Chebyshev ``radius`` of ``index``, clipped at the board edges.

    ``radius=1`` is the 3×3 scoring frame (9 cells, 4 in a corner, 6 on an edge).
    """
    index = check_index(index)
    r, c = divmod(index, N_COLS)
    rows = np.arange(max(r - radius, 0), min(r + radius, N_ROWS - 1) + 1)
    cols = np.arange(max(c - radius, 0), min(c + radius, N_COLS - 1) + 1)
    return (rows[:, None] * N_COLS + cols[None, :]).ravel()


def frame(index: int) -> np.ndarray:
    """The 3×3 scoring frame around a cell (target included), clipped at the edges."""
    return neighbourhood(index, 1)


def ring(index: int) -> np.ndarray:
    """The ring just outside the frame: the 5×5 square minus the 3×3, clipped at the edges."""
    outer = neighbourhood(index, 2)
    return outer[chebyshev_distance(outer, index) == 2]


@dataclass(frozen=True)
class Board:
    """The 480 cells and their colours, as vectorised arrays indexed by flat cell index."""

    rgb: np.ndarray  # (480, 3) uint8 sRGB
    source: str = "HC_RGB.csv"

    def __post_init__(self) -> None:
        rgb = np.asarray(self.rgb)
        if rgb.shape != (N_CELLS, 3):
            raise ValueError(f"{self.source}: expected {N_CELLS}×3 sRGB values, got shape {rgb.shape}")
        rgb = rgb.astype(np.uint8, copy=True)
        rgb.setflags(write=False)
        object.__setattr__(self, "rgb", rgb)

    @classmethod
    def as_shown(cls, rgb: np.ndarray, xyz: np.ndarray, source: str) -> Board:
        """The board as a display shows it: the same sRGB sent, ``xyz`` (D65-relative, white Y = 1) seen.

        xy, Lab and categories follow from ``xyz`` (e.g. :meth:`huesenv.displays.profiles.Profile.show`)."""
        board = cls(rgb, source)
        xyz = np.array(xyz, dtype=np.float64)
        if xyz.shape != (N_CELLS, 3) or not np.isfinite(xyz).all():
            raise ValueError(f"{source}: expected {N_CELLS}×3 finite XYZ values, got shape {xyz.shape}")
        board.__dict__["xyz"] = _readonly(xyz)  # the cached_property's slot: everything derived reads it
        return board

    # -- addressing -----------------------------------------------------------
    @cached_property
    def coords(self) -> tuple[str, ...]:
        return tuple(f"{ROW_LETTERS[i // N_COLS]}{i % N_COLS + 1}" for i in range(N_CELLS))

    @cached_property
    def rows(self) -> np.ndarray:
        return _readonly(np.arange(N_CELLS) // N_COLS)

    @cached_property
    def cols(self) -> np.ndarray:
        return _readonly(np.arange(N_CELLS) % N_COLS)

    def index(self, coord: int | str) -> int:
        return to_index(coord)

    def indices(self, coords: Iterable[int | str]) -> np.ndarray:
        return np.fromiter((to_index(c) for c in coords), dtype=np.int64)

    # -- colour ---------------------------------------------------------------
    @cached_property
    def xyz(self) -> np.ndarray:
        """CIE XYZ (D65, Y in [0, 1]) from sRGB via colour-science (:mod:`huesenv.colourspace`)."""
        return _readonly(srgb_to_xyz(self.rgb))

    @cached_property
    def xy(self) -> np.ndarray:
        """CIE 1931 chromaticity coordinates — the space the paper's metrics work in."""
        return _readonly(xyz_to_xy(self.xyz))

    @cached_property
    def lab(self) -> np.ndarray:
        """CIELAB under the sRGB white (D65), L in [0, 100]."""
        return _readonly(xyz_to_lab(self.xyz))

    @cached_property
    def categories(self) -> tuple[str, ...]:
        """Macro-colour category of every cell (see :mod:`huesenv.categories`)."""
        return classify_board(self)

    def to_frame(self) -> pd.DataFrame:
        """One row per cell: ``index,coord,row,col,R,G,B,X,Y,Z,x,y,L,a,b,category,neutral``.

        ``row`` and ``col`` are 0-based indices (``index = row * 30 + col``);
        ``coord`` is the printed form with the 1-based column.
        """
        import pandas as pd  # lazy: importing pandas would double the cost of ``import huesenv``

        neutral = {parse_coord(c) for c in NEUTRAL_CELLS}
        return pd.DataFrame(
            {
                "index": np.arange(N_CELLS),
                "coord": self.coords,
                "row": self.rows,
                "col": self.cols,
                "R": self.rgb[:, 0],
                "G": self.rgb[:, 1],
                "B": self.rgb[:, 2],
                "X": self.xyz[:, 0],
                "Y": self.xyz[:, 1],
                "Z": self.xyz[:, 2],
                "x": self.xy[:, 0],
                "y": self.xy[:, 1],
                "L": self.lab[:, 0],
                "a": self.lab[:, 1],
                "b": self.lab[:, 2],
                "category": self.categories,
                "neutral": [i in neutral for i in range(N_CELLS)],
            }
        )


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def read_board_csv(path_or_buffer: str | os.PathLike[str] | IO[str], source: str | None = None) -> Board:
    """Read a board table with columns ``coordenada_x,coordenada_y,R,G,B`` (the study's format).

    Every cell must appear exactly once; errors name the file and line.  Read with
    the ``csv`` module, not pandas, so that ``import huesenv`` stays light.
    """
    source = source or str(path_or_buffer)
    if isinstance(path_or_buffer, (str, os.PathLike)):
        text = read_user_text(
            path_or_buffer, encoding="utf-8-sig", expected="a board CSV", max_bytes=MAX_BOARD_BYTES
        )
        return _read_board_rows(io.StringIO(text, newline=""), source)
    return _read_board_rows(path_or_buffer, source)


def _read_board_rows(fh: IO[str], source: str) -> Board:
    reader = csv.DictReader(fh)
    expected = ["coordenada_x", "coordenada_y", "R", "G", "B"]
    missing = [c for c in expected if c not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"{source}: missing column(s) {missing}; expected header {','.join(expected)}")
    rgb = np.full((N_CELLS, 3), -1, dtype=np.int64)
    for row in reader:
        line = reader.line_num
        try:
            index = parse_coord(f"{row['coordenada_x'] or ''}{row['coordenada_y'] or ''}")
        except ValueError as err:
            raise ValueError(f"{source}, line {line}, field coordenada_x/coordenada_y: {err}") from None
        if rgb[index, 0] >= 0:
            raise ValueError(f"{source}, line {line}: cell {format_coord(index)} appears twice")
        for k, name in enumerate("RGB"):
            value = row[name] or ""
            if not value.isdigit() or not 0 <= int(value) <= 255:
                raise ValueError(f"{source}, line {line}, field {name}: {value!r} is not an integer 0-255")
            rgb[index, k] = int(value)
    if (rgb < 0).any():
        absent = [format_coord(i) for i in np.flatnonzero(rgb[:, 0] < 0)[:5]]
        raise ValueError(f"{source}: {int((rgb[:, 0] < 0).sum())} cell(s) missing, e.g. {absent}")
    return Board(rgb=rgb, source=source)


@lru_cache(maxsize=1)
def load_board() -> Board:
    """The packaged study board (cached: the colour conversions run once per process)."""
    ref = resources.files("huesenv") / "data" / "HC_RGB.csv"
    with ref.open("r", encoding="utf-8") as fh:
        return read_board_csv(fh, source="huesenv/data/HC_RGB.csv")


def cells_to_xy(cells: Sequence[int] | np.ndarray, board: Board | None = None) -> np.ndarray:
    """CIE xy of flat cell indices, shape (n, 2)."""
    board = board or load_board()
    return board.xy[np.asarray(cells, dtype=np.int64)]


def category_of_cell(cell: int | str) -> str:
    """Macro-colour category of one cell of the packaged board (see :mod:`huesenv.categories`)."""
    return load_board().categories[to_index(cell)]


def is_neutral(cell: int | str) -> bool:
    """Whether the cell is one of the achromatic cells :data:`huesenv.categories.NEUTRAL_CELLS`."""
    return to_index(cell) in {parse_coord(c) for c in NEUTRAL_CELLS}
