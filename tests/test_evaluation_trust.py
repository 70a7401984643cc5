"""The trained-on check never passes silently: relative policy paths (stored absolute in the run folder, else
looked for there), a missing policy file (TRAINING DATA UNKNOWN), lookup tables (their table is their training
data), the merged sweep leaderboard's labels, and invalid recorded training data (refused, one line)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from huesenv.cli import main
from huesenv.logs.io import LogWriter
from huesenv.logs.schema import LogRecord

COHORT = Path(__file__).resolve().parents[1] / "huesenv" / "data" / "humans" / "reconstructed_cohort.csv.gz"


def _checkpoint(path: Path, human_data):
    pytest.importorskip("torch")
    import torch

    from huesenv.agents.policy_net import PolicySettings, build_speaker_net, save_checkpoint

    torch.manual_seed(0)
    return save_checkpoint(
        path,
        PolicySettings(env_id="huesenv/CueGiverVector-v0", role="cue_giver", vocabulary=("APPLE",)),
        {"speaker": build_speaker_net(vocab_size=1, hidden=8)},
        {"speaker": {"vocab_size": 1, "hidden": 8}},
        {"human_data": human_data},
    )


def _word_log(run: Path, agent: str = "caller") -> Path:
    rec = LogRecord.create(
        kind="word_query", run_id="r", agent_id="policy:x", word="BANANA", cells=["E5"], answer="E5"
    )
    rec.extra["config_agent"] = agent
    run.mkdir(parents=True, exist_ok=True)
    with LogWriter(run / "w.jsonl") as writer:
        writer.append([rec])
    return run / "w.jsonl"


@pytest.fixture(scope="module")
def cohort():
    from huesenv.humans import load_humans

    return load_humans()


@pytest.fixture(scope="module")
def trained(tmp_path_factory, cohort):
    """A torch checkpoint whose record says it trained on the packaged cohort's training part."""
    from huesenv.humans.splits import DataSplit, training_record

    folder = tmp_path_factory.mktemp("trained")
    return _checkpoint(folder / "policy.pt", training_record(DataSplit.of(cohort, seed=0), cohort))


