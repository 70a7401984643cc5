"""Killed runs never mix results: a kill at every write point of the trainers resumes to the uninterrupted run.

The kill is simulated at :func:`huesenv.atomic.replace_file` (the one rename every
rewritten file goes through): just before the k-th rename (the new file is
written but not in place) or just after it (the next file is not written yet),
for every k of an uninterrupted run.  The rerun must end with the same weights
and the same learning curve (its deterministic columns) as the run that was
never killed.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest

import huesenv.atomic as atomic
from huesenv.cli import main

TIMING = {"sps", "wall_s", "games_per_s"}


class Killed(BaseException):
    """A kill: not an Exception, so nothing in the trainers can catch it."""


def _count_writes(monkeypatch, run) -> int:
    calls = []
    real = atomic.replace_file

    def counting(tmp, path):
        calls.append(Path(path).name)
        real(tmp, path)

    monkeypatch.setattr(atomic, "replace_file", counting)
    run()
    monkeypatch.setattr(atomic, "replace_file", real)
    return len(calls)


def _kill_at(monkeypatch, k: int, after: bool):
    real = atomic.replace_file
    seen = {"n": 0}

    def dying(tmp, path):
        seen["n"] += 1
        if seen["n"] == k and not after:
            raise Killed(path)
        real(tmp, path)
        if seen["n"] == k and after:
            raise Killed(path)

    monkeypatch.setattr(atomic, "replace_file", dying)
    return real


def _curve(path: Path) -> list[dict[str, str]]:
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    return [{k: v for k, v in r.items() if k not in TIMING} for r in rows]


def _torch_weights(path: Path) -> dict:
    import torch

    payload = torch.load(path, map_location="cpu", weights_only=True)
    return {f"{k}.{n}": t for k, e in payload["nets"].items() for n, t in e["state_dict"].items()}


def _zip_weights(path: Path) -> dict:
    import torch

    with zipfile.ZipFile(path) as z:
        return torch.load(io.BytesIO(z.read("policy.pth")), map_location="cpu", weights_only=True)


def _same(a: dict, b: dict) -> bool:
    import torch

    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# -- the fast PPO trainer ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def humans():
    from huesenv.humans import load_humans

    return load_humans()


def _fast(out: Path, humans) -> None:
    from huesenv.experiments.rl.ppo_fast import FastPPOConfig, train_fast

    cfg = FastPPOConfig(
        total_steps=64 * 6,
        num_envs=64,
        num_minibatches=2,
        update_epochs=1,
        hidden=16,
        checkpoint_every=2,
        eval_every=3,
        eval_decisions=64,
        device="cpu",
    )
    train_fast(cfg, out, humans=humans, progress=False)


@pytest.mark.integration
def test_fast_trainer_killed_at_every_write_resumes_to_the_same_run(tmp_path, monkeypatch, humans):
    ref = tmp_path / "ref"
    n = _count_writes(monkeypatch, lambda: _fast(ref, humans))
    assert n >= 8
    want_w, want_c = _torch_weights(ref / "policy.pt"), _curve(ref / "curve.csv")
    for k in range(1, n + 1):
        for after in (False, True):
            out = tmp_path / f"k{k}-{after}"
            real = _kill_at(monkeypatch, k, after)
            with pytest.raises(Killed):
                _fast(out, humans)
            monkeypatch.setattr(atomic, "replace_file", real)
            _fast(out, humans)
            assert _same(_torch_weights(out / "policy.pt"), want_w), (k, after)
            assert _curve(out / "curve.csv") == want_c, (k, after)


def test_mismatched_halves_of_an_older_run_are_refused(tmp_path, humans, capsys):
    """A state without networks (an older huesenv) is cross-checked against policy.pt's update."""
    import torch

    out = tmp_path / "run"
    _fast(out, humans)
    state = torch.load(out / "trainer_state.pt", weights_only=True)
    state.pop("net")
    state["update"] = 4
    torch.save(state, out / "trainer_state.pt")
    args = ["train", "guesser", "--fast", "-o", str(out), "--steps", "768", "--tracker", "none"]
    code = main([*args, "--set", "num_envs=64", "--set", "hidden=16", "--set", "checkpoint_every=2"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "interrupted between its two files" in err and "\n" not in err


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("trainer_state.pt", b"", "trainer_state.pt: not a readable trainer state"),
        ("trainer_state.pt", b"garbage" * 10, "trainer_state.pt: not a readable trainer state"),
    ],
)
def test_corrupt_fast_state_names_the_file(tmp_path, capsys, name, content, expected):
    out = tmp_path / "run"
    out.mkdir()
    (out / name).write_bytes(content)
    code = main(["train", "guesser", "--fast", "-o", str(out), "--steps", "64", "--tracker", "none"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and expected in err and "\n" not in err, err


def _selfplay(out: Path, humans) -> None:
    from huesenv.experiments.rl.selfplay import SelfPlayConfig, train_selfplay

    cfg = SelfPlayConfig(
        total_games=32 * 4, num_games=32, hidden=8, checkpoint_every=2, snapshot_every=2, device="cpu"
    )
    train_selfplay(cfg, out, humans=humans, progress=False, figure=False)


@pytest.mark.integration
@pytest.mark.slow
def test_selfplay_killed_at_every_write_resumes_to_the_same_run(tmp_path, monkeypatch, humans):
    ref = tmp_path / "ref"
    n = _count_writes(monkeypatch, lambda: _selfplay(ref, humans))
    want_w, want_c = _torch_weights(ref / "policy.pt"), _curve(ref / "curve.csv")
    want_h = (ref / "lexicon_history.csv").read_text()
    for k in range(1, n + 1):
        for after in (False, True):
            out = tmp_path / f"k{k}-{after}"
            real = _kill_at(monkeypatch, k, after)
            with pytest.raises(Killed):
                _selfplay(out, humans)
            monkeypatch.setattr(atomic, "replace_file", real)
            _selfplay(out, humans)
            assert _same(_torch_weights(out / "policy.pt"), want_w), (k, after)
            assert _curve(out / "curve.csv") == want_c, (k, after)
            assert (out / "lexicon_history.csv").read_text() == want_h, (k, after)


# -- the SB3 trainer -----------------------------------------------------------------------------------------------
def _sb3(out: Path) -> None:
    from huesenv.experiments.rl.sb3_train import SB3Config, train_sb3

    cfg = SB3Config(
        total_steps=128,
        num_envs=2,
        n_steps=32,
        batch_size=16,
        n_epochs=1,
        net_arch=(16,),
        checkpoint_every=64,
        env_kwargs={"opponents": "random"},
        device="cpu",
    )
    train_sb3(cfg, out, progress=False)


@pytest.mark.integration
def test_sb3_trainer_killed_at_every_write_resumes_to_the_same_run(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib")
    ref = tmp_path / "ref"
    n = _count_writes(monkeypatch, lambda: _sb3(ref))
    want_w, want_c = _zip_weights(ref / "model.zip"), _curve(ref / "curve.csv")
    assert len(want_c) >= 3
    for k in range(1, n + 1):
        for after in (False, True):
            out = tmp_path / f"k{k}-{after}"
            real = _kill_at(monkeypatch, k, after)
            with pytest.raises(Killed):
                _sb3(out)
            monkeypatch.setattr(atomic, "replace_file", real)
            _sb3(out)
            assert _same(_zip_weights(out / "model.zip"), want_w), (k, after)
            assert _curve(out / "curve.csv") == want_c, (k, after)


@pytest.mark.integration
def test_sb3_resume_equals_the_uninterrupted_run(tmp_path):
    """Stopping at a checkpoint and rerunning gives the same weights and curve (RNGs reseeded per segment)."""
    pytest.importorskip("sb3_contrib")
    from huesenv.experiments.rl.sb3_train import SB3Config, train_sb3

    ref, split = tmp_path / "ref", tmp_path / "split"
    _sb3(ref)
    base = dict(
        num_envs=2, n_steps=32, batch_size=16, n_epochs=1, net_arch=(16,), checkpoint_every=64, device="cpu"
    )
    kw = {**base, "env_kwargs": {"opponents": "random"}}
    train_sb3(SB3Config(total_steps=64, **kw), split, progress=False)
    train_sb3(SB3Config(total_steps=128, **kw), split, progress=False)
    assert _same(_zip_weights(split / "model.zip"), _zip_weights(ref / "model.zip"))
    assert _curve(split / "curve.csv") == _curve(ref / "curve.csv")
    assert json.loads((split / "trainer_state.json").read_text())["steps"] == 128


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 torn"])
def test_corrupt_sb3_checkpoint_names_the_file(tmp_path, capsys, content):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    out.mkdir()
    (out / "model.zip").write_bytes(content)
    (out / "trainer_state.json").write_text("")
    code = main(["train", "guesser", "-o", str(out), "--steps", "64", "--tracker", "none"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "model.zip" in err and "\n" not in err, err


def test_torn_curve_row_is_dropped_on_resume(tmp_path):
    from huesenv.experiments.rl.logger import TrainLogger

    curve = tmp_path / "curve.csv"
    curve.write_text("step,points\n64,1.0\n128,2.0\n19")  # killed while appending step 192
    TrainLogger(tmp_path, tracker="none", resume_step=128, quiet=True).close()
    assert curve.read_text() == "step,points\n64,1.0\n128,2.0\n"


# -- a policy file's content is part of a tournament's identity -----------------------------------------------------
def _policy_file(path: Path, seed: int) -> Path:
    import torch

    from huesenv.agents.policy_net import PolicySettings, build_guesser_net, save_checkpoint
    from huesenv.vocabulary import word_texts

    vocab = word_texts()
    torch.manual_seed(seed)
    net = build_guesser_net(len(vocab), hidden=8)
    settings = PolicySettings(
        env_id="huesenv/GuesserVector-v0", role="guesser", observation_mode="vector-dict", vocabulary=vocab
    )
    save_checkpoint(path, settings, {"guesser": net}, {"guesser": {"vocab_size": len(vocab), "hidden": 8}})
    return path


@pytest.mark.integration
def test_replaced_policy_file_is_refused_not_mixed_into_one_leaderboard(tmp_path, capsys):
    policy = _policy_file(tmp_path / "policy.pt", seed=0)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"agents:\n  learned: policy:{policy}\n  r: random\n"
        "lineups: [[learned, r, r]]\nnum_players: 3\ngames: 1\nwordlevel: {enabled: false}\n"
    )
    out = tmp_path / "out"
    base = ["tournament", str(cfg), "-o", str(out), "--no-progress", "--wandb", "disabled"]
    assert main(base) == 0
    _policy_file(policy, seed=1)  # retrained or replaced at the same path
    code = main([*base, "--set", "games=2"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 2 and "agent(s) learned" in err and "content changed" in err
    assert main([*base, "--set", "games=2", "--fresh"]) == 0  # --fresh replays with the new file


@pytest.mark.integration
def test_train_experiment_with_more_steps_replays_its_tournament(tmp_path, capsys):
    """More training steps retrain the policy; the tournament is then restarted, never kept from the old one."""
    sets = [
        f"output={tmp_path / 'runs'}",
        "train.params.num_envs=64",
        "train.params.hidden=16",
        "train.params.eval_decisions=64",
        "evaluate.games=1",
        "references.agents=[random]",
        "evaluate.wordlevel=false",
    ]
    args = ["train", "experiment", "learned_guesser", "--no-progress"]
    for item in sets:
        args += ["--set", item]
    assert main([*args, "--set", "train.params.total_steps=128"]) == 0
    games = next((tmp_path / "runs").rglob("games.jsonl"))
    first = games.read_bytes()
    capsys.readouterr()
    assert main([*args, "--set", "train.params.total_steps=256"]) == 0
    assert "changed since its games were played; restarting the tournament" in capsys.readouterr().out
    assert games.read_bytes() != first
