import numpy as np
import pandas as pd
import pytest

from huesenv.board import (
    N_CELLS,
    chebyshev_distance,
    format_coord,
    frame,
    load_board,
    neighbourhood,
    parse_coord,
    read_board_csv,
    ring,
)


def _srgb_to_xy_independent(rgb255: np.ndarray) -> np.ndarray:
    """IEC 61966-2-1 written out from the standard (test oracle only, independent of colour-science)."""
    c = rgb255 / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = lin @ m.T
    return xyz[:, :2] / xyz.sum(axis=1, keepdims=True)


def test_board_has_480_cells_with_vectorised_colour_arrays():
    b = load_board()
    assert b.rgb.shape == (N_CELLS, 3) and b.rgb.dtype == np.uint8
    assert b.xyz.shape == b.lab.shape == (N_CELLS, 3)
    assert b.xy.shape == (N_CELLS, 2)
    assert b.coords[0] == "A1" and b.coords[-1] == "P30" and b.coords[parse_coord("I18")] == "I18"
    assert not b.rgb.flags.writeable and not b.xy.flags.writeable


def test_xy_matches_independent_srgb_computation():
    b = load_board()
    assert np.abs(b.xy - _srgb_to_xy_independent(b.rgb.astype(float))).max() < 1e-4


def test_lab_is_d65_cielab():
    b = load_board()
    # white-ish and dark cells: L within range, and a known cell round-trips through colour-science
    assert (b.lab[:, 0] > 0).all() and (b.lab[:, 0] < 100).all()
    import colour

    back = colour.XYZ_to_sRGB(colour.Lab_to_XYZ(b.lab, colour.RGB_COLOURSPACES["sRGB"].whitepoint))
    assert np.abs(back * 255 - b.rgb).max() < 0.5


@pytest.mark.parametrize(
    "text,expected", [("I18", "I18"), ("i18", "I18"), (" I 18 ", "I18"), ("p30", "P30"), ("A-1", "A1")]
)
def test_parse_accepts_case_and_spaces(text, expected):
    assert format_coord(parse_coord(text)) == expected


@pytest.mark.parametrize("bad", ["Z99", "A0", "A31", "Q5", "", "  ", None, "18I", "I18x", "I018", 5, "AA1"])
def test_parse_rejects_off_board_with_clear_message(bad):
    with pytest.raises(ValueError) as err:
        parse_coord(bad)
    msg = str(err.value)
    assert repr(bad) in msg and "A-P" in msg and "1-30" in msg


def test_format_rejects_bad_index():
    for bad in (-1, 480, 3.0, True):
        with pytest.raises(ValueError):
            format_coord(bad)


def test_frame_and_ring_clipped_at_edges():
    assert sorted(format_coord(i) for i in frame(parse_coord("A1"))) == ["A1", "A2", "B1", "B2"]
    assert len(frame(parse_coord("A15"))) == 6 and len(frame(parse_coord("H15"))) == 9
    assert len(ring(parse_coord("H15"))) == 16
    assert sorted(format_coord(i) for i in ring(parse_coord("A1"))) == ["A3", "B3", "C1", "C2", "C3"]
    corner = parse_coord("P30")
    assert len(frame(corner)) == 4 and len(ring(corner)) == 5
    for cell in range(N_CELLS):
        f, r = frame(cell), ring(cell)
        assert set(f).isdisjoint(r)
        assert (chebyshev_distance(f, cell) <= 1).all() and (chebyshev_distance(r, cell) == 2).all()
        assert set(f) | set(r) == set(neighbourhood(cell, 2))


def test_board_csv_errors_name_file_line_field(tmp_path):
    good = load_board().to_frame()
    table = pd.DataFrame(
        {
            "coordenada_x": [c[0] for c in good.coord],
            "coordenada_y": [c[1:] for c in good.coord],
            "R": good.R,
            "G": good.G,
            "B": good.B,
        }
    ).astype(str)
    bad = table.copy()
    bad.loc[4, "coordenada_y"] = "31"
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"bad\.csv, line 6, field coordenada_x/coordenada_y"):
        read_board_csv(path)
    bad = table.copy()
    bad.loc[2, "G"] = "300"
    bad.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"line 4, field G"):
        read_board_csv(path)
    table.iloc[:-1].to_csv(path, index=False)
    with pytest.raises(ValueError, match="1 cell\\(s\\) missing"):
        read_board_csv(path)


def test_board_cli_exports_all_formats_and_plot(tmp_path):
    from huesenv.cli import main

    for ext in ("csv", "json", "parquet"):
        out = tmp_path / f"board.{ext}"
        assert main(["board", "--export", str(out)]) == 0
        table = {"csv": pd.read_csv, "json": pd.read_json, "parquet": pd.read_parquet}[ext](out)
        assert len(table) == N_CELLS
        assert {
            "coord",
            "row",
            "col",
            "R",
            "G",
            "B",
            "X",
            "Y",
            "Z",
            "x",
            "y",
            "L",
            "a",
            "b",
            "category",
        } <= set(table.columns)
    png = tmp_path / "board.png"
    assert main(["board", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["board", "--export", str(tmp_path / "board.txt")]) == 2
