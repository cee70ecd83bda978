#!/usr/bin/env bash
# Sets up .venv with the server's dependencies (if needed) and serves on http://127.0.0.1:8000
# (SQLite by default). Options pass through: bash scripts/serve.sh --host 0.0.0.0 --port 8000
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/dragonstones serve "$@"
