"""``huesenv humans summary``: one row per word, the reconstruction notice, --humans for a real export."""

import io

import pandas as pd

from huesenv.cli import main
from huesenv.humans import EXPORT_COLUMNS


def test_summary_csv_of_the_packaged_cohort(capsys):
    assert main(["humans", "summary", "--format", "csv"]) == 0
    captured = capsys.readouterr()
    table = pd.read_csv(io.StringIO(captured.out))
    assert {"word", "category", "n", "mode_coord", "mode_category", "consistency"} <= set(table.columns)
    assert len(table) == 100
    assert "NOT human data" in captured.err  # the notice stays out of the CSV but is never silent


def test_summary_table_says_it_is_a_reconstruction(capsys):
    assert main(["humans", "summary"]) == 0
    out = capsys.readouterr().out
    assert "RECONSTRUCTION" in out and "NOT human data" in out and "APPLE" in out and "All" in out


def test_summary_of_a_real_export_with_bad_rows(tmp_path, capsys):
    path = tmp_path / "real.csv"
    rows = [
        f"p{i},2025-01-01T00:00:00Z,Environment,61,SKY,{c},es,female,20-29,false"
        for i, c in enumerate(["K24", "K24", "K25", "L24", "J24"])
    ]
    path.write_text(
        "\n".join([",".join(EXPORT_COLUMNS), *rows, "p9,2025-01-01T00:00:00Z,,,SKY,Z9,es,f,20-29,no"])
    )
    assert main(["humans", "summary", "--humans", str(path)]) == 2  # the CLI reports the ValueError
    assert "line 7, field coordinate" in capsys.readouterr().err
    assert main(["humans", "summary", "--humans", str(path), "--skip-bad-rows", "--format", "csv"]) == 0
    captured = capsys.readouterr()
    table = pd.read_csv(io.StringIO(captured.out))
    assert table["word"].tolist() == ["SKY"] and table["n"].tolist() == [5]
    assert "NOT human data" not in captured.err and "skipped 1" in captured.err
