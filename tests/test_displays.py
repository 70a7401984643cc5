"""Display robustness (the main paper's Appendix B): profiles, measurement files, the tests, the command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from huesenv.board import format_coord, load_board
from huesenv.categories import MACRO_COLOURS, classify_lab
from huesenv.cli import main
from huesenv.colourspace import colour_science
from huesenv.displays import analysis
from huesenv.displays.facts import display_facts
from huesenv.displays.illuminant import cct_of, illuminant_for, recover
from huesenv.displays.measurements import read_measurements
from huesenv.displays.profiles import bundled_profiles, narrow_primaries
from huesenv.experiments import display_verdicts

# -- independent helpers (plain numpy, no colour-science) ------------------------------------------


def _xyz(x: float, y: float, big_y: float = 1.0) -> np.ndarray:
    return np.array([x * big_y / y, big_y, (1 - x - y) * big_y / y])


def _xy(xyz: np.ndarray) -> np.ndarray:
    return xyz[..., :2] / xyz.sum(axis=-1, keepdims=True)


def _npm(primaries: list[tuple[float, float]], white: tuple[float, float]) -> np.ndarray:
    """The RGB → XYZ matrix of a device, written out (SMPTE RP 177)."""
    p = np.stack([_xyz(*xy) for xy in primaries], axis=1)
    return p * np.linalg.solve(p, _xyz(*white))


KNOWN = {  # display: primaries, white (D-series-like whites at about 5,000, 6,500 and 9,300 K)
    "wide": ([(0.68, 0.32), (0.265, 0.69), (0.15, 0.06)], (0.3457, 0.3586)),
    "plain": ([(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)], (0.3127, 0.3290)),
    "narrow": ([(0.58, 0.34), (0.34, 0.55), (0.16, 0.12)], (0.2831, 0.2971)),
}


def _write_measurements(path: Path, cells: np.ndarray, gamma: float = 2.2) -> dict[str, np.ndarray]:
    """A measurement file of the board shown on the KNOWN displays (pure power curve); their XYZ."""
    rgb = load_board().rgb[cells] / 255.0
    lines, shown = ["display,cell,x,y,Y"], {}
    for name, (primaries, white) in KNOWN.items():
        xyz = (rgb**gamma) @ _npm(primaries, white).T * 80.0  # cd/m²: the reader normalises by white
        shown[name] = xyz / 80.0
        lines.append(f"{name},white,{white[0]!r},{white[1]!r},80.0")
        for cell, value in zip(cells, xyz):
            x, y = _xy(value)
            lines.append(f"{name},{format_coord(int(cell))},{float(x)!r},{float(y)!r},{float(value[1])!r}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return shown


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    board = load_board()
    cells = analysis.default_sample(board)
    path = tmp_path_factory.mktemp("displays") / "measured.csv"
    shown = _write_measurements(path, cells)
    result, _ = analysis.run(read_measurements(path), cells)
    return path, cells, shown, result


# -- the tests, pinned by hand-computed cases ------------------------------------------------------


def test_anova_hotelling_and_tost_match_hand_computed_cases():
    # ANOVA: shift lengths 1, 2, 3 against 3, 4, 5: SSB = 6, SSW = 4, F = (6/1)/(4/4) = 6 on (1, 4)
    a = np.array([[1.0, 0], [0, 2], [3, 0]])
    b = np.array([[0, 3.0], [4, 0], [0, 5]])
    anova = analysis.compare(a, b, margin=1.0, alpha=0.05)["anova"]
    assert anova["F"] == pytest.approx(6.0) and (anova["df_between"], anova["df_within"]) == (1, 4)
    assert anova["p"] == pytest.approx(sps.f.sf(6.0, 1, 4))
    # Hotelling: a = (0,0),(1,0),(0,1) and b = a + (1,1): pooled S = [[1/3,-1/6],[-1/6,1/3]],
    # S⁻¹ = [[4,2],[2,4]], d = (-1,-1), T² = 9/6 · 12 = 18, F = 3/(2·4) · 18 = 6.75 on (2, 3)
    a = np.array([[0.0, 0], [1, 0], [0, 1]])
    hot = analysis.compare(a, a + 1, margin=1.0, alpha=0.05)["hotelling"]
    assert hot["T2"] == pytest.approx(18.0) and hot["F"] == pytest.approx(6.75)
    assert (hot["df1"], hot["df2"]) == (2, 3) and hot["p"] == pytest.approx(sps.f.sf(6.75, 2, 3))
    # TOST: equal groups 1, 2, 3, margin 1: each one-sided Welch t = 1 / sqrt(2/3) on 4 df
    tost = analysis.tost(np.array([1.0, 2, 3]), np.array([1.0, 2, 3]), margin=1.0, alpha=0.05)
    expected = sps.t.sf(1 / np.sqrt(2 / 3), 4)
    assert tost["p_lower"] == pytest.approx(expected) and tost["p_upper"] == pytest.approx(expected)
    assert tost["p"] == pytest.approx(expected) and not tost["equivalent"]  # 0.14: n = 3 is too few
    wide = analysis.tost(np.arange(40.0), np.arange(40.0), margin=30.0, alpha=0.05)
    assert wide["equivalent"] and wide["mean_difference"] == 0


def test_anova_and_hotelling_equal_scipy_on_a_generated_measurement_file(measured):
    """The shifts recomputed from the file's own xyY (plain numpy), the tests by scipy: equal to 1e-9."""
    _, cells, shown, result = measured
    board = load_board()
    illuminants = [c for c in result["conditions"] if c["kind"] == "illuminant"]
    cat = np.asarray(colour_science().adaptation.CAT_VON_KRIES)
    d65 = _xyz(0.3127, 0.3290)
    for when in ("unadapted", "adapted"):
        display = []
        for name, (_, white) in KNOWN.items():
            xyz = shown[name]
            if when == "adapted":  # von Kries by hand: cone gains from the white to D65
                gain = (cat @ d65) / (cat @ _xyz(*white))
                xyz = xyz @ (np.linalg.inv(cat) @ np.diag(gain) @ cat).T
            display.append(_xy(xyz) - board.xy[cells])
        disp = np.concatenate(display)
        illum = np.concatenate([np.asarray(c[f"xy_{when}"]) - board.xy[cells] for c in illuminants])
        anova = sps.f_oneway(np.linalg.norm(disp, axis=1), np.linalg.norm(illum, axis=1))
        n1, n2 = len(disp), len(illum)
        pooled = ((n1 - 1) * np.cov(disp.T) + (n2 - 1) * np.cov(illum.T)) / (n1 + n2 - 2)
        d = disp.mean(0) - illum.mean(0)
        t2 = n1 * n2 / (n1 + n2) * d @ np.linalg.solve(pooled, d)
        f = t2 * (n1 + n2 - 3) / (2 * (n1 + n2 - 2))
        got = result["tests"][when]
        assert got["anova"]["F"] == pytest.approx(anova.statistic, rel=1e-9, abs=1e-9)
        assert got["anova"]["p"] == pytest.approx(anova.pvalue, rel=1e-9, abs=1e-9)
        assert got["hotelling"]["T2"] == pytest.approx(t2, rel=1e-9, abs=1e-9)
        assert got["hotelling"]["p"] == pytest.approx(sps.f.sf(f, 2, n1 + n2 - 3), rel=1e-9, abs=1e-9)
        assert (got["n_display"], got["n_illuminant"]) == (48, 48)


