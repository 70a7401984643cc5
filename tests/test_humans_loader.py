"""The human-response loader: every failure mode names file, line and field; skip mode lists bad rows; filters."""

import gzip

import numpy as np
import pandas as pd
import pytest

from huesenv.board import load_board, parse_coord
from huesenv.humans import EXPORT_COLUMNS, FRAME_COLUMNS, load_humans
from huesenv.vocabulary import Word

HEADER = ",".join(EXPORT_COLUMNS)
GOOD = [
    "u1,2025-03-01T10:00:00Z,Food,0,APPLE,A13,es,male,20-29,false",
    "u1,2025-03-01T10:00:20Z,Food,2,banana,I4,es,male,20-29,false",
    "u2,1740823200,Food,0,APPLE,B13,en,female,10-19,0",
    "u2,1740823200123,Pop Culture,99,stitch,H28,en,female,10-19,no",
    "u3,2025-03-02 09:00:00,Food,0,Apple,A13,ES,Male,30-39,true",
]


def write(tmp_path, lines, name="export.csv"):
    path = tmp_path / name
    path.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf-8")
    return path


def test_good_file_loads_into_the_contract_frame(tmp_path):
    humans = load_humans(write(tmp_path, GOOD))
    assert tuple(humans.frame.columns) == FRAME_COLUMNS
    assert len(humans) == 4 and humans.filtered == {"colour_vision": 1}  # u3 reported a CVD
    assert humans.words == ("APPLE", "BANANA", "(LILO AND) STITCH")  # Table 6 order, aliases applied
    assert humans.cells("apple").tolist() == [parse_coord("A13"), parse_coord("B13")]
    np.testing.assert_array_equal(humans.xy("APPLE"), load_board().xy[humans.cells("APPLE")])
    assert humans.category("STITCH") == "Pop Culture"
    assert not humans.is_reconstruction and humans.skipped.empty
    stamps = humans.frame["timestamp"]
    assert str(stamps.dt.tz) == "UTC"
    assert stamps.iloc[2] == pd.Timestamp("2025-03-01T10:00:00Z")  # epoch seconds
    assert stamps.iloc[3] == pd.Timestamp("2025-03-01T10:00:00.123Z")  # epoch milliseconds
    with pytest.raises(ValueError, match="no answers for word"):
        humans.cells("SKY")


def test_cvd_filter_and_demographic_filters(tmp_path):
    path = write(tmp_path, GOOD)
    assert len(load_humans(path, exclude_cvd=False)) == 5
    assert set(load_humans(path, language="en").frame["user_id"]) == {"u2"}
    assert set(load_humans(path, exclude_cvd=False, language="es").frame["user_id"]) == {"u1", "u3"}
    assert set(load_humans(path, gender=["FEMALE"]).frame["user_id"]) == {"u2"}
    humans = load_humans(path, exclude_cvd=False, age_range=("20-29", "30-39"))
    assert set(humans.frame["user_id"]) == {"u1", "u3"} and humans.filtered["age_range"] == 2


def test_csv_gz_and_parquet_load_the_same_rows(tmp_path):
    plain = write(tmp_path, GOOD)
    gz = tmp_path / "export.csv.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    parquet = tmp_path / "export.parquet"
    table = pd.read_csv(plain, dtype=str)
    table["colorBlind"] = table["colorBlind"].str.lower().isin(["true", "1", "yes"])  # typed column
    table.to_parquet(parquet, index=False)
    ref = load_humans(plain).frame
    for other in (gz, parquet):
        pd.testing.assert_frame_equal(load_humans(other).frame, ref)


def test_mode_cell_ties_go_to_the_cell_nearest_the_mean(tmp_path):
    rows = [
        f"u{i},2025-01-01T00:00:00Z,,,SKY,{c},es,male,20-29,false"
        for i, c in enumerate(["K24", "K24", "A1", "A1", "K25", "K23", "L24"])
    ]
    humans = load_humans(write(tmp_path, rows))
    assert humans.mode_cell("SKY") == parse_coord("K24")


