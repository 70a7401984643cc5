"""The training logger: the curve CSV (late metrics, resume) and the TensorBoard tracker."""

from __future__ import annotations

import csv

import pytest

from huesenv.experiments.rl.logger import TrainLogger


def _rows(path):
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_curve_widens_for_late_metrics_and_resume_drops_later_rows(tmp_path):
    log = TrainLogger(tmp_path, tracker="none", quiet=True)
    log.log(10, {"points": 0.1})
    log.log(20, {"points": 0.2, "eval_points": 0.5})  # an evaluation appears later
    log.log(30, {"points": 0.3})
    log.close()
    rows = _rows(tmp_path / "curve.csv")
    assert [r["step"] for r in rows] == ["10", "20", "30"]
    assert rows[0]["eval_points"] == "" and float(rows[1]["eval_points"]) == 0.5
    again = TrainLogger(tmp_path, tracker="none", resume_step=20, quiet=True)  # checkpoint at step 20
    again.log(30, {"points": 0.33})
    again.close()
    rows = _rows(tmp_path / "curve.csv")
    assert [r["step"] for r in rows] == ["10", "20", "30"] and float(rows[2]["points"]) == 0.33


def test_tracker_choice_is_checked(tmp_path):
    with pytest.raises(ValueError, match="--tracker 'mlflow'"):
        TrainLogger(tmp_path, tracker="mlflow")


def test_tensorboard_events(tmp_path):
    pytest.importorskip("tensorboard")
    log = TrainLogger(tmp_path, tracker="tensorboard", quiet=True)
    log.log(1, {"points": 1.0})
    log.close()
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))
