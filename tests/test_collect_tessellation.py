"""Tessellation task: painting validation, one submission each, the consensus map and its agreement."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("flask")

from huesenv.board import load_board  # noqa: E402
from huesenv.categories import MACRO_COLOURS  # noqa: E402
from huesenv.collect.app import CollectConfig, create_app  # noqa: E402
from huesenv.collect.export import export, tessellation_frame  # noqa: E402
from huesenv.collect.tasks.tessellation import consensus_table, parse_painting  # noqa: E402
from huesenv.collect.testing import ClientParticipant  # noqa: E402


def test_consensus_mode_agreement_and_ties():
    base = list(load_board().categories)
    a = list(base)
    b = list(base)
    c = list(base)
    b[0], c[0] = "Red", "Red"  # cell A1: 2 of 3 say Red
    a[1], b[1], c[1] = "Pink", "Blue", "Green"  # A2: three-way tie -> first in MACRO_COLOURS order
    table = consensus_table([a, b, c])
    assert list(table.columns[:4]) == ["coord", "category", "agreement", "n"]
    assert table.loc[0, "category"] == "Red" and table.loc[0, "agreement"] == pytest.approx(2 / 3)
    assert table.loc[1, "category"] == "Green" and table.loc[1, "agreement"] == pytest.approx(1 / 3)
    rest = table.iloc[2:]
    assert (rest["category"].to_numpy() == np.asarray(base[2:])).all() and (rest["agreement"] == 1.0).all()
    votes = table[[f"votes_{c}" for c in MACRO_COLOURS]].to_numpy()
    assert (votes.sum(axis=1) == 3).all()
    with pytest.raises(ValueError, match="at least one"):
        consensus_table([])


def test_painting_validation():
    good = ",".join(load_board().categories)
    assert len(parse_painting(good.lower())) == 480
    for bad, msg in [
        ("", "480"),
        (",".join(["Red"] * 479), "got 479"),
        (",".join(["Red"] * 479 + [""]), "not painted"),
        (",".join(["Grey"] * 480), "not painted"),
        ("Red," * 5000, "480"),
    ]:
        with pytest.raises(ValueError, match=msg):
            parse_painting(bad)


def test_http_flow_consensus_page_and_export(tmp_path):
    app = create_app(CollectConfig(db_path=tmp_path / "collect.sqlite3", task="tessellation"))
    base = list(load_board().categories)
    for k in range(3):
        p = ClientParticipant(app.test_client())
        page = p.onboard()
        assert page.path == "/tessellation" and page.text.count('class="cell"') == 480
        painting = list(base)
        painting[479] = MACRO_COLOURS[k]
        bad = p.post("/tessellation", {"csrf_token": page.token, "categories": ",".join(painting[:-1])})
        assert bad.status == 400 and "field categories" in bad.text
        token = page.token
        page = p.post("/tessellation", {"csrf_token": token, "categories": ",".join(painting)})
        assert page.path == "/done"
        again = p.post("/tessellation", {"csrf_token": token, "categories": ",".join(painting)})
        assert again.status == 409
    page = ClientParticipant(app.test_client()).get("/tessellation/consensus")
    assert "Consensus of 3 participants" in page.text
    assert re.search(r'title="P30: Brown \(33%\)"', page.text)  # Brown/Red/Orange tie -> Brown, agreement 1/3

    out = tmp_path / "consensus.csv"
    assert export(tmp_path / "collect.sqlite3", out, task="tessellation") == 480
    table = pd.read_csv(out)
    assert table.loc[479, "coord"] == "P30" and table.loc[479, "category"] == "Brown"
    assert table["agreement"].iloc[:479].eq(1.0).all()
    raw = tessellation_frame(tmp_path / "collect.sqlite3", raw=True)
    assert len(raw) == 3 * 480 and raw["userId"].nunique() == 3
