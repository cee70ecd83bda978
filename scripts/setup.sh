#!/usr/bin/env bash
# Creates .venv (once) and makes it hold exactly what the lock files pin, then the project
# itself, editable:
#   bash scripts/setup.sh        the server's dependencies: requirements.lock (scripts/serve.sh)
#   bash scripts/setup.sh dev    the development tools too: requirements-dev.lock (scripts/test.sh)
# The installer is uv, taken from PyPI at the version below into .venv: it installs the ~70
# pinned packages in about 3 s where pip takes about 40, checks each file against the lock's
# hashes, and removes what the lock no longer names. `bash scripts/lock.sh` refreshes the locks.
# Installs nothing when pyproject.toml and the lock files have not changed since the last
# install of that kind (a dev install counts for the server too, and a .venv that once had the
# development tools keeps them), so that starting the server stays quick. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
uv_version=0.13.9
case "${1:-runtime}" in
    runtime) kinds="runtime" ;;
    dev) kinds="runtime dev" ;;
    *) echo "usage: bash scripts/setup.sh [dev]" >&2; exit 2 ;;
esac
if [ ! -x .venv/bin/python ]; then
    "${PYTHON:-python3}" -m venv .venv
fi
stamp=$(.venv/bin/python -c "
import hashlib
digest = hashlib.sha256()
for name in ('pyproject.toml', 'requirements.lock', 'requirements-dev.lock'):
    digest.update(open(name, 'rb').read())
print(digest.hexdigest())")
wanted=${kinds##* }
if [ -x .venv/bin/dragonstones ] && [ "$(cat ".venv/.dragonstones-$wanted" 2>/dev/null)" = "$stamp" ]; then
    exit 0
fi
if [ -e .venv/.dragonstones-dev ]; then
    kinds="runtime dev"
fi
case "$kinds" in
    *dev) lock=requirements-dev.lock ;;
    *) lock=requirements.lock ;;
esac
if [ "$(.venv/bin/uv --version 2>/dev/null)" != "uv $uv_version" ]; then
    .venv/bin/python -m pip install -qq --disable-pip-version-check "uv==$uv_version"
fi
export VIRTUAL_ENV="$PWD/.venv"
.venv/bin/uv pip sync -q --require-hashes "$lock"
.venv/bin/uv pip install -q --no-deps --no-build-isolation -e .
rm -f .venv/.dragonstones-*
for kind in $kinds; do
    echo "$stamp" >".venv/.dragonstones-$kind"
done
