"""Files are data, never code: a malicious SB3 zip or a ``trust_remote_code`` config runs nothing without --allow-code."""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path

import pytest

from huesenv.cli import main
from huesenv.trust import CodeNotAllowedError, allowing_code, check_code_kwargs, code_kwargs

pytest.importorskip("sb3_contrib")


class _Planted:
    """Unpickling this touches ``marker`` (what an attacker's ``os.system`` would do)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def _payload(marker: Path) -> str:
    return base64.b64encode(pickle.dumps(_Planted(str(marker)))).decode()


@pytest.fixture(scope="module")
def tiny_zip(tmp_path_factory) -> Path:
    """A real MaskablePPO guesser zip (tiny MLP), as `huesenv train guesser` writes it."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    import huesenv  # noqa: F401 - registers the env ids
    from huesenv.experiments.rl.sb3_train import env_policy_settings

    env = gymnasium.make("huesenv/Guesser-v1", opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, policy_kwargs={"net_arch": [16]}, seed=0)
    model.huesenv_settings = env_policy_settings(env, "guesser", "huesenv/Guesser-v1")
    path = tmp_path_factory.mktemp("zip") / "model.zip"
    model.save(str(path))
    return path


def _rewrite(src: Path, dst: Path, edit) -> Path:
    """Copy the zip with its ``data`` JSON passed through ``edit``."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            blob = zin.read(item.filename)
            if item.filename == "data":
                data = json.loads(blob)
                edit(data)
                blob = json.dumps(data).encode()
            zout.writestr(item, blob)
    return dst


def _poison_all(data: dict, marker: Path) -> None:
    for value in data.values():
        if isinstance(value, dict) and ":serialized:" in value:
            value[":serialized:"] = _payload(marker)


def test_planted_pickle_really_runs_when_unpickled(tmp_path, tiny_zip):
    """The attack is real: SB3's own loader runs it (so the tests below would catch a regression)."""
    from sb3_contrib import MaskablePPO

    marker = tmp_path / "pwned"
    bad = _rewrite(tiny_zip, tmp_path / "bad.zip", lambda d: _poison_all(d, marker))
    with pytest.raises(Exception):  # noqa: B017 - the payload returns None where a space is expected
        MaskablePPO.load(str(bad))
    assert marker.exists()


