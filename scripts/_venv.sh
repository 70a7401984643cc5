# Shared by scripts/run.sh and scripts/test.sh: create .venv (or $HUESENV_VENV) once
# and install huesenv into it.  torch/torchvision are capped at the releases this
# project is tested with (and that some machines serve from local disk).
PYTHON=${PYTHON:-python3}
VENV=${HUESENV_VENV:-.venv}

ensure_venv() {
    local extras="$1"
    # already done by the calling script (.ci/run runs the gates, then scripts/test.sh)
    if [ "${HUESENV_VENV_READY:-}" = "$VENV [$extras]" ] && [ -x "$VENV/bin/python" ]; then
        return 0
    fi
    "$PYTHON" - <<'PY' || { echo "huesenv needs Python >= 3.10" >&2; exit 1; }
import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)
PY
    if [ ! -x "$VENV/bin/python" ]; then
        echo "creating virtual environment $VENV" >&2
        "$PYTHON" -m venv "$VENV"
    fi
    "$VENV/bin/python" -m pip install -q "torch<=2.14.1" "torchvision<=0.29.1"
    "$VENV/bin/python" -m pip install -q -e ".[$extras]"
    export HUESENV_VENV_READY="$VENV [$extras]"
}
