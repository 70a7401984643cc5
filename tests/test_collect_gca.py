"""GCA survey: the paper's item layout, response validation, the probes generator's images, export."""

from __future__ import annotations

import io
import re
import sqlite3

import numpy as np
import pytest

pytest.importorskip("flask")

from huesenv.collect.app import CollectConfig, create_app  # noqa: E402
from huesenv.collect.export import export, gca_frame  # noqa: E402
from huesenv.collect.tasks.gca import (  # noqa: E402
    PAPER_ATTENTION_POSITIONS,
    GCAServedStimulus,
    attention_slots,
    introspection_condition,
    plan_items,
)
from huesenv.collect.testing import ClientParticipant  # noqa: E402

COLOURS = ("red", "green", "blue", "yellow")


def fake_source(rng: np.random.Generator, n_trials: int, n_attention: int) -> list[GCAServedStimulus]:
    """Plain stimuli (tiny PNGs) to test the survey logic without the image generator."""
    from PIL import Image

    out = []
    for k in range(n_trials + n_attention):
        colour = COLOURS[int(rng.integers(len(COLOURS)))]
        buf = io.BytesIO()
        Image.new("RGB", (8, 8), (k, 0, 0)).save(buf, format="PNG")
        out.append(
            GCAServedStimulus(
                f"fake/{k}/{colour}",
                f"thing {k}",
                "shape",
                colour,
                float(10 * (k % 11)),
                "purple",
                buf.getvalue(),
            )
        )
    return out


@pytest.mark.parametrize("condition", ["first", "last"])
def test_paper_layout(condition):
    rng = np.random.default_rng(0)
    stim = fake_source(rng, 90, 5)
    items = plan_items(stim[:90], stim[90:], condition, PAPER_ATTENTION_POSITIONS, rng)
    assert len(items) == 96  # 90 trials + 5 attention checks + 1 introspection question
    kinds = [it.kind for it in items]
    assert [i + 1 for i, k in enumerate(kinds) if k == "attention"] == [5, 25, 45, 65, 85]
    assert kinds.index("introspection") == (0 if condition == "first" else 95)
    assert kinds.count("trial") == 90
    for it in items:
        if it.kind == "introspection":
            assert "x% of its pixels" in it.question and it.options == ()
            continue
        s = next(x for x in stim if x.stimulus_id == it.stimulus_id)
        assert sorted(it.options) == sorted(["white", s.colour, "purple"]) and it.distractor == "purple"
        if it.kind == "attention":
            assert it.expected in it.options and it.expected in it.question
        else:
            assert it.question == f"What color is the {s.object} in the image?"
    # the three buttons are not always in the same order
    assert len({it.options.index("white") for it in items if it.kind == "trial"}) == 3


def test_attention_slots_and_introspection_assignment():
    assert attention_slots(90, PAPER_ATTENTION_POSITIONS, "first") == [5, 25, 45, 65, 85]
    assert attention_slots(3, (2, 5, 25), "last") == [2, 5]  # 6 items: 25 does not fit
    assert attention_slots(3, (2, 6), "last") == [2]  # item 6 would be the introspection question
    assert attention_slots(3, (1, 2), "first") == [2]  # item 1 is the introspection question
    assert [introspection_condition("alternate", s) for s in (1, 2, 3, 4)] == [
        "first",
        "last",
        "first",
        "last",
    ]
    with pytest.raises(ValueError):
        introspection_condition("middle", 1)


def make_app(tmp_path, source=fake_source, **kw):
    kw.setdefault("gca_trials", 4)
    kw.setdefault("gca_attention_positions", (3,))
    return create_app(
        CollectConfig(db_path=tmp_path / "collect.sqlite3", task="gca", gca_source=source, **kw)
    )


