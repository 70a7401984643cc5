#!/usr/bin/env bash
# Quality gates, run by .ci/run before the tests (and by hand: scripts/gates.sh):
#   ruff check, ruff format --check, the architecture tests (strings, lazy imports, CONTRIBUTING),
#   lint-imports (layers, cycles, forbidden extras),
#   mypy over the whole package (typed defs required in the core, game and environment layers; [tool.mypy]).
# import-linter and mypy read folders, so they run on a link tree (scripts/linktree.py) in
# which agents/, experiments/ and render/ appear as huesenv.agents/... like the installed package.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$(cd "${HUESENV_VENV:-.venv}" && pwd)
PY="$VENV/bin/python"
GATES="$ROOT/.gates"   # link tree and mypy cache (git-ignored)

echo "== ruff check" >&2
"$VENV/bin/ruff" check .
echo "== ruff format --check" >&2
"$VENV/bin/ruff" format --check .
# what import-linter cannot see: upward names in strings, the lazy-import rules, CONTRIBUTING's names
echo "== architecture (tests/test_architecture.py, tests/test_contributing.py)" >&2
"$PY" -P -m pytest -q -p no:cacheprovider -m "not integration" tests/test_architecture.py tests/test_contributing.py

"$PY" scripts/linktree.py "$GATES/tree" >/dev/null
cd "$GATES/tree"
echo "== lint-imports" >&2
PYTHONPATH="$GATES/tree" "$PY" -P - <<'PY'
import collections, grimp
graph = grimp.build_graph("huesenv")
mods = [m for m in graph.modules if m.startswith("huesenv")]
per = collections.Counter(m.split(".")[1] if "." in m else "huesenv" for m in mods)
print(f"lint-imports sees {len(mods)} huesenv modules: "
      + ", ".join(f"{k} {per[k]}" for k in ("agents", "experiments", "render", "envs", "play")))
assert min(per["agents"], per["experiments"], per["render"]) > 0, "agents/experiments/render not seen"
PY
PYTHONPATH="$GATES/tree" "$VENV/bin/lint-imports" --no-cache "$ROOT/pyproject.toml"
echo "== mypy" >&2
"$VENV/bin/mypy" --config-file "$ROOT/pyproject.toml" --cache-dir "$GATES/mypy_cache" --python-executable "$PY"
echo "gates: all green" >&2
