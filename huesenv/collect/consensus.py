"""The painting task's consensus as a category map, compared with the macro-colour map the metrics use.

``huesenv collect export --task tessellation`` writes the consensus table
(``coord,category,agreement,n,index,…``, :func:`huesenv.collect.tasks.tessellation.consensus_table`).
:func:`load_category_map` reads it back as a :class:`CategoryMap` — one
macro-colour name per board cell in flat cell order, the shape of
``load_board().categories`` — so collected tessellations can stand in for the
package's map wherever a category map is used.

More (method, why, measurements): ``docs/design.md``, section ``huesenv.collect.consensus``.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from huesenv.board import N_CELLS, load_board, parse_coord
from huesenv.categories import MACRO_COLOURS
from huesenv.trust import check_parquet, read_user_bytes

PACKAGE_MAP = "huesenv macro-colour map (reconstructed from XKCD colour names, not the paper's participants)"


@dataclass(frozen=True)
class CategoryMap:
    """One macro-colour category per board cell (flat order), with each cell's agreement when known."""

    categories: tuple[str, ...]
    agreement: np.ndarray | None = None  # share of painters who chose the cell's category
    n: int | None = None  # painters behind the consensus
    source: str = ""

    def __post_init__(self) -> None:
        if len(self.categories) != N_CELLS:
            raise ValueError(
                f"{self.source or 'category map'}: {len(self.categories)} cells, expected {N_CELLS}"
            )


def _read(path: Path) -> pd.DataFrame:
    name = path.name.lower()
    if name.endswith(".parquet"):
        check_parquet(path)
        return pd.read_parquet(path)
    if name.endswith((".csv", ".csv.gz")):
        text = io.BytesIO(read_user_bytes(path))  # the one bounded reader (inflated already)
        return pd.read_csv(text, dtype={"coord": str, "category": str}, keep_default_na=False)
    raise ValueError(f"{path}: unknown file type; expected .csv, .csv.gz or .parquet")


def load_category_map(path: str | Path) -> CategoryMap:
    """The consensus table of the painting task as a :class:`CategoryMap`; bad files name line and field."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such consensus table")
    try:
        frame = _read(path)
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        reason = err.reason if isinstance(err, UnicodeDecodeError) else str(err).splitlines()[0]
        raise ValueError(f"{path}: cannot read it as the tessellation export ({reason})") from None
    except (OSError, ValueError) as err:  # e.g. a .parquet file that is not Parquet
        raise ValueError(f"{path}: cannot read it as the tessellation export ({err})") from None
    absent = [col for col in ("coord", "category", "agreement", "n") if col not in frame.columns]
    if absent:
        raise ValueError(
            f"{path}, line 1, field {', '.join(absent)}: missing column(s) (expected the tessellation export)"
        )
    cats: list[str | None] = [None] * N_CELLS
    agreement = np.full(N_CELLS, np.nan)
    allowed = set(MACRO_COLOURS)
    for k, row in enumerate(frame.itertuples(index=False), start=2):
        try:
            cell = parse_coord(str(row.coord))
        except ValueError:
            raise ValueError(
                f"{path}, line {k}, field coord: {row.coord!r} is not a board coordinate"
            ) from None
        if row.category not in allowed:
            raise ValueError(
                f"{path}, line {k}, field category: {row.category!r}; expected one of {', '.join(MACRO_COLOURS)}"
            )
        if cats[cell] is not None:
            raise ValueError(f"{path}, line {k}, field coord: {row.coord} appears twice")
        try:
            share = float(row.agreement)
        except (TypeError, ValueError):
            share = np.nan
        if not 0 <= share <= 1:
            raise ValueError(f"{path}, line {k}, field agreement: {row.agreement!r}; expected a share 0-1")
        try:
            painters = int(row.n)
        except (TypeError, ValueError):
            painters = 0
        if painters < 1 or str(row.n).strip() not in (str(painters), f"{painters}.0"):
            raise ValueError(
                f"{path}, line {k}, field n: {row.n!r}; expected a whole number of painters >= 1"
            )
        cats[cell], agreement[cell] = str(row.category), share
    missing = [load_board().coords[i] for i, c in enumerate(cats) if c is None]
    if missing:
        raise ValueError(
            f"{path}: {len(missing)} cells missing (first: {missing[0]}); expected all {N_CELLS}"
        )
    n = int(frame["n"].iloc[0]) if len(frame) else None
    return CategoryMap(tuple(str(c) for c in cats), agreement, n, str(path))


def package_map() -> CategoryMap:
    """The package's macro-colour map (:attr:`huesenv.board.Board.categories`)."""
    return CategoryMap(tuple(load_board().categories), source=PACKAGE_MAP)