# -- every failure mode: ValueError naming file, line and field; skip mode lists it -----------------------------
BROKEN = {
    "off-board coordinate": (
        "u9,2025-01-01T00:00:00Z,Food,0,APPLE,Q5,es,male,20-29,false",
        "coordinate",
        "off the board",
    ),
    "off-board column": (
        "u9,2025-01-01T00:00:00Z,Food,0,APPLE,A31,es,male,20-29,false",
        "coordinate",
        "off the board",
    ),
    "malformed coordinate": (
        "u9,2025-01-01T00:00:00Z,Food,0,APPLE,13A,es,male,20-29,false",
        "coordinate",
        "invalid board coordinate",
    ),
    "unknown word": (
        "u9,2025-01-01T00:00:00Z,Food,0,PINEAPPLE,A13,es,male,20-29,false",
        "word",
        "unknown word",
    ),
    "missing coordinate": (
        "u9,2025-01-01T00:00:00Z,Food,0,APPLE,,es,male,20-29,false",
        "coordinate",
        "empty",
    ),
    "missing user": (",2025-01-01T00:00:00Z,Food,0,APPLE,A13,es,male,20-29,false", "userId", "empty"),
    "missing colour-vision flag": (
        "u9,2025-01-01T00:00:00Z,Food,0,APPLE,A13,es,male,20-29,",
        "colorBlind",
        "empty",
    ),
    "short row": ("u9,2025-01-01T00:00:00Z,Food,0,APPLE", "coordinate", "empty"),
    "bad colour-vision flag": (
        "u9,2025-01-01T00:00:00Z,Food,0,APPLE,A13,es,male,20-29,maybe",
        "colorBlind",
        "yes/no",
    ),
    "bad timestamp": ("u9,yesterday,Food,0,APPLE,A13,es,male,20-29,false", "timestamp", "ISO 8601"),
    "too many values": (
        "u9,2025-01-01T00:00:00Z,Food,0,APPLE,A13,es,male,20-29,false,extra",
        "(row)",
        "11 values",
    ),
    "duplicate answer": (
        "u1,2025-03-01T11:00:00Z,Food,0,Apple,C13,es,male,20-29,false",
        "word",
        "duplicate answer of user 'u1'",
    ),
}


@pytest.mark.parametrize("mode", list(BROKEN))
def test_broken_row_raises_naming_file_line_and_field(tmp_path, mode):
    bad, field, reason = BROKEN[mode]
    path = write(tmp_path, GOOD[:2] + [bad] + GOOD[2:])
    with pytest.raises(ValueError) as err:
        load_humans(path)
    message = str(err.value)
    assert str(path) in message and "line 4" in message and f"field {field}" in message and reason in message


@pytest.mark.parametrize("mode", list(BROKEN))
def test_skip_mode_returns_the_bad_row_with_its_reason(tmp_path, mode):
    bad, field, reason = BROKEN[mode]
    path = write(tmp_path, GOOD[:2] + [bad] + GOOD[2:])
    humans = load_humans(path, on_error="skip", exclude_cvd=False)
    assert len(humans) == len(GOOD)  # every good row kept, the bad one not
    assert len(humans.skipped) == 1
    row = humans.skipped.iloc[0]
    assert (row["source"], row["line"], row["field"]) == (str(path), 4, field) and reason in row["reason"]


def test_duplicate_error_names_the_first_occurrence(tmp_path):
    path = write(tmp_path, GOOD + ["u1,2025-03-01T11:00:00Z,Food,0,APPLE,C13,es,male,20-29,false"])
    with pytest.raises(ValueError, match=r"line 7, field word: duplicate .*first at line 2"):
        load_humans(path)


def test_skip_mode_counts_several_bad_rows(tmp_path):
    lines = GOOD + [BROKEN["unknown word"][0], BROKEN["off-board coordinate"][0], BROKEN["bad timestamp"][0]]
    humans = load_humans(write(tmp_path, lines), on_error="skip")
    assert humans.skipped["line"].tolist() == [7, 8, 9]
    assert humans.skipped["field"].tolist() == ["word", "coordinate", "timestamp"]