def test_http_flow_validation_and_export(tmp_path):
    app = make_app(tmp_path, gca_introspection="last")
    p = ClientParticipant(app.test_client())
    page = p.onboard()
    assert page.path == "/gca" and "Item 1 of 6" in page.text
    position = re.search(r'name="position" value="(\d+)"', page.text).group(1)
    options = re.findall(r'name="choice" value="([^"]+)"', page.text)
    assert len(options) == 3 and "white" in options
    img = p.client.get(f"/gca/image/{position}.png")
    assert img.status_code == 200 and img.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert p.client.get("/gca/image/99.png").status_code == 404
    for bad in [
        {"choice": "magenta", "confidence": "5"},
        {"choice": options[0], "confidence": "0"},
        {"choice": options[0], "confidence": "11"},
        {"choice": options[0], "confidence": "x"},
        {"choice": options[0]},
    ]:
        bad_page = p.post("/gca", {"csrf_token": page.token, "position": position, **bad})
        assert bad_page.status == 400 and "field" in bad_page.text, bad
    first_token = page.token
    page = p.post(
        "/gca", {"csrf_token": first_token, "position": position, "choice": options[0], "confidence": "9"}
    )
    assert "Item 2 of 6" in page.text
    replay = p.post(
        "/gca", {"csrf_token": first_token, "position": position, "choice": options[1], "confidence": "1"}
    )
    assert replay.status == 409
    page, n = p.answer_gca(
        page, choose=lambda opts: next(o for o in opts if o not in ("white", "purple")), threshold=35
    )
    assert page.path == "/done" and n == 5

    frame = gca_frame(tmp_path / "collect.sqlite3")
    assert list(frame["kind"]) == ["trial", "trial", "attention", "trial", "trial", "introspection"]
    assert frame["choice"].iloc[0] == options[0] and frame["confidence"].iloc[0] == 9
    assert frame.loc[frame.kind == "attention", "attentionPassed"].tolist() == [True]
    assert frame.loc[frame.kind == "introspection", "threshold"].tolist() == [35]
    assert frame.loc[frame.kind == "trial", "choseDistractor"].iloc[1:].tolist() == [False, False, False]
    assert set(frame["condition"]) == {"last"}
    assert frame.loc[frame.kind == "attention", "item"].tolist() == [3]
    out = tmp_path / "gca.csv"
    assert export(tmp_path / "collect.sqlite3", out, task="gca") == 6


def test_same_seed_same_survey(tmp_path):
    def plan(folder):
        folder.mkdir()
        app = make_app(folder, seed=3)
        for _ in range(2):
            ClientParticipant(app.test_client()).onboard()
        with sqlite3.connect(folder / "collect.sqlite3") as conn:
            return conn.execute(
                "SELECT p.serial, i.position, i.kind, i.stimulus_id, i.options, i.expected"
                " FROM gca_items i JOIN participants p ON p.id = i.participant_id"
                " ORDER BY p.serial, i.position"
            ).fetchall()

    a, b = plan(tmp_path / "a"), plan(tmp_path / "b")
    assert a == b
    assert [r[2] for r in a if r[0] == 1][0] == "introspection"  # serial 1: introspection first
    assert [r[2] for r in a if r[0] == 2][-1] == "introspection"  # serial 2: last


def test_probes_generator_stimuli(tmp_path):
    from PIL import Image

    import huesenv.probes.gca.stimuli  # noqa: F401  (a broken import must fail, not skip)
    from huesenv.collect.gca_probes import stratified_counts

    assert stratified_counts(90) == {"prior": 39, "counterfactual": 12, "shape": 39}
    assert sum(stratified_counts(7).values()) == 7
    app = create_app(
        CollectConfig(
            db_path=tmp_path / "collect.sqlite3", task="gca", gca_trials=6, gca_attention_positions=(2,)
        )
    )
    p = ClientParticipant(app.test_client())
    page = p.onboard()
    with sqlite3.connect(tmp_path / "collect.sqlite3") as conn:
        rows = conn.execute(
            "SELECT i.position, i.kind, s.condition, s.colour, i.distractor, i.options FROM gca_items i"
            " JOIN gca_stimuli s ON s.stimulus_id = i.stimulus_id ORDER BY i.position"
        ).fetchall()
    assert len(rows) == 7
    conditions = [r[2] for (r,) in zip(rows) if r[1] == "trial"]
    assert sorted(conditions) == sorted(["prior"] * 3 + ["counterfactual"] * 1 + ["shape"] * 2)
    for _, _, _, colour, distractor, options in rows:
        assert distractor not in ("white", colour, "grey") and colour in options
    position = rows[0][0]
    img = Image.open(io.BytesIO(p.client.get(f"/gca/image/{position}.png").data))
    assert img.size == (512, 512)
    page, n = p.answer_gca(page, choose=lambda opts: "white")
    assert page.path == "/done" and n == 8
