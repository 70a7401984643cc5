"""The analysis loop: exports exclude unfinished participants by default, the consensus map as a category
map compared with the macro-colour map, and people's GCA answers scored by the probe's metrics."""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

pytest.importorskip("flask")

from huesenv.board import load_board  # noqa: E402
from huesenv.categories import MACRO_COLOURS  # noqa: E402
from huesenv.cli import main  # noqa: E402
from huesenv.collect.app import CollectConfig, create_app  # noqa: E402
from huesenv.collect.consensus import compare_maps, load_category_map, package_map, table6_labels  # noqa: E402
from huesenv.collect.db import SECRET_KEY_ENV  # noqa: E402
from huesenv.collect.export import exclusions, export, gca_frame, participants_frame, word_answers_frame  # noqa: E402
from huesenv.collect.testing import ClientParticipant  # noqa: E402
from huesenv.probes.replies import survey_replies  # noqa: E402
from huesenv.vocabulary import words  # noqa: E402


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch):
    monkeypatch.delenv(SECRET_KEY_ENV, raising=False)


def make_app(tmp_path, **kw):
    kw.setdefault("start_rate", None)
    return create_app(CollectConfig(db_path=tmp_path / "collect.sqlite3", **kw))


# -- who is exported ------------------------------------------------------------------------------------
def test_exports_leave_out_unfinished_participants_and_say_so(tmp_path, capsys):
    app = make_app(tmp_path, vocabulary=words()[:4], words_per_participant=3, show_feedback=False)
    done = ClientParticipant(app.test_client())
    done.answer_words(done.onboard(d_forced="0"), lambda w: "C3")
    half = ClientParticipant(app.test_client())
    half.answer_words(half.onboard(d_forced="1"), lambda w: "D4", limit=2)
    db = tmp_path / "collect.sqlite3"
    assert len(word_answers_frame(db)) == 3
    assert len(word_answers_frame(db, include_unfinished=True)) == 5
    assert exclusions(db, "words").unfinished == 1
    out = tmp_path / "w.csv"
    assert main(["collect", "export", "--db", str(db), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert (
        "wrote 3 rows" in said
        and "1 unfinished participant(s) excluded (--include-unfinished keeps them)" in said
    )
    assert main(["collect", "export", "--db", str(db), "-o", str(out), "--include-unfinished"]) == 0
    assert "wrote 5 rows" in capsys.readouterr().out
    # display facts travel with the answers and can exclude
    frame = word_answers_frame(db, include_unfinished=True)
    assert frame["forcedColors"].tolist() == [0, 0, 0, 1, 1]
    assert len(word_answers_frame(db, include_unfinished=True, display="no-forced-colors")) == 3
    assert main(["collect", "export", "--db", str(db), "-o", str(out), "--display", "passed"]) == 0
    assert "wrote 3 rows" in capsys.readouterr().out  # the scripted participants pass the screen check
    assert len(word_answers_frame(db, include_unfinished=True, display="checked")) == 3  # forced colours out
    people = participants_frame(db)
    assert people["forcedColors"].tolist() == [0, 1] and people["screenCheckHits"].tolist() == [4, 4]
    assert (
        people["screenCheckFalseAlarms"].tolist() == [0, 0] and people["screenCheckSeen"][0] == "t1,t3,t4,t6"
    )


def test_human_consistency_per_display_stratum(tmp_path, capsys):
    from huesenv.collect.strata import consistency_by_display

    app = make_app(tmp_path, vocabulary=words()[:3], words_per_participant=3, show_feedback=False)
    for k in range(8):  # four with forced colours answer far apart, four without agree
        p = ClientParticipant(app.test_client())
        forced = k % 2
        coords = ["A1", "P30", "H15", "C27"][k // 2] if forced else "F14"
        p.answer_words(p.onboard(d_forced=str(forced)), lambda w, c=coords: c)
    table = consistency_by_display(tmp_path / "collect.sqlite3", "forced-colors").set_index("stratum")
    assert table.loc["0", "participants"] == 4 and table.loc["1", "participants"] == 4
    assert table.loc["0", "consistency"] == 1.0 and table.loc["0", "words_scored"] == 3
    assert (
        main(["collect", "consistency", "--db", str(tmp_path / "collect.sqlite3"), "--by", "screen-check"])
        == 0
    )
    out = capsys.readouterr().out
    assert "passed" in out and "Human Consistency" in out


# -- the consensus as a category map ----------------------------------------------------------------------
def _paint(tmp_path, paintings):
    app = make_app(tmp_path, task="tessellation")
    for painting in paintings:
        p = ClientParticipant(app.test_client())
        page = p.onboard()
        assert (
            p.post("/tessellation", {"csrf_token": page.token, "categories": ",".join(painting)}).path
            == "/done"
        )
    out = tmp_path / "consensus.csv"
    assert export(tmp_path / "collect.sqlite3", out, task="tessellation") == 480
    return out


def test_consensus_loads_as_a_category_map_and_is_compared(tmp_path, capsys):
    base = list(load_board().categories)
    changed = [i for i in range(0, 480, 16)]  # 30 cells every painter paints differently
    paintings = []
    for k in range(3):
        painting = list(base)
        for i in changed:
            painting[i] = next(c for c in MACRO_COLOURS if c != base[i])
        if k == 0:
            painting[5] = "Pink" if base[5] != "Pink" else "Red"  # one painter alone: outvoted
        paintings.append(painting)
    out = _paint(tmp_path, paintings)
    cmap = load_category_map(out)
    assert cmap.n == 3 and len(cmap.categories) == 480
    result = compare_maps(cmap)
    assert result.n_cells == 480 and result.agreement == pytest.approx(450 / 480)
    confident = result.by_confidence.set_index("min_agreement")
    assert confident.loc[0.75, "n_cells"] == 479 and confident.loc[0.75, "agreement"] == pytest.approx(
        449 / 479
    )
    assert int(result.confusion.to_numpy().sum()) == 480
    assert result.by_category["cells_consensus"].sum() == 480
    assert "reconstructed" in result.reference  # the report names its reference: not people
    # the package map against itself agrees everywhere
    assert compare_maps(package_map()).agreement == 1.0
    table6 = compare_maps(cmap, table6_labels())
    assert table6.n_cells == len(table6_labels()) > 100
    assert main(["collect", "compare-categories", "--consensus", str(out), "--reference", "table6"]) == 0
    assert "Table 6" in capsys.readouterr().out


@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda f: f.iloc[1:], "1 cells missing"),
        (lambda f: f.assign(category=["Teal"] + list(f["category"][1:])), "line 2, field category"),
        (lambda f: f.assign(coord=["Z9"] + list(f["coord"][1:])), "line 2, field coord"),
        (lambda f: f.drop(columns=["agreement"]), "field agreement: missing column"),
        (lambda f: f.drop(columns=["agreement", "n"]), "field agreement, n: missing column"),
        (lambda f: f.assign(n=-3), "line 2, field n: -3"),
        (lambda f: f.assign(n=2.5), "line 2, field n: 2.5"),
    ],
)
def test_bad_consensus_tables_are_named(tmp_path, capsys, edit, expected):
    out = _paint(tmp_path, [list(load_board().categories)])
    bad = tmp_path / "bad.csv"
    edit(pd.read_csv(out)).to_csv(bad, index=False)
    with pytest.raises(ValueError, match=expected):
        load_category_map(bad)
    assert main(["collect", "compare-categories", "--consensus", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected in err[0]


# -- people's GCA answers as probe replies -------------------------------------------------------------
def test_survey_rows_become_replies():
    rows = [
        (
            2,
            {
                "userId": "u1",
                "kind": "trial",
                "stimulusId": "prior/apple/red/000",
                "choice": "white",
                "threshold": "",
            },
        ),
        (
            3,
            {
                "userId": "u1",
                "kind": "attention",
                "stimulusId": "shape/x/blue/050",
                "choice": "blue",
                "threshold": "",
            },
        ),
        (
            4,
            {
                "userId": "u1",
                "kind": "trial",
                "stimulusId": "prior/apple/red/050",
                "choice": "red",
                "threshold": "",
            },
        ),
        (5, {"userId": "u1", "kind": "introspection", "stimulusId": "", "choice": "", "threshold": "40"}),
        (
            6,
            {
                "userId": "u2",
                "kind": "trial",
                "stimulusId": "shape/star/blue/010",
                "choice": "",
                "threshold": "",
            },
        ),
    ]
    replies, left = survey_replies(rows)
    assert left["attention"] == 1 and left["unanswered"] == 1
    assert left["flags_known"] == 0  # no flags, no distractor/expected columns: no exclusion could be applied
    assert [r["trial_id"] for _, r in replies] == [
        "gca/prior/apple/red/000/colour",
        "gca/prior/apple/red/050/colour",
        "gca/prior/apple/red/introspection/text-prior",  # one rule, paired with the pair's colour questions
    ]
    assert {r["agent"] for _, r in replies} == {"human:u1"} and replies[-1][1]["reply"] == "threshold=40%"
    with pytest.raises(ValueError, match="line 7, field kind"):
        survey_replies(
            [(7, {"userId": "u", "kind": "quiz", "stimulusId": "", "choice": "", "threshold": ""})]
        )


def _item(user, kind, sid="", choice="", threshold="", **flags):
    return {
        "userId": user,
        "kind": kind,
        "stimulusId": sid,
        "choice": choice,
        "threshold": threshold,
        **flags,
    }


def test_the_gca_papers_exclusions_apply_to_survey_replies():
    """2+ distractor choices or a failed attention check exclude a participant (GCA paper §3.2); one
    distractor choice, or an attention check left unanswered, does not."""
    from huesenv.probes.replies import excluded_participants, survey_note

    t = "prior/apple/red/0"
    rows = list(
        enumerate(
            [
                _item("twice", "trial", t + "10", "green", choseDistractor="True"),
                _item("twice", "trial", t + "20", "green", choseDistractor="True"),
                _item("twice", "introspection", threshold="50"),
                _item("failed", "trial", t + "10", "red", choseDistractor="False"),
                _item("failed", "attention", "attention/1", "blue", attentionPassed="False"),
                _item("once", "trial", t + "10", "green", choseDistractor="True"),
                _item("once", "trial", t + "20", "red", choseDistractor="False"),
                _item("once", "attention", "attention/1", "", attentionPassed=""),  # unanswered: not failed
            ],
            start=2,
        )
    )
    excluded, known = excluded_participants(rows)
    assert known and excluded == {
        "twice": "chose the distractor on 2 trials",
        "failed": "failed 1 attention check(s)",
    }
    replies, left = survey_replies(rows)
    assert {r["agent"] for _, r in replies} == {"human:once"}
    assert left["excluded_participants"] == 2 and left["excluded_replies"] == 4
    assert "2 participant(s) excluded" in survey_note(left, False) and "4 of their replies" in survey_note(
        left, False
    )
    kept, left = survey_replies(rows, keep_excluded=True)
    assert {r["agent"] for _, r in kept} == {"human:once", "human:twice", "human:failed"}
    assert "kept (--keep-excluded)" in survey_note(left, True)
    # an older export without the flags: the same rule from choice vs distractor / expected
    older = [
        (n, {k: v for k, v in r.items() if k not in ("choseDistractor", "attentionPassed")}) for n, r in rows
    ]
    older[0][1]["distractor"] = older[1][1]["distractor"] = "green"
    older[4][1]["expected"] = "red"
    assert set(excluded_participants(older)[0]) == {"twice", "failed"}


def test_keep_excluded_needs_replies(capsys):
    assert main(["probe", "gca", "--keep-excluded", "--export", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--keep-excluded" in err and "\n" not in err


@pytest.mark.integration  # builds the probe's full GCA trial list twice (~20-60 s)
def test_probe_replies_drop_participants_the_paper_excludes(tmp_path, capsys):
    from huesenv.logs.io import read_records

    app = make_app(
        tmp_path, task="gca", gca_trials=12, gca_attention_positions=(3,), gca_introspection="last"
    )
    db = tmp_path / "collect.sqlite3"
    for distracted in (False, True):
        p = ClientParticipant(app.test_client())
        page = p.onboard()
        for _ in range(40):  # 12 trials, 1 attention check, 1 introspection
            if page.path != "/gca":
                break
            page = _answer_by_rule(p, page, db, 50, distracted=distracted)
        assert page.path == "/done"
    out = tmp_path / "gca.csv"
    export(db, out, task="gca")
    assert main(["probe", "gca", "--replies", str(out), "--out", str(tmp_path / "a")]) == 0
    said = capsys.readouterr().out
    assert "GCA exclusions: 1 participant(s) excluded" in said
    assert len({r.agent_id for r in read_records(tmp_path / "a" / "gca.jsonl").records}) == 1
    assert main(["probe", "gca", "--replies", str(out), "--out", str(tmp_path / "b"), "--keep-excluded"]) == 0
    assert "kept (--keep-excluded)" in capsys.readouterr().out
    assert len({r.agent_id for r in read_records(tmp_path / "b" / "gca.jsonl").records}) == 2


@pytest.mark.integration  # builds the probe's full GCA trial list (~10-30 s)
def test_probe_scores_people_from_the_apps_gca_export(tmp_path, capsys):
    from huesenv.logs.io import read_records
    from huesenv.probes.gca.metrics import empirical_thresholds, faithfulness, stated_thresholds

    app = make_app(
        tmp_path, task="gca", gca_trials=12, gca_attention_positions=(3,), gca_introspection="last"
    )
    db = tmp_path / "collect.sqlite3"
    for rule in (30, 60):  # people who say "colour" once `rule` % of the object is coloured, and state it
        p = ClientParticipant(app.test_client())
        page = p.onboard()
        while page.path == "/gca":
            page = _answer_by_rule(p, page, db, rule)
        assert page.path == "/done"
    out = tmp_path / "gca.csv"
    export(db, out, task="gca")
    assert main(["probe", "gca", "--replies", str(out), "--out", str(tmp_path / "scored")]) == 0
    said = capsys.readouterr().out
    assert "replies" in said and "gca_report" in said
    records = read_records(tmp_path / "scored" / "gca.jsonl").records
    assert len({r.agent_id for r in records}) == 2 and all(r.agent_id.startswith("human:") for r in records)
    stated = stated_thresholds(records).groupby("agent_id")["mean"].mean()
    assert sorted(stated.round()) == [30.0, 60.0]
    assert (faithfulness(records)["faithfulness"] == 1.0).all()  # they answered by the rule they stated
    assert not empirical_thresholds(records).empty
    frame = gca_frame(db)
    assert frame.loc[frame.kind == "trial", "responseMs"].notna().all()


def _answer_by_rule(p, page, db, rule: int, distracted: bool = False):
    import re

    position = int(re.search(r'name="position" value="(\d+)"', page.text).group(1))
    data = {"csrf_token": page.token, "position": str(position)}
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT i.kind, i.expected, s.colour, s.tau, i.distractor FROM gca_items i"
            " LEFT JOIN gca_stimuli s ON s.stimulus_id = i.stimulus_id"
            " WHERE i.participant_id = (SELECT id FROM participants ORDER BY serial DESC LIMIT 1)"
            " AND i.position = ?",
            (position,),
        ).fetchone()
    kind, expected, colour, tau, distractor = row
    if kind == "introspection":
        data["threshold"] = str(rule)
    elif distracted and kind == "trial":
        data["choice"], data["confidence"] = distractor, "6"
    else:
        data["choice"] = expected if kind == "attention" else (colour if tau >= rule else "white")
        data["confidence"] = "6"
    return p.post("/gca", data)


@pytest.mark.parametrize(
    "name, content", [("bytes.csv", bytes(range(256)) * 4), ("empty.csv", b""), ("x.parquet", b"PAR1")]
)
def test_unreadable_consensus_files_are_one_line(tmp_path, capsys, name, content):
    bad = tmp_path / name
    bad.write_bytes(content)
    assert main(["collect", "compare-categories", "--consensus", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and name in err[0] and "cannot read it" in err[0]
