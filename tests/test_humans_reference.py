"""The human reference is named in every output (issue 22, Build item 4)."""

from __future__ import annotations

import pandas as pd
import pytest

from huesenv.humans import load_humans
from huesenv.humans.reference import REFERENCE_COLUMN, SELF_SCORED_COLUMN, HumanReference
from huesenv.logs import LogWriter
from huesenv.logs.schema import LogRecord

PACKAGED = "Reconstructed cohort (316 simulated participants, not people)"


@pytest.fixture(scope="module")
def reference():
    return HumanReference.of(load_humans())


def test_packaged_cohort_is_named_as_a_reconstruction(reference):
    assert reference.description == PACKAGED
    assert "not people" in reference.label
    part = reference.part_of("evaluation part: 63 of 316 participants")
    assert part.description == PACKAGED + "; evaluation part: 63 of 316 participants"
    assert HumanReference.from_dict(part.as_dict()) == part
    assert part.key == reference.key


def test_export_is_named_with_its_file_and_participant_count(tmp_path):
    rows = ["userId,timestamp,clueCategory,clueId,word,coordinate,language,gender,ageRange,colorBlind"]
    for i, coord in enumerate(["I4", "I5", "J4", "H4"]):
        rows.append(f"p{i},2024-01-01T00:00:00Z,Food,1,BANANA,{coord},en,f,20-29,false")
    path = tmp_path / "study.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    ref = HumanReference.of(load_humans(path))
    assert ref.description == "Human export study.csv (4 participants)"
    assert ref.replays("human-replay:study.csv") and not ref.replays("human-replay")


def test_annotate_adds_the_reference_and_flags_self_scored_replays(reference):
    frame = pd.DataFrame({"agent": ["people", "clip"], "agent_id": ["human-replay", "clip:ViT-B-32/openai"]})
    out = reference.annotate(frame)
    assert list(out[REFERENCE_COLUMN]) == [PACKAGED] * 2
    assert list(out[SELF_SCORED_COLUMN]) == [True, False]
    assert "human-replay" in reference.self_scored_note(frame["agent_id"])
    assert reference.self_scored_note(["clip"]) is None
    assert REFERENCE_COLUMN not in frame  # a copy


def _word(agent, word, cells):
    return LogRecord.create(
        kind="word_query", run_id="r", agent_id=agent, word=word, cells=cells, scores=[1.0] * len(cells)
    )


def test_metrics_command_names_the_reference_in_terminal_and_every_csv(tmp_path, capsys):
    from huesenv.cli import main

    log = tmp_path / "w.jsonl"
    records = [_word("clip:ViT-B-32/openai", w, ["I4", "I5"]) for w in ("BANANA", "SKY")]
    records += [_word("human-replay", w, ["I4"]) for w in ("BANANA", "SKY")]
    with LogWriter(log) as w:
        w.append(records)
    out = tmp_path / "m"
    assert main(["metrics", str(log), "-o", str(out), "--no-plots"]) == 0
    text = capsys.readouterr().out
    assert PACKAGED in text
    assert "human-replay (self-scored)" in text and "self-scored: human-replay" in text
    csvs = sorted(out.glob("*.csv"))
    assert len(csvs) >= 5
    for path in csvs:
        table = pd.read_csv(path)
        assert REFERENCE_COLUMN in table.columns, path.name
        if len(table):
            assert set(table[REFERENCE_COLUMN]) == {PACKAGED}, path.name
    words = pd.read_csv(out / "word_level.csv")
    flagged = words.groupby("agent_id")[SELF_SCORED_COLUMN].all()
    assert flagged["human-replay"] and not flagged["clip:ViT-B-32/openai"]


def test_humans_summary_csv_names_the_reference_and_offers_the_calibrated_threshold(capsys):
    from io import StringIO

    from huesenv.cli import main
    from huesenv.stats import loo_false_alarm

    assert main(["humans", "summary", "--format", "csv"]) == 0
    paper = pd.read_csv(StringIO(capsys.readouterr().out)).set_index("word")
    assert main(["humans", "summary", "--format", "csv", "--calibrated"]) == 0
    calibrated = pd.read_csv(StringIO(capsys.readouterr().out)).set_index("word")
    assert set(paper[REFERENCE_COLUMN]) == {PACKAGED}
    n = paper.loc["SUMMER", "n"]
    assert paper.loc["SUMMER", "implied_false_alarm"] == pytest.approx(loo_false_alarm(n), abs=1e-4)
    assert (calibrated["fail_rate"] - paper["fail_rate_calibrated"]).abs().max() < 1e-4
    assert (calibrated["fail_rate"] <= paper["fail_rate"] + 1e-9).all()


def test_word_level_reports_each_words_implied_false_alarm(tmp_path):
    from huesenv.metrics import word_level
    from huesenv.stats import loo_false_alarm

    humans = load_humans()
    words = word_level([_word("clip:x", "SUMMER", ["J5"])], humans)
    n = int(words.loc[0, "n_human"])
    assert words.loc[0, "human_implied_false_alarm"] == pytest.approx(loo_false_alarm(n))
