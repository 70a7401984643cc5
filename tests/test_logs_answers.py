"""Importing external answer tables (Palabra, Answer1..AnswerN) as a sampled agent's log."""

from __future__ import annotations

import pytest

from huesenv.cli import main
from huesenv.logs import import_answers, read_records
from huesenv.metrics import answer_sets


def _table(tmp_path, body: str):
    path = tmp_path / "answers.csv"
    path.write_text("Palabra,Answer1,Answer2,Answer3\n" + body)
    return path


def test_import_keeps_order_and_invalid_answers(tmp_path):
    path = _table(tmp_path, "banana,I4,i 5,J7\nSTITCH,M26,teal,\nHOPE,nope,Z99,\n")
    records = import_answers(path, agent="vlm:test")
    assert [r.word for r in records] == ["BANANA", "(LILO AND) STITCH", "HOPE"]
    assert records[0].cells == ["I4", "I5", "J7"] and records[0].extra["sampled"] is True
    assert records[0].scores is None and records[0].category == "Food"
    assert [a["text"] for a in records[1].extra["invalid_answers"]] == ["teal", ""]
    assert records[2].valid is False and records[2].cells is None and "nope" in records[2].raw_text
    sets = answer_sets(records)
    assert sets[("vlm:test", "(LILO AND) STITCH")].n_invalid == 2
    assert sets[("vlm:test", "HOPE")].n_invalid == 3  # nobody could parse them: counted, not dropped
    assert sets[("vlm:test", "BANANA")].is_sampled


def test_unknown_word_names_file_and_line(tmp_path):
    path = _table(tmp_path, "BANANA,I4,I5,J7\nBLORPTASTIC,I4,I5,J7\n")
    with pytest.raises(ValueError, match=r"answers.csv, line 3, field Palabra: unknown word"):
        import_answers(path, agent="vlm:test")


def test_missing_columns(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("Word,Answer1\nBANANA,I4\n")
    with pytest.raises(ValueError, match="line 1, field Palabra"):
        import_answers(path, agent="a")


def test_cli_import_is_deterministic(tmp_path, shared_dir, capsys):
    src = shared_dir / "data" / "vlm_replays" / "results_HC_InternVL3.5-8B.csv"
    outs = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for out in outs:
        assert (
            main(["logs", "import-answers", str(src), "--agent", "vlm:InternVL3.5-8B", "-o", str(out)]) == 0
        )
    assert outs[0].read_bytes() == outs[1].read_bytes()
    records = read_records(outs[0]).records
    assert len(records) == 116 and all(len(r.cells) == 100 for r in records)
    assert "116 words, 11600 answers, 0 invalid" in capsys.readouterr().out
