"""Logs: JSON Lines round trip, crash-torn last lines, validation errors with file and line, Parquet."""

from __future__ import annotations

import json
import warnings

import pytest

from huesenv.logs import (
    SCHEMA_VERSION,
    LogRecord,
    LogWriter,
    load_logs,
    read_parquet,
    read_records,
    records_to_frame,
    write_parquet,
)
from huesenv.logs.io import frame_to_records


def _rec(word: str = "BANANA", cells=("I4", "J7"), episode: int = 0, **kw) -> LogRecord:
    return LogRecord.create(
        kind="word_query",
        run_id="r1",
        agent_id="clip:ViT-B-32/openai",
        seed=3,
        episode=episode,
        word=word,
        category="Food",
        cells=list(cells),
        scores=[0.9, 0.8][: len(cells)],
        created=1.0,
        **kw,
    )


def _episode(n: int) -> list[LogRecord]:
    return [_rec(episode=n), _rec(word="LEMON", episode=n)]


def test_round_trip_and_deterministic_bytes(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        with LogWriter(path) as w:
            assert w.append(_episode(0)) == 2
            w.append(_episode(1))
    assert a.read_bytes() == b.read_bytes()
    result = read_records(a)
    assert result.torn_line is None
    assert [r.to_dict() for r in result.records] == [r.to_dict() for r in _episode(0) + _episode(1)]


def test_append_only_across_sessions(tmp_path):
    path = tmp_path / "log.jsonl"
    with LogWriter(path) as w:
        w.append(_episode(0))
    first = path.read_bytes()
    with LogWriter(path) as w:
        w.append(_episode(1))
    assert path.read_bytes().startswith(first)
    assert len(read_records(path).records) == 4


def test_torn_last_line_is_reported_set_aside_and_not_glued(tmp_path):
    path = tmp_path / "log.jsonl"
    with LogWriter(path) as w:
        w.append(_episode(0))
    whole = path.read_bytes()
    torn = b'{"kind": "word_query", "run_id": "r1", "agen'
    path.write_bytes(whole + torn)  # a crash in the middle of the next episode's write
    with pytest.warns(UserWarning, match="line 3: torn last line"):
        result = read_records(path)
    assert result.torn_line == 3 and result.torn_text == torn.decode()
    assert len(result.records) == 2
    with pytest.warns(UserWarning, match="set aside"):
        w = LogWriter(path)
    assert w.torn_line == 3 and w.torn_text == torn.decode()
    w.append(_episode(1))
    w.close()
    text = path.read_text()
    assert "agen{" not in text  # nothing glued onto the fragment
    assert path.read_bytes().startswith(whole)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = read_records(path)
    assert again.torn_line is None and len(again.records) == 4
    assert torn.decode() in (tmp_path / "log.jsonl.torn").read_text()  # kept, never merged


def test_whole_last_record_without_newline_is_kept(tmp_path):
    path = tmp_path / "log.jsonl"
    with LogWriter(path) as w:
        w.append(_episode(0))
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    assert len(read_records(path).records) == 2
    with LogWriter(path) as w:
        w.append(_episode(1))
    assert len(read_records(path).records) == 4


def _write_lines(path, objects):
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects))


@pytest.mark.parametrize(
    "mutate, field, message",
    [
        (lambda d: d.update(cells=["I4", "Z99"]), "cells[1]", "off the board|invalid board coordinate"),
        (lambda d: d.update(word="FLIBBERTY"), "word", "unknown word"),
        (lambda d: d.pop("agent_id"), "agent_id", "missing"),
        (
            lambda d: d.update(schema_version=SCHEMA_VERSION + 1),
            "schema_version",
            "not the supported version",
        ),
        (lambda d: d.update(colour="red"), "colour", "unknown field"),
        (lambda d: d.update(scores=[0.1]), "scores", "equal lengths"),
    ],
)
def test_bad_lines_name_file_line_and_field(tmp_path, mutate, field, message):
    good = _rec().to_dict()
    bad = _rec().to_dict()
    mutate(bad)
    path = tmp_path / "bad.jsonl"
    _write_lines(path, [good, bad, good])
    with pytest.raises(
        ValueError, match=rf"bad.jsonl, line 2, field {field.replace('[', '.').replace(']', '.')}"
    ) as err:
        read_records(path)
    assert __import__("re").search(message, str(err.value))


