"""Where the test time went, from the JUnit XML files of one run of scripts/test.sh: the time of
each test folder (setup, call and teardown of its tests, summed over every worker) and the 25
slowest tests of the whole run.

    python scripts/test_times.py tests/artifacts/junit/*.xml
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

SLOWEST = 25


def main(paths: list[str]) -> int:
    tests: list[tuple[float, str, str]] = []  # seconds, test id, part
    for path in paths:
        part = path.rsplit("/", 1)[-1].removesuffix(".xml")
        for case in ET.parse(path).iter("testcase"):
            module = case.get("classname", "")
            tests.append((float(case.get("time", 0)), f"{module}::{case.get('name')}", part))
    if not tests:
        print("no test reports")
        return 0
    folders: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for seconds, test_id, _ in tests:
        folder = "/".join(test_id.split("::", 1)[0].split(".")[:2])
        folders[folder] += seconds
        counts[folder] += 1
    print("\n== test time by folder (sum over workers, seconds) ==")
    for folder, seconds in sorted(folders.items(), key=lambda kv: -kv[1]):
        print(f"{seconds:8.1f} s  {folder} ({counts[folder]} tests)")
    print(f"\n== the {SLOWEST} slowest tests of the run (setup + call + teardown) ==")
    for seconds, test_id, part in sorted(tests, reverse=True)[:SLOWEST]:
        print(f"{seconds:8.1f} s  {test_id} [{part}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
