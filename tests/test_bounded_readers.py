"""Every user file reader refuses a file over its cap with one line naming the file (issue 40)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import huesenv.trust
from huesenv.board import read_board_csv
from huesenv.collect import app as collect_app
from huesenv.commands import collect as collect_cmd
from huesenv.commands import humans as humans_cmd
from huesenv.commands import tournament as tournament_cmd
from huesenv.displays import facts, measurements
from huesenv.logs import answers
from huesenv.probes.gca import stimuli


def _big(tmp_path: Path, name: str, header: str = "a,b") -> Path:
    path = tmp_path / name
    path.write_text(header + "\n" + "x,y\n" * 200, encoding="utf-8")
    return path


def _one_line(err: pytest.ExceptionInfo[BaseException], path: Path) -> None:
    text = str(err.value)
    assert str(path) in text and "\n" not in text and "allowed" in text


def test_information_sheet_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _big(tmp_path, "info.txt")
    monkeypatch.setattr(collect_cmd, "MAX_INFORMATION_BYTES", 100)
    with pytest.raises(ValueError) as err:
        collect_cmd._information(str(path))
    _one_line(err, path)
    assert str(err.value).startswith("--information ")


def test_information_sheet_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _big(tmp_path, "info.txt")
    monkeypatch.setattr(collect_app, "MAX_INFORMATION_BYTES", 100)
    monkeypatch.setenv("HUESENV_COLLECT_INFORMATION", str(path))
    monkeypatch.setenv("HUESENV_COLLECT_DB", str(tmp_path / "c.db"))
    with pytest.raises(ValueError) as err:
        collect_app.app_from_env()
    _one_line(err, path)
    assert str(err.value).startswith("HUESENV_COLLECT_INFORMATION: ")
    assert not (tmp_path / "c.db").exists()


def test_humans_and_vocabulary_precheck(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _big(tmp_path, "h.csv")
    monkeypatch.setattr(huesenv.trust, "MAX_FILE_BYTES", 100)
    for flag in ("--humans", "--vocabulary"):
        with pytest.raises(ValueError) as err:
            humans_cmd._utf8_file(str(path), flag)
        _one_line(err, path)
        assert str(err.value).startswith(flag)


def test_tournament_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "summary.json"
    path.write_text('{"humans": {"n": 1}, "pad": "' + "x" * 200 + '"}', encoding="utf-8")
    run = SimpleNamespace(run_dir=str(tmp_path))
    assert tournament_cmd._humans(run) == {"n": 1}
    monkeypatch.setattr(huesenv.trust, "MAX_FILE_BYTES", 100)
    with pytest.raises(ValueError) as err:
        tournament_cmd._humans(run)
    _one_line(err, path)


def test_board_csv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import huesenv.board

    path = _big(tmp_path, "board.csv", "coordenada_x,coordenada_y,R,G,B")
    monkeypatch.setattr(huesenv.board, "MAX_BOARD_BYTES", 100)
    with pytest.raises(ValueError) as err:
        read_board_csv(path)
    _one_line(err, path)


def test_board_csv_still_reads(tmp_path: Path) -> None:
    from huesenv.board import format_coord, load_board

    rows = [f"{format_coord(i)[0]},{format_coord(i)[1:]},1,2,3" for i in range(480)]
    path = tmp_path / "board.csv"
    path.write_text("coordenada_x,coordenada_y,R,G,B\r\n" + "\r\n".join(rows) + "\r\n", encoding="utf-8")
    assert read_board_csv(path).rgb.shape == load_board().rgb.shape


def test_gca_manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _big(tmp_path, "manifest.csv", "file,object,condition,color,tau")
    monkeypatch.setattr(stimuli, "MAX_MANIFEST_BYTES", 100)
    with pytest.raises(ValueError) as err:
        stimuli.load_gca_folder(tmp_path)
    _one_line(err, path)


def test_answer_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _big(tmp_path, "answers.csv", "Palabra,Answer1")
    monkeypatch.setattr(answers, "MAX_ANSWER_TABLE_BYTES", 100)
    with pytest.raises(ValueError) as err:
        next(answers.iter_answer_records(path, agent="vlm"))
    _one_line(err, path)


def test_measurements(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _big(tmp_path, "m.csv")
    monkeypatch.setattr(measurements, "MAX_BYTES", 100)
    with pytest.raises(ValueError) as err:
        measurements.read_measurements(path)
    _one_line(err, path)


def test_display_facts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _big(tmp_path, "p.csv", "userId,colorGamut")
    monkeypatch.setattr(facts, "MAX_BYTES", 5)
    with pytest.raises(ValueError) as err:
        facts.display_facts(path)
    _one_line(err, path)


def test_config_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from huesenv.experiments import config

    path = tmp_path / "c.yaml"
    path.write_text("name: x\n" + "# pad\n" * 100, encoding="utf-8")
    monkeypatch.setattr(config, "MAX_CONFIG_BYTES", 100)
    with pytest.raises(ValueError) as err:
        config.load_config(path)
    _one_line(err, path)


def test_merged_run_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from huesenv.experiments.merge import load_run

    path = tmp_path / "summary.json"
    path.write_text("{}" + " " * 200, encoding="utf-8")
    monkeypatch.setattr(huesenv.trust, "MAX_FILE_BYTES", 100)
    with pytest.raises(ValueError) as err:
        load_run(tmp_path)
    _one_line(err, path)


def test_rllib_settings(tmp_path: Path) -> None:
    from huesenv.agents.rllib_policy import SETTINGS_FILE, load_rllib_policy

    path = tmp_path / SETTINGS_FILE
    path.write_text("{}" + " " * (1 << 20), encoding="utf-8")
    with pytest.raises(ValueError) as err:
        load_rllib_policy(tmp_path)
    _one_line(err, path)


def test_session_key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from huesenv.collect.db import SECRET_KEY_ENV, session_key

    path = tmp_path / "c.db.key"
    path.write_text("k" * (1 << 17), encoding="utf-8")
    path.chmod(0o600)
    monkeypatch.delenv(SECRET_KEY_ENV, raising=False)
    with pytest.raises(ValueError) as err:
        session_key(SimpleNamespace(path=tmp_path / "c.db"), path)  # type: ignore[arg-type]
    _one_line(err, path)


def test_lexicon_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from huesenv.experiments import naming

    path = _big(tmp_path, "lexicon_map.csv", "coord,word")
    monkeypatch.setattr(naming, "MAX_LABELS_BYTES", 100)
    with pytest.raises(ValueError) as err:
        naming.lexicon_system(path)
    _one_line(err, path)
