"""Issue 39: an agent's word-level verdicts recomputed on the board as each display shows it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from huesenv import metrics
from huesenv.agents import Answer, BaseAgent, GuessQuery, evaluate_words
from huesenv.board import Board, load_board
from huesenv.displays.profiles import profile
from huesenv.displays.report import verdicts_lines
from huesenv.experiments import display_verdicts
from huesenv.humans import load_humans

ANSWERS = {
    "APPLE": ["C5", "C6", "D5", "C4", "D6"],
    "BANANA": ["F10", "F11", "E10", "G10"],
    "SKY": ["L25"] * 2,
}


class NearestLab(BaseAgent):
    """Reads the board's colours: each cue's cells ranked by CIELAB distance to a fixed colour."""

    name = "nearest-lab"

    def __init__(self, board: Board) -> None:
        self.board = board

    def guess(self, query: GuessQuery) -> Answer:
        target = load_board().lab[sum(map(ord, query.cues[-1])) * 7 % 480]
        order = np.argsort(np.linalg.norm(self.board.lab - target, axis=1), kind="stable")
        return Answer(cells=order[: query.top_k], scores=-np.arange(query.top_k, dtype=float))


@pytest.fixture(scope="module")
def humans(tmp_path_factory):
    path = tmp_path_factory.mktemp("humans") / "export.csv"
    lines = ["userId,timestamp,clueCategory,clueId,word,coordinate,language,gender,ageRange,colorBlind"]
    for word, coords in ANSWERS.items():
        lines += [f"u{i},2025-01-01T00:00:00,,,{word},{c},en,f,18-24,false" for i, c in enumerate(coords)]
    path.write_text("\n".join(lines) + "\n")
    return load_humans(path)


def shown(name: str) -> Board:
    board = load_board()
    return Board.as_shown(board.rgb, profile(name).show(board.rgb), name)


def test_a_board_as_shown_derives_its_colours_from_the_shown_xyz():
    board, warm = load_board(), shown("srgb-5000k")
    assert np.allclose(shown("srgb").lab, board.lab, atol=1e-9)  # sRGB on an sRGB panel: the calibrated board
    assert (warm.rgb == board.rgb).all() and not np.allclose(warm.xy, board.xy, atol=1e-3)
    assert warm.xy[0, 0] > board.xy[0, 0]  # a 5,000 K white pulls every cell toward red
    with pytest.raises(ValueError, match=r"p: expected 480×3 finite XYZ"):
        Board.as_shown(board.rgb, np.zeros((3, 3)), "p")


def test_verdicts_per_display_match_the_metrics_on_the_same_answers(humans):
    boards = {n: shown(n) for n in ("srgb", "laptop-45ntsc-9300k")}
    result = display_verdicts.display_verdicts(NearestLab, boards, humans)
    same, far = result["displays"]
    assert result["calibrated"]["n_scored"] == 2  # APPLE, BANANA (SKY has too few answers)
    assert {k: same[k] for k in result["calibrated"]} == result["calibrated"]
    assert same["top1_changed"] == 0 and same["words_flipped_hotelling"] == 0
    direct = metrics.word_level(evaluate_words(NearestLab(boards["laptop-45ntsc-9300k"]), seed=0), humans)
    assert far["hotelling_fail_rate"] == pytest.approx(float(direct["hotelling_fail"].astype(float).mean()))
    assert far["mahalanobis_fail_rate"] == pytest.approx(
        float(direct["mahalanobis_outlier"].astype(float).mean())
    )
    assert far["top1_changed"] > 0.5


def test_agents_that_read_no_colours_are_skipped_and_reported():
    assert display_verdicts.board_factory("random") is None
    assert display_verdicts.board_factory("text-embedding") is not None
    assert verdicts_lines({"agent": "random", "skipped": "reads no colours"}) == [
        "Word-level verdicts on each display: skipped (reads no colours).",
        "",
    ]
    base = {"n_scored": 2, "mahalanobis_fail_rate": 0.5, "hotelling_fail_rate": 1.0}
    row = base | {
        "display": "p3",
        "words_flipped_mahalanobis": 1,
        "words_flipped_hotelling": 0,
        "top1_changed": 0.25,
    }
    text = "\n".join(verdicts_lines({"agent": "a", "top_k": 5, "calibrated": base, "displays": [row]}))
    assert (
        "| p3 | 50.0% | 100.0% | 1 / 0 | 25% |" in text
        and "| calibrated board | 50.0% | 100.0% | — | — |" in text
    )


def test_a_run_folder_with_displays_json_gets_the_section_in_its_report(tmp_path):
    from huesenv.displays import analysis
    from huesenv.experiments.display_section import add_displays_section
    from huesenv.experiments.report import ReportData, write_markdown

    result, _ = analysis.run([profile("srgb"), profile("srgb-9300k")])
    base = {"n_scored": 2, "mahalanobis_fail_rate": 0.5, "hotelling_fail_rate": 1.0}
    row = base | {"display": "srgb-9300k", "words_flipped_mahalanobis": 1, "words_flipped_hotelling": 0}
    result["agent_verdicts"] = {
        "agent": "a",
        "top_k": 5,
        "calibrated": base,
        "displays": [row | {"top1_changed": 0.5}],
    }
    (tmp_path / "displays.json").write_text(json.dumps(result), encoding="utf-8")
    data = ReportData(title="t", config_yaml="a: 1\n", summary=[])
    add_displays_section(data, tmp_path)
    text = write_markdown(data, tmp_path).read_text(encoding="utf-8")
    assert "## Display robustness (the main paper's Appendix B)" in text and "0.1102; 0.0914" in text
    assert "## Display robustness: per display" in text and "| srgb-9300k |" in text
    assert "Word-level verdicts of `a`" in text and "| srgb-9300k | 50.0% | 100.0% | 1 / 0 | 50% |" in text
    (tmp_path / "displays.json").write_text('{"tests": 3}', encoding="utf-8")
    bare = ReportData(title="t", config_yaml="a: 1\n", summary=[])
    add_displays_section(bare, tmp_path)
    assert not bare.tables and bare.summary == [
        "displays.json not shown: not a `huesenv board displays` result (KeyError)"
    ]
    add_displays_section(bare, tmp_path / "missing")  # no displays.json: nothing added
    assert len(bare.summary) == 1
