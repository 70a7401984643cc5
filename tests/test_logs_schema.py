"""Typed log records (schema version 2): declared fields, one validator, version-1 logs still read."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest

from huesenv.cli import main
from huesenv.logs import (
    EXTRA_FIELDS,
    SCHEMA_VERSION,
    GameStep,
    LogError,
    LogRecord,
    LogWriter,
    ProbeTrialRecord,
    WordQuery,
    check_appendable,
    cue_text,
    read_log_state,
    read_records,
    tag_unit,
)
from huesenv.logs.answers import write_answers
from huesenv.vocabulary import words

DATA = Path(__file__).parent / "data"


def test_version_1_fixture_logs_load_as_typed_version_2_records():
    result = read_records(DATA / "v1_games.jsonl")
    assert result.versions == {1} and len(result.records) == 104
    steps = result.records
    assert all(isinstance(r, GameStep) and r.schema_version == SCHEMA_VERSION for r in steps)
    assert steps[0].phase == "pick_target" and steps[0].role == "cue_giver" and steps[0].game == 0
    assert {r.phase for r in steps} == {"pick_target", "cue_1", "guess_1", "cue_2", "guess_2", "reveal"}
    reveal_points = sum(r.points for r in steps if r.phase == "reveal")
    assert reveal_points == sum(r.extra["points"] for r in steps)
    assert "v1_fields" not in steps[0].extra  # every key main's default run wrote is declared in version 2
    state = read_log_state(DATA / "v1_games.jsonl")
    assert list(state.units) == ["game:0"] and state.partial_blocks == 0
    words = read_records(DATA / "v1_wordlevel.jsonl").records
    assert all(isinstance(r, WordQuery) for r in words) and len(words) == 40
    assert all(r.config_agent for r in words)


def test_version_1_undeclared_keys_are_kept_apart_not_dropped(tmp_path):
    line = json.loads((DATA / "v1_games.jsonl").read_text().splitlines()[0])
    line["extra"]["my_note"] = "hand-written"
    path = tmp_path / "v1.jsonl"
    path.write_text(json.dumps(line) + "\n")
    (rec,) = read_records(path).records
    assert rec.extra["v1_fields"] == {"my_note": "hand-written"} and rec.phase == "pick_target"
    line["schema_version"] = 2
    path.write_text(json.dumps(line) + "\n")
    with pytest.raises(LogError, match=r"line 1, field extra.my_note: not a declared game_step field"):
        read_records(path)


def test_constructor_builds_the_typed_class_and_pickles():
    rec = LogRecord.create(kind="probe_trial", run_id="r", agent_id="a", extra={"task": "gca"})
    assert type(rec) is ProbeTrialRecord and rec.task == "gca"
    assert pickle.loads(pickle.dumps(rec)) == rec
    with pytest.raises(LogError, match="field kind"):
        GameStep(kind="word_query", run_id="r", agent_id="a")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"valid": "false"}, "valid"),
        ({"seed": "3"}, "seed"),
        ({"step": True}, "step"),
        ({"timings": {"act_s": "slow"}}, "timings.act_s"),
        ({"extra": {"phase": "cue_9"}}, "extra.phase"),
        ({"extra": {"points": 1.5}}, "extra.points"),
        ({"extra": {"cues": [3]}}, "extra.cues"),
        ({"extra": {"target": "Z99"}}, "extra.target"),
        ({"created": "yesterday"}, "created"),
    ],
)
def test_strict_types_name_the_field(tmp_path, change, field):
    data = LogRecord.create(kind="game_step", run_id="r", agent_id="a", extra={"phase": "guess_1"}).to_dict()
    for key, value in change.items():
        data[key] = value if key != "extra" else {**data["extra"], **value}
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(data) + "\n")
    with pytest.raises(LogError) as err:
        read_records(path)
    assert err.value.field == field and "line 1" in str(err.value)


def test_every_field_the_writers_write_is_declared():
    declared = EXTRA_FIELDS["game_step"]
    for key in ("cues", "fallback", "unit", "unit_size", "unit_pos", "cone_indices", "seat_agent", "lineup"):
        assert key in declared and declared[key].doc
    from huesenv.agents import make_agent
    from huesenv.envs import play_game

    agents = {f"player_{i}": make_agent("random", seed=i) for i in range(3)}
    result = play_game(agents, num_players=3, seed=0, run_id="t")
    for rec in tag_unit(result.records, "game:0"):
        assert set(rec.extra) <= set(declared), set(rec.extra) - set(declared)


def test_logs_schema_command_lists_the_fields(capsys):
    assert main(["logs", "schema"]) == 0
    out = capsys.readouterr().out
    assert f"version {SCHEMA_VERSION}" in out and "cone_indices" in out and "source_sha256" in out


def test_cue_text_from_the_logs_package():
    rec = LogRecord.create(kind="game_step", run_id="r", agent_id="a", word=" SEA ", extra={"phase": "cue_1"})
    assert cue_text(rec) == "SEA"


# -- import-answers -----------------------------------------------------------------------


def _table(path: Path, rows: str) -> Path:
    path.write_text("Palabra,Answer1,Answer2\n" + rows)
    return path


def test_import_is_idempotent_and_resumes(tmp_path):
    table = _table(tmp_path / "t.csv", "BANANA,I4,J7\nHOPE,A1,teal\n")
    log = tmp_path / "log.jsonl"
    first = write_answers(table, log, "vlm:x")
    again = write_answers(table, log, "vlm:x")
    assert (first.words, again.words, again.skipped) == (2, 0, 2)
    assert len(read_records(log).records) == 2
    other = write_answers(table, log, "vlm:y")  # another agent's answers are new records
    assert other.words == 2 and len(read_records(log).records) == 4


def test_import_with_a_bad_row_writes_nothing_so_the_fixed_rerun_does_not_duplicate(tmp_path):
    names = [w.text for w in words()][:80]  # more rows than one flush (FLUSH_EVERY) before the bad one
    good = "".join(f"{w},I4,J7\n" for w in names)
    log = tmp_path / "log.jsonl"
    table = _table(tmp_path / "t.csv", good + "NOTAWORD,A1,A2\n")
    with pytest.raises(LogError, match=f"line {len(names) + 2}, field Palabra"):
        write_answers(table, log, "vlm:x")
    assert not log.exists() or not log.read_bytes()
    _table(table, good)  # the row fixed: the table's sha256 changes
    assert write_answers(table, log, "vlm:x").words == len(names)
    assert len(read_records(log).records) == len(names)


def test_import_refuses_another_table_for_the_same_agent_and_run(tmp_path):
    table = _table(tmp_path / "t.csv", "BANANA,I4,J7\n")
    log = tmp_path / "log.jsonl"
    write_answers(table, log, "vlm:x")
    before = log.read_bytes()
    _table(table, "BANANA,A1,J7\n")  # edited: the metrics would pool both tables' answers
    with pytest.raises(LogError, match="from another table"):
        write_answers(table, log, "vlm:x")
    assert log.read_bytes() == before
    assert write_answers(table, log, "vlm:x", run_id="second").words == 1


def test_import_refuses_corrupt_or_other_version_logs(tmp_path):
    table = _table(tmp_path / "t.csv", "BANANA,I4,J7\n")
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_text('{"not": "a record"}\n')
    before = corrupt.read_bytes()
    with pytest.raises(LogError, match="corrupt.jsonl, line 1"):
        write_answers(table, corrupt, "vlm:x")
    assert corrupt.read_bytes() == before
    old = tmp_path / "old.jsonl"
    shutil.copy(DATA / "v1_wordlevel.jsonl", old)
    with pytest.raises(LogError, match="version 1 records; expected version 2"):
        write_answers(table, old, "vlm:x")
    bad_valid = tmp_path / "valid.jsonl"
    rec = LogRecord.create(kind="word_query", run_id="r", agent_id="a", word="BANANA").to_dict()
    rec["valid"] = "false"
    bad_valid.write_text(json.dumps(rec) + "\n")
    with pytest.raises(LogError, match="field valid: expected true/false"):
        write_answers(table, bad_valid, "vlm:x")


def test_import_to_parquet_streams_and_reads_back(tmp_path):
    from huesenv.logs import load_logs

    table = _table(tmp_path / "t.csv", "BANANA,I4,J7\nHOPE,A1,teal\n")
    summary = write_answers(table, tmp_path / "a.parquet", "vlm:x")
    back = load_logs(tmp_path / "a.parquet")
    assert summary.words == 2 and [r.word for r in back] == ["BANANA", "HOPE"]
    assert back[1].invalid_answers == [{"column": "Answer2", "text": "teal"}]


def test_writer_masks_secret_values(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_API_KEY", "sk-verysecret123")
    rec = LogRecord.create(
        kind="word_query", run_id="r", agent_id="a", word="BANANA", raw_text="key sk-verysecret123"
    )
    with LogWriter(tmp_path / "l.jsonl") as writer:
        writer.append([rec])
    text = (tmp_path / "l.jsonl").read_text()
    assert "sk-verysecret123" not in text and "***" in text


def test_check_appendable_counts_records(tmp_path):
    assert check_appendable(tmp_path / "none.jsonl") == 0
    with pytest.raises(LogError, match="directory"):
        check_appendable(tmp_path)


def test_version_2_logs_written_by_main_load_as_typed_version_3_records(tmp_path):
    """Main's default run wrote these (schema 2); they read as v3 models and re-serialise to the same data."""
    games = read_records(DATA / "v2_games.jsonl")
    assert games.versions == {2} and len(games.records) == 104
    steps = games.records
    assert all(isinstance(r, GameStep) and r.schema_version == SCHEMA_VERSION for r in steps)
    assert (
        steps[0].phase == "pick_target"
        and steps[0].seat_agent == "text-embedding"
        and steps[0].unit == "game:0"
    )
    assert list(read_log_state(DATA / "v2_games.jsonl").units) == ["game:0"]
    lines = (DATA / "v2_games.jsonl").read_text().splitlines()
    for line, rec in zip(lines, steps):
        original = json.loads(line)
        assert {**rec.to_dict(), "schema_version": 2} == original  # nothing lost or changed on the way
    queries = read_records(DATA / "v2_wordlevel.jsonl").records
    assert len(queries) == 116 and all(isinstance(r, WordQuery) for r in queries)
    assert queries[0].extra["word"] == queries[0].answered_word and queries[0].config_agent == "human"
    assert list(read_log_state(DATA / "v2_wordlevel.jsonl").units) == ["agent:human"]
    # a version-3 writer appends to a version-2 log: every line stays readable
    log = tmp_path / "games.jsonl"
    shutil.copy(DATA / "v2_games.jsonl", log)
    assert check_appendable(log) == 104
    with LogWriter(log) as writer:
        writer.append(tag_unit([steps[0].model_copy(deep=True)], "game:1"))
    assert read_records(log).versions == {2, 3}


