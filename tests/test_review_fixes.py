"""Bugs an independent review of the fourth wave found, each pinned where it was found."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from huesenv.humans import load_humans
from huesenv.humans.reconstruct import write_export
from huesenv.humans.splits import DataSplit


def test_a_split_part_keeps_participants_whose_ids_a_spreadsheet_would_run(tmp_path):
    """csv_safe quotes ``-2-3`` on export; a split must match the unquoted id when it subsets the file."""
    raw = pd.read_csv(load_humans().source, dtype=str)
    users = sorted(raw["userId"].unique())[:40]
    raw = raw[raw["userId"].isin(users)].copy()
    raw["userId"] = raw["userId"].map(lambda u: f"-{u}" if u in users[:6] else u)
    cohort = load_humans(write_export(raw, tmp_path / "cohort.csv.gz"))
    split = DataSplit.of(cohort, seed=0)
    for part in ("train", "evaluation"):
        written = load_humans(split.write_part(cohort, part, tmp_path / f"{part}.csv.gz"))
        assert len(written) == len(split.part(cohort, part)), part


def test_a_corrupt_gzip_is_a_one_line_error(tmp_path):
    from huesenv.trust import read_user_bytes

    blob = bytearray(gzip.compress(b"userId,word\n" * 1000))
    blob[20:40] = b"\xff" * 20
    path = tmp_path / "bad.csv.gz"
    path.write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="not a readable .gz file"):
        read_user_bytes(path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("name,hex\nsky,#00ff00,extra\n", "line 2: more fields than the header"),
        ('name,hex\n"' + "a" * 200_000 + '",#000000\n', "not a CSV row"),
    ],
)
def test_a_bad_naming_csv_row_is_a_one_line_error(tmp_path, text, message):
    from huesenv.naming_corpus import load_naming_corpus

    path = tmp_path / "corpus.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_naming_corpus(path)


def test_a_model_folder_with_an_at_sign_is_a_folder_not_a_prompt(tmp_path):
    from huesenv.agents.text_encoders import make_text_encoder

    with pytest.raises(ValueError, match="model@v2"):
        make_text_encoder(f"sentence-transformers:{tmp_path}/model@v2")


@pytest.mark.parametrize(
    "row, message", [("A1,0.6,0.6,10", "x \\+ y"), ("white,0.45,0.2,100", "Duv from the Planckian locus")]
)
def test_impossible_measurements_are_refused(tmp_path, row, message):
    from huesenv.displays.illuminant import cct_of
    from huesenv.displays.measurements import read_measurements

    cell, x, y, big_y = row.split(",")
    if cell == "white":
        with pytest.raises(ValueError, match=message):
            cct_of((float(x), float(y)))
        return
    path = tmp_path / "m.csv"
    path.write_text(f"display,cell,x,y,Y\nd1,{row}\n")
    with pytest.raises(ValueError, match=message):
        read_measurements(path)


def test_the_distributional_fit_gives_the_callers_thread_count_back():
    import torch

    from huesenv.experiments.rl.distributional import DistributionalConfig, _fit, _new_net

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        cfg = DistributionalConfig(hidden=8)
        net, _ = _new_net(cfg, 4)
        x = np.zeros((3, 4), np.float32)
        t = np.full((3, 480), 1 / 480, np.float32)
        _fit(net, cfg, 1, 0, (x, t), None)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_heldout_json_is_strict_json():
    from huesenv.experiments.rl.heldout import _strict_json

    value = _strict_json({"a": [float("nan"), np.float64(0.5), np.int64(3)], "b": float("inf")})
    assert value == {"a": [None, 0.5, 3], "b": None}
    json.dumps(value, allow_nan=False)
