"""The probe gymnasium envs, batch runner, logging and CLI."""

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import huesenv  # noqa: F401  (registers the gymnasium ids)
from huesenv.agents import RandomAgent
from huesenv.probes import run_probe
from huesenv.probes.gca.env import GCAEnv
from huesenv.probes.interference.env import TextInterferenceEnv
from huesenv.probes.run import build_trials, default_run_id


def _checked(env):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped if hasattr(env, "unwrapped") else env, skip_render_check=False)
    return [str(w.message) for w in caught if "spec" not in str(w.message)]


def test_gca_env_passes_checker():
    env = GCAEnv(objects=["apple"], conditions=["prior", "counterfactual"], render_mode="rgb_array")
    assert _checked(env) == []


def test_interference_env_passes_checker():
    env = TextInterferenceEnv(per_type=3, render_mode="rgb_array")
    assert _checked(env) == []


def test_registered_ids_make_the_envs():
    env = gym.make("huesenv/GCA-v0", objects=["lemon"], conditions=["prior"], question_types=["colour"])
    obs, info = env.reset(seed=0)
    # models get the paper's open prompt plus the authors' "Answer with one word."
    assert obs["image"].shape == (512, 512, 3)
    assert obs["question"] == "What color is the lemon in the image? Answer with one word."
    assert obs["options"] == ""
    humans = gym.make("huesenv/GCA-v0", objects=["lemon"], conditions=["prior"], colour_question="options")
    obs, info = humans.reset(seed=0)
    assert obs["question"] == "What color is the lemon in the image?"
    assert set(obs["options"].split(" | ")) >= {"white", "yellow"}
    env2 = gym.make("huesenv/TextInterference-v0", per_type=2)
    obs2, _ = env2.reset(seed=0)
    assert obs2["question"] == "Answer the question shown in the image."


def test_gca_step_option_index_and_reward():
    env = GCAEnv(
        objects=["apple"],
        conditions=["prior"],
        question_types=["colour", "coverage"],
        colour_question="options",
    )
    obs, info = env.reset(options={"trial": "gca/prior/apple/red/050/colour"})
    opts = obs["options"].split(" | ")
    _, reward, terminated, truncated, info = env.step(opts.index("red"))
    assert terminated and not truncated and reward == 0.0 and info["parsed"].answer == "red"
    rec = env.last_record
    assert rec.kind == "probe_trial" and rec.extra["tau"] == 50 and rec.extra["question_type"] == "colour"
    env.reset(options={"trial": "gca/prior/apple/red/050/colour"})
    distractor = [o for o in opts if o not in ("red", "white")][0]
    assert env.step(f"I'd say {distractor}")[1] == -1.0
    open_env = GCAEnv(objects=["apple"], conditions=["prior"], question_types=["colour"])
    open_env.reset(options={"trial": "gca/prior/apple/red/050/colour"})
    assert open_env.step("Red.")[1] == 0.0
    open_env.reset(options={"trial": "gca/prior/apple/red/050/colour"})
    assert open_env.step("It looks purple")[1] == -1.0  # any colour but red/white: a distractor
    env.reset(options={"trial": "gca/prior/apple/red/050/coverage"})
    _, r, *_ = env.step("estimated_percentage=40%")
    assert r == pytest.approx(-abs(40 - env.last_record.extra["coverage"]) / 100)
    with pytest.raises(ValueError, match="field trial"):
        env.reset(options={"trial": "nope"})


def test_interference_reward_and_trials_iterator():
    env = TextInterferenceEnv(subsets=["color"], types=[1], per_type=4)
    trials = list(env.trials())
    assert len(trials) == 4
    env.reset(options={"trial": 0})
    assert env.step(f"The word is {trials[0].truth}.")[1] == 1.0
    env.reset(options={"trial": 0})
    assert env.step(trials[0].fields["named_colours"][0])[1] == 0.0


def test_reset_seed_is_deterministic():
    env = TextInterferenceEnv(per_type=3)
    a, ia = env.reset(seed=5)
    b, ib = env.reset(seed=5)
    assert ia == ib and np.array_equal(a["image"], b["image"])


