"""Replies gathered elsewhere are scored exactly as a live run would score them."""

from __future__ import annotations

import csv
import json

import pytest

from huesenv.cli import main
from huesenv.probes import import_replies
from huesenv.probes.interference.metrics import interference_table
from huesenv.probes.interference.stimuli import interference_stimuli

KW = {"subsets": ["color"], "types": [1, 3], "per_type": 3}


def _write_csv(path, rows, header=("trial_id", "reply", "agent")):
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def _replies():
    out = []
    for s in interference_stimuli(seed=0, subsets=["color"], types=[1, 3], per_type=3):
        cols = list(s.text_colours)
        y = cols[0] if len(cols) == 1 else ", ".join(cols)
        out.append(
            (f"interference/{s.stimulus_id}", f'The word "{s.words[0]}" is written in {y}.', "model-a")
        )
        out.append((f"interference/{s.stimulus_id}", s.words[0].lower(), "model-b"))  # reads the word
    return out


def test_csv_replies_scored_like_a_run(tmp_path):
    path = tmp_path / "replies.csv"
    _write_csv(path, _replies())
    records = import_replies(path, "interference", **KW)
    assert len(records) == 12 and all(r.extra["source_line"] >= 2 for r in records)
    table = interference_table(records).set_index(["agent_id", "type"])
    assert (table.loc["model-a", "accuracy"] == 100.0).all() and (table.loc["model-a", "h1"] == 0.0).all()
    assert (table.loc["model-b", "accuracy"] == 0.0).all() and (table.loc["model-b", "h1"] == 100.0).all()


def test_jsonl_empty_reply_is_kept_invalid(tmp_path):
    path = tmp_path / "r.jsonl"
    tid = _replies()[0][0]
    path.write_text(json.dumps({"trial_id": tid, "reply": ""}) + "\n", encoding="utf-8")
    (rec,) = import_replies(path, "interference", agent_id="m", **KW)
    assert not rec.valid and rec.agent_id == "m"


@pytest.mark.parametrize(
    "content,suffix,message",
    [
        ("trial_id,answer\nx,red\n", ".csv", "line 1, field reply: missing column"),
        ("trial_id,reply\nnope,red\n", ".csv", "line 2, field trial_id: 'nope' is not a trial"),
        ('{"trial_id": "x"}\n', ".jsonl", "line 1, field reply: missing"),
        ("[1]\n", ".jsonl", "line 1: expected a JSON object"),
        ("a", ".txt", "expected a .csv or .jsonl"),
    ],
)
def test_bad_files_name_line_and_field(tmp_path, content, suffix, message):
    path = tmp_path / f"bad{suffix}"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        import_replies(path, "interference", **KW)


def test_twice_answered_trial_is_an_error(tmp_path):
    path = tmp_path / "dup.csv"
    row = _replies()[0]
    _write_csv(path, [row, row])
    with pytest.raises(ValueError, match="line 3, field trial_id: .* answered twice"):
        import_replies(path, "interference", **KW)


def test_cli_scores_a_replies_file(tmp_path, capsys):
    path = tmp_path / "replies.csv"
    _write_csv(path, _replies())
    argv = ["probe", "interference", "--replies", str(path), "--subsets", "color", "--types", "1", "3"]
    assert main([*argv, "--per-type", "3", "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "interference.jsonl").is_file()
    assert (tmp_path / "out" / "interference_report_replies" / "interference.csv").is_file()
    assert "12 replies (12 readable)" in capsys.readouterr().out


SURVEY_HEADER = ("userId", "kind", "stimulusId", "choice", "threshold", "choseDistractor", "attentionPassed")


@pytest.mark.parametrize(
    "row,field",
    [
        (("u1", "trial", "prior/apple/red/010", "green", "", "yes", ""), "choseDistractor"),
        (("u1", "attention", "attention/1", "blue", "", "", "no"), "attentionPassed"),
    ],
)
def test_survey_flags_other_than_the_exports_are_refused(tmp_path, row, field):
    """A flag the export never writes used to read as "not excluded" while claiming exclusions were applied."""
    from huesenv.probes.replies import read_replies

    path = tmp_path / "gca.csv"
    ok = ("u1", "trial", "prior/apple/red/020", "red", "", "False", "")
    _write_csv(path, [ok, row], header=SURVEY_HEADER)
    with pytest.raises(ValueError, match=rf"gca.csv, line 3, field {field}: .* is not a flag"):
        read_replies(path)
    _write_csv(
        path, [ok, ("u1", "trial", "prior/apple/red/030", "green", "", "TRUE", "")], header=SURVEY_HEADER
    )
    assert len(read_replies(path)) == 2  # the export's True/False, any case


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_keep_excluded_on_a_plain_replies_file_is_refused(tmp_path, capsys, suffix):
    path = tmp_path / f"replies{suffix}"
    if suffix == ".csv":
        _write_csv(path, _replies())
    else:
        path.write_text(json.dumps({"trial_id": _replies()[0][0], "reply": "red"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="--keep-excluded applies only to the collection app's GCA export"):
        import_replies(path, "interference", keep_excluded=True, **KW)
    argv = ["probe", "interference", "--replies", str(path), "--keep-excluded", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "--keep-excluded" in err and "\n" not in err and not (tmp_path / "o").exists()
