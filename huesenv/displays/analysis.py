"""The paper's Appendix B comparison, and what it leaves out, for a set of displays.

For each display two conditions: the display itself (simulated from a profile or measured) and the
board as surfaces under the illuminant matching its white (:mod:`huesenv.displays.illuminant`).  Each
condition's shift of a sample colour is its CIE xy minus the board's calibrated xy, before and after a
von Kries adaptation from the condition's white to D65.  The tests, display group against illuminant
group (all displays' sample colours pooled):

* **ANOVA** (the paper's): ``scipy.stats.f_oneway`` of the shift lengths ‖Δxy‖.
* **Hotelling T²**: the two-sample test of the mean shift vectors (Δx, Δy) (:func:`huesenv.stats.
  hotelling_two_sample`, unfloored: shifts are measurements, not board cells).
* **TOST**: two one-sided Welch t-tests that the mean ‖Δxy‖ of the groups differ by less than the
  margin; equivalent when both reject at ``alpha``.  Default margin: half the board's median xy step
  between adjacent cells (0.0078), so "equivalent" means the two kinds of shift differ on average by
  less than half a cell.  A non-significant ANOVA alone is no evidence of equivalence.

The 16 colours: the paper does not name its sample, so the default is two cells per macro-colour, the
cells at the 1/3 and 2/3 quantiles of the category's CIELAB lightness (a darker and a lighter member).
Beyond the paper: every display's ΔE2000 to the calibrated board over all its cells, before and after
adaptation, and the share of cells whose macro-colour (the k-NN naming of :mod:`huesenv.categories`,
steps 1-2; the area merge needs a whole board) stays what it is on the calibrated board.
The paper's p-values: the text's (0.1102 unadapted, 0.3333 adapted) are reported as its result;
Figure 13's caption (0.0914, 0.3214) is kept beside them.  Both are above 0.05, so the paper's
conclusion does not depend on which one is right.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from huesenv.board import N_CELLS, Board, format_coord, load_board, parse_coord
from huesenv.categories import MACRO_COLOURS, classify_lab
from huesenv.colourspace import adapt_to, delta_e2000, rgb_colourspace, xyy_to_xyz, xyz_to_lab, xyz_to_xy
from huesenv.displays.illuminant import RECOVERY, illuminant_for, recover
from huesenv.displays.measurements import MeasuredDisplay
from huesenv.displays.profiles import Profile
from huesenv.stats import default_variance_floor, hotelling_two_sample, scipy_stats

PAPER_P_VALUES = {
    "text": {"unadapted": 0.1102, "adapted": 0.3333},
    "figure_13_caption": {"unadapted": 0.0914, "adapted": 0.3214},
    "used": "text",
}
TRANSFORM = "Von Kries"


def d65_white() -> np.ndarray:
    return xyy_to_xyz([*rgb_colourspace("sRGB").whitepoint, 1.0])


def default_margin() -> float:
    """Half the board's median xy step between adjacent cells (the step h behind the variance floor)."""
    return float(np.sqrt(12.0 * default_variance_floor()) / 2.0)


def default_sample(board: Board) -> np.ndarray:
    """Two cells per macro-colour: the 1/3 and 2/3 lightness quantiles of its cells (16 in all)."""
    cats = np.asarray(board.categories)
    picks = []
    for cat in MACRO_COLOURS:
        cells = np.flatnonzero(cats == cat)
        cells = cells[np.argsort(board.lab[cells, 0], kind="stable")]
        picks += [int(cells[round((len(cells) - 1) * q)]) for q in (1 / 3, 2 / 3)]
    return np.array(picks, dtype=np.int64)


def parse_sample(spec: str, board: Board) -> np.ndarray:
    """``default`` (16 cells), ``all`` (480) or comma-separated coordinates."""
    if spec == "default":
        return default_sample(board)
    if spec == "all":
        return np.arange(N_CELLS)
    try:
        cells = [parse_coord(c) for c in spec.split(",")]
    except ValueError as err:
        raise ValueError(f"--sample: {err}") from None
    if len(set(cells)) < 3:
        raise ValueError(f"--sample {spec!r}: expected 'default', 'all' or at least 3 distinct cells")
    return np.array(list(dict.fromkeys(cells)), dtype=np.int64)


@dataclass
class Condition:
    """One condition's sample colours: XYZ (white Y = 1) and its white."""

    name: str
    kind: str  # "display" | "illuminant"
    white: np.ndarray
    xyz: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)

    def adapted(self, transform: str) -> np.ndarray:
        return adapt_to(self.xyz, self.white, d65_white(), transform)


def shifts(xyz: np.ndarray, cells: np.ndarray, board: Board) -> np.ndarray:
    """Δxy of each sample colour from the board's calibrated xy."""
    return xyz_to_xy(xyz) - board.xy[cells]


def tost(a: np.ndarray, b: np.ndarray, margin: float, alpha: float) -> dict[str, Any]:
    """Two one-sided Welch t-tests of |mean(a) − mean(b)| < margin."""
    lower = scipy_stats().ttest_ind(a, b - margin, equal_var=False, alternative="greater")
    upper = scipy_stats().ttest_ind(a, b + margin, equal_var=False, alternative="less")
    p = max(float(lower.pvalue), float(upper.pvalue))
    return {
        "margin": margin,
        "mean_difference": float(a.mean() - b.mean()),
        "p_lower": float(lower.pvalue),
        "p_upper": float(upper.pvalue),
        "p": p,
        "equivalent": bool(p < alpha),
    }


