"""An independent hostile-input and fault-injection pass over the CLI and the trainers (issue 23).

Written from the CLI's help and the trainers' docstrings, without reading the
other batteries.  Every case: exit code 2, one line on stderr naming what was
wrong, no traceback, and (for the faults) nothing already written lost.
"""

from __future__ import annotations

import errno
import json
import pickle
import zipfile
from pathlib import Path

import pytest

import huesenv.atomic as atomic
from huesenv.cli import main

FAST = ["train", "guesser", "--fast", "--tracker", "none", "--no-progress", "--device", "cpu"]
TINY = [
    "--set",
    "num_envs=32",
    "--set",
    "hidden=8",
    "--set",
    "eval_decisions=32",
    "--set",
    "num_minibatches=1",
]


def _one_line(capsys, code: int, *needles: str) -> str:
    out, err = capsys.readouterr()
    err = err.strip()
    assert code == 2, f"exit {code}: {err or out}"
    assert "Traceback" not in err and "\n" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


class _Marker:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


# -- command-line values the trainers must refuse before touching the run folder -------------------------------
@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--set", "num_envs=-5"], "num_envs"),
        (["--set", "hidden=abc"], "hidden"),
        (["--set", "seed=true"], "seed"),
        (["--set", "time_budget_s=-1"], "time_budget_s"),
        (["--set", "learning_rate=.nan"], "learning_rate"),
        (["--set", "checkpoint_every=0"], "checkpoint_every"),
        (["--set", "cue_source=people"], "cue_source"),
        (["--set", "num_minibatches=7"], "num_minibatches"),
        (["--set", "gamma=2"], "gamma"),
        (["--set", "device=gpu"], "device"),
    ],
)
def test_fast_trainer_refuses_bad_values(tmp_path, capsys, extra, needle):
    out = tmp_path / "run"
    code = main([*FAST, "-o", str(out), "--steps", "64", *TINY, *extra])
    _one_line(capsys, code, needle)
    assert not (out / "curve.csv").exists()


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--set", "net_arch=[0]"], "net_arch"),
        (["--set", "env_kwargs={bogus: 1}"], "bogus"),
        (["--set", "n_steps=0"], "n_steps"),
        (["--set", "role=referee"], "role"),
    ],
)
def test_sb3_trainer_refuses_bad_values(tmp_path, capsys, extra, needle):
    pytest.importorskip("sb3_contrib")
    code = main(["train", "guesser", "-o", str(tmp_path / "r"), "--steps", "64", "--tracker", "none", *extra])
    _one_line(capsys, code, needle)


def test_selfplay_refuses_a_string_for_games(tmp_path, capsys):
    code = main(
        ["train", "selfplay", "-o", str(tmp_path / "r"), "--set", "num_games=lots", "--tracker", "none"]
    )
    _one_line(capsys, code, "num_games")


# -- run folders holding something else than a run ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("trainer_state.pt", lambda p: p.mkdir()),
        ("trainer_state.pt", lambda p: p.write_bytes(pickle.dumps({"update": 1}))),
        ("trainer_state.pt", lambda p: p.write_bytes(b"\x00" * 64)),
        ("curve.csv", lambda p: p.write_bytes(b"\xff\xfe\x00garbage\n\x00")),
    ],
)
def test_fast_trainer_on_a_damaged_run_folder(tmp_path, capsys, name, make):
    out = tmp_path / "run"
    out.mkdir()
    make(out / name)
    code = main([*FAST, "-o", str(out), "--steps", "64", *TINY])
    if name == "curve.csv":  # a curve that is not a curve: refused or replaced, never a traceback
        _, err = capsys.readouterr()
        assert code in (0, 2) and "Traceback" not in err and "\n" not in err.strip()
        return
    _one_line(capsys, code, name)


def test_pickled_trainer_state_runs_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    marker = tmp_path / "pwned"
    (out / "trainer_state.pt").write_bytes(pickle.dumps(_Marker(str(marker))))
    code = main([*FAST, "-o", str(out), "--steps", "64", *TINY])
    _one_line(capsys, code, "trainer_state.pt")
    assert not marker.exists()


def test_empty_selfplay_history_names_the_file(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", "selfplay", "-o", str(out), "--tracker", "none", "--no-progress", "--device", "cpu"]
    small = [
        "--set",
        "num_games=32",
        "--set",
        "hidden=8",
        "--set",
        "snapshot_every=1",
        "--set",
        "checkpoint_every=1",
    ]
    assert main([*args, "--steps", "32", *small]) == 0
    (out / "lexicon_history.csv").write_text("")
    code = main([*args, "--steps", "64", *small])
    _one_line(capsys, code, "lexicon_history.csv")


# -- policy files ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "make", "needle"),
    [
        ("p.pt", lambda p: p.write_bytes(pickle.dumps(_Marker(str(p.parent / "pwned")))), "p.pt"),
        ("p.zip", lambda p: p.write_bytes(b"not a zip"), "p.zip"),
        ("p.zip", lambda p: zipfile.ZipFile(p, "w").writestr("data", "[1, 2]"), "p.zip"),
        ("p.zip", lambda p: zipfile.ZipFile(p, "w").writestr("data", "{}"), "policy.pth"),
        ("dir.pt", lambda p: p.mkdir(), "dir.pt"),
        ("missing.zip", lambda p: None, "missing.zip"),
    ],
)
def test_hostile_policy_files(tmp_path, capsys, name, make, needle):
    path = tmp_path / name
    make(path)
    code = main(["agents", "guess", f"policy:{path}", "BANANA"])
    _one_line(capsys, code, needle)
    assert not (tmp_path / "pwned").exists()


