#!/usr/bin/env bash
# Sets up .venv with the development tools (if needed) and runs the whole test suite: ruff, mypy,
# lint-imports (the layers of app/, written in pyproject.toml), pytest (arguments pass through to
# pytest: bash scripts/test.sh tests/engine -q).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/lint-imports
exec .venv/bin/pytest "$@"
