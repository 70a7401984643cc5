"""Hostile SB3 zips, .pt checkpoints and agent options: one-line refusals naming the file (exit 2), before
``torch.load`` can allocate what a file's compressed records claim."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from huesenv.cli import main
from huesenv.trust import UnsafeTensorFile, check_tensor_archive

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def byo_zip(tmp_path_factory) -> Path:
    """A plain ``model.save`` of a tiny MaskablePPO guesser (no huesenv_settings)."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    import huesenv  # noqa: F401 - registers the env ids

    env = gymnasium.make("huesenv/Guesser-v1")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=16, n_epochs=1, policy_kwargs={"net_arch": [8]}
    )
    path = tmp_path_factory.mktemp("byo") / "model.zip"
    model.save(str(path))
    return path


def _deflate(blob: bytes) -> bytes:
    """A torch.save file with its records DEFLATE-compressed (torch.load reads it; torch.save never writes it)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(blob)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            zout.writestr(item.filename, zin.read(item.filename), compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _rewrite(src: Path, dst: Path, *, data=None, weights=None) -> Path:
    """Copy the zip with its ``data`` JSON through ``data(dict) -> dict | str`` and its state dict through ``weights``."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            blob = zin.read(item.filename)
            if item.filename == "data" and data is not None:
                new = data(json.loads(blob))
                blob = (new if isinstance(new, str) else json.dumps(new)).encode()
            if item.filename == "policy.pth" and weights is not None:
                new = weights(torch.load(io.BytesIO(blob), weights_only=True))
                if isinstance(new, bytes):
                    blob = new
                else:
                    buf = io.BytesIO()
                    torch.save(new, buf)
                    blob = buf.getvalue()
            zout.writestr(item, blob)
    return dst


def _guess(path: Path, *opts: str) -> int:
    args = ["agents", "guess", f"policy:{path}", "CUCUMBER"]
    for opt in opts:
        args += ["--opt", opt]
    return main(args)


def _one_line_naming(capsys, path: Path, *words: str) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and "Traceback" not in err, err
    for word in words:
        assert word in err, err
    return err


def test_the_fixture_plays(byo_zip):
    assert _guess(byo_zip) == 0


