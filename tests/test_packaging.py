"""The package installs as one top-level name and its core imports without torch."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BLOCK_HEAVY = """
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {'torch', 'torchvision', 'open_clip', 'transformers', 'pygame', 'wandb', 'ray', 'flask'}:
            raise ImportError('blocked for this test: ' + name)
sys.meta_path.insert(0, _Block())
import huesenv
light = [m for m in ('pandas', 'pettingzoo', 'matplotlib') if m in sys.modules]
assert not light, f'import huesenv loaded {light}'  # the core imports fast
from huesenv import hues_cues_v1, load_board
import huesenv.metrics, huesenv.humans, huesenv.logs, huesenv.stats, huesenv.agents
b = load_board(); assert b.xy.shape == (480, 2)
print('ok')
"""


@pytest.mark.integration
def test_core_imports_without_torch():
    out = subprocess.run([sys.executable, "-c", BLOCK_HEAVY], capture_output=True, text=True, cwd="/")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


# what a wheel is built from: the project's files, not a virtual environment or earlier outputs
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "venv", "build", "dist", "runs", "*.egg-info", "__pycache__", ".*_cache"
)


@pytest.mark.integration
def test_wheel_has_only_huesenv_at_top_level(tmp_path):
    # a copy, so that setuptools' build/ and egg-info land in tmp_path, never in the checkout
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES, symlinks=True)
    out = tmp_path / "wheel"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(out.glob("huesenv-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"huesenv"}, top
    for expected in (
        "huesenv/agents/protocol.py",
        "huesenv/game/protocol.py",
        "huesenv/agents/text_encoders.py",
        "huesenv/experiments/__init__.py",
        "huesenv/render/playback.py",
        "huesenv/envs/rendering/view.py",
        "huesenv/play/human.py",
        "huesenv/data/HC_RGB.csv",
        "huesenv/data/vocabulary.csv",
        "huesenv/data/nonsense.csv",
    ):
        assert expected in names, expected
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "huesenv = huesenv.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