def test_malicious_zip_plays_without_running_its_pickles(tmp_path, tiny_zip, capsys):
    marker = tmp_path / "pwned"
    bad = _rewrite(tiny_zip, tmp_path / "bad.zip", lambda d: _poison_all(d, marker))
    code = main(["agents", "guess", f"policy:{bad}", "BANANA", "--top-k", "3"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not marker.exists()


def test_pickled_policy_kwargs_refused_in_one_line(tmp_path, tiny_zip, capsys):
    marker = tmp_path / "pwned"

    def edit(d):
        d["policy_kwargs"] = {":type:": "<class 'dict'>", ":serialized:": _payload(marker)}

    bad = _rewrite(tiny_zip, tmp_path / "bad.zip", edit)
    assert main(["agents", "guess", f"policy:{bad}", "BANANA"]) == 2
    err = capsys.readouterr().err.strip()
    assert "policy_kwargs is stored pickled" in err and "\n" not in err
    assert not marker.exists()


def test_pickled_settings_refused(tmp_path, tiny_zip, capsys):
    marker = tmp_path / "pwned"

    def edit(d):
        d["huesenv_settings"] = {":type:": "<class 'dict'>", ":serialized:": _payload(marker)}

    bad = _rewrite(tiny_zip, tmp_path / "bad.zip", edit)
    assert main(["agents", "guess", f"policy:{bad}", "BANANA"]) == 2
    assert "huesenv_settings is stored pickled" in capsys.readouterr().err
    assert not marker.exists()


def test_zip_weights_with_a_pickle_refused(tmp_path, tiny_zip, capsys):
    marker = tmp_path / "pwned"
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(tiny_zip) as zin, zipfile.ZipFile(bad, "w") as zout:
        for item in zin.infolist():
            blob = zin.read(item.filename)
            if item.filename == "policy.pth":
                blob = pickle.dumps(_Planted(str(marker)))
            zout.writestr(item, blob)
    assert main(["agents", "guess", f"policy:{bad}", "BANANA"]) == 2
    assert "not a plain tensor file" in capsys.readouterr().err
    assert not marker.exists()


def test_bring_your_own_zip_without_role_gets_it_from_its_env(tmp_path, tiny_zip):
    from huesenv.agents import make_agent
    from huesenv.agents.protocol import GuessQuery

    def edit(d):
        d["huesenv_settings"].pop("role")

    byo = _rewrite(tiny_zip, tmp_path / "byo.zip", edit)
    agent = make_agent(f"policy:{byo}")
    assert agent.settings.role == "guesser"
    assert len(agent.act(GuessQuery(cues=("BANANA",), top_k=2)).cells) == 2


def test_safe_read_plays_like_sb3_load(tiny_zip):
    """The rebuilt policy gives the same logits as the unpickled model (same weights, same layers)."""
    import numpy as np
    from sb3_contrib import MaskablePPO

    from huesenv.agents.sb3_zip import load_sb3_policy

    ours = load_sb3_policy(tiny_zip).policy
    theirs = MaskablePPO.load(str(tiny_zip), device="cpu").policy
    obs = np.random.default_rng(0).random((3, theirs.observation_space.shape[0]), dtype=np.float32)
    import torch

    with torch.no_grad():
        a = ours.get_distribution(ours.obs_to_tensor(obs)[0]).distribution.logits
        b = theirs.get_distribution(theirs.obs_to_tensor(obs)[0]).distribution.logits
    assert torch.allclose(a, b)


def test_resume_of_a_planted_model_zip_runs_nothing(tmp_path, tiny_zip, capsys):
    """A run folder holding someone's model.zip: resuming never unpickles it (refused, or read as data)."""
    marker = tmp_path / "pwned"
    out = tmp_path / "run"
    out.mkdir()
    _rewrite(tiny_zip, out / "model.zip", lambda d: _poison_all(d, marker))
    (out / "trainer_state.json").write_text(
        json.dumps(
            {
                "steps": 32,
                "wall_s": 0,
                "cpu_s": 0,
                "config": {"seed": 0, "role": "guesser", "n_steps": 32, "batch_size": 16, "n_epochs": 1},
            }
        )
    )
    args = ["train", "guesser", "--steps", "64", "-o", str(out), "--tracker", "none", "--device", "cpu"]
    code = main([*args, "--set", "n_steps=32", "--set", "batch_size=16", "--set", "n_epochs=1"])
    err = capsys.readouterr().err
    assert not marker.exists()
    assert code == 2 and "\n" not in err.strip()


# -- trust_remote_code and other code-loading keys ---------------------------------------------------------------
def test_code_kwargs_found_nested():
    assert code_kwargs({"trust_remote_code": True, "x": {"trust_remote_code": 1}}) == [
        "trust_remote_code",
        "x.trust_remote_code",
    ]
    assert code_kwargs({"trust_remote_code": False}) == []
    with pytest.raises(CodeNotAllowedError, match="trust_remote_code"):
        check_code_kwargs({"trust_remote_code": True}, "agent x")
    with allowing_code():
        check_code_kwargs({"trust_remote_code": True}, "agent x")


def _remote_code_folder(tmp_path: Path, marker: Path) -> Path:
    """A model folder whose config asks transformers to import its own Python (which touches ``marker``)."""
    folder = tmp_path / "evil-model"
    folder.mkdir()
    (folder / "evil.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).touch()\n")
    (folder / "config.json").write_text(
        json.dumps({"model_type": "evil", "auto_map": {"AutoConfig": "evil.EvilConfig"}})
    )
    return folder


def test_trust_remote_code_in_a_config_is_refused(tmp_path, capsys):
    marker = tmp_path / "pwned"
    folder = _remote_code_folder(tmp_path, marker)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "agents:\n  evil:\n    spec: vlm:" + str(folder) + "\n    kwargs:\n      trust_remote_code: true\n"
        "lineups: [[evil, evil, evil, evil]]\ngames: 1\n"
    )
    code = main(["tournament", str(cfg), "-o", str(tmp_path / "out"), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "trust_remote_code" in err and "--allow-code" in err and "\n" not in err
    assert not marker.exists()


@pytest.mark.parametrize("flag", ["--set", "--opt"])
def test_trust_remote_code_from_the_command_line_is_refused(tmp_path, capsys, flag):
    marker = tmp_path / "pwned"
    folder = _remote_code_folder(tmp_path, marker)
    if flag == "--opt":
        args = ["agents", "guess", f"vlm:{folder}", "BANANA", "--opt", "trust_remote_code=true"]
    else:
        args = [
            "tournament",
            "--set",
            f"agents.evil.spec=vlm:{folder}",
            "--set",
            "agents.evil.kwargs.trust_remote_code=true",
            "--set",
            "lineups=[[evil, evil, evil, evil]]",
            "-o",
            str(tmp_path / "out"),
            "--no-progress",
        ]
    code = main(args)
    err = capsys.readouterr().err.strip()
    assert code == 2 and "trust_remote_code" in err and "\n" not in err, err
    assert not marker.exists()


def test_allow_code_on_the_command_line_lets_the_config_load(tmp_path):
    from huesenv.experiments.config import load_config

    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "agents:\n  v:\n    spec: vlm:/nowhere\n    kwargs: {trust_remote_code: true}\n"
        "lineups: [[v, v, v, v]]\ngames: 1\n"
    )
    with pytest.raises(ValueError, match="agents.v.kwargs.trust_remote_code"):
        load_config(str(cfg))
    assert load_config(str(cfg), allow_code=True).data["allow_code"] is True


def test_a_zip_of_weight_views_is_refused_before_anything_is_built(tmp_path, tiny_zip, capsys):
    """A few kB of stride-0 tensors would declare 60000x60000 layers: refused, nothing allocated."""
    import io

    import torch

    z = torch.zeros(1)
    width = 60000
    state = {
        "mlp_extractor.policy_net.0.weight": z.expand(width, width),
        "mlp_extractor.policy_net.0.bias": z.expand(width),
        "mlp_extractor.value_net.0.weight": z.expand(width, width),
        "mlp_extractor.value_net.0.bias": z.expand(width),
        "action_net.weight": z.expand(480, width),
        "action_net.bias": z.expand(480),
        "value_net.weight": z.expand(1, width),
        "value_net.bias": z.expand(1),
    }
    buf = io.BytesIO()
    torch.save(state, buf)
    assert len(buf.getvalue()) < 10_000
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(tiny_zip) as zin, zipfile.ZipFile(bomb, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            zout.writestr(item.filename, buf.getvalue() if item.filename == "policy.pth" else data)
    assert main(["agents", "guess", f"policy:{bomb}", "OCEAN"]) == 2
    err = capsys.readouterr().err
    assert "without storing its values" in err and len(err.strip().splitlines()) == 1
