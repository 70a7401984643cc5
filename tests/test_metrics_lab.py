"""The lightness-aware point test (Mahalanobis in CIELAB, χ²₃) beside the paper's xy test (issue 37)."""

from __future__ import annotations

import numpy as np
import pytest

from huesenv.board import load_board, parse_coord
from huesenv.humans import load_humans
from huesenv.metrics.pointwise import mahalanobis_lab_top1, mahalanobis_top1
from huesenv.stats import default_variance_floor


def test_lab_test_by_hand_uses_three_degrees_of_freedom():
    # six answers at ±10 on each Lab axis: mean 0, unbiased variance 2·10²/5 = 40 per axis, no covariance
    pts = np.vstack([np.eye(3) * 10, -np.eye(3) * 10])
    point = np.array([[np.sqrt(7 * 40.0), 0.0, 0.0]])  # D² = 280 / 40 = 7 exactly
    result = mahalanobis_top1(point, pts, 0.05, default_variance_floor("lab"))
    assert result.d2 == pytest.approx(7.0)
    assert result.threshold == pytest.approx(7.815, abs=1e-3)  # χ²₃(0.95), not χ²₂'s 5.991
    assert not result.outlier  # an outlier under the 2-D threshold, not under the 3-D one


def test_lab_floor_is_a_grid_step_in_delta_e():
    floor = default_variance_floor("lab")
    assert 1.0 < floor < 10.0  # h²/12 with h a few ΔE: a cell stands for a patch of that size
    assert default_variance_floor() == pytest.approx(2.06e-5, rel=0.02)  # the paper's xy floor unchanged


def test_mint_lab_catches_what_xy_is_blind_to():
    humans = load_humans()
    cells = humans.cells("MINT")
    i = parse_coord(
        "F14"
    )  # a cell of MINT's chromaticity far darker than its answers (ΔE2000 ~51 from the mode)
    xy = load_board().xy
    assert not mahalanobis_top1(xy[[i]], xy[cells]).outlier
    lab = mahalanobis_lab_top1(i, cells)
    assert lab.outlier and lab.d2 > 14
    assert not mahalanobis_lab_top1(humans.mode_cell("MINT"), cells).outlier
