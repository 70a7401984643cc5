"""Build a link tree that shows the repository as one importable ``huesenv`` package.

``agents/``, ``experiments/`` and ``render/`` live at the repository root and install
as ``huesenv.agents`` & co (``setup.py``'s ``ROOTS``).  Static tools (mypy,
import-linter, IDEs) read folders, not the editable install's import hook, so they
see only part of the package; in the tree made here, ``DIR/huesenv`` holds a
symlink to every entry of ``huesenv/`` plus ``agents``, ``experiments`` and
``render``.  Files are links, so edits show up without rebuilding; a new
top-level entry of ``huesenv/`` needs a rerun.

Usage: ``python scripts/linktree.py DIR`` (DIR is emptied first).
"""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def package_roots() -> dict[str, str]:
    """``ROOTS`` of setup.py (import name -> folder), read without running setup.py."""
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "ROOTS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit("setup.py: no ROOTS mapping found")


def build(out: Path) -> Path:
    out = out.resolve()
    if out == ROOT or ROOT in out.parents and out.name in {"huesenv", "agents", "experiments", "render"}:
        raise SystemExit(f"{out}: refusing to build a link tree over the sources")
    if out.exists():
        shutil.rmtree(out)
    roots = package_roots()
    top = out / "huesenv"
    top.mkdir(parents=True)
    for entry in sorted((ROOT / roots["huesenv"]).iterdir()):
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for name, folder in roots.items():
        if name != "huesenv":
            (top / name.split(".", 1)[1]).symlink_to(ROOT / folder)
    return top


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    print(build(Path(sys.argv[1])))
