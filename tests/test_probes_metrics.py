"""Probe metrics on scripted agents whose answers are known in advance."""

import numpy as np
import pytest

from huesenv.agents.protocol import Answer, BaseAgent
from huesenv.probes import run_probe
from huesenv.probes.gca.metrics import (
    colour_shares,
    coverage_error,
    distractor_rate,
    empirical_consistency,
    empirical_thresholds,
    faithfulness,
    gca_report,
    hallucination,
    stated_thresholds,
    threshold_consistency,
)
from huesenv.probes.gca.questions import gca_trials
from huesenv.probes.interference.metrics import interference_table, paper_layout
from huesenv.probes.interference.questions import interference_trials


class Scripted(BaseAgent):
    """Answers from a function of the trial (looked up by the query's trial id)."""

    def __init__(self, name, trials, rule):
        self.name = name
        self._by_id = {t.trial_id: t for t in trials}
        self._rule = rule

    def answer_probe(self, query):
        return self._rule(self._by_id[query.trial_id], query)


def _gca_rule(threshold, always_colour_for=()):
    def rule(trial, query):
        f = trial.fields
        colour = f["colour"]
        says = (f["condition"] in always_colour_for) or (f["tau"] is not None and f["tau"] >= threshold)
        q = f["question_type"]
        if q == "colour":
            return Answer(raw_text=colour if says else "white")
        if q == "coverage":
            est = f["coverage"] + 2 if f["coverage"] < 50 else f["coverage"] - 2
            return Answer(raw_text=f"estimated_percentage={est}%")
        if f["ordering"] == "standard":
            return Answer(raw_text=f"threshold={threshold}%, color={colour if says else 'white'}")
        if f["ordering"] == "post-hoc":
            return Answer(
                raw_text=f"The {f['object']} is {colour if says else 'white'}. threshold={threshold}%"
            )
        return Answer(raw_text=f"I would say threshold={threshold}%.")

    return rule


@pytest.fixture(scope="module")
def gca_set():
    return gca_trials(
        objects=["apple", "leaf"],
        conditions=["prior", "counterfactual", "shape"],
        shapes=["square"],
        colours=["blue", "red"],
    )


def test_faithful_threshold_agent(gca_set):
    recs = run_probe(Scripted("thr45", gca_set, _gca_rule(45)), gca_set, run_id="t")
    assert all(r.valid for r in recs)
    shares = colour_shares(recs)
    assert set(shares.loc[shares.tau < 45, "share_colour"]) == {0.0}
    assert set(shares.loc[shares.tau >= 45, "share_colour"]) == {1.0}
    emp = empirical_thresholds(recs)
    # a step between tau 40 and 50: the fitted 50 % point lies in that gap
    assert ((emp["t50"] > 40) & (emp["t50"] < 50)).all() and (emp["crossing"] == 50).all()
    faith = faithfulness(recs)
    assert set(faith["ordering"]) == {"standard", "visual-prior", "post-hoc", "text-prior"}
    assert (faith["faithfulness"] == 1.0).all()
    stated = stated_thresholds(recs)
    assert (stated["mean"] == 45).all()
    assert (hallucination(recs)["hallucination"] == 0).all()
    cov = coverage_error(recs)
    assert np.allclose(cov["mean_abs_error"], 2.0)
    cov = cov.set_index("condition")["mean_error"]
    # 6 taus below 50 over-, 7 under-estimated; counterfactual has no tau 0 (5 over, 7 under)
    assert np.allclose(cov[["prior", "shape"]], 2.0 * (6 - 7) / 13)
    assert cov["counterfactual"] == pytest.approx(2.0 * (5 - 7) / 12)
    assert (distractor_rate(recs)["distractor_rate"] == 0).all()
    assert (empirical_consistency(recs)["consistency"] == 1.0).all()
    report = gca_report(recs)
    assert {
        "colour_shares",
        "empirical_thresholds",
        "stated_thresholds",
        "faithfulness",
        "hallucination",
        "coverage_error",
        "distractor_rate",
        "empirical_consistency",
    } <= set(report)


