"""Experiment configs: loading, dotted overrides, validation errors, the game plan, the bundled configs."""

from __future__ import annotations

import csv
from importlib import resources

import pytest

from huesenv.experiments.config import ExperimentConfig, apply_overrides, bundled_configs, load_config
from huesenv.experiments.tournament import derive_seed, plan_games


def test_default_config_is_the_main_job():
    config = load_config(None)
    specs = {a.spec for a in config.agents()}
    assert specs == {"text-embedding", "random", "human-replay"}
    assert all(
        name in ("text-embedding", "random", "human") for lineup in config["lineups"] for name in lineup
    )
    assert 24 <= len(plan_games(config)) <= 96  # "a few dozen games"
    assert config["backend"]["name"] == "inprocess"


def test_overrides_are_dotted_yaml_values():
    config = load_config(
        "default",
        [
            "games=2",
            "agents.random.kwargs.seed=7",
            "lineups.0.0=random",
            "report.formats=[markdown]",
            "humans.path=null",
        ],
    )
    assert config["games"] == 2
    assert config.agent("random").kwargs == {"seed": 7}
    assert config["lineups"][0][0] == "random"
    assert config["report"]["formats"] == ["markdown"]
    with pytest.raises(ValueError, match="expected KEY=VALUE"):
        apply_overrides({}, ["games"])
    with pytest.raises(ValueError, match="not an index"):
        apply_overrides({"lineups": [[1]]}, ["lineups.3.0=x"])


@pytest.mark.parametrize(
    "override, field",
    [
        ("games=-1", "games"),
        ("num_players=1", "num_players"),
        ("num_players=2", "num_players"),  # the game takes 3-10 (HuesCuesRules): refused here, not in the env
        ("lineups.0.1=nobody", "lineups.0.1"),
        ("wandb.mode=loud", "wandb.mode"),
        ("backend.name=spark", "backend.name"),
        ("wordlevel.top_k=0", "wordlevel.top_k"),
        ("lineups.0=[random]", "lineups.0"),
    ],
)
def test_bad_values_name_the_field(override, field):
    with pytest.raises(ValueError, match=rf"field {field}: expected"):
        load_config("default", [override])


