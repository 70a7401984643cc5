"""Word/agent/category tables against a small hand-made human reference, the report writer and the CLI."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from huesenv.board import cells_to_xy, parse_coord
from huesenv.cli import main
from huesenv.logs import LogRecord, LogWriter
from huesenv.metrics import agent_level, category_level, severity, word_level, write_metrics
from huesenv.metrics.aggregate import WORD_COLUMNS
from huesenv.stats import chi2_threshold, hotelling_two_sample, mahalanobis_d2, sample_covariance


class TinyHumans:
    """The part of ``huesenv.humans.HumanResponses`` the metrics use, over hand-made answers."""

    def __init__(self, answers: dict[str, list[str]]):
        self._cells = {w: np.array([parse_coord(c) for c in cs]) for w, cs in answers.items()}
        self.words = tuple(answers)

    def cells(self, word):
        return self._cells[word]

    def xy(self, word):
        return cells_to_xy(self._cells[word])

    def mode_cell(self, word):
        return Counter(self._cells[word].tolist()).most_common(1)[0][0]


HUMANS = TinyHumans(
    {
        "BANANA": ["I4", "I4", "I5", "J4", "H4", "I3", "I4", "J5"],  # Food, yellow
        "WINTER": ["L24", "L24", "L25", "M24", "K24", "L23"],  # Environment, blue
        "APPLE": ["A13", "A13", "B13", "A12", "A14", "B12"],  # Food, red
    }
)
HUMAN_TABLE = pd.DataFrame({"word": ["BANANA", "WINTER", "APPLE"], "fail_rate": [0.10, 0.20, 0.30]})


def _ranked(agent, word, cells):
    return LogRecord.create(
        kind="word_query",
        run_id="r",
        agent_id=agent,
        word=word,
        cells=cells,
        scores=list(np.linspace(1, 0.5, len(cells))),
        created=0.0,
    )


def _sampled(agent, word, cells, **kw):
    return LogRecord.create(
        kind="word_query",
        run_id="r",
        agent_id=agent,
        word=word,
        cells=cells,
        extra={"sampled": True, **kw},
        created=0.0,
    )


RECORDS = [
    _ranked("clip:ViT-B-32/openai", "BANANA", ["I4", "I5", "J4", "H4", "I3", "A1"]),
    _ranked("clip:ViT-B-32/openai", "WINTER", ["I18", "I17", "H18"]),  # fewer than k cells
    _ranked("clip:ViT-B-32/openai", "APPLE", ["N9", "N10", "M9", "O9", "N8"]),
    _sampled("vlm:demo", "BANANA", ["J7", "I4", "I4", "K10"]),
    _sampled("vlm:demo", "BANANA", ["I4"], invalid_answers=[{"column": "Answer6", "text": "yellowish"}]),
    LogRecord.create(
        kind="word_query",
        run_id="r",
        agent_id="vlm:demo",
        word="WINTER",
        valid=False,
        raw_text="?",
        created=0.0,
    ),
    _sampled("vlm:demo", "WINTER", ["L24"] * 5),
    _ranked("clip:ViT-B-32/openai", "ZIZAX", ["I18"]),  # nonsense: no human reference
]


@pytest.fixture(scope="module")
def words():
    return word_level(RECORDS, HUMANS, alpha=0.05, top_k=5, human_table=HUMAN_TABLE)


def test_word_level_columns_and_values(words):
    assert list(words.columns[:14]) == [
        "agent",
        "word",
        "category",
        "top1_coord",
        "mahalanobis_d2",
        "mahalanobis_outlier",
        "mahalanobis_lab_d2",  # the lightness-aware variant beside the paper's xy test (issue 37)
        "mahalanobis_lab_outlier",
        "hotelling_t2",
        "hotelling_p",
        "hotelling_fail",
        "agent_color",
        "human_color",
        "human_fail_rate",
    ]
    assert list(words.columns) == WORD_COLUMNS
    assert WORD_COLUMNS[-2:] == ["cloud_tie", "human_implied_false_alarm"]
    assert len(words) == 5 and "ZIZAX" not in set(words["word"])
    row = words.set_index(["agent", "word"]).loc[("clip:ViT-B-32/openai", "BANANA")]
    human = HUMANS.xy("BANANA")
    top1 = cells_to_xy([parse_coord("I4")])
    d2 = mahalanobis_d2(top1, human.mean(axis=0), sample_covariance(human))[0]
    assert row["mahalanobis_d2"] == pytest.approx(d2) and bool(row["mahalanobis_outlier"]) == (
        d2 > chi2_threshold(0.05)
    )
    cloud = cells_to_xy([parse_coord(c) for c in ["I4", "I5", "J4", "H4", "I3"]])  # top-5, not the 6th cell
    assert row["hotelling_t2"] == pytest.approx(hotelling_two_sample(cloud, human).t2)
    assert row["n_cloud"] == 5 and row["human_fail_rate"] == 0.10
    assert (row["agent_color"], row["human_color"], row["severity"]) == ("Yellow", "Yellow", "match")


def test_sampled_agent_pools_samples_and_counts_invalid(words):
    w = words.set_index(["agent", "word"])
    banana = w.loc[("vlm:demo", "BANANA")]
    # samples J7, I4, I4, K10, I4 → distinct cells by frequency: I4 (3), then J7 and K10 (1 each, first sampled first)
    assert banana["top1_coord"] == "I4" and banana["n_cloud"] == 3 and banana["n_invalid"] == 1
    assert banana["n_answers"] == 5
    human = HUMANS.xy("BANANA")
    cloud = cells_to_xy([parse_coord(c) for c in ("I4", "J7", "K10")])
    assert banana["hotelling_t2"] == pytest.approx(hotelling_two_sample(cloud, human).t2)
    winter = w.loc[("vlm:demo", "WINTER")]
    assert (
        winter["n_invalid"] == 1 and winter["n_cloud"] == 1
    )  # the unparseable record is counted, not dropped
    human = HUMANS.xy("WINTER")
    assert winter["hotelling_t2"] == pytest.approx(
        hotelling_two_sample(cells_to_xy([parse_coord("L24")]), human).t2
    )


def test_sampled_cloud_all_uses_every_sample():
    df = word_level(RECORDS, HUMANS, top_k=5, human_table=HUMAN_TABLE, sampled_cloud="all")
    w = df.set_index(["agent", "word"])
    assert w.loc[("vlm:demo", "BANANA"), "n_cloud"] == 5 and w.loc[("vlm:demo", "WINTER"), "n_cloud"] == 5
    human = HUMANS.xy("WINTER")
    assert w.loc[("vlm:demo", "WINTER"), "hotelling_t2"] == pytest.approx(
        hotelling_two_sample(cells_to_xy([parse_coord("L24")] * 5), human).t2
    )
    # rankings are the same in both modes
    ranked = ("clip:ViT-B-32/openai", "BANANA")
    default = word_level(RECORDS, HUMANS, top_k=5, human_table=HUMAN_TABLE).set_index(["agent", "word"])
    assert w.loc[ranked, "hotelling_t2"] == default.loc[ranked, "hotelling_t2"]
    with pytest.raises(ValueError, match="sampled_cloud"):
        word_level(RECORDS, HUMANS, human_table=HUMAN_TABLE, sampled_cloud="every")


def test_top_k_is_honoured_for_sampled_agents_with_deterministic_ties():
    samples = [
        "A1",
        "B2",
        "B2",
        "C3",
        "A1",
        "D4",
        "E5",
        "E5",
        "F6",
        "C3",
    ]  # A1, B2, C3, E5 twice; D4, F6 once
    records = [_sampled("vlm:ties", "BANANA", samples)]
    sizes = {}
    for k in (1, 2, 3, 5, 6, 10):
        row = word_level(records, HUMANS, top_k=k, human_table=HUMAN_TABLE).iloc[0]
        sizes[k] = int(row["n_cloud"])
        assert row["top1_coord"] == "A1"  # tied at 2 with B2, C3, E5: sampled first
    assert sizes == {1: 1, 2: 2, 3: 3, 5: 5, 6: 6, 10: 6}
    from huesenv.metrics.collect import answer_sets

    entry = answer_sets(records)[("vlm:ties", "BANANA")]
    order = [parse_coord(c) for c in ("A1", "B2", "C3", "E5", "D4", "F6")]
    assert entry.cloud(5) == order[:5] and entry.frequency_ranking() == order
    # the order of the samples, not cell indices, breaks ties: reversed samples → reversed tie order
    rev = answer_sets([_sampled("vlm:ties", "BANANA", samples[::-1])])[("vlm:ties", "BANANA")]
    assert rev.cloud(4) == [parse_coord(c) for c in ("C3", "E5", "A1", "B2")]
    # the word table states where the cut falls inside a tie (A1..E5 tie at 2; D4, F6 tie at 1)
    ties = {
        k: bool(word_level(records, HUMANS, top_k=k, human_table=HUMAN_TABLE).iloc[0]["cloud_tie"])
        for k in (1, 3, 4, 5, 6)
    }
    assert ties == {1: True, 3: True, 4: False, 5: True, 6: False}
    assert not entry.cut_in_tie(6) and entry.cut_in_tie(5)


def test_tie_sensitivity_is_seeded_and_measures_flips():
    from huesenv.metrics.ties import TIE_COLUMNS, tie_sensitivity

    # 4 cells twice (beside the humans' I4), then I4, K9, K8 once: the 5th cell comes from a 3-way tie;
    # the stated rule takes I4 (sampled first) and passes, K9 or K8 make the cloud fail
    samples = ["I5", "I5", "J5", "J5", "I6", "I6", "J6", "J6", "I4", "K9", "K8"]
    records = [_sampled("vlm:ties", "BANANA", samples), _sampled("vlm:ties", "WINTER", ["L24"] * 5)]
    a = tie_sensitivity(records, HUMANS, draws=30, seed=3)
    assert list(a.columns) == TIE_COLUMNS
    assert a.equals(tie_sensitivity(records, HUMANS, draws=30, seed=3))  # same seed, same table
    row = a.iloc[0]
    assert (row["n_words"], row["n_cut_in_tie"]) == (2, 1)
    stated = word_level(records, HUMANS, human_table=HUMAN_TABLE)
    assert row["hotelling_fail_rate"] == pytest.approx(stated["hotelling_fail"].astype(float).mean())
    assert row["hotelling_fail_rate"] == 0.0
    assert 0.3 < row["flip_share"] < 0.9  # about 2 of 3 random orders put K9 or K8 in the cloud
    assert row["max_rate_move"] == 0.5  # one of the agent's two words flips
    with pytest.raises(ValueError, match="draws"):
        tie_sensitivity(records, HUMANS, draws=0)


def test_severity_classes(words):
    w = words.set_index(["agent", "word"])
    assert w.loc[("clip:ViT-B-32/openai", "WINTER"), "severity"] == "uncertainty_collapse"
    assert bool(w.loc[("clip:ViT-B-32/openai", "WINTER"), "agent_neutral"])
    assert w.loc[("clip:ViT-B-32/openai", "APPLE"), "severity"] == "semantic_bleeding"
    assert severity("I18", "I18") == "match"
    assert severity("I4", "A13") == "semantic_bleeding"


def test_agent_and_category_levels(words):
    agents = agent_level(words).set_index("agent")
    clip = agents.loc["clip:ViT-B-32/openai"]
    sub = words[words["agent"] == "clip:ViT-B-32/openai"]
    flags = sub["mahalanobis_outlier"].astype(float)
    assert clip["mahalanobis_fail_rate"] == pytest.approx(flags.mean())
    assert clip["mahalanobis_fail_err"] == pytest.approx(flags.std(ddof=1) / np.sqrt(3))
    lab = sub["mahalanobis_lab_outlier"].astype(float)  # the lightness-aware rate, beside the xy one
    assert clip["mahalanobis_lab_fail_rate"] == pytest.approx(lab.mean())
    assert clip["human_fail_rate"] == pytest.approx((0.1 * 8 + 0.2 * 6 + 0.3 * 6) / 20)  # pooled over answers
    assert clip["uncertainty_collapse_rate"] == pytest.approx(1 / 3) and clip[
        "semantic_bleeding_rate"
    ] == pytest.approx(1 / 3)
    assert agents.loc["vlm:demo", "n_invalid"] == 2
    cats = category_level(words, by="architecture_family").set_index(["category", "architecture_family"])
    food = cats.loc[("Food", "OpenAI")]
    assert food["n_agents"] == 1 and food["human_fail_rate"] == pytest.approx((0.1 * 8 + 0.3 * 6) / 14)
    per_word = category_level(words, by="agent")
    assert set(per_word.columns) >= {"category", "agent", "mahalanobis_fail_mean", "mahalanobis_fail_err"}


def test_category_level_se_across_agents():
    frame = pd.DataFrame(
        {
            "agent": ["a", "a", "b", "b", "c", "c"],
            "word": ["X", "Y"] * 3,
            "category": ["Food"] * 6,
            "mahalanobis_outlier": [True, False, True, True, False, False],
            "hotelling_fail": [True] * 6,
            "human_fail_rate": [0.1, 0.3] * 3,
            "n_human": [10, 30] * 3,
            "architecture_family": ["F"] * 6,
        }
    )
    row = category_level(frame).iloc[0]
    per_agent = np.array([0.5, 1.0, 0.0])
    assert row["mahalanobis_fail_mean"] == pytest.approx(per_agent.mean())
    assert row["mahalanobis_fail_err"] == pytest.approx(per_agent.std(ddof=1) / np.sqrt(3))
    assert row["hotelling_fail_err"] == pytest.approx(0.0) and row["human_fail_rate"] == pytest.approx(
        0.25
    )  # (1 + 9) / 40


def test_top_k_changes_the_cloud():
    k1 = word_level(RECORDS[:1], HUMANS, top_k=1, human_table=HUMAN_TABLE)
    assert k1["n_cloud"].iloc[0] == 1
    with pytest.raises(ValueError, match="top_k"):
        word_level(RECORDS, HUMANS, top_k=0, human_table=HUMAN_TABLE)


def test_write_metrics_files(tmp_path):
    log = tmp_path / "log.jsonl"
    with LogWriter(log) as w:
        w.append(RECORDS)
    report = write_metrics([log], HUMANS, tmp_path / "out", human_table=HUMAN_TABLE)
    for name in (
        "word_level.csv",
        "agent_level.csv",
        "category_level.csv",
        "nonsense.csv",
        "fail_rates_by_family.png",
        "fail_rates_by_category_architecture.png",
        "fail_rates_by_category_data.png",
        "nonsense_mosaics.png",
    ):
        assert (tmp_path / "out" / name).stat().st_size > 0, name
    back = pd.read_csv(tmp_path / "out" / "word_level.csv")
    assert len(back) == len(report.word) == 5
    assert report.human_fail_rate == pytest.approx(0.19)


def test_cli_end_to_end_with_reconstructed_humans(tmp_path, shared_dir, capsys):
    import huesenv.humans  # noqa: F401  (a broken import must fail, not skip)

    src = shared_dir / "data" / "vlm_replays" / "results_HC_InternVL3.5-8B.csv"
    log = tmp_path / "internvl.jsonl"
    assert main(["logs", "import-answers", str(src), "--agent", "vlm:InternVL3.5-8B", "-o", str(log)]) == 0
    assert main(["metrics", str(log), "--out", str(tmp_path / "m"), "--no-plots"]) == 0
    words = pd.read_csv(tmp_path / "m" / "word_level.csv")
    assert len(words) == 100 and words["mahalanobis_d2"].notna().all()
    assert words["human_fail_rate"].between(0, 1).all()
    nonsense = pd.read_csv(tmp_path / "m" / "nonsense.csv")
    assert len(nonsense) == 1 and nonsense["cells"].iloc[0].count(";") == 15
    assert "Human Fail Rate" in capsys.readouterr().out


def test_word_summary(words):
    from huesenv.metrics import word_summary

    table = word_summary(words).set_index("word")
    assert table.loc["BANANA", "n_agents"] == 2 and table.loc["BANANA", "agent_mode_coord"] == "I4"
    assert table.loc["WINTER", "uncertainty_collapse_rate"] == pytest.approx(0.5)
    assert table.loc["APPLE", "human_color"] == "Red"


def test_frame_input_equals_record_input(words):
    from huesenv.logs import records_to_frame

    from_frame = word_level(records_to_frame(RECORDS), HUMANS, human_table=HUMAN_TABLE)
    pd.testing.assert_frame_equal(from_frame, words)


def test_config_agents_sharing_an_agent_id_stay_apart():
    """Two prompt templates of one checkpoint: two rows per word, the second ranking is not dropped."""
    a = _ranked("clip:ViT-B-32/openai", "BANANA", ["I4", "I5", "J4", "H4", "I3"])
    b = _ranked("clip:ViT-B-32/openai", "BANANA", ["A13", "A12", "B13", "A14", "B12"])
    a.extra["config_agent"], b.extra["config_agent"] = "clip_plain", "clip_template"
    s1 = _sampled("vlm:demo", "BANANA", ["I4"] * 3, config_agent="vlm_a")
    s2 = _sampled("vlm:demo", "BANANA", ["A13"] * 3, config_agent="vlm_b")
    df = word_level([a, b, s1, s2], HUMANS, human_table=HUMAN_TABLE).set_index("agent")
    assert sorted(df.index) == ["clip_plain", "clip_template", "vlm_a", "vlm_b"]
    assert df.loc["clip_plain", "top1_coord"] == "I4" and df.loc["clip_template", "top1_coord"] == "A13"
    assert (df.loc["vlm_a", "n_answers"] == 3 and df.loc["vlm_a", "n_cloud"] == 1) and df.loc[
        "vlm_b", "top1_coord"
    ] == "A13"  # samples not pooled across agents; one distinct cell
    assert df.loc["clip_template", "agent_id"] == "clip:ViT-B-32/openai"
    assert (
        df.loc["clip_template", "architecture_family"] == "OpenAI"
    )  # families from the agent id, not the label
    assert df.loc["clip_template", "data_family"] == "Owners (WebLI)"
    assert len(agent_level(df.reset_index())) == 4
    # no config name: grouped by agent id as before (a repeated ranking is the same agent logged twice)
    plain = word_level(
        [_ranked("x", "BANANA", ["I4"]), _ranked("x", "BANANA", ["A13"])], HUMANS, human_table=HUMAN_TABLE
    )
    assert len(plain) == 1 and plain["top1_coord"].iloc[0] == "I4" and plain["agent_id"].iloc[0] == "x"


def test_word_without_valid_answer_fails_both_tests():
    bad = LogRecord.create(
        kind="word_query",
        run_id="r",
        agent_id="vlm:mute",
        word="APPLE",
        valid=False,
        raw_text="??",
        created=0.0,
    )
    records = [
        bad,
        _sampled("vlm:mute", "BANANA", ["I4"] * 4),
        LogRecord.create(
            kind="word_query", run_id="r", agent_id="vlm:mute", word="WINTER", cells=[], created=0.0
        ),
    ]
    df = word_level(records, HUMANS, human_table=HUMAN_TABLE).set_index("word")
    apple = df.loc["APPLE"]
    assert bool(apple["mahalanobis_outlier"]) and bool(apple["hotelling_fail"])
    assert np.isnan(apple["mahalanobis_d2"]) and np.isnan(apple["hotelling_t2"]) and apple["n_invalid"] == 1
    assert pd.isna(apple["top1_coord"])
    assert bool(df.loc["WINTER", "mahalanobis_outlier"])  # a valid but empty record is no answer either
    assert not bool(df.loc["BANANA", "mahalanobis_outlier"])
    agent = agent_level(df.reset_index()).iloc[0]
    assert agent["mahalanobis_fail_rate"] == pytest.approx(2 / 3) and agent["n_invalid"] == 1
    cat = category_level(df.reset_index(), by="agent").set_index("category")
    assert cat.loc["Food", "mahalanobis_fail_mean"] == pytest.approx(0.5)


class CategorisedHumans(TinyHumans):
    def category(self, word):
        from huesenv.vocabulary import category_of

        return category_of(word)


def test_human_fail_rates_pooled_like_humans_summary(tmp_path):
    from huesenv.humans import consistency_by_category, consistency_table

    humans = CategorisedHumans(
        {  # outliers on purpose, and unequal answer counts
            "BANANA": ["I4", "I4", "I5", "J4", "H4", "I4", "I5", "J4", "I4", "I5", "A30", "P1"],
            "APPLE": ["A13", "A13", "B13", "A12", "A14", "P20"],
            "WINTER": ["L24", "L24", "L25", "M24", "K24", "L23", "L24", "L25", "C2"],
        }
    )
    table = consistency_table(humans)
    assert table["fail_rate"].nunique() == 3 and (table["fail_rate"] > 0).all()
    pooled = consistency_by_category(table).set_index("category")["fail_rate"]
    records = [_ranked("clip:ViT-B-32/openai", w, ["I4"]) for w in humans.words]
    report = write_metrics(records, humans, tmp_path / "m", plots=False)
    cats = report.category[report.category["grouping"] == "architecture_family"].set_index("category")
    assert set(cats.index) == set(pooled.index) - {"All"} == {"Food", "Subjective"}
    for category in cats.index:
        assert cats.loc[category, "human_fail_rate"] == pytest.approx(pooled[category])
    assert report.human_fail_rate == pytest.approx(pooled["All"])
    assert report.agent["human_fail_rate"].iloc[0] == pytest.approx(pooled["All"])
    unweighted = table.loc[table["category"] == "Food", "fail_rate"].mean()
    assert abs(unweighted - pooled["Food"]) > 1e-3  # the two definitions differ here, so the test can fail


def test_cli_top_k_and_sampled_cloud_for_sampled_agents(tmp_path):
    samples = ["L24", "L24", "L25", "M24", "K24", "L23", "L24", "M25"]  # 6 distinct cells
    log = tmp_path / "vlm.jsonl"
    with LogWriter(log) as w:
        w.append([_sampled("vlm:demo", "WINTER", samples)])
    clouds = {}
    for flags in ([], ["--top-k", "3"], ["--sampled-cloud", "all"]):
        out = tmp_path / ("m" + "".join(flags))
        assert main(["metrics", str(log), "--out", str(out), "--no-plots", *flags]) == 0
        clouds[" ".join(flags)] = int(pd.read_csv(out / "word_level.csv")["n_cloud"].iloc[0])
    assert clouds == {"": 5, "--top-k 3": 3, "--sampled-cloud all": 8}
