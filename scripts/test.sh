#!/usr/bin/env bash
# The test command: creates its own virtual environment, installs huesenv with every extra the
# tests need, and runs the whole suite on every core (pytest-xdist), ending with the slowest tests
# and the seconds per test file, so a slow test shows in the change that adds it.
#   scripts/test.sh [pytest args]         the whole suite (what CI runs)
#   scripts/test.sh --fast [pytest args]  the fast tier (-m "not integration"; budget 60 s wall on
#                                         2 cores), ending with its wall time and test count
#   scripts/test.sh --fast --cov          the same with the fast tier's line coverage (target 85 %)
#                                         on that last line (--cov-report=term:skip-covered: per file)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv all,test
workers=(-n "${HUESENV_TEST_WORKERS:-auto}" --dist loadgroup)
if [ "${1:-}" != "--fast" ]; then
    exec "$VENV/bin/pytest" "${workers[@]}" --durations=30 --file-times "$@"
fi
shift
report=$(mktemp)
export COVERAGE_FILE="$report.coverage"  # --cov's data: in the temporary folder, not the checkout
trap 'rm -f "$report" "$COVERAGE_FILE"' EXIT
start=$EPOCHREALTIME
status=0
"$VENV/bin/pytest" "${workers[@]}" -m "not integration" --durations=15 --junitxml="$report" "$@" || status=$?
"$VENV/bin/python" - "$report" "$start" "$EPOCHREALTIME" <<'PY'
import sys
import xml.etree.ElementTree as ET

suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
tests, wall = int(suite.get("tests")), float(sys.argv[3]) - float(sys.argv[2])
print(f"fast tier: {tests} tests in {wall:.1f} s wall (budget 60 s)", end="")
PY
if [ -f "$COVERAGE_FILE" ]; then
    echo ", $("$VENV/bin/coverage" report --format=total)% of lines covered (target 85 %)"
else
    echo
fi
exit "$status"