# -- 1. records torch.load would inflate ------------------------------------------------------------------------
def test_compressed_policy_pth_records_refused_before_torch_load(tmp_path, byo_zip, capsys, monkeypatch):
    def deflated(state):
        buf = io.BytesIO()
        torch.save(state, buf)
        return _deflate(buf.getvalue())

    bad = _rewrite(byo_zip, tmp_path / "bad.zip", weights=deflated)
    calls = []
    real = torch.load
    monkeypatch.setattr(torch, "load", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert _guess(bad) == 2
    _one_line_naming(capsys, bad, "compressed")
    assert not calls  # refused before anything was allocated


def test_tensor_archive_cap_counts_declared_sizes():
    buf = io.BytesIO()
    torch.save({"w": torch.zeros(1000)}, buf)
    check_tensor_archive(io.BytesIO(buf.getvalue()))
    with pytest.raises(UnsafeTensorFile, match="more than 1,000 bytes"):
        check_tensor_archive(io.BytesIO(buf.getvalue()), max_bytes=1000)
    with pytest.raises(UnsafeTensorFile, match="compressed"):
        check_tensor_archive(io.BytesIO(_deflate(buf.getvalue())))
    with pytest.raises(UnsafeTensorFile, match="zip format"):
        check_tensor_archive(io.BytesIO(b"garbage"))


def test_compressed_checkpoint_and_trainer_state_refused(tmp_path):
    from huesenv.agents.policy_net import load_checkpoint
    from huesenv.experiments.rl.harness import load_state

    buf = io.BytesIO()
    torch.save({"format": "x", "w": torch.zeros(10)}, buf)
    for name in ("policy.pt", "trainer_state.pt"):
        (tmp_path / name).write_bytes(_deflate(buf.getvalue()))
    with pytest.raises(ValueError, match="policy.pt: not a readable torch checkpoint .*compressed"):
        load_checkpoint(tmp_path / "policy.pt")
    with pytest.raises(ValueError, match="trainer_state.pt: not a readable trainer state .*compressed"):
        load_state(tmp_path / "trainer_state.pt")


def test_outer_weights_cap_is_what_torch_load_may_allocate():
    from huesenv.agents import sb3_zip

    assert sb3_zip.MAX_WEIGHTS_BYTES == 8 * sb3_zip.MAX_PARAMETERS


# -- 2. hostile data and options: one line naming the zip -------------------------------------------------------
@pytest.mark.parametrize(
    "edit",
    [
        lambda d: "[" * 100_000 + "]" * 100_000,
        lambda d: {**d, "policy_kwargs": {"net_arch": [{"a": 1}]}},
        lambda d: {**d, "policy_kwargs": {"net_arch": {"pi": 5}}},
        lambda d: {**d, "policy_kwargs": {"net_arch": ["x"]}},
        lambda d: {**d, "huesenv_settings": "guesser"},
        lambda d: {**d, "observation_space": {**d["observation_space"], "low_repr": "-1e999"}},
    ],
    ids=["deep-json", "arch-dict-element", "arch-pi-int", "arch-str", "settings-str", "infinite-bound"],
)
def test_hostile_data_is_a_one_line_error(tmp_path, byo_zip, capsys, edit):
    bad = _rewrite(byo_zip, tmp_path / "bad.zip", data=edit)
    assert _guess(bad) == 2
    _one_line_naming(capsys, bad)


def test_plain_string_settings_say_what_they_are(tmp_path, byo_zip, capsys):
    bad = _rewrite(byo_zip, tmp_path / "bad.zip", data=lambda d: {**d, "huesenv_settings": "guesser"})
    assert _guess(bad) == 2
    err = _one_line_naming(capsys, bad, "JSON str")
    assert "pickled" not in err


def test_infinite_flat_cue_weight_option_refused(byo_zip, capsys):
    assert _guess(byo_zip, "flat_cue_weight=inf") == 2
    _one_line_naming(capsys, byo_zip, "flat_cue_weight")


@pytest.mark.parametrize(
    "weights",
    [
        lambda s: {**s, "action_net.weight": s["action_net.weight"].reshape(-1)},
        lambda s: {**s, "value_net.bias": torch.full_like(s["value_net.bias"], float("nan"))},
    ],
    ids=["1d-action-net", "nan-weights"],
)
def test_hostile_weights_are_a_one_line_error(tmp_path, byo_zip, capsys, weights):
    bad = _rewrite(byo_zip, tmp_path / "bad.zip", weights=weights)
    assert _guess(bad) == 2
    _one_line_naming(capsys, bad)


@pytest.mark.parametrize("opt", ["role=[1]", "role={a: 1}"])
def test_unhashable_role_option_refused(byo_zip, capsys, opt):
    assert _guess(byo_zip, opt) == 2
    _one_line_naming(capsys, byo_zip, "role")


# -- 3. cue_vocabulary= ----------------------------------------------------------------------------------------------
def test_vocabulary_option_reads_only_a_small_regular_file(tmp_path, byo_zip, capsys):
    if Path("/dev/zero").exists():
        assert _guess(byo_zip, "cue_vocabulary=/dev/zero") == 2
        _one_line_naming(capsys, byo_zip, "not a regular file")
    big = tmp_path / "big.txt"
    big.write_text("word\n" * 300_000)
    assert _guess(byo_zip, f"cue_vocabulary={big}") == 2
    _one_line_naming(capsys, byo_zip, "bytes")


# -- 6. a text encoder folder named by a file --------------------------------------------------------------------
@pytest.mark.xdist_group(
    "model_libraries"
)  # imports sentence-transformers: on the worker that has it (test_agents_text_embedding.py)
def test_text_encoder_folder_naming_a_foreign_class_is_refused(tmp_path, monkeypatch):
    """sentence-transformers >= 6 refuses a modules.json class outside its namespace without
    trust_remote_code (which huesenv never passes): a zip's text_encoder folder imports nothing."""
    pytest.importorskip("sentence_transformers")
    from huesenv.agents.text_encoders import make_text_encoder

    marker = tmp_path / "pwned"
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "evil_module_for_test.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nclass Evil:\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    (folder / "modules.json").write_text(
        json.dumps([{"idx": 0, "name": "0", "path": "", "type": "evil_module_for_test.Evil"}])
    )
    with pytest.raises(ValueError) as err:
        make_text_encoder(f"sentence-transformers:{folder}")
    assert len(str(err.value).splitlines()) == 1 and str(folder) in str(err.value)
    assert not marker.exists()


def test_resume_checks_every_pth_member(tmp_path, byo_zip):
    from huesenv.experiments.rl.sb3_train import check_pth_members

    check_pth_members(byo_zip)
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(byo_zip) as zin, zipfile.ZipFile(bad, "w") as zout:
        for item in zin.infolist():
            blob = zin.read(item.filename)
            zout.writestr(item, _deflate(blob) if item.filename == "policy.optimizer.pth" else blob)
    with pytest.raises(ValueError, match="policy.optimizer.pth.*compressed"):
        check_pth_members(bad)
