"""The one colour-conversion helper: colour-science's sRGB → XYZ → xy / CIELAB and ΔE2000, used everywhere."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from huesenv.colourspace import (
    delta_e2000,
    linear_srgb_to_lab,
    srgb_decode,
    srgb_to_lab,
    srgb_to_xyz,
    xyz_to_xy,
)

ROOT = Path(__file__).resolve().parents[1]


def test_reference_values():
    white = srgb_to_lab([255, 255, 255])
    assert np.allclose(white, [100.0, 0.0, 0.0], atol=0.01)  # colour-science: a, b within 0.008 of 0
    assert np.allclose(xyz_to_xy(srgb_to_xyz([255, 0, 0])), [0.64, 0.33], atol=1e-3)  # sRGB's red primary
    assert np.allclose(xyz_to_xy(srgb_to_xyz([255, 255, 255])), [0.3127, 0.3290], atol=1e-3)  # D65
    assert np.allclose(srgb_to_lab([1.0, 1.0, 1.0], scale=1.0), white)
    assert np.allclose(linear_srgb_to_lab(srgb_decode([10, 200, 30])), srgb_to_lab([10, 200, 30]))
    # Sharma, Wu & Dalal (2005), test pair 1: ΔE2000 = 2.0425
    assert float(delta_e2000([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485])) == pytest.approx(
        2.0425, abs=1e-4
    )


def test_board_colours_come_from_the_helper():
    from huesenv.board import load_board

    board = load_board()
    assert np.array_equal(board.lab, srgb_to_lab(board.rgb)) and np.array_equal(
        board.xy, xyz_to_xy(board.xyz)
    )


def test_no_module_converts_colours_by_itself():
    """Every sRGB/XYZ/Lab conversion and ΔE goes through huesenv.colourspace (one colour space, one ΔE)."""
    calls = re.compile(
        r"colour\.(RGB_to_XYZ|XYZ_to_Lab|XYZ_to_xy|sRGB_to_XYZ|delta_E)\b|RGB_COLOURSPACES|0\.04045"
    )
    offenders = []
    for folder in ("huesenv", "agents", "experiments", "render"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "colourspace.py":
                continue
            if calls.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders


def _run_fresh(code: str) -> None:
    """Run ``code`` in a new interpreter (colour-science not imported yet) and require it to succeed."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


@pytest.mark.integration  # a fresh interpreter (first import), ~3 s
def test_colour_science_leaves_numpy_print_options_alone() -> None:
    """colour-science sets ``legacy="1.13"`` on import; loading it through huesenv must not (a fresh process)."""
    _run_fresh(
        "import sys, numpy as np\n"
        "before, shown = np.get_printoptions(), repr(np.int64(3))\n"
        "from huesenv.colourspace import srgb_to_lab; srgb_to_lab([[10, 200, 30]])\n"
        "assert 'colour' in sys.modules, 'colour-science was not imported'\n"
        "assert np.get_printoptions() == before, np.get_printoptions()\n"
        "assert repr(np.int64(3)) == shown, repr(np.int64(3))\n"
    )


@pytest.mark.integration  # a fresh interpreter (first import), ~3 s
def test_colour_science_is_whole_in_every_thread_of_a_first_use() -> None:
    """Threads converting colours at once in a fresh process: none sees the half-imported module."""
    _run_fresh(
        "import threading\n"
        "from huesenv.colourspace import srgb_to_xyz\n"
        "errors = []\n"
        "def work():\n"
        "    try:\n"
        "        srgb_to_xyz([[10, 20, 30]])\n"
        "    except Exception as err:\n"
        "        errors.append(repr(err))\n"
        "threads = [threading.Thread(target=work) for _ in range(8)]\n"
        "for t in threads: t.start()\n"
        "for t in threads: t.join()\n"
        "assert not errors, errors[:2]\n"
    )