def test_zip_member_claiming_gigabytes_is_refused_before_reading(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from huesenv.agents import sb3_zip

    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("data", json.dumps({"huesenv_settings": {}}))
        z.writestr("policy.pth", b"\x00" * (sb3_zip.MAX_DATA_BYTES + 1))
    old = sb3_zip.MAX_WEIGHTS_BYTES
    sb3_zip.MAX_WEIGHTS_BYTES = sb3_zip.MAX_DATA_BYTES  # the same rule at a size a test can build
    try:
        code = main(["agents", "guess", f"policy:{path}", "BANANA"])
    finally:
        sb3_zip.MAX_WEIGHTS_BYTES = old
    _one_line(capsys, code, "policy.pth", "allowed")


# -- secrets in what is echoed back -------------------------------------------------------------------------------
def test_password_in_a_bad_base_url_is_masked(capsys):
    code = main(["agents", "guess", "api-vlm:m", "X", "--opt", "base_url=ftp://me:hunter2-secret@host/v1"])
    err = _one_line(capsys, code, "base_url")
    assert "hunter2-secret" not in err


def test_an_unrelated_variable_cannot_be_sent_as_a_key(capsys, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-value-123456")
    code = main(["agents", "guess", "api-vlm:m", "X", "--opt", "api_key_env=AWS_SECRET_ACCESS_KEY"])
    err = _one_line(capsys, code, "api_key_env")
    assert "aws-secret-value-123456" not in err


# -- outputs that cannot be written ---------------------------------------------------------------------------------
V1_LOG = Path(__file__).parent / "data" / "v1_games.jsonl"


@pytest.mark.parametrize("target", ["/proc/nope.gif", "/proc/nope/frames", "/dev/null/x.gif"])
def test_replay_export_to_an_unwritable_place(capsys, target):
    code = main(["replay", str(V1_LOG), "--export", target])
    _one_line(capsys, code)


def test_replay_of_a_binary_file(tmp_path, capsys):
    """First run: a warning ("torn last line ignored") then the error: two lines, no traceback (the log
    reader belongs to issue 23 item 5; a binary file is reported as torn, not as "not a log")."""
    log = tmp_path / "games.jsonl"
    log.write_bytes(b"\x00\xff" * 100)
    code = main(["replay", str(log), "--list"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "games.jsonl" in err[-1] and not any("Traceback" in line for line in err)


def test_logs_check_of_a_directory_and_of_a_fifo(tmp_path, capsys):
    _one_line(capsys, main(["logs", "check", str(tmp_path)]))


# -- fault injection: a full disk during training -----------------------------------------------------------------
def test_disk_full_during_training_is_one_line_and_resumable(tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    args = [*FAST, "-o", str(out), *TINY, "--set", "checkpoint_every=1"]
    assert main([*args, "--steps", "64"]) == 0
    before = (out / "curve.csv").read_text()
    real, calls = atomic.replace_file, {"n": 0}

    def full(tmp, path):
        calls["n"] += 1
        if calls["n"] >= 2:
            raise OSError(errno.ENOSPC, "No space left on device", str(tmp))
        real(tmp, path)

    monkeypatch.setattr(atomic, "replace_file", full)
    code = main([*args, "--steps", "256"])
    _one_line(capsys, code, "No space left" if False else "")
    monkeypatch.setattr(atomic, "replace_file", real)
    assert (out / "curve.csv").read_text().startswith(before.splitlines()[0])  # the curve survived
    assert main([*args, "--steps", "256"]) == 0  # and the run resumes
    assert json.loads((out / "train.json").read_text())["steps"] == 256


def test_time_budget_is_never_exceeded_by_a_whole_update(tmp_path):
    from huesenv.experiments.rl.ppo_fast import FastPPOConfig, train_fast

    cfg = FastPPOConfig(
        total_steps=32 * 10_000,
        num_envs=32,
        hidden=8,
        num_minibatches=1,
        eval_decisions=32,
        time_budget_s=1.0,
        budget_clock="cpu",  # the process's own seconds: a shared or traced (--cov) machine cannot stretch them
        device="cpu",
    )
    summary = train_fast(cfg, tmp_path / "r", progress=False)
    assert summary["stopped_by_time_budget"] and summary["cpu_s"] <= 1.5


def test_replay_of_a_device_says_what_it_is(capsys):
    """First run: /dev/null was called "a directory"."""
    _one_line(capsys, main(["replay", "/dev/null"]), "a device, FIFO or socket")
