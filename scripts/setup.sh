#!/usr/bin/env bash
# Creates .venv (once) and installs the project into it, editable:
#   bash scripts/setup.sh        the server's dependencies only (scripts/serve.sh)
#   bash scripts/setup.sh dev    with the development tools too (scripts/test.sh)
# Installs nothing when pyproject.toml has not changed since the last install of that kind (a dev
# install counts for the server too), so that starting the server stays quick. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-runtime}" in
    runtime) kinds="runtime"; spec="." ;;
    dev) kinds="runtime dev"; spec=".[dev]" ;;
    *) echo "usage: bash scripts/setup.sh [dev]" >&2; exit 2 ;;
esac
if [ ! -x .venv/bin/python ]; then
    "${PYTHON:-python3}" -m venv .venv
    # Once, for a new venv: an old bundled pip cannot install this project in editable mode.
    .venv/bin/python -m pip install -q --upgrade pip
fi
stamp=$(.venv/bin/python -c "import hashlib; print(hashlib.sha256(open('pyproject.toml', 'rb').read()).hexdigest())")
wanted=${kinds##* }
if [ -x .venv/bin/dragonstones ] && [ "$(cat ".venv/.dragonstones-$wanted" 2>/dev/null)" = "$stamp" ]; then
    exit 0
fi
.venv/bin/python -m pip install -q -e "$spec"
for kind in $kinds; do
    echo "$stamp" >".venv/.dragonstones-$kind"
done