@dataclass(frozen=True)
class MapComparison:
    """How a consensus map agrees with a reference map (see :func:`compare_maps`)."""

    reference: str
    n_cells: int
    agreement: float
    by_confidence: pd.DataFrame  # min_agreement, n_cells, agreement
    by_category: pd.DataFrame  # category, cells_consensus, cells_reference, overlap, iou
    confusion: pd.DataFrame  # rows: consensus category, columns: reference category

    def summary(self) -> str:
        lines = [f"consensus vs {self.reference}: {self.agreement:.1%} of {self.n_cells} cells agree"]
        for row in self.by_confidence.itertuples(index=False):
            if row.n_cells:
                lines.append(
                    f"  cells with painter agreement >= {row.min_agreement:g}: {row.agreement:.1%} of {row.n_cells}"
                )
        return "\n".join(lines)


def compare_maps(
    consensus: CategoryMap,
    reference: CategoryMap | Mapping[str, str] | None = None,
) -> MapComparison:
    """Cell agreement of ``consensus`` with ``reference`` (default :func:`package_map`; a ``{coord: category}``
    mapping, e.g. the paper's Table 6 labels, compares those cells only)."""
    if reference is None:
        reference = package_map()
    if isinstance(reference, CategoryMap):
        cells = np.arange(N_CELLS)
        ref = np.array(reference.categories, dtype=object)
        name = reference.source or "reference map"
    else:
        by_cell = {parse_coord(c): v for c, v in reference.items()}
        cells = np.array(sorted(by_cell), dtype=np.int64)
        ref = np.full(N_CELLS, None, dtype=object)
        for i, v in by_cell.items():
            ref[i] = v
        name = f"the paper's Table 6 labels ({len(cells)} cells)"
    ours = np.array(consensus.categories, dtype=object)
    same = ours[cells] == ref[cells]
    shares = consensus.agreement if consensus.agreement is not None else np.full(N_CELLS, np.nan)
    conf_rows = []
    for threshold in (0.5, 0.75):
        keep = shares[cells] >= threshold
        conf_rows.append(
            {
                "min_agreement": threshold,
                "n_cells": int(keep.sum()),
                "agreement": float(same[keep].mean()) if keep.any() else np.nan,
            }
        )
    cat_rows = []
    for cat in MACRO_COLOURS:
        a, b = ours[cells] == cat, ref[cells] == cat
        union = int((a | b).sum())
        cat_rows.append(
            {
                "category": cat,
                "cells_consensus": int(a.sum()),
                "cells_reference": int(b.sum()),
                "overlap": int((a & b).sum()),
                "iou": (a & b).sum() / union if union else np.nan,
            }
        )
    confusion = pd.crosstab(
        pd.Categorical(ours[cells], categories=MACRO_COLOURS, ordered=True),
        pd.Categorical(ref[cells], categories=MACRO_COLOURS, ordered=True),
        rownames=["consensus"],
        colnames=["reference"],
        dropna=False,
    )
    return MapComparison(
        reference=name,
        n_cells=len(cells),
        agreement=float(same.mean()),
        by_confidence=pd.DataFrame(conf_rows),
        by_category=pd.DataFrame(cat_rows),
        confusion=confusion,
    )


def table6_labels() -> dict[str, str]:
    """The paper's Table 6 cell labels (``human_coord``→``human_color``, ``model_coord``→``model_color``)."""
    from importlib import resources

    source = resources.files("huesenv") / "data" / "reference" / "paper_table6_word_level.csv"
    with resources.as_file(source) as path:
        table = pd.read_csv(path)
    labels: dict[str, str] = {}
    for coord_col, colour_col in (("human_coord", "human_color"), ("model_coord", "model_color")):
        for coord, colour in zip(table[coord_col], table[colour_col]):
            if isinstance(coord, str) and isinstance(colour, str) and colour in MACRO_COLOURS:
                labels.setdefault(coord.strip().upper(), colour)
    return labels
