"""Benchmark: what browser tests cost in Chromium's CPU, by the Chromium that runs them.

    .venv/bin/python bench/browser_cost.py [--runs 2] [--chromium shell|full] [TEST_ID ...]

Runs the given browser tests (default: the whole-game test and the rematch test) with pytest,
once per run with each Chromium: Debian's old headless shell and the full browser in its headless
mode (TEST_CHROMIUM), or only the one `--chromium` names. Samples every Chromium process of that
pytest run (its descendants only, not another run's) from /proc and prints, per Chromium, the
median CPU seconds of the browser's processes and the median wall time of the run. The servers
are the tests' own, on 127.0.0.1 (TEST_SEED in the environment deals their games).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import CLK_TCK, descendants  # noqa: E402

CHROMIUMS = {  # --chromium's name: (what it prints, the executable)
    "shell": ("headless shell", "/usr/lib/chromium/chromium-headless-shell"),
    "full": ("full browser (headless)", "/usr/bin/chromium"),
}
DEFAULT_TESTS = [
    "tests/browser/test_full_game.py",
    "tests/browser/test_hosts_rematch.py::test_play_again_takes_two_browsers_to_a_new_table",
]


def _sample(root: int, seen: dict[tuple[int, str], float]) -> None:
    """Take every Chromium process's CPU so far (by pid and start time: a pid used again is new;
    one that has exited keeps its last figure)."""
    for pid in descendants(root):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if b"chromium" in cmd:
            seen[(pid, fields[19])] = (int(fields[11]) + int(fields[12])) / CLK_TCK


def one(chromium: str, tests: list[str]) -> tuple[float, float]:
    """(Chromium CPU s, wall s) of one pytest run of the tests with this Chromium."""
    env = {**os.environ, "TEST_CHROMIUM": chromium}
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    seen: dict[tuple[int, str], float] = {}
    while proc.poll() is None:
        _sample(proc.pid, seen)
        time.sleep(0.2)
    wall = time.monotonic() - start
    out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
    if proc.returncode != 0:
        raise SystemExit(f"the tests failed with {chromium}:\n{out[-3000:]}")
    return sum(seen.values()), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument(
        "--chromium", choices=list(CHROMIUMS), help="only this Chromium (default: both)"
    )
    parser.add_argument("tests", nargs="*", default=DEFAULT_TESTS)
    args = parser.parse_args()
    chosen = [args.chromium] if args.chromium else list(CHROMIUMS)
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in chosen}
    for _ in range(args.runs):
        for name in chosen:  # alternated: a slower minute hits both alike
            path = CHROMIUMS[name][1]
            if Path(path).exists():
                results[name].append(one(path, args.tests))
    print(
        f"tests: {' '.join(args.tests)}; {args.runs} runs each; load average {os.getloadavg()[0]:.1f}"
    )
    for name, runs in results.items():
        label, path = CHROMIUMS[name]
        if not runs:
            print(f"{label:26} not installed ({path})")
            continue
        cpu = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        print(f"{label:26} Chromium CPU {cpu:6.1f} s   wall {wall:6.1f} s")


if __name__ == "__main__":
    main()