def test_measured_illuminants_match_each_displays_white(measured):
    _, _, _, result = measured
    names = [c["name"] for c in result["conditions"] if c["kind"] == "illuminant"]
    assert [n.split()[-2] for n in names] == ["5001", "6504", "9300"]  # Ohno CCTs of the three whites
    assert all(n.startswith("CIE D-series") for n in names)
    for d in result["displays"]:  # measured displays: the effects over the measured cells only
        assert d["cells"] == 16 and 0 <= d["retention_after"] <= 1


# -- profiles, illuminants, the sample -------------------------------------------------------------


def test_bundled_profiles_have_sources_and_the_srgb_one_is_the_board():
    profiles = bundled_profiles()
    assert len(profiles) == 24 and all(p.source for p in profiles.values())
    board = load_board()
    assert np.array_equal(profiles["srgb"].show(board.rgb), board.xyz)  # its own IEC matrix, not re-derived
    for name, kelvin in (("display-p3-5000k", 5000), ("adobe-rgb-9300k", 9300), ("srgb-7500k", 7500)):
        assert cct_of(profiles[name].white) == pytest.approx(kelvin, abs=10)
    tri = narrow_primaries()  # 45 % of NTSC (1953)'s xy area: 0.45 · 0.1582 = 0.0712
    (ax, ay), (bx, by) = tri[1] - tri[0], tri[2] - tri[0]
    area = abs(ax * by - ay * bx) / 2
    assert area == pytest.approx(0.45 * 0.158207, rel=1e-3)
    gamma = profiles["srgb-gamma2.4"].show(np.array([[128, 128, 128]]))
    assert gamma[0, 1] == pytest.approx((128 / 255) ** 2.4)