def test_run_probe_logs_and_reads_back(tmp_path):
    from huesenv.logs import LogWriter, read_records

    path = tmp_path / "gca.jsonl"
    with LogWriter(path) as w:
        recs = run_probe(
            RandomAgent(seed=1),
            "gca",
            objects=["apple"],
            conditions=["prior"],
            question_types=["colour", "coverage"],
            on_record=w.append,
            run_id="r1",
            batch_size=5,
        )
    back = read_records(path).records
    assert len(back) == len(recs) == 26
    assert all(r.kind == "probe_trial" and r.extra["task"] == "gca" for r in back)
    colour = [r for r in back if r.extra["question_type"] == "colour"]
    assert all(r.valid and r.extra["options"] is None and r.answer for r in colour)
    # the random agent answers free-text questions by chance: a parsable percentage, raw text kept
    coverage = [r for r in back if r.extra["question_type"] == "coverage"]
    assert all(r.valid and r.raw_text and 0 <= float(r.answer) <= 100 for r in coverage)
    again = run_probe(
        RandomAgent(seed=1),
        "gca",
        objects=["apple"],
        conditions=["prior"],
        question_types=["colour", "coverage"],
        run_id="r1",
        batch_size=3,
    )
    assert [r.answer for r in again] == [r.answer for r in recs]


def _without_wall_clock(path):
    """The log's records as dicts, minus the wall-clock fields that legitimately differ between runs."""
    from huesenv.logs import read_records

    return [
        {k: v for k, v in r.to_dict().items() if k not in ("created", "timings")}
        for r in read_records(path).records
    ]


def test_same_seed_same_log_without_a_run_id(tmp_path):
    from huesenv.logs import LogWriter

    kwargs = dict(objects=["apple"], conditions=["prior"], question_types=["colour"], limit=6)
    logs = []
    for name in ("a", "b"):
        logs.append(tmp_path / f"{name}.jsonl")
        with LogWriter(logs[-1]) as w:
            run_probe(RandomAgent(seed=1), "gca", seed=4, on_record=w.append, batch_size=4, **kwargs)
    a, b = _without_wall_clock(logs[0]), _without_wall_clock(logs[1])
    assert len(a) == 6 and a == b
    assert a[0]["run_id"].startswith("probe-gca-") and len({r["run_id"] for r in a}) == 1
    other_seed = run_probe(RandomAgent(seed=1), "gca", seed=5, **kwargs)
    other_limit = run_probe(RandomAgent(seed=1), "gca", seed=4, **{**kwargs, "limit": 5})
    assert len({a[0]["run_id"], other_seed[0].run_id, other_limit[0].run_id}) == 3
    trials = build_trials("gca", seed=4, objects=["apple"], conditions=["prior"], question_types=["colour"])
    assert (
        run_probe(RandomAgent(seed=1), trials)[0].run_id == run_probe(RandomAgent(seed=1), trials)[0].run_id
    )
    assert default_run_id("gca", 4, "random") != default_run_id("gca", 4, "clip:x")


def test_cli_same_seed_same_log_and_report_folder(tmp_path):
    from huesenv.cli import main

    argv = [
        "probe",
        "gca",
        "--agent",
        "random",
        "--objects",
        "apple",
        "--conditions",
        "prior",
        "--question-types",
        "colour",
        "--limit",
        "4",
    ]
    for name in ("a", "b"):
        assert main([*argv, "--out", str(tmp_path / name)]) == 0
    a, b = (
        _without_wall_clock(tmp_path / "a" / "gca.jsonl"),
        _without_wall_clock(tmp_path / "b" / "gca.jsonl"),
    )
    assert len(a) == 4 and a == b
    assert (tmp_path / "a" / f"gca_report_{a[0]['run_id']}" / "report.txt").is_file()


def test_cli_runs_and_exports(tmp_path, capsys):
    from huesenv.cli import main

    out = tmp_path / "runs"
    code = main(
        [
            "probe",
            "gca",
            "--agent",
            "random",
            "--objects",
            "apple",
            "--conditions",
            "prior",
            "--question-types",
            "colour",
            "--out",
            str(out),
            "--run-id",
            "cli1",
            "--export",
            str(tmp_path / "stim"),
        ]
    )
    assert code == 0
    assert (tmp_path / "stim" / "manifest.csv").is_file()
    assert (out / "gca.jsonl").is_file()
    report = out / "gca_report_cli1"
    assert (report / "colour_shares.csv").is_file() and (report / "report.txt").is_file()
    import pandas as pd

    from huesenv.probes.report import NO_HUMAN_REFERENCE

    for csv in report.glob("*.csv"):  # the (absent) human reference is named in every table
        assert "human_reference" in pd.read_csv(csv).columns, csv.name
    assert NO_HUMAN_REFERENCE in (report / "report.txt").read_text()
    code = main(
        ["probe", "interference", "--export", str(tmp_path / "int"), "--per-type", "1", "--types", "2"]
    )
    assert code == 0 and len(list((tmp_path / "int").rglob("*.png"))) == 3
    assert main(["probe", "interference"]) == 2  # nothing to do -> error exit
