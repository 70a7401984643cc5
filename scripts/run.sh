#!/usr/bin/env bash
# The main job: sets up .venv, then plays the default tournament (the offline
# text-embedding agent and the random agent against replayed humans) and writes
# a report and the logs into runs/.  Extra arguments go to `huesenv tournament`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv all
exec "$VENV/bin/huesenv" tournament "$@"