def test_malformed_middle_line_is_an_error_not_a_torn_line(tmp_path):
    path = tmp_path / "log.jsonl"
    _write_lines(path, [_rec().to_dict(), '{"kind": "word_q', _rec().to_dict()])
    with pytest.raises(ValueError, match="line 2, field <json>"):
        read_records(path)


def test_game_step_coordinates_are_checked(tmp_path):
    rec = LogRecord.create(
        kind="game_step", run_id="r", agent_id="random", extra={"cell": "Q40", "role": "guesser"}
    ).to_dict()
    path = tmp_path / "g.jsonl"
    _write_lines(path, [rec])
    with pytest.raises(ValueError, match="line 1, field extra.cell"):
        read_records(path)


def test_writer_refuses_bad_records(tmp_path):
    with LogWriter(tmp_path / "x.jsonl") as w, pytest.raises(ValueError, match="field word"):
        w.append([_rec(word="NOT A WORD")])


def test_invalid_answers_are_kept(tmp_path):
    path = tmp_path / "log.jsonl"
    rec = _rec(cells=(), valid=False, raw_text="I think it's teal-ish")
    rec.cells = None
    rec.scores = None
    with LogWriter(path) as w:
        w.append([rec])
    back = read_records(path).records[0]
    assert back.valid is False and back.raw_text == "I think it's teal-ish"


def test_parquet_round_trip_and_frame(tmp_path):
    records = _episode(0) + [
        LogRecord.create(
            kind="game_step",
            run_id="r",
            agent_id="random",
            step=2,
            extra={"game": 0, "role": "guesser", "cell": "A1"},
            timings={"act": 0.01},
            created=2.0,
        )
    ]
    path = write_parquet(records, tmp_path / "log.parquet")
    back = read_parquet(path)
    assert [r.to_dict() for r in back] == [r.to_dict() for r in records]
    assert [r.to_dict() for r in load_logs([path])] == [r.to_dict() for r in records]
    frame = records_to_frame(records)
    assert list(frame["kind"]) == ["word_query", "word_query", "game_step"]
    assert [r.to_dict() for r in frame_to_records(frame)] == [r.to_dict() for r in records]


def test_cli_check_and_to_parquet(tmp_path, capsys):
    from huesenv.cli import main

    path = tmp_path / "log.jsonl"
    with LogWriter(path) as w:
        w.append(_episode(0))
    assert main(["logs", "check", str(path)]) == 0
    assert "2 records" in capsys.readouterr().out
    assert main(["logs", "to-parquet", str(path), "-o", str(tmp_path / "log.parquet")]) == 0
    assert len(read_parquet(tmp_path / "log.parquet")) == 2
    path.write_text(path.read_text().replace('"I4"', '"Z99"', 1))
    assert main(["logs", "check", str(path)]) == 2
    assert "log.jsonl, line 1, field cells[0]" in capsys.readouterr().err


def test_exports_and_check_drop_and_report_an_interrupted_block(tmp_path, capsys):
    """A full disk or a kill mid-append leaves a block cut short: exports and counts leave it out."""
    from huesenv.cli import main
    from huesenv.logs import tag_unit

    path = tmp_path / "games.jsonl"
    with LogWriter(path) as w:
        w.append(tag_unit([_rec(episode=0), _rec(word="LEMON", episode=0), _rec(episode=0)], "game:0"))
        w.append(tag_unit([_rec(episode=1), _rec(word="LEMON", episode=1), _rec(episode=1)], "game:1"))
        w.append(tag_unit([_rec(episode=2), _rec(word="LEMON", episode=2)], "game:2"))
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:5] + lines[6:]))  # game:1 lost its last record (the disk filled up)
    with pytest.warns(UserWarning, match=r"interrupted block game:1 \(2 of 3 records"):
        records = load_logs(path, complete_blocks=True)
    assert [r.unit for r in records] == ["game:0"] * 3 + ["game:2"] * 2
    assert main(["logs", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "5 records, 1 interrupted block(s) of 2 records dropped" in out and "game:1 (2 of 3" in out
    assert main(["logs", "to-parquet", str(path), "-o", str(tmp_path / "g.parquet")]) == 0
    out = capsys.readouterr().out
    assert "interrupted block game:1 (2 of 3 records from record 4) dropped" in out and "5 records" in out
    assert [r.unit for r in read_parquet(tmp_path / "g.parquet")] == [r.unit for r in records]
