"""Training-experiment configs: the bundled ones validate, mistakes are one line naming the field."""

from __future__ import annotations

import pytest

from huesenv.cli import main
from huesenv.experiments.rl.pipeline import load_training_config

BUNDLED = (
    "learned_guesser",
    "learned_guesser_sb3",
    "learned_cue_giver",
    "learned_cue_giver_fast",
    "selfplay",
)


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_configs_validate(name):
    cfg = load_training_config(name)
    assert cfg["name"] == name and cfg["train"]["trainer"] in (
        "guesser-fast",
        "cue-giver-fast",
        "guesser",
        "cue-giver",
        "selfplay",
    )


def test_the_fast_cue_giver_is_a_pipeline_trainer():
    cfg = load_training_config("learned_cue_giver_fast", ["train.params.total_steps=4096"])
    assert cfg["train"]["trainer"] == "cue-giver-fast" and cfg["train"]["params"]["budget_clock"] == "cpu"
    with pytest.raises(ValueError, match=r"unknown config key 'num_env' \(did you mean 'num_envs'\?\)"):
        load_training_config("learned_cue_giver_fast", ["train.params.num_env=8"])


def test_overrides_and_errors(tmp_path):
    cfg = load_training_config("learned_guesser", ["train.params.total_steps=4096", "evaluate.games=2"])
    assert cfg["train"]["params"]["total_steps"] == 4096 and cfg["evaluate"]["games"] == 2
    with pytest.raises(ValueError, match=r"train.params: unknown config key 'lr'"):
        load_training_config("learned_guesser", ["train.params.lr=0.1"])
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntrain: {trainer: dqn}\n")
    with pytest.raises(ValueError, match="field 'train.trainer': expected one of"):
        load_training_config(str(bad))
    with pytest.raises(ValueError, match="neither a file nor a bundled config name"):
        load_training_config("no_such_config")


def test_errors_name_the_line_of_the_key_at_fault(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: x\ntrain:\n  trainer: guesser-fast\n  params:\n    total_steps: 64\n    num_envz: 3\n"
    )
    with pytest.raises(ValueError, match=r"bad.yaml, line 6: train.params: unknown config key 'num_envz' "):
        load_training_config(str(bad))
    bad.write_text("name: x\ntrain:\n  trainer: selfplay\n  params:\n    total_games: 64\n    guessers: 12\n")
    with pytest.raises(ValueError, match=r"bad.yaml, line 6: train.params: guessers: expected 2-9"):
        load_training_config(str(bad))  # a bad value of a known key: its own line too
    bad.write_text("name: x\ntrain:\n  trainer: cue-giver\n  params:\n    n_steps: 0\n")
    with pytest.raises(ValueError, match=r"bad.yaml, line 5: train.params: n_steps: "):
        load_training_config(str(bad))
    bad.write_text("name: x\ntrain:\n  trainer: guesser-fast\n  tracker: nonee\n")
    with pytest.raises(ValueError, match=r"bad.yaml, line 4, field 'train.tracker'"):
        load_training_config(str(bad))
    with pytest.raises(ValueError) as info:  # the command line's value is nobody's file line
        load_training_config(str(bad), ["train.tracker=nothing"])
    assert ", line" not in str(info.value)


def test_cli_reports_bad_config_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntrainz: {}\n")
    assert main(["train", "experiment", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown config key 'trainz'" in err and "\n" not in err
    assert main(["train", "selfplay", "--guessers", "12", "-o", str(tmp_path / "o")]) == 2
    assert "guessers: expected 2-9" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()  # nothing written on a bad command line


def test_yaml_aliases_are_refused_in_training_configs_and_sets(tmp_path, capsys):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(
        'name: x\nlol: &a ["lol", "lol"]\ntrain: {trainer: guesser-fast, params: {x: [*a, *a]}}\n'
    )
    with pytest.raises(ValueError, match=r"bomb.yaml, line 2: YAML anchor 'a' refused"):
        load_training_config(str(bomb))
    assert main(["train", "guesser", "--set", "total_steps=[*a, *a]", "-o", str(tmp_path / "o")]) == 2
    assert "alias 'a' refused" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_the_lookup_baseline_plays_the_learned_agents_seat(tmp_path, monkeypatch):
    """With a split, the tournament seats lookup (same training part) where the learned agent sat."""
    from types import SimpleNamespace

    from huesenv.experiments.rl import pipeline

    seen = {}

    def fake_run(config, **_):
        seen["config"] = config
        return SimpleNamespace(run_dir=tmp_path, reports={}, tables={}, elapsed_s=0.0)

    monkeypatch.setattr(pipeline, "run_experiment", fake_run)
    monkeypatch.setattr(pipeline, "changed_policy_files", lambda config: [])
    cfg = load_training_config("learned_cue_giver_fast")
    train_part = tmp_path / "train.csv.gz"
    parts = {"train": str(train_part), "evaluation": str(tmp_path / "evaluation.csv.gz")}
    pipeline.run_tournament(cfg, tmp_path / "policy.pt", tmp_path, False, None, parts)
    data = seen["config"].data
    assert ["learned", "human", "human", "human"] in data["lineups"]
    assert ["lookup", "human", "human", "human"] in data["lineups"]
    assert data["agents"]["lookup"]["spec"] == f"lookup:{train_part.resolve()}"