def compare(display: np.ndarray, illuminant: np.ndarray, margin: float, alpha: float) -> dict[str, Any]:
    """ANOVA of ‖Δxy‖, Hotelling T² of (Δx, Δy) and TOST of ‖Δxy‖, display group vs illuminant group."""
    a, b = np.linalg.norm(display, axis=1), np.linalg.norm(illuminant, axis=1)
    anova = scipy_stats().f_oneway(a, b)
    hot = hotelling_two_sample(display, illuminant, floor=0.0)
    return {
        "n_display": len(a),
        "n_illuminant": len(b),
        "mean_shift_display": float(a.mean()),
        "mean_shift_illuminant": float(b.mean()),
        "anova": {
            "F": float(anova.statistic),
            "p": float(anova.pvalue),
            "df_between": 1,
            "df_within": len(a) + len(b) - 2,
        },
        "hotelling": {"T2": hot.t2, "F": hot.f, "p": hot.p_value, "df1": hot.df1, "df2": hot.df2},
        "tost": tost(a, b, margin, alpha),
    }


def board_effects(
    xyz: np.ndarray,
    cells: np.ndarray,
    white: np.ndarray,
    transform: str,
    board: Board,
    reference: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """ΔE2000 to the calibrated cells and the share keeping their macro-colour, before/after adaptation.

    ``reference``: the k-NN categories of the whole calibrated board (computed when not given)."""
    kept = np.asarray(reference or classify_lab(board.lab))[cells]
    out: dict[str, Any] = {"cells": len(cells)}
    for when, values in (("before", xyz), ("after", adapt_to(xyz, white, d65_white(), transform))):
        lab = xyz_to_lab(values)
        de = delta_e2000(lab, board.lab[cells])
        out[f"delta_e_{when}"] = {
            "mean": float(de.mean()),
            "median": float(np.median(de)),
            "p95": float(np.percentile(de, 95)),
            "max": float(de.max()),
        }
        out[f"retention_{when}"] = float(np.mean(np.asarray(classify_lab(lab)) == kept))
    return out


Display = Profile | MeasuredDisplay


def _display_condition(display: Display, cells: np.ndarray, board: Board) -> tuple[Condition, np.ndarray]:
    """The display's condition on the sample, and its XYZ over every cell it shows."""
    if isinstance(display, Profile):
        every = display.show(board.rgb)
        info = {"source": display.source, "gamma": display.gamma, "primaries": display.primaries}
        return Condition(display.name, "display", display.white_xyz, every[cells], info), every
    info = {"source": "measured", "cells_measured": len(display.cells)}
    return Condition(display.name, "display", display.white_xyz, display.show(cells), info), display.xyz


def run(
    displays: list[Display],
    cells: np.ndarray | None = None,
    *,
    transform: str = TRANSFORM,
    recovery: str = RECOVERY,
    margin: float | None = None,
    alpha: float = 0.05,
    board: Board | None = None,
) -> tuple[dict[str, Any], list[Condition]]:
    """The JSON-ready result and the conditions (for the figure)."""
    board = board or load_board()
    if len(displays) < 2:
        raise ValueError(f"the comparison needs at least 2 displays, got {len(displays)}")
    if cells is None:
        cells = default_sample(board)
    for display in displays:
        if isinstance(display, MeasuredDisplay) and not np.isin(cells, display.cells).all():
            missing = [format_coord(int(c)) for c in cells if c not in display.cells][:5]
            raise ValueError(f"display {display.name!r} does not measure sample cell(s) {missing}")
    margin = default_margin() if margin is None else float(margin)
    reflectances = recover(board.xyz[cells], recovery)
    reference = classify_lab(board.lab)
    conditions: list[Condition] = []
    effects = []
    for display in displays:
        shown, every = _display_condition(display, cells, board)
        light = illuminant_for(xyz_to_xy(shown.white), where=f"display {display.name!r}")
        lit, lit_white = light.light(reflectances)
        shown.info |= {"cct_k": light.cct, "illuminant": light.name}
        conditions += [shown, Condition(light.name, "illuminant", lit_white, lit, {"display": display.name})]
        measured = display.cells if isinstance(display, MeasuredDisplay) else np.arange(N_CELLS)
        effects.append(
            {
                "display": display.name,
                **board_effects(every, measured, shown.white, transform, board, reference),
            }
        )
    tests = {}
    for when in ("unadapted", "adapted"):
        groups = {}
        for kind in ("display", "illuminant"):
            xyz = [
                c.xyz if when == "unadapted" else c.adapted(transform) for c in conditions if c.kind == kind
            ]
            groups[kind] = np.concatenate([shifts(x, cells, board) for x in xyz])
        tests[when] = compare(groups["display"], groups["illuminant"], margin, alpha)
    result = {
        "paper_p_values": PAPER_P_VALUES,
        "settings": {
            "sample": [format_coord(int(c)) for c in cells],
            "transform": transform,
            "recovery": recovery,
            "observer": "CIE 1931 2 Degree Standard Observer",
            "reference_white": "D65",
            "margin": margin,
            "alpha": alpha,
        },
        "tests": tests,
        "displays": effects,
        "conditions": [_condition_json(c, transform) for c in conditions],
    }
    return result, conditions


def _condition_json(condition: Condition, transform: str) -> dict[str, Any]:
    return {
        "name": condition.name,
        "kind": condition.kind,
        "white_xy": xyz_to_xy(condition.white).tolist(),
        **condition.info,
        "xy_unadapted": xyz_to_xy(condition.xyz).tolist(),
        "xy_adapted": xyz_to_xy(condition.adapted(transform)).tolist(),
    }