def test_illuminant_round_trip_and_planckian_below_4000k():
    board = load_board()
    cells = np.array([0, 257, 479])
    light = illuminant_for((0.3127, 0.3290))
    assert light.name.startswith("CIE D-series")
    xyz, white = light.light(recover(board.xyz[cells]))
    assert np.allclose(
        _xy(xyz), board.xy[cells], atol=2e-3
    )  # Mallett-Yuksel under ~D65 gives the colour back
    assert white[1] == pytest.approx(1.0)
    warm = colour_science().CCT_to_xy(3000, method="Kang 2002")
    assert illuminant_for(warm).name.startswith("Planckian")
    with pytest.raises(ValueError, match="recovery"):
        recover(board.xyz[cells], "no such method")


def test_default_sample_spreads_over_the_macro_colours():
    board = load_board()
    cells = analysis.default_sample(board)
    cats = [board.categories[c] for c in cells]
    assert len(set(cells.tolist())) == 16 and all(cats.count(c) == 2 for c in MACRO_COLOURS)
    assert analysis.parse_sample("A1,B2,C3", board).tolist() == [0, 31, 62]
    assert len(analysis.parse_sample("all", board)) == 480
    with pytest.raises(ValueError, match="at least 3"):
        analysis.parse_sample("A1,A1", board)


def test_srgb_keeps_every_category_and_a_warm_white_moves_some():
    board = load_board()
    cells = np.arange(0, 480, 4)
    d65, ref = analysis.d65_white(), classify_lab(board.lab)
    same = analysis.board_effects(board.xyz[cells], cells, d65, "Von Kries", board, ref)
    assert same["retention_before"] == 1.0 and same["delta_e_before"]["max"] < 1e-9
    warm = bundled_profiles()["srgb-5000k"]
    moved = analysis.board_effects(
        warm.show(board.rgb)[cells], cells, warm.white_xyz, "Von Kries", board, ref
    )
    assert moved["retention_before"] < moved["retention_after"] <= 1.0
    assert moved["delta_e_after"]["mean"] < moved["delta_e_before"]["mean"]


def test_display_facts_count_participants_per_gamut(tmp_path):
    path = tmp_path / "participants.csv"
    path.write_text(
        "userId,colorGamut,devicePixelRatio\nu1,srgb,1\nu1,srgb,1\nu2,p3,2\nu3,,\nu4,rec2020,1.5\n",
        encoding="utf-8",
    )
    rows = {(r["gamut"], r["pixel_density"]): r["participants"] for r in display_facts(path)}
    assert rows == {
        ("srgb", "standard (1)"): 1,
        ("p3", "high-density (>1)"): 1,
        ("none", "unknown"): 1,
        ("rec2020", "high-density (>1)"): 1,
    }


# -- bad measurement files: one line naming the line, nothing written -------------------------------