def test_prior_driven_agent_is_unfaithful_on_objects_only(gca_set):
    recs = run_probe(
        Scripted("prior", gca_set, _gca_rule(50, always_colour_for=("prior",))), gca_set, run_id="t"
    )
    h = hallucination(recs).set_index("condition")["hallucination"]
    assert h["prior"] == 1.0 and h["shape"] == 0.0
    assert "counterfactual" not in h.index  # the paper has no 0 % counterfactual split
    f = faithfulness(recs).set_index(["ordering", "condition"])["faithfulness"]
    # says "colour" at every tau though its rule is 50 %: wrong at tau 0,5,10,20,30,40 of 13
    assert f[("visual-prior", "prior")] == pytest.approx(7 / 13)
    assert f[("text-prior", "prior")] == pytest.approx(7 / 13)
    assert f[("visual-prior", "shape")] == 1.0


def _distractor_below(threshold):
    """States ``threshold`` % and answers the trial's distractor colour on every trial below it."""

    def rule(trial, query):
        f = trial.fields
        q = f["question_type"]
        if q == "colour":
            below = f["tau"] < threshold
            return Answer(raw_text=f["distractor"] if below else f["colour"])
        if q == "coverage":
            return Answer(raw_text=f"estimated_percentage={f['coverage']}%")
        return Answer(raw_text=f"I would say threshold={threshold}%.")

    return rule


def test_distractor_below_the_stated_threshold_is_unfaithful(gca_set):
    """Paper §3.3: "faithful if it assigns the target color when Y ≥ X and white when Y < X"."""
    recs = run_probe(Scripted("d50", gca_set, _distractor_below(50)), gca_set, run_id="t")
    f = faithfulness(recs).set_index(["ordering", "condition"])
    # 13 taus; the 6 below 50 (0, 5, 10, 20, 30, 40) are answered with a distractor
    for key in [("visual-prior", "prior"), ("visual-prior", "shape"), ("text-prior", "prior")]:
        assert f.loc[key, "faithfulness"] == pytest.approx(7 / 13)
    # counterfactual has no tau 0 (the paper's Table 2 note): 5 of 12 below 50
    assert f.loc[("text-prior", "counterfactual"), "faithfulness"] == pytest.approx(7 / 12)
    # the pre-0.3 deviation, kept as an option: distractors left out -> 7 of 7 faithful
    dropped = faithfulness(recs, distractors="drop").set_index(["ordering", "condition"])
    assert dropped.loc[("visual-prior", "prior"), "faithfulness"] == 1.0
    assert dropped.loc[("visual-prior", "prior"), "n"] * 13 == f.loc[("visual-prior", "prior"), "n"] * 7
    with pytest.raises(ValueError, match="distractors"):
        faithfulness(recs, distractors="ignore")


def test_distractor_and_invalid_answers(gca_set):
    colour_only = [t for t in gca_set if t.fields["question_type"] == "colour"]

    def rule(t, q):
        return Answer(text=t.fields["distractor"]) if t.fields["tau"] < 50 else Answer(raw_text="hmm")

    recs = run_probe(Scripted("d", colour_only, rule), colour_only, run_id="t")
    rate = distractor_rate(recs)
    assert (rate["distractor_rate"] == 1.0).all()
    shares = colour_shares(recs)
    assert (shares.loc[shares.tau >= 50, "invalid"] == 1.0).all()


def _interference_rule(kind):
    def rule(trial, query):
        f = trial.fields
        if kind == "truth":
            return Answer(raw_text="The colors are " + " and ".join(trial.truth.split(",")) + ".")
        if kind == "reader":  # reads the word instead of its colour
            named = f["named_colours"]
            return Answer(raw_text=" and ".join(named) if named else "I cannot tell")
        return Answer(raw_text=f"It is {f['question_colour']}.")  # copies the question's colour

    return rule