def test_missing_column_raises_even_in_skip_mode(tmp_path):
    path = tmp_path / "nocoord.csv"
    path.write_text(
        "userId,timestamp,clueCategory,clueId,word,language,gender,ageRange,colorBlind\n"
        "u1,2025-01-01T00:00:00Z,Food,0,APPLE,es,male,20-29,false\n"
    )
    for on_error in ("raise", "skip"):
        with pytest.raises(ValueError, match=r"nocoord.csv, line 1, field coordinate: missing column"):
            load_humans(path, on_error=on_error)


# The authors' app (Rietta5/HuesAndCues, src/App.tsx) submits these nine fields per answer: no colour vision.
APP_HEADER = "userId,timestamp,clueCategory,clueId,word,coordinate,language,gender,ageRange"
APP_ROWS = [
    "3f1c9a2e-0b7d-4c55-9e1a-2d6f8b7c1a01,2025-03-01T10:00:00.123Z,Food,1,APPLE,A13,english,male,20-29",
    "3f1c9a2e-0b7d-4c55-9e1a-2d6f8b7c1a01,2025-03-01T10:00:21.456Z,Food,3,BANANA,I4,english,male,20-29",
    "8a0e4d11-5f3b-4a7e-b1c2-9d8e7f6a5b02,2025-03-02T18:30:00.000Z,Food,1,APPLE,B13,spanish,female,+70",
    "c2b7e6f0-1a2b-4c3d-8e9f-0a1b2c3d4e03,2025-03-03T08:15:09.999Z,Food,1,APPLE,A12,spanish,prefer-not-to-say,-10",
]


def write_app(tmp_path, rows=APP_ROWS, name="app_export.csv"):
    path = tmp_path / name
    path.write_text("\n".join([APP_HEADER, *rows]) + "\n", encoding="utf-8")
    return path


def test_authors_app_export_loads_with_colour_vision_unknown(tmp_path):
    from huesenv.humans import APP_COLUMNS

    assert ",".join(APP_COLUMNS) == APP_HEADER
    humans = load_humans(write_app(tmp_path))
    assert len(humans) == 4 and humans.n_participants == 3 and humans.skipped.empty
    assert humans.frame["colorblind"].isna().all() and humans.colour_vision_unknown == 3
    assert humans.filtered == {"colour_vision": 0}  # unknown colour vision cannot be excluded: kept, counted
    assert humans.frame["language"].tolist() == ["english", "english", "spanish", "spanish"]
    for code in ("es", "spanish", "ES"):  # the filter compares ISO codes: both spellings select the same rows
        kept = load_humans(write_app(tmp_path), language=code).frame
        assert set(kept["gender"]) == {"female", "prefer-not-to-say"}
    assert set(load_humans(write(tmp_path, GOOD), language="english").frame["user_id"]) == {"u2"}
    assert humans.frame["timestamp"].iloc[0] == pd.Timestamp("2025-03-01T10:00:00.123Z")
    assert humans.cells("APPLE").tolist() == [parse_coord(c) for c in ("A13", "B13", "A12")]


def test_app_export_timestamp_as_a_spreadsheet_writes_it(tmp_path):
    row = APP_ROWS[0].replace("2025-03-01T10:00:00.123Z", "3/1/2025 10:00:00")
    humans = load_humans(write_app(tmp_path, [row]))
    assert humans.frame["timestamp"].iloc[0] == pd.Timestamp("2025-03-01T10:00:00Z")


def test_cvd_list_supplied_separately(tmp_path):
    path = write_app(tmp_path)
    listed = "8a0e4d11-5f3b-4a7e-b1c2-9d8e7f6a5b02"
    text_list = tmp_path / "cvd.txt"
    text_list.write_text(f"# self-reported CVD\n{listed}\n\n")
    csv_list = tmp_path / "cvd.csv"
    csv_list.write_text(f"userId,type\n{listed},deutan\n")
    for cvd in (text_list, csv_list, [listed]):
        humans = load_humans(path, cvd=cvd)
        assert humans.colour_vision_unknown == 0 and humans.filtered == {"colour_vision": 1}
        assert listed not in set(humans.frame["user_id"]) and humans.n_participants == 2
        everyone = load_humans(path, cvd=cvd, exclude_cvd=False)
        assert everyone.frame.loc[everyone.frame["colorblind"], "user_id"].tolist() == [listed]
    # the project's own export: a list adds to the colorBlind column (u3 already reported CVD)
    own = load_humans(write(tmp_path, GOOD), cvd=["u2"])
    assert set(own.frame["user_id"]) == {"u1"} and own.filtered == {"colour_vision": 3}


