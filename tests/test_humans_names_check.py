"""The human reference checked against real naming data (issue 37 item 4): ΔE2000 and Mahalanobis per word."""

from __future__ import annotations

import json

import numpy as np
import pytest

from huesenv.board import load_board, parse_coord
from huesenv.cli import main
from huesenv.colourspace import delta_e2000
from huesenv.experiments.report import ReportData, add_reference_check, write_report
from huesenv.humans import load_humans
from huesenv.humans.names_check import check_names
from huesenv.naming_corpus import read_corpus_csv, xkcd_corpus


class Cohort:
    """Two words; SKY's answers around K22, MOSS's all on one cell."""

    words = ("SKY", "MOSS")
    _cells = {"SKY": ["K22", "K22", "K21", "L22", "J22"], "MOSS": ["O7", "O7"]}

    def cells(self, word):
        return np.asarray([parse_coord(c) for c in self._cells[word]])

    def mode_cell(self, word):
        return parse_coord(self._cells[word][0])

    def category(self, word):
        return "Environment"


@pytest.fixture(scope="module")
def packaged():
    return check_names(load_humans(), xkcd_corpus())


def test_by_hand_on_a_user_corpus(tmp_path):
    lab = load_board().lab
    k22 = lab[parse_coord("K22")]
    path = tmp_path / "names.csv"
    path.write_text(f"name,L,a,b\nsky,{k22[0]},{k22[1]},{k22[2]}\nstone,50,0,0\n", encoding="utf-8")
    table = check_names(Cohort(), read_corpus_csv(path)).set_index("word")
    assert list(table.index) == ["SKY"]  # MOSS is not a name in this corpus
    sky = table.loc["SKY"]
    mean = lab[[parse_coord(c) for c in Cohort._cells["SKY"]]].mean(axis=0)
    assert sky.delta_e_mode == pytest.approx(0.0, abs=1e-6) and sky.nearest_cell == "K22"
    assert sky.delta_e_mean == pytest.approx(float(delta_e2000(k22, mean)))
    assert sky.delta_e_chance == pytest.approx(float(delta_e2000(lab, mean[None, :]).mean()))
    assert sky.nearest_passes_xy and sky.nearest_passes_lab and sky.nearest_d2_xy < 1
    assert sky.corpus_names == f"sky ({path.name})" and sky.n_answers == 5


def test_packaged_cohort_against_xkcd(packaged):
    t = packaged.set_index("word")
    assert len(t) == 34  # the cue words that are XKCD names
    assert (
        t.loc["APPLE", "delta_e_mode"] > 60 and t.loc["KIWI", "delta_e_mode"] > 60
    )  # XKCD's "apple" is a green
    assert t.loc["GOLD", "delta_e_mode"] < 5
    assert 10 < t["delta_e_mean"].median() < 20 < t["delta_e_chance"].median()
    assert t.loc["MINT", "nearest_passes_xy"] and not t.loc["MINT", "nearest_passes_lab"]  # lightness


@pytest.mark.integration
def test_cli_writes_json_and_markdown(tmp_path, capsys):
    assert main(["humans", "check-names", "-o", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert (
        "| APPLE | apple (xkcd-2010) |" in out and "Human reference: the packaged reconstructed cohort" in out
    )
    doc = json.loads((tmp_path / "out" / "names-check.json").read_text())
    assert doc["corpus"] == "xkcd-2010" and len(doc["words"]) == 34 and "not people" in doc["reference"]
    assert "# The reference against real naming data" in (tmp_path / "out" / "names-check.md").read_text()


def test_cli_bad_corpus_is_one_line_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("name,hex\nsky,#12345\n", encoding="utf-8")
    assert main(["humans", "check-names", "--corpus", str(bad), "-o", str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err.strip()
    assert "line 2, field hex" in err and len(err.splitlines()) == 1 and not (tmp_path / "out").exists()


def test_report_shows_the_check_beside_the_reference(tmp_path):
    data = ReportData(title="t", config_yaml="a: 1\n", summary=[])
    add_reference_check(data, Cohort())
    paths = write_report(data, tmp_path)
    md = paths["markdown"].read_text()
    methods = md[md.index("## Methods and provenance") :]
    assert "### The reference against real naming data" in methods
    assert "2 cue words are names in the XKCD colour survey" in methods and "| SKY |" in methods
    assert "The reference against real naming data" in paths["html"].read_text()
