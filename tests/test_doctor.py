"""``huesenv doctor``: versions, extras, devices, weight caches (honouring HF_HOME / HUESENV_CACHE), offline state."""

from __future__ import annotations

import json

from huesenv.cli import main


def test_doctor_reports_extras_devices_and_the_caches_the_env_points_at(tmp_path, monkeypatch, capsys):
    hub = tmp_path / "hf" / "hub" / "models--org--tiny"
    hub.mkdir(parents=True)
    (hub / "weights.bin").write_bytes(b"0" * 2048)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setenv("HUESENV_CACHE", str(tmp_path / "own"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("WANDB_API_KEY", "secret-value-not-to-print")
    assert main(["doctor", "--json"]) == 0
    out = capsys.readouterr().out
    assert "secret-value-not-to-print" not in out
    info = json.loads(out)
    assert info["huesenv"] and info["libraries"]["numpy"]
    assert {"embed", "clip", "render", "track"} <= set(info["extras"])
    assert info["extras"]["render"]["packages"]["pygame"]
    hub_entry = next(v for k, v in info["caches"].items() if k.startswith("huggingface hub"))
    assert hub_entry["path"] == str(tmp_path / "hf" / "hub") and hub_entry["files"] == 1
    assert hub_entry["models"] == ["models--org--tiny"]
    own = next(v for k, v in info["caches"].items() if k.startswith("huesenv"))
    assert own == {"path": str(tmp_path / "own"), "exists": False}
    assert info["offline"]["hf_hub_offline"] is True
    assert info["devices"]["auto_device"] in ("cpu", "cuda")
    assert info["wandb_api_key"] == "set"
    assert main(["doctor"]) == 0
    text = capsys.readouterr().out
    assert "weight caches:" in text and "models--org--tiny" in text and "--device auto ->" in text
