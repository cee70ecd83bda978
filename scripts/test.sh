#!/usr/bin/env bash
# Sets up .venv with the development tools (if needed) and runs the whole test suite: ruff,
# lint-imports (the layers of app/, written in pyproject.toml), mypy (beside the tests' first part),
# pytest. Arguments pass through to pytest, which then runs just that, in one process:
# bash scripts/test.sh tests/engine -q
# Without arguments the suite runs in three parts: the independent tests on every core and one
# more (pytest-xdist, PYTEST_WORKERS to override), then the `serial` ones alone with the `docker`
# (deploy) ones beside them, whose image is built in the background from the start. Each part
# prints its slowest tests; the end, the time of each stage, the time of each folder and the
# slowest tests of the whole run.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/stages.sh
source scripts/stages.sh

stage "setup: .venv" bash scripts/setup.sh dev

# The whole suite: the deploy tests' image is built now, in the background, so that its layers
# are cached when those tests run after the parallel part (a cold build waits minutes on the
# package index, which then held up the end of the run). Host networking, as the tests build:
# no bridge or veth that would disturb Chromium. A failed build here is only a cold cache: the
# tests build again and report it.
warm=""
if [ "$#" -eq 0 ] && command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    warm_log=$(mktemp "${TMPDIR:-/tmp}/dragonstones-image.XXXXXX")
    .venv/bin/python -c "from tests.deploy.docker import build_image; build_image()" \
        >"$warm_log" 2>&1 &
    warm=$!
fi
stage "lint: ruff" .venv/bin/ruff check .
stage "lint: ruff format" .venv/bin/ruff format --check .
stage "lint: import layers" .venv/bin/lint-imports

if [ "$#" -gt 0 ]; then
    stage "lint: mypy" .venv/bin/mypy
    stage "tests: $*" .venv/bin/pytest "$@"
    exit 0
fi

# mypy beside the parallel part: alone in front of it, it kept one core busy for half a minute
# while the other idled. Its output is shown, and its failure counted, after that part.
mypy_log=$(mktemp "${TMPDIR:-/tmp}/dragonstones-mypy.XXXXXX")
stage "lint: mypy (beside)" .venv/bin/mypy >"$mypy_log" 2>&1 &
mypy=$!

reports=tests/artifacts/junit  # kept after the run, for a closer look
rm -rf "$reports" && mkdir -p "$reports"
# One worker more than cores: at one per core the cores idled about a sixth of the time (tests
# wait on their servers, browsers and Postgres); with one more they are busy 97% of it (2 cores:
# the parallel part 764 -> 632 s).
workers=${PYTEST_WORKERS:-$(($(nproc) + 1))}

# One part of the suite; exit 5 (no test selected, e.g. no `serial` test left) is not a failure.
part() {
    local name=$1 rc=0
    shift
    .venv/bin/pytest --durations=25 --junitxml="$reports/$name.xml" "$@" || rc=$?
    if [ "$rc" -eq 5 ]; then
        echo "($name: no tests selected)"
        return 0
    fi
    return "$rc"
}

failed=0
stage "tests: parallel ($workers workers)" \
    part parallel -n "$workers" --dist loadgroup -m "not serial and not docker" || failed=1
wait "$mypy" || failed=1
echo "== lint: mypy (beside the parallel part)" && cat "$mypy_log" && rm -f "$mypy_log"
# The deploy tests side by side, and beside the serial part: each waits on its own containers
# (the image's build, health checks, Postgres's start) far more than it computes, and each has
# its own compose project, port and image tag. Not beside the parallel part: the bridges and
# veths that compose makes look to Chromium like a change of network, and it aborts the browser
# tests' page loads (net::ERR_NETWORK_CHANGED). Their output is shown after the serial part's.
if [ -n "$warm" ]; then
    wait "$warm" || echo "(the image's build ahead of the deploy tests failed: they build it again)"
    rm -f "$warm_log"
fi
deploy_log=$(mktemp "${TMPDIR:-/tmp}/dragonstones-deploy.XXXXXX")
stage "deploy: docker compose (beside)" part deploy -n "$workers" -m docker >"$deploy_log" 2>&1 &
deploy=$!
stage "tests: serial (alone)" part serial -m "serial and not docker" || failed=1
wait "$deploy" || failed=1
cat "$deploy_log" && rm -f "$deploy_log"
.venv/bin/python scripts/test_times.py "$reports"/*.xml || true
exit "$failed"
