"""The README's examples run as written, in order, on a fresh clone.

Every ```bash and ```python block of README.md is run from the root of a fresh
``git clone`` of this checkout (its README replaced by the working tree's, so an
edited README is what is tested), bash blocks with ``bash -e``, Python blocks as
scripts.  A block right after ``<!-- readme-test: skip (reason) -->`` is not run:
those need model weights, a display, a server, the network, or install a venv.
The ``huesenv`` on PATH is the one of the interpreter running the tests.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(\w+)\s*$")
SKIP = re.compile(r"^<!--\s*readme-test:\s*skip\b.*-->\s*$")


def readme_blocks(text: str) -> list[tuple[int, str, str, bool]]:
    """(line, language, code, skipped) of every fenced block, in order."""
    lines = text.splitlines()
    out, k = [], 0
    while k < len(lines):
        match = FENCE.match(lines[k])
        if not match:
            k += 1
            continue
        start, lang = k, match.group(1)
        k += 1
        body = []
        while k < len(lines) and lines[k].strip() != "```":
            body.append(lines[k])
            k += 1
        prev = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        out.append((start + 1, lang, "\n".join(body) + "\n", bool(SKIP.match(prev.strip()))))
        k += 1
    return out


def test_block_extraction_honours_skip_markers():
    text = "x\n\n```bash\necho a\n```\n<!-- readme-test: skip (window) -->\n```bash\nopen\n```\n```python\nprint(1)\n```\n"
    assert readme_blocks(text) == [
        (3, "bash", "echo a\n", False),
        (7, "bash", "open\n", True),
        (10, "python", "print(1)\n", False),
    ]


@pytest.mark.slow
def test_readme_examples_run_in_order_on_a_fresh_clone(tmp_path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    shutil.copyfile(ROOT / "README.md", clone / "README.md")
    blocks = readme_blocks((clone / "README.md").read_text(encoding="utf-8"))
    run = [b for b in blocks if b[1] in ("bash", "python") and not b[3]]
    assert len(run) >= 10, "the README lost its runnable examples"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "MPLBACKEND": "Agg",
        "SDL_VIDEODRIVER": "dummy",
        "WANDB_SILENT": "true",
        "HOME": str(tmp_path / "home"),  # no user config, netrc or W&B key leaks in
        "HUESENV_CACHE": str(tmp_path / "cache"),
    }
    env.pop("WANDB_MODE", None)
    env.pop("WANDB_API_KEY", None)
    for line, lang, code, _ in run:
        if lang == "bash":
            cmd = ["bash", "-e", "-o", "pipefail", "-c", code]
        else:
            script = tmp_path / f"readme_{line}.py"
            script.write_text(code, encoding="utf-8")
            cmd = [
                sys.executable,
                "-P",
                str(script),
            ]  # -P: the clone's huesenv/ folder must not shadow the install
        proc = subprocess.run(cmd, cwd=clone, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, (
            f"README.md line {line} ({lang}) failed:\n{code}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    # what the examples promise
    runs = clone / "runs"
    assert (runs / "default" / "report.html").is_file() and (runs / "my" / "summary.json").is_file()
    assert len([p for p in runs.iterdir() if re.fullmatch(r"default-[0-9a-f]{10}", p.name)]) == 1
    assert (runs / "default-sweep" / "leaderboard.html").is_file()
    assert (clone / "leaderboard" / "leaderboard.csv").is_file()
    assert list((runs / "my" / "wandb").glob("offline-run-*/run-*.wandb"))
    assert (clone / "game.gif").is_file() and (clone / "board.png").is_file()
