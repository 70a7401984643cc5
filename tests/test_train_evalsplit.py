"""Issue 22's evaluation protocol for learned agents: the split in the trainer and checkpoint, embedding cues,
the lookup baseline, the refusal to score a policy on its training answers, and the held-out benchmark."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from huesenv.agents import make_agent  # noqa: E402
from huesenv.agents.lookup import LookupAgent, ranked_cells  # noqa: E402
from huesenv.agents.policy_net import load_checkpoint  # noqa: E402
from huesenv.agents.protocol import GuessQuery  # noqa: E402
from huesenv.agents.text_encoders import HashTextEncoder, make_text_encoder  # noqa: E402
from huesenv.cli import main  # noqa: E402
from huesenv.experiments.config import load_config  # noqa: E402
from huesenv.experiments.evaluation import check_references  # noqa: E402
from huesenv.experiments.rl.heldout import summarise, verdict, wilson  # noqa: E402
from huesenv.experiments.rl.human_data import write_parts  # noqa: E402
from huesenv.experiments.rl.ppo_fast import FastPPOConfig, train_fast  # noqa: E402
from huesenv.humans import load_humans  # noqa: E402
from huesenv.humans.splits import DataSplit  # noqa: E402


def tiny(**kw) -> FastPPOConfig:
    base = dict(
        total_steps=2 * 64,
        num_envs=64,
        num_minibatches=2,
        update_epochs=1,
        hidden=16,
        checkpoint_every=2,
        eval_every=2,
        eval_decisions=64,
        device="cpu",
        torch_threads=1,
        text_encoder="hash:32",
    )
    base.update(kw)
    return FastPPOConfig(**base)


@pytest.fixture(scope="module")
def humans():
    return load_humans()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for enc in ("index", "embedding"):
        train_fast(tiny(cue_encoding=enc, word_folds=5, word_fold=0), root / enc, progress=False)
        out[enc] = root / enc / "policy.pt"
    return out


def test_trainer_trains_on_the_training_part_and_records_the_split(runs, humans):
    ckpt = load_checkpoint(runs["index"])
    record = ckpt.train["human_data"]
    split = DataSplit.from_dict(record["split"])
    assert split.fold == 0 and split.n_folds == 5 and len(split.evaluation_words) == 20
    assert set(ckpt.settings.vocabulary) == set(split.train_words)  # no held-out word was a training cue
    assert set(record["train_participants"]) == set(split.train_participants)
    summary = json.loads((runs["index"].parent / "train.json").read_text())
    assert summary["split"]["fingerprint"] == split.fingerprint
    assert "evaluation part" in summary["eval_part"]


def test_holdout_none_records_the_whole_cohort(tmp_path, humans):
    train_fast(
        tiny(holdout="none", total_steps=64, checkpoint_every=1, eval_every=1), tmp_path, progress=False
    )
    record = load_checkpoint(tmp_path / "policy.pt").train["human_data"]
    assert record["split"] is None and len(record["train_participants"]) == humans.n_participants


def test_embedding_policy_reads_any_cue(runs):
    agent = make_agent(f"policy:{runs['embedding']}")
    assert agent.settings.cue_encoding == "embedding" and agent.settings.extra["text_encoder"] == "hash:32"
    answers = agent.act_batch([GuessQuery(cues=(w,), top_k=5) for w in ("OCEAN", "NAVY", "blue sky", "qwzx")])
    assert all(not a.info.get("fallback") for a in answers)
    scores = [tuple(np.round(a.scores, 6)) for a in answers]
    assert len(set(scores)) == 4  # four different inputs, four different distributions
    assert agent.knows_cue("qwzx") and not agent.knows_cue("  ")
    # the latest cue is read: ("sky", "blue sky") answers as "blue sky"
    both = agent.guess(GuessQuery(cues=("sky", "blue sky"), top_k=5))
    assert list(both.cells) == list(answers[2].cells)


def test_index_policy_unknown_word_one_line_on_the_cli_and_marked_in_answers(runs, capsys):
    agent = make_agent(f"policy:{runs['index']}")
    assert agent.guess(GuessQuery(cues=("qwzx",))).info["fallback"] == "unknown_cue"
    rc = main(["agents", "guess", f"policy:{runs['index']}", "qwzx"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "qwzx" in err[0] and "cue vocabulary" in err[0]
    known = agent.vocabulary[0]
    assert main(["agents", "guess", f"policy:{runs['index']}", known, "--top-k", "2"]) == 0


def test_train_cli_embedding_flag_and_bad_encoder(tmp_path, capsys):
    rc = main(
        [
            "train",
            "guesser",
            "--fast",
            "--cue-encoding",
            "embedding",
            "--text-encoder",
            "bogus",
            "-o",
            str(tmp_path),
        ]
        + ["--tracker", "none", "--steps", "64", "--num-envs", "64", "--no-progress"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "text encoder 'bogus'" in err[0]
    with pytest.raises(ValueError, match="hash:<positive dimension>"):
        make_text_encoder("hash:0")


def test_lookup_ranks_training_answers_and_borrows_the_nearest_word(humans):
    split = DataSplit.of(humans, seed=0, n_folds=5, fold=0)
    train = split.train(humans)
    agent = LookupAgent(train, text_encoder=HashTextEncoder(64))
    word = train.words[0]
    cells = train.cells(word)
    ans = agent.guess(GuessQuery(cues=(word,), top_k=5))
    counts = np.bincount(cells, minlength=480)
    assert counts[ans.cells[0]] == counts.max() and list(ans.cells) == list(ranked_cells(cells)[:5])
    held = split.evaluation_words[0]
    far = agent.guess(GuessQuery(cues=(held,), top_k=5))
    assert far.info["nearest_word"] in train.words and len(far.cells) == 5
    legal = np.ones(480, bool)
    legal[ans.cells[0]] = False
    blocked = agent.guess(GuessQuery(cues=(word,), legal=legal, top_k=480))
    assert ans.cells[0] not in blocked.cells and len(blocked.cells) == 479


def test_policy_scored_on_its_training_answers_is_refused_unless_allowed(runs, humans, tmp_path):
    base = load_config("default")
    data = dict(base.data)
    data["agents"] = {**data["agents"], "learned": {"spec": f"policy:{runs['index']}"}}
    from huesenv.experiments.config import ExperimentConfig

    config = ExperimentConfig.from_dict(data, source="test config")
    agents = {"learned": f"policy:{runs['index']}"}
    with pytest.raises(ValueError, match=r"agents\.learned: .* was trained on \d+ of the"):
        check_references(config, humans, agents)
    split = DataSplit.from_dict(load_checkpoint(runs["index"]).train["human_data"]["split"])
    assert check_references(config, split.evaluation(humans), agents) == []
    allowed = ExperimentConfig.from_dict(
        {**data, "humans": {"path": None, "cvd": None, "allow_trained_on": True}}, source="test config"
    )
    labels = check_references(allowed, humans, agents)
    assert len(labels) == 1 and labels[0].startswith("TRAINED ON THE REFERENCE: learned")


def test_write_parts_gives_loadable_disjoint_exports(tmp_path, humans):
    parts = write_parts(tiny(), tmp_path, humans)
    train, ev = load_humans(parts["train"]), load_humans(parts["evaluation"])
    assert set(train.frame["user_id"]).isdisjoint(ev.frame["user_id"])
    assert len(train) + len(ev) == len(humans)
    assert write_parts(tiny(holdout="none"), tmp_path / "none", humans) is None


def test_summary_intervals_and_verdict():
    assert wilson(0, 10)[0] == 0.0 and 0.0 < wilson(5, 10)[0] < 0.5 < wilson(5, 10)[1] < 1.0
    rows = []
    for fold, word, cat, n_h, hfr in ((0, "A", "x", 40, 0.1), (1, "B", "y", 40, 0.2)):
        for row, flag in (("learned", True), ("lookup", False), ("text-embedding", True), ("random", True)):
            rows.append(
                dict(
                    fold=fold,
                    word=word,
                    category=cat,
                    row=row,
                    mahalanobis_outlier=flag,
                    hotelling_fail=flag,
                    n_human=n_h,
                    human_fail_rate=hfr,
                )
            )
    table = summarise(pd.DataFrame(rows))
    pooled = table[(table["category"] == "pooled") & (table["subset"] == "all")].set_index("row")
    assert pooled.loc["learned", "mahalanobis"] == 1.0 and pooled.loc["lookup", "mahalanobis"] == 0.0
    assert pooled.loc["people", "n"] == 80 and abs(pooled.loc["people", "mahalanobis"] - 0.15) < 1e-9
    assert "the lookup table wins" in verdict(table)


@pytest.mark.integration
def test_heldout_command_end_to_end(tmp_path, capsys):
    table = tmp_path / "vlm.csv"
    table.write_text(
        "Palabra,Answer1,Answer2,Answer3\nAPPLE,A1,A1,B2\nWHALE,K17,not a cell,K17\n", encoding="utf-8"
    )
    rc = main(
        [
            "train",
            "heldout",
            "--folds",
            "2",
            "--steps",
            "128",
            "--num-envs",
            "64",
            "--text-encoder",
            "hash:16",
        ]
        + ["--device", "cpu", "--threads", "1", "--no-progress", "-o", str(tmp_path / "run")]
        + ["--answers", str(table)]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "verdict:" in out
    result = json.loads((tmp_path / "run" / "heldout.json").read_text())
    rows = {(r["row"], r["subset"], r["category"]) for r in result["table"]}
    for row in ("learned", "lookup", "text-embedding", "random", "people"):
        assert {(row, s, "pooled") for s in ("all", "xkcd-names", "other")} <= rows
    assert len(result["subsets"]["xkcd-names"]) == 34 and len(result["subsets"]["other"]) == 66
    words = pd.read_csv(tmp_path / "run" / "words.csv")
    assert sorted(words[words["row"] == "learned"]["word"]) == sorted(load_humans().words)  # each word once
    assert sorted(words[words["row"] == "answers:vlm"]["word"]) == ["APPLE", "WHALE"]
    assert set(words["human_reference"]) == {result["reference"]}
    tests = pd.DataFrame(result["mcnemar"])
    assert {"text-embedding", "best answer table"} <= set(tests["versus"])


def test_an_agents_own_fallback_is_logged_and_counted():
    from huesenv.agents.random_agent import RandomAgent
    from huesenv.envs.hues_cues.play import play_game
    from huesenv.experiments.evaluation import fallback_lines

    class Unread(RandomAgent):
        name = "unread"

        def guess(self, query):
            ans = super().guess(query)
            ans.info["fallback"] = "unknown_cue"
            return ans

    agents = {f"player_{i}": (Unread(seed=i) if i == 0 else RandomAgent(seed=i)) for i in range(3)}
    result = play_game(agents, num_players=3, seed=0)
    marked = [r for r in result.records if r.extra.get("agent_fallback")]
    assert marked and all(r.agent_id == "unread" and r.valid for r in marked)
    lines = fallback_lines(result.records)
    assert (
        len(lines) == 1
        and lines[0].startswith(f"unread: {len(marked)} answer(s)")
        and "unknown_cue" in lines[0]
    )


def test_train_experiment_refuses_holdout_none_before_training(tmp_path):
    from huesenv.experiments.rl.pipeline import load_training_config, run_training_experiment

    cfg = load_training_config("learned_guesser", [f"output={tmp_path}", "train.params.holdout=none"])
    with pytest.raises(ValueError, match="holdout=none trains on every answer"):
        run_training_experiment(cfg, progress=False, wandb_mode="disabled")
    assert not (tmp_path / "learned_guesser" / "train").exists()


@pytest.mark.integration
def test_train_experiment_evaluates_on_the_evaluation_part(tmp_path):
    from huesenv.experiments.rl.pipeline import load_training_config, run_training_experiment

    sets = [
        f"output={tmp_path}",
        "train.params.total_steps=256",
        "train.params.num_envs=64",
        "train.params.num_minibatches=1",
        "train.params.eval_decisions=64",
        "train.params.torch_threads=1",
        "train.params.device=cpu",
        "evaluate.games=1",
        "references.agents=[random]",
    ]
    result = run_training_experiment(load_training_config("learned_guesser", sets), progress=False)
    run = tmp_path / "learned_guesser"
    split = DataSplit.load(run / "split" / "split.json")
    report = (run / "report.md").read_text()
    assert f"split {split.fingerprint}" in report and "evaluation part only" in report
    tour = (run / "tournament" / "report.md").read_text()
    assert "evaluation.csv.gz" in tour.split("\n", 5)[2] or "evaluation.csv.gz" in tour
    words = result["tournament"]["tables"]["wordlevel_agents"]
    assert {"learned", "lookup", "text-embedding", "random", "human"} <= set(words["agent"])
    ev = load_humans(run / "split" / "evaluation.csv.gz")
    assert int(words["n_words"].max()) == 100 and ev.n_participants == len(split.eval_participants)


def test_a_policys_tournament_uses_its_evaluation_part_by_default(runs, humans):
    from huesenv.experiments.config import ExperimentConfig
    from huesenv.experiments.evaluation import evaluation_default

    data = dict(load_config("default").data)
    data["agents"] = {**data["agents"], "learned": {"spec": f"policy:{runs['index']}"}}
    config = ExperimentConfig.from_dict(data, source="test config")
    moved = evaluation_default(config)
    path = moved["humans"]["path"]
    assert path and path.endswith("-evaluation.csv.gz")
    split = DataSplit.from_dict(load_checkpoint(runs["index"]).train["human_data"]["split"])
    ev = load_humans(path)
    assert set(ev.frame["user_id"]) <= set(split.eval_participants)  # (not all answered a held-out word)
    from huesenv.humans import HumanReference

    assert f"evaluation part of split {split.fingerprint}" in HumanReference.of(ev).description
    assert set(ev.words) == set(split.evaluation_words)
    assert check_references(moved, ev) == []  # nothing of the reference was trained on
    assert evaluation_default(moved) is moved  # a named reference is kept
    allowed = ExperimentConfig.from_dict(
        {**data, "humans": {"path": None, "cvd": None, "allow_trained_on": True}}, source="t"
    )
    assert evaluation_default(allowed) is allowed


@pytest.mark.integration
def test_allowed_training_overlap_is_labelled_in_report_summary_and_tables(runs, tmp_path):
    from huesenv.experiments.config import ExperimentConfig
    from huesenv.experiments.experiment import run_experiment

    data = dict(load_config("default").data)
    data.update(
        output=str(tmp_path),
        name="overlap",
        games=1,
        agents={"learned": {"spec": f"policy:{runs['index']}"}, "human": {"spec": "human-replay"}},
        lineups=[["learned", "human", "human", "human"]],
        wordlevel={"enabled": True, "agents": ["learned"], "top_k": 5},
        humans={"path": None, "cvd": None, "allow_trained_on": True},
        report={"formats": ["markdown"], "board_images": 0},
    )
    result = run_experiment(ExperimentConfig.from_dict(data, source="t"), progress=False)
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert any(line.startswith("TRAINED ON THE REFERENCE: learned") for line in summary["summary"])
    assert "TRAINED ON THE REFERENCE" in (result.run_dir / "report.md").read_text()
    wl = result.tables["wordlevel_agents"]
    assert wl.set_index("agent").loc["learned", "trained_on_reference"]