def test_cvd_list_errors_name_the_list(tmp_path):
    path = write_app(tmp_path)
    with pytest.raises(ValueError, match=r"cvd.txt: 1 listed CVD participant\(s\) not in .*'nobody'"):
        (tmp_path / "cvd.txt").write_text("nobody\n")
        load_humans(path, cvd=tmp_path / "cvd.txt")
    bad_csv = tmp_path / "cvd.csv"
    bad_csv.write_text("participant\nx\n")
    with pytest.raises(ValueError, match=r"cvd.csv, line 1, field userId: missing column"):
        load_humans(path, cvd=bad_csv)
    with pytest.raises(FileNotFoundError, match="CVD participant list"):
        load_humans(path, cvd=tmp_path / "absent.txt")


def test_app_export_missing_an_app_column_names_it(tmp_path):
    path = tmp_path / "noage.csv"
    path.write_text(APP_HEADER.replace(",ageRange", "") + "\n")
    with pytest.raises(ValueError, match=r"noage.csv, line 1, field ageRange: missing column"):
        load_humans(path)


def test_empty_file_unknown_type_missing_file_and_bad_option(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match=r"empty.csv, line 1: empty file"):
        load_humans(empty)
    other = tmp_path / "export.xlsx"
    other.write_text("x")
    with pytest.raises(ValueError, match="unknown file type"):
        load_humans(other)
    with pytest.raises(FileNotFoundError):
        load_humans(tmp_path / "absent.csv")
    with pytest.raises(ValueError, match="on_error"):
        load_humans(write(tmp_path, GOOD), on_error="ignore")


def test_parquet_errors_name_the_row(tmp_path):
    table = pd.read_csv(write(tmp_path, GOOD), dtype=str)
    table.loc[1, "coordinate"] = "Z99"
    path = tmp_path / "bad.parquet"
    table.to_parquet(path, index=False)
    with pytest.raises(ValueError, match=r"bad.parquet, row 2, field coordinate"):
        load_humans(path)


def test_custom_vocabulary_export(tmp_path):
    lines = GOOD[:2] + [
        "u7,2025-01-01T00:00:00Z,Fruit,,Pineapple,J3,en,male,20-29,false",
        "u8,2025-01-01T00:00:00Z,,,Teal,K26,en,male,20-29,false",
    ]
    path = write(tmp_path, lines)
    with pytest.raises(ValueError, match="unknown word 'Pineapple'.*vocabulary="):
        load_humans(path)
    humans = load_humans(path, vocabulary="any")
    assert humans.words == ("APPLE", "BANANA", "PINEAPPLE", "TEAL")
    assert humans.category("pineapple") == "Fruit" and humans.category("TEAL") == "Custom"
    only = load_humans(path, vocabulary=[Word("PINEAPPLE", "Tropical"), "apple", "banana", "teal"])
    assert only.category("PINEAPPLE") == "Tropical" and only.category("APPLE") == "Food"
    vocab_file = tmp_path / "vocab.txt"
    vocab_file.write_text("pineapple\napple\n")
    restricted = load_humans(path, vocabulary=vocab_file, on_error="skip")
    assert restricted.words == ("APPLE", "PINEAPPLE")
    assert restricted.skipped["reason"].str.contains("given vocabulary").sum() == 2


def test_packaged_cohort_is_flagged_as_a_reconstruction():
    humans = load_humans()
    assert humans.is_reconstruction and humans.n_participants == 316 and humans.skipped.empty
    assert load_humans(exclude_cvd=False).n_participants == 325


def test_spreadsheet_bom_is_tolerated(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbf" + ("\n".join([HEADER, *GOOD]) + "\n").encode("utf-8"))
    assert len(load_humans(path)) == 4
