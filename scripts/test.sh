#!/usr/bin/env bash
# The test command: creates its own virtual environment, installs huesenv with
# every extra the tests need, and runs the whole suite.  Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv all,test
exec "$VENV/bin/pytest" "$@"