def test_bad_yaml_names_file_and_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: x\nagents: [unclosed\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.yaml, line \d"):
        load_config(path)
    with pytest.raises(FileNotFoundError, match="not a bundled config"):
        load_config(tmp_path / "missing.yaml")


def test_plan_is_stable_when_games_grow():
    small = {u.game: u for u in plan_games(load_config("default", ["games=3"]))}
    large = {u.game: u for u in plan_games(load_config("default", ["games=5"]))}
    assert set(small) < set(large)
    assert all(large[g] == u for g, u in small.items())  # same seats and seeds: resumable with more games
    assert len({u.seed for u in large.values()}) == len(large)


def test_plan_rotates_seats_and_derives_seeds():
    config = load_config("default", ["games=4"])
    units = [u for u in plan_games(config) if u.lineup == 0]
    positions = [u.seats.index("text-embedding") for u in units]
    assert positions == [0, 1, 2, 3]
    assert units[0].seed == derive_seed(config["seed"], 0, 0)
    other = load_config("default", ["games=4", "seed=1"])
    assert [u.seed for u in plan_games(other)] != [u.seed for u in plan_games(config)]


def test_fingerprint_ignores_games_and_output_but_not_agents():
    a = load_config("default", ["games=2"])
    assert a.fingerprint() == load_config("default", ["games=9", "output=/elsewhere"]).fingerprint()
    assert a.fingerprint() != load_config("default", ["agents.random.kwargs.seed=3"]).fingerprint()


def test_paper_sweep_lists_the_162_checkpoints_of_table5():
    assert {"default", "paper_clip_sweep"} <= set(bundled_configs())
    config = load_config("paper_clip_sweep")
    ref = resources.files("huesenv") / "data" / "reference" / "paper_table5_models.csv"
    with ref.open("r", encoding="utf-8") as fh:
        names = [row["model"] for row in csv.DictReader(fh)]
    assert len(names) == 162
    assert [a.spec for a in config.wordlevel_agents()] == [f"clip:{n}" for n in names]
    assert config["tournament"]["enabled"] is False
    assert config["weights"]["required"] is True and config["weights"]["offline"] is True


def test_from_dict_fills_defaults():
    config = ExperimentConfig.from_dict({"agents": {"r": "random"}, "lineups": [["r"] * 4]})
    assert config.agent("r").spec == "random"
    assert config["metrics"]["alpha"] == 0.05


def test_humans_path_reaches_replayed_humans():
    config = load_config("default", ["humans.path=/data/cohort.csv"])
    assert config.agent("human").kwargs == {"path": "/data/cohort.csv"}
    assert config.agent("random").kwargs == {}


def test_fresh_never_overwrites_an_earlier_backup(tmp_path):
    """Each --fresh keeps the logs it replaces under the first free name: .old, .old.2, .old.3."""
    from huesenv.experiments.runner import GAMES_LOG, WORDLEVEL_LOG, backup_path, prepare_run_dir

    config = load_config("default", [f"output={tmp_path.as_posix()}", "name=fresh"])
    run_dir = prepare_run_dir(config)
    for generation in range(1, 4):
        (run_dir / GAMES_LOG).write_text(f"games {generation}\n", encoding="utf-8")
        (run_dir / WORDLEVEL_LOG).write_text(f"words {generation}\n", encoding="utf-8")
        assert prepare_run_dir(config, fresh=True) == run_dir
        assert not (run_dir / GAMES_LOG).exists() and not (run_dir / WORDLEVEL_LOG).exists()
    for log, word in ((GAMES_LOG, "games"), (WORDLEVEL_LOG, "words")):
        backups = {p.name: p.read_text(encoding="utf-8") for p in run_dir.glob(f"{log}.old*")}
        assert backups == {
            f"{log}.old": f"{word} 1\n",
            f"{log}.old.2": f"{word} 2\n",
            f"{log}.old.3": f"{word} 3\n",
        }
    assert backup_path(run_dir / GAMES_LOG) == run_dir / f"{GAMES_LOG}.old.4"


def test_device_reaches_model_agents_only():
    agents = ["agents.clip.spec=clip:ViT-B-32/openai", "agents.own.spec=clip:x/y"]
    config = load_config("default", ["device=cuda:1", *agents])
    config.data["agents"]["own"]["kwargs"] = {"device": "cpu"}
    assert config.agent("text-embedding").kwargs["device"] == "cuda:1"
    assert config.agent("clip").kwargs["device"] == "cuda:1"
    assert config.agent("own").kwargs["device"] == "cpu"  # an agent's own kwargs win
    assert "device" not in config.agent("random").kwargs and "device" not in config.agent("human").kwargs
    config.data["agents"]["own"].pop("kwargs")
    assert config.fingerprint() == load_config("default", agents).fingerprint()  # not part of the identity
    with pytest.raises(ValueError, match="field device"):
        load_config("default", ["device=gpu"])


def test_yaml_alias_bomb_in_a_config_or_an_override_fails_fast(tmp_path, capsys):
    """A 628-byte 'billion laughs' in agent kwargs once took 3.5 GB and 100 s; aliases are refused now."""
    import time

    from huesenv.cli import main

    levels = ["a: &a [" + ", ".join(['"lollollollol"'] * 9) + "]"]
    for prev, name in zip("abcdefgh", "bcdefghi"):
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    kwargs = "\n".join("      " + line for line in levels)
    text = f"name: bomb\nagents:\n  random:\n    spec: random\n    kwargs:\n{kwargs}\n"
    assert 550 < len(text.encode()) < 700  # the red team's was 628 bytes
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    start = time.perf_counter()
    assert main(["config", "show", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "bomb.yaml, line 6: YAML anchor 'a' refused" in err and "\n" not in err
    with pytest.raises(ValueError, match="alias 'x' refused"):
        load_config("default", ["agents.random.kwargs.seed=[*x, *x]"])
    assert time.perf_counter() - start < 5


@pytest.mark.integration  # loads every bundled config (~20 s here)
def test_config_list_names_the_command_that_runs_each_bundled_config(capsys):
    """`config list` used to list training configs that `config show` refuses: each line now says its kind."""
    from huesenv.cli import main
    from huesenv.experiments.rl.pipeline import load_training_config

    assert main(["config", "list"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert {name for name, _, _ in rows} == set(bundled_configs())
    for name, kind, command in rows:
        if kind == "tournament":
            assert command == f"huesenv tournament {name}" and load_config(name).data["name"]
            assert main(["config", "show", name]) == 0
        else:
            assert kind == "training" and command == f"huesenv train experiment {name}"
            assert load_training_config(name)["name"] == name
            with pytest.raises(ValueError, match="a training config"):
                load_config(name)
    assert set(bundled_configs("tournament")) | set(bundled_configs("training")) == set(bundled_configs())
