#!/usr/bin/env bash
# Refreshes the lock files from pyproject.toml, with uv (`uv pip compile`):
#   requirements.lock       the server's dependencies (the Dockerfile and `scripts/setup.sh`)
#   requirements-dev.lock   the same and the development tools (`scripts/setup.sh dev`)
# Every package is pinned with the hashes of its files, for every platform (--universal) and
# Python 3.11 and later; the build backend (setuptools, from [build-system]) is locked too, since
# the project itself is built without build isolation. Then .venv is brought to the new lock.
#   bash scripts/lock.sh                     keep every pin that still fits pyproject.toml
#   bash scripts/lock.sh --upgrade           take the newest releases that fit
#   bash scripts/lock.sh --upgrade-package fastapi    only that one
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev  # .venv and its uv
build=$(.venv/bin/python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['build-system']['requires']))")
compile() {
    echo "$build" | .venv/bin/uv pip compile --quiet --universal --python-version 3.11 \
        --generate-hashes --custom-compile-command "bash scripts/lock.sh" "$@" pyproject.toml -
}
compile -o requirements.lock "$@"
compile --extra dev -o requirements-dev.lock "$@"
bash scripts/setup.sh dev