def test_version_3_keeps_open_keys_apart_from_the_declared_fields(tmp_path):
    """An agent's own info entries and a parser's values sit in extra.info / extra.parsed on disk;
    rec.extra reads them by their version-2 names."""
    query = LogRecord.create(
        kind="word_query", run_id="r", agent_id="a", word="BANANA", extra={"top_k": 5, "temperature": 0.7}
    )
    trial = LogRecord.create(
        kind="probe_trial", run_id="r", agent_id="a", extra={"task": "gca", "parsed_value": 35.0}
    )
    assert query.info == {"temperature": 0.7} and query.extra["temperature"] == 0.7 and query.top_k == 5
    assert trial.parsed == {"value": 35.0} and trial.extra["parsed_value"] == 35.0
    path = tmp_path / "l.jsonl"
    with LogWriter(path) as writer:
        writer.append([query, trial])
    on_disk = [json.loads(line)["extra"] for line in path.read_text().splitlines()]
    assert on_disk == [{"top_k": 5, "info": {"temperature": 0.7}}, {"task": "gca", "parsed": {"value": 35.0}}]
    back = read_records(path).records
    assert [r.to_dict() for r in back] == [query.to_dict(), trial.to_dict()]
    flat = json.loads(path.read_text().splitlines()[0])
    flat["extra"] = {"top_k": 5, "temperature": 0.7}  # version 2's spelling is not version 3's
    path.write_text(json.dumps(flat) + "\n")
    with pytest.raises(LogError, match="field extra.temperature: not a declared word_query field"):
        read_records(path)


def test_records_are_a_union_discriminated_on_kind():
    from pydantic import TypeAdapter

    from huesenv.logs.schema import AnyRecord

    adapter = TypeAdapter(AnyRecord)
    rec = adapter.validate_python({"kind": "probe_trial", "run_id": "r", "agent_id": "a", "task": "gca"})
    assert type(rec) is ProbeTrialRecord and rec.task == "gca"
    with pytest.raises(TypeError, match="LogRecord.create"):
        LogRecord(kind="game_step", run_id="r", agent_id="a")
    with pytest.raises(LogError, match="field extra.nonsense: not a declared game_step field"):
        GameStep(run_id="r", agent_id="a", extra={"nonsense": 1})
