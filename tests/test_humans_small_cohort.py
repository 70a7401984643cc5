"""A human cohort with few answers per word (a pilot export): reported and skipped, never a crash.

Everywhere the cohort is consumed: the metrics tables and report, ``huesenv metrics``,
``huesenv humans summary`` and a whole tournament with its report.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

from huesenv.cli import main
from huesenv.humans import consistency_by_category, consistency_table, load_humans, packaged_cohort_path
from huesenv.logs import LogRecord, LogWriter
from huesenv.metrics import (
    agent_level,
    category_level,
    family_level,
    skipped_words,
    word_level,
    word_summary,
    write_metrics,
)
from huesenv.metrics.aggregate import MIN_HUMAN_ANSWERS


def _pilot(tmp_path, answers_per_word: dict[str, int] | int = 1, app_format: bool = False):
    """The packaged cohort cut down to ``answers_per_word`` trichromat answers per word."""
    export = pd.read_csv(packaged_cohort_path(), dtype=str, keep_default_na=False)
    export = export[export["colorBlind"] == "false"]
    if isinstance(answers_per_word, int):
        export = export.groupby("word").head(answers_per_word)
    else:
        export = pd.concat([export[export["word"] == w].head(n) for w, n in answers_per_word.items()])
    if app_format:
        export = export.drop(columns=["colorBlind"])
    path = tmp_path / "pilot.csv"
    export.to_csv(path, index=False)
    return path


def _sampled(word: str, cells: list[str]) -> LogRecord:
    return LogRecord.create(
        kind="word_query",
        run_id="r",
        agent_id="vlm:demo",
        word=word,
        cells=cells,
        extra={"sampled": True},
        created=0.0,
    )


def test_thresholds_are_the_documented_ones():
    from huesenv.humans.consistency import MIN_ANSWERS

    assert MIN_HUMAN_ANSWERS == MIN_ANSWERS == 3


def test_metrics_tables_skip_and_report_short_words(tmp_path):
    humans = load_humans(_pilot(tmp_path, {"BANANA": 1, "APPLE": 2, "WINTER": 3, "SKY": 25}))
    records = [
        _sampled("BANANA", ["I4", "I4", "J5"]),
        _sampled("APPLE", ["A13", "A13"]),
        _sampled("WINTER", ["L24", "L23", "L24"]),
        _sampled("SKY", ["K21", "K21", "L22"]),
        _sampled("GRASS", ["N10"]),  # no human answered GRASS at all
        _sampled("ZIZAX", ["I18"]),  # a nonsense input: no human reference by design, not a word row
    ]
    words = word_level(records, humans).set_index("word")
    for short in ("BANANA", "APPLE"):
        row = words.loc[short]
        assert pd.isna(row["mahalanobis_outlier"]) and pd.isna(row["hotelling_fail"])
        assert np.isnan(row["mahalanobis_d2"]) and np.isnan(row["human_fail_rate"])
        assert row["agent_color"] is not None and row["severity"] is not None  # the modal cell still serves
    for scored in ("WINTER", "SKY"):
        assert not pd.isna(words.loc[scored, "mahalanobis_outlier"])
    assert "ZIZAX" not in words.index
    grass = words.loc["GRASS"]
    assert grass["n_human"] == 0 and pd.isna(grass["human_color"]) and pd.isna(grass["severity"])
    assert grass["agent_color"] == "Green" and pd.isna(grass["mahalanobis_outlier"])
    skipped = skipped_words(words.reset_index())
    assert skipped["word"].tolist() == ["APPLE", "BANANA", "GRASS"]
    assert skipped["n_human"].tolist() == [2, 1, 0]
    assert skipped["reason"].str.contains("≥ 3").all()
    agent = agent_level(words.reset_index()).iloc[0]
    assert agent["n_words"] == 5 and agent["n_scored"] == 2
    flags = words.loc[["WINTER", "SKY"], "mahalanobis_outlier"].astype(float)
    assert agent["mahalanobis_fail_rate"] == pytest.approx(flags.mean())  # mean over the scored words only


def test_one_answer_per_word_gives_nan_rates_not_a_crash(tmp_path, capsys):
    humans = load_humans(_pilot(tmp_path, 1))
    table = consistency_table(humans)
    assert table["consistency"].isna().all() and table["n_outliers"].isna().all()
    assert np.isnan(consistency_by_category(table).iloc[-1]["consistency"])
    records = [_sampled(w, ["I4", "I18"]) for w in ("BANANA", "APPLE", "WINTER")]
    words = word_level(records, humans)
    agents = agent_level(words)
    assert agents["n_scored"].tolist() == [0] and np.isnan(agents["mahalanobis_fail_rate"].iloc[0])
    assert np.isnan(agents["hotelling_fail_rate"].iloc[0]) and np.isnan(agents["human_fail_rate"].iloc[0])
    for by in ("architecture_family", "agent"):
        assert category_level(words, by=by)["mahalanobis_fail_mean"].isna().all()
    assert word_summary(words)["hotelling_fail_mean"].isna().all()
    assert family_level(agents)["mahalanobis_fail_mean"].isna().all()
    report = write_metrics(records, humans, tmp_path / "out", plots=True)
    assert len(report.skipped) == 3
    assert pd.read_csv(tmp_path / "out" / "skipped_words.csv")["word"].tolist() == [
        "APPLE",
        "BANANA",
        "WINTER",
    ]
    from huesenv.metrics import print_report

    print_report(report)
    out = capsys.readouterr().out
    assert "3 word(s) not scored (fewer than 3 human answers): APPLE (1), BANANA (1), WINTER (1)" in out


def test_cli_metrics_and_humans_summary_with_a_pilot_export(tmp_path, capsys):
    pilot = _pilot(tmp_path, 1, app_format=True)
    log = tmp_path / "answers.jsonl"
    with LogWriter(log) as writer:
        writer.append([_sampled(word, ["I4", "A13"]) for word in ("BANANA", "APPLE")])
    assert (
        main(["metrics", str(log), "--humans", str(pilot), "--out", str(tmp_path / "m"), "--no-plots"]) == 0
    )
    out = " ".join(capsys.readouterr().out.split())
    assert "not scored" in out and "BANANA (1)" in out
    assert main(["humans", "summary", "--humans", str(pilot)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert "fewer than 3 answers have no Human Consistency" in out
    n_people = pd.read_csv(pilot)["userId"].nunique()
    assert f"colour vision unknown for {n_people} participant(s)" in out


def test_tournament_with_a_pilot_export_finishes_and_reports_skipped_words(tmp_path):
    from huesenv.experiments import load_config, run_experiment

    pilot = _pilot(tmp_path, 1, app_format=True)  # the authors' app columns: no colorBlind
    cvd = tmp_path / "cvd.txt"
    cvd.write_text(pd.read_csv(pilot)["userId"].iloc[0] + "\n")
    config = {
        "name": "pilot",
        "seed": 1,
        "num_players": 3,
        "games": 1,
        "output": str(tmp_path / "runs"),
        "agents": {"random": {"spec": "random"}, "human": {"spec": "human-replay"}},
        "lineups": [["random", "human", "human"]],
        "tournament": {"batch_size": 1},
        "wordlevel": {"enabled": True, "agents": ["random", "human"], "top_k": 5},
        "humans": {"path": str(pilot), "cvd": str(cvd)},
        "report": {"formats": ["markdown"], "board_images": 0},
    }
    path = tmp_path / "pilot.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    loaded = load_config(path)
    assert loaded.agent("human").kwargs == {"path": str(pilot), "cvd": str(cvd)}  # replay: same cohort
    result = run_experiment(loaded, progress=False)
    report = (result.run_dir / "report.md").read_text(encoding="utf-8")
    assert "word-level evaluation: 100 of 100 word(s) not scored by Mahalanobis/Hotelling" in report
    assert "> **Most words could not be scored" in report  # one banner, first thing after the title
    assert report.count("AMBER (") == 1  # the WORD (n) list once, folded, not in every summary line
    assert "guess alignment:" in report and "fewer than 3 human answers" in report
