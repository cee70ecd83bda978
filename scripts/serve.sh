#!/usr/bin/env bash
# Sets up the virtual environment (if needed) and serves on http://127.0.0.1:8000 (SQLite by default).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/dragonstones serve "$@"