def test_a_relative_policy_path_is_looked_for_in_the_run_folder(trained, tmp_path, monkeypatch, capsys):
    run = tmp_path / "run"
    log = _word_log(run)
    (run / "policy.pt").write_bytes(Path(trained).read_bytes())
    (run / "config.yaml").write_text("agents:\n  caller: {spec: 'policy:policy.pt'}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # not where the run's relative path points
    assert main(["metrics", str(log), "-o", str(tmp_path / "m"), "--no-plots"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "agent caller" in err[0] and "--allow-trained-on" in err[0]
    # against the split's evaluation part it is held out, and said so (found in the run folder, not "unknown")
    from huesenv.humans import load_humans
    from huesenv.humans.splits import DataSplit

    cohort = load_humans()
    evaluation = DataSplit.of(cohort, seed=0).write_part(cohort, "evaluation", tmp_path / "ev.csv.gz")
    assert (
        main(["metrics", str(log), "-o", str(tmp_path / "h"), "--no-plots", "--humans", str(evaluation)]) == 0
    )
    out = capsys.readouterr().out
    assert "caller: human training data: training part of" in out and "UNKNOWN" not in out


def test_a_missing_policy_file_is_training_data_unknown_never_held_out(tmp_path, capsys):
    from huesenv.experiments import evaluation

    log = _word_log(tmp_path / "run")
    (tmp_path / "run" / "config.yaml").write_text("agents:\n  caller: {spec: 'policy:gone.pt'}\n")
    assert main(["metrics", str(log), "-o", str(tmp_path / "m"), "--no-plots"]) == 0
    out = capsys.readouterr().out
    assert out.count("TRAINING DATA UNKNOWN: caller (policy:gone.pt): no such file") == 1
    assert evaluation.unknown_training({"caller": "policy:gone.pt"}) == ["caller"]


def test_the_run_folder_stores_policy_and_lookup_paths_absolute(trained, tmp_path, monkeypatch):
    from huesenv.experiments.config import ExperimentConfig, load_config
    from huesenv.experiments.runner import conflicting_fields, prepare_run_dir
    from huesenv.validation import load_yaml_file

    (tmp_path / "policy.pt").write_bytes(Path(trained).read_bytes())
    (tmp_path / "table.csv.gz").write_bytes(COHORT.read_bytes())
    monkeypatch.chdir(tmp_path)
    data = dict(load_config("default").data)
    data.update(
        output="out",
        name="rel",
        agents={
            "p": {"spec": "policy:policy.pt"},
            "lk": {"spec": "lookup:table.csv.gz"},
            "gone": {"spec": "policy:nowhere.pt"},
            "human": {"spec": "human-replay"},
        },
        lineups=[["p", "lk", "gone", "human"]],
        wordlevel={"enabled": False},
    )
    config = ExperimentConfig.from_dict(data, source="t")
    run = prepare_run_dir(config)
    agents = load_yaml_file(run / "config.yaml")["agents"]
    assert agents["p"]["spec"] == f"policy:{tmp_path / 'policy.pt'}"
    assert agents["lk"]["spec"] == f"lookup:{tmp_path / 'table.csv.gz'}"
    assert agents["gone"]["spec"] == "policy:nowhere.pt"  # no such file: kept as typed (the run refuses it)
    (run / "games.jsonl").write_text("{}\n")  # holds records: the stored config binds the folder
    assert conflicting_fields(config) == []  # the same experiment: it resumes


def _with_agent(spec: str, **humans):
    from huesenv.experiments.config import ExperimentConfig, load_config

    data = dict(load_config("default").data)
    data["agents"] = {**data["agents"], "lk": {"spec": spec}}
    if humans:
        data["humans"] = {"path": None, "cvd": None, **humans}
    return ExperimentConfig.from_dict(data, source="test config")


def test_a_lookup_is_checked_against_the_reference_like_a_policy(cohort, tmp_path):
    from huesenv.experiments.evaluation import check_references, training_labels
    from huesenv.humans.splits import DataSplit

    spec = f"lookup:{COHORT}"
    agents = {"lk": spec}
    with pytest.raises(ValueError, match=r"agents\.lk: lookup:.* was trained on \d+ of the"):
        check_references(_with_agent(spec), cohort, agents)
    labels = check_references(_with_agent(spec, allow_trained_on=True), cohort, agents)
    assert len(labels) == 1 and labels[0].startswith("TRAINED ON THE REFERENCE: lk")
    (line,) = training_labels(agents)
    assert line.startswith("lk: human training data: every answer of")
    # a lookup of a split's training part, scored against its evaluation part: nothing overlaps
    split = DataSplit.of(cohort, seed=0)
    train = split.write_part(cohort, "train", tmp_path / "train.csv.gz")
    assert (
        check_references(_with_agent(f"lookup:{train}"), split.evaluation(cohort), {"lk": f"lookup:{train}"})
        == []
    )


def test_a_lookup_on_the_reference_is_refused_before_the_tournament_plays(tmp_path, capsys):
    args = ["tournament", "--agents", f"lk=lookup:{COHORT}", "--set", "lineups=[[lk, human, human, human]]"]
    assert main([*args, "--games", "2", "-o", str(tmp_path), "--no-wordlevel"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "agents.lk" in err[0] and "allow_trained_on" in err[0]
    assert not list(tmp_path.glob("*/games.jsonl"))


@pytest.mark.parametrize("record", [{}, {"format": "huesenv-human-data"}, ":serialized:gAWV", [1, 2]])
def test_an_invalid_training_record_in_a_checkpoint_is_refused_in_one_line(tmp_path, record):
    from huesenv.experiments.evaluation import policy_training_data

    path = _checkpoint(tmp_path / "bad.pt", record)
    with pytest.raises(ValueError, match=r"bad\.pt, field train\.human_data") as err:
        policy_training_data(f"policy:{path}")
    assert "\n" not in str(err.value)


def _plain_zip(path: Path) -> Path:
    pytest.importorskip("sb3_contrib")
    import gymnasium
    from sb3_contrib import MaskablePPO

    import huesenv  # noqa: F401 - registers the env ids

    env = gymnasium.make("huesenv/Guesser-v1")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0)
    model.learn(32)
    model.save(str(path))
    return path


@pytest.fixture(scope="module")
def plain_zip(tmp_path_factory):
    return _plain_zip(tmp_path_factory.mktemp("zip") / "plain.zip")


def test_an_invalid_training_record_in_an_sb3_zip_is_refused_in_one_line(plain_zip, tmp_path):
    from huesenv.experiments.evaluation import policy_training_data

    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(plain_zip) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            raw = src.read(item.filename)
            if item.filename == "data":
                data = json.loads(raw)
                data["huesenv_human_data"] = {}
                raw = json.dumps(data).encode()
            dst.writestr(item, raw)
    with pytest.raises(ValueError, match=r"bad\.zip, field huesenv_human_data"):
        policy_training_data(f"policy:{bad}")
    assert policy_training_data(f"policy:{plain_zip}") is None  # none recorded: unknown, not invalid


@pytest.mark.integration
def test_the_sweep_leaderboard_says_training_data_unknown(plain_zip, tmp_path, capsys):
    assert (
        main(
            [
                "tournament",
                "--agents",
                f"policy:{plain_zip}",
                "--games",
                "2",
                "-o",
                str(tmp_path),
                "--no-wordlevel",
            ]
        )
        == 0
    )
    assert "TRAINING DATA UNKNOWN" in capsys.readouterr().out
    (sweep,) = tmp_path.glob("*-sweep")
    board = pd.read_csv(sweep / "leaderboard.csv").set_index("agent")
    assert board["trained_on_reference"].isna()[f"policy:{plain_zip}"]
    assert "TRAINING DATA UNKNOWN" in (sweep / "leaderboard.md").read_text()


def test_a_lookup_of_a_split_training_part_is_named_as_that_part(cohort, tmp_path):
    """``split/train.csv.gz`` beside its ``split.json`` is the training part (an evaluation part exists)."""
    from huesenv.experiments.evaluation import check_references, policy_training_data, training_labels
    from huesenv.humans.splits import DataSplit

    split = DataSplit.of(cohort, seed=0)
    folder = tmp_path / "split"
    folder.mkdir()
    split.save(folder / "split.json")
    train = split.write_part(cohort, "train", folder / "train.csv.gz")
    spec = f"lookup:{train}"
    record = policy_training_data(spec)
    assert record is not None and record["split"] == split.to_dict()
    assert sorted(record["train_participants"]) == sorted(split.train_participants)
    (line,) = training_labels({"lk": spec})
    assert "training part of" in line and split.fingerprint in line and "no evaluation part" not in line
    assert check_references(_with_agent(spec), split.evaluation(cohort), {"lk": spec}) == []
    with pytest.raises(ValueError, match=r"agents\.lk: lookup:.* was trained on \d+ of the"):
        check_references(_with_agent(spec), cohort, {"lk": spec})
    # the evaluation part's answers under the training part's name: not that part, so every answer of the file
    other = tmp_path / "renamed"
    other.mkdir()
    split.save(other / "split.json")
    split.write_part(cohort, "evaluation", other / "train.csv.gz")
    (line,) = training_labels({"lk": f"lookup:{other / 'train.csv.gz'}"})
    assert "every answer of" in line


def test_a_split_json_written_later_is_seen_by_the_lookup_record(cohort, tmp_path):
    from huesenv.experiments.evaluation import policy_training_data
    from huesenv.humans.splits import DataSplit

    split = DataSplit.of(cohort, seed=1)
    train = split.write_part(cohort, "train", tmp_path / "train.csv.gz")
    assert policy_training_data(f"lookup:{train}")["split"] is None  # no split.json yet
    split.save(tmp_path / "split.json")
    assert policy_training_data(f"lookup:{train}")["split"] == split.to_dict()