GOOD = "display,cell,x,y,Y\na,white,0.3127,0.329,100\na,A1,0.4,0.35,20\nb,white,0.30,0.31,90\nb,A1,0.41,0.35,18\n"
BAD = {
    "missing white": (
        GOOD.replace("b,white,0.30,0.31,90\n", ""),
        r"line 4, field cell: display 'b' has no 'white'",
    ),
    "unknown cell": (
        GOOD.replace("b,A1", "b,Z99"),
        r"line 5, field cell: .*off the board|line 5, field cell",
    ),
    "Y not positive": (GOOD.replace("18\n", "0\n"), r"line 5, field Y: 0.0 must be > 0"),
    "non-numeric": (GOOD.replace("0.41", "abc"), r"line 5, field x: 'abc' is not a number"),
    "single display": ("display,cell,x,y,Y\na,white,0.3127,0.329,100\na,A1,0.4,0.35,20\n", r"1 display"),
    "header": (GOOD.replace("Y\n", "Z\n", 1), r"line 1: header"),
    "twice": (GOOD + "b,A1,0.41,0.35,18\n", r"line 6, field cell: display 'b' measures A1 twice"),
    "other cells": (GOOD.replace("b,A1", "b,A2"), r"line 4: display 'b' measures other cells"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_measurement_file_is_one_line_naming_the_line(case, tmp_path):
    text, message = BAD[case]
    path = tmp_path / "m.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as err:
        read_measurements(path)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def test_bad_measurement_file_through_the_command_writes_nothing(tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_text(BAD["Y not positive"][0], encoding="utf-8")
    out = tmp_path / "out"
    assert main(["board", "displays", "--measurements", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        len(err) == 1 and "line 5, field Y" in err[0] and err[0].startswith("huesenv board displays: error:")
    )
    assert not out.exists()


# -- the command ------------------------------------------------------------------------------------


def test_the_command_writes_json_figure_and_report(measured, tmp_path, capsys):
    path, _, _, _ = measured
    out = tmp_path / "out"
    people = tmp_path / "participants.csv"
    people.write_text("userId,colorGamut,devicePixelRatio\nu1,p3,2\nu2,p3,2\n", encoding="utf-8")
    argv = ["board", "displays", "--measurements", str(path), "--profiles", "srgb-9300k"]
    argv += ["--participants", str(people), "--agent", "random", "-o", str(out)]
    assert main(argv) == 0
    result = json.loads((out / "displays.json").read_text(encoding="utf-8"))
    assert set(result) >= {"paper_p_values", "settings", "tests", "displays", "conditions", "study_displays"}
    assert result["paper_p_values"]["text"] == {"unadapted": 0.1102, "adapted": 0.3333}
    for test in result["tests"].values():
        assert {"anova", "hotelling", "tost"} <= set(test)
        assert set(test["anova"]) == {"F", "p", "df_between", "df_within"}
        assert test["n_display"] == 4 * 16
    names = [d["display"] for d in result["displays"]]
    assert names == ["wide", "plain", "narrow", "srgb-9300k"] and result["displays"][-1]["cells"] == 480
    assert (out / "displays.png").read_bytes()[:4] == b"\x89PNG"
    report = (out / "displays.md").read_text(encoding="utf-8")
    assert "Appendix B" in report and "srgb-9300k" in report and "0.1102; 0.0914" in report
    assert result["study_displays"] == [
        {"gamut": "p3", "profiles": "display-p3", "pixel_density": "high-density (>1)", "participants": 2}
    ]
    assert "The study's screens" in report
    assert result["agent_verdicts"] == {"agent": "random", "skipped": display_verdicts.NO_COLOURS}
    assert f"skipped ({display_verdicts.NO_COLOURS})" in report
    assert "ANOVA F=" in capsys.readouterr().out


def test_same_input_same_bytes(measured):
    path, cells, _, result = measured
    again, _ = analysis.run(read_measurements(path), cells)
    assert json.dumps(again) == json.dumps(result)


def test_the_readme_states_the_default_margin():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert f"{analysis.default_margin():.4f} in xy" in " ".join(readme.split())