@pytest.fixture(scope="module")
def int_set():
    return interference_trials(per_type=6)


def test_interference_scripted_agents(int_set):
    truth = interference_table(run_probe(Scripted("truth", int_set, _interference_rule("truth")), int_set))
    assert (truth["accuracy"] == 100).all()
    assert (truth["h1"].fillna(0) == 0).all() and (truth["h2"].fillna(0) == 0).all()
    reader = interference_table(run_probe(Scripted("reader", int_set, _interference_rule("reader")), int_set))
    r = reader.set_index(["subset", "type"])
    assert (r.loc[["color", "mask"], "h1"] == 100).all() and (r["accuracy"] == 0).all()
    assert r.loc["simple", "h1"].isna().all()
    q = interference_table(run_probe(Scripted("q", int_set, _interference_rule("question")), int_set))
    q = q.set_index(["subset", "type"])
    assert (q.xs(2, level="type")["h2"] == 100).all() and (q.xs(4, level="type")["h2"] == 100).all()
    assert q.xs(1, level="type")["h2"].isna().all()


def test_paper_table_layout(int_set):
    table = interference_table(run_probe(Scripted("truth", int_set, _interference_rule("truth")), int_set))
    # Tables II and IV: acc,h1 | acc,h1,h2 | acc,h1 | acc,h1,h2 ; Table III: acc | acc,h2 | acc | acc,h2
    assert [m for _, m in paper_layout(table, "color").columns] == [
        "acc",
        "h1",
        "acc",
        "h1",
        "h2",
        "acc",
        "h1",
        "acc",
        "h1",
        "h2",
    ]
    assert [m for _, m in paper_layout(table, "simple").columns] == ["acc", "acc", "h2", "acc", "acc", "h2"]


def test_threshold_consistency_is_the_sem_across_the_four_orderings():
    stated = {"standard": 50, "visual-prior": 40, "post-hoc": 60, "text-prior": 30}

    class Stated:
        name = "stated"

        def act_batch(self, queries):
            out = []
            for q in queries:
                ordering = q.trial_id.rsplit("/", 1)[-1]
                out.append(Answer(raw_text=f"threshold={stated[ordering]}%, color=white"))
            return out

    trials = gca_trials(
        objects=["apple"], conditions=["prior"], question_types=["introspection"], taus=[0, 50, 100]
    )
    records = run_probe(Stated(), trials, run_id="c")
    table = threshold_consistency(records)
    assert len(table) == 1
    row = table.iloc[0]
    values = np.array(list(stated.values()), float)
    assert row["n_orderings"] == 4 and row["mean"] == pytest.approx(45.0)
    assert row["sd"] == pytest.approx(values.std(ddof=1))
    assert row["sem"] == pytest.approx(values.std(ddof=1) / 2.0)
    assert row["range"] == 30.0 and row["mean_text-prior"] == 30.0
    by_tau = threshold_consistency(records, by=("agent_id", "condition", "tau"))
    assert list(by_tau["tau"]) == [0.0, 50.0, 100.0]  # the text prior counts at every τ of its pair
    assert (by_tau["n_orderings"] == 4).all() and np.allclose(by_tau["sem"], row["sem"])
    assert "threshold_consistency" in gca_report(records)


def test_unreadable_threshold_replies_are_counted_invalid():
    class Vague:
        name = "vague"

        def act_batch(self, queries):
            return [
                Answer(raw_text="It depends." if q.trial_id.endswith("text-prior") else "threshold=40%")
                for q in queries
            ]

    trials = gca_trials(
        objects=["apple"], conditions=["prior"], question_types=["introspection"], taus=[0, 50]
    )
    stated = stated_thresholds(run_probe(Vague(), trials, run_id="v")).set_index("ordering")
    assert stated.loc["text-prior", "invalid"] == 1.0 and stated.loc["text-prior", "n"] == 0
    assert stated.loc["standard", "invalid"] == 0.0 and stated.loc["standard", "mean"] == 40.0
