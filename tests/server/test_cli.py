"""`dragonstones replay` on records it cannot read or that are not game records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import engine
from tests.server.harness import REPO


def replay(path: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "replay", path],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )


def test_replay_refuses_what_is_not_a_record(tmp_path: Path) -> None:
    missing = replay(str(tmp_path / "missing.json"), tmp_path)
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    (tmp_path / "bad.json").write_text("{not json")
    assert replay("bad.json", tmp_path).returncode == 2
    (tmp_path / "list.json").write_text("[1, 2]")
    listed = replay("list.json", tmp_path)
    assert listed.returncode == 2 and "does not hold a game record" in listed.stderr
    partial = replay("-", tmp_path, stdin='{"seats": 3, "seed": "7"}')
    assert partial.returncode == 1 and "not a game record" in partial.stderr
    # A record whose seed does not match its commitment is refused.
    record = '{"seats": 3, "seed": "7", "seed_commitment": "00", "winner": null, "actions": []}'
    forged = replay("-", tmp_path, stdin=record)
    assert forged.returncode == 1 and "commitment" in forged.stderr
    # Actions out of order are refused before anything is replayed.
    record = (
        '{"seats": 3, "seed": "7", "seed_commitment": "00", "winner": null, "actions": '
        '[{"version": 2, "seat": 0, "action": {}}]}'
    )
    gaps = replay("-", tmp_path, stdin=record)
    assert gaps.returncode == 1 and "without gaps" in gaps.stderr


def test_replay_reports_an_action_the_engine_refuses(tmp_path: Path) -> None:
    commitment = engine.view(engine.new_game(3, 7), None)["seed_commitment"]
    action = {"type": "choose", "option": "x"}
    record = {
        "seats": 3,
        "seed": "7",
        "seed_commitment": commitment,
        "winner": None,
        "actions": [{"version": 1, "seat": 0, "action": action}],
    }
    refused = replay("-", tmp_path, stdin=json.dumps(record))
    assert refused.returncode == 1 and "wrong_phase" in refused.stderr


def test_simulate_gets_all_its_arguments(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "simulate",
            "--games",
            "1",
            "--players",
            "3",
            "--seed",
            "1",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert "1 games of 3 players, seed 1" in done.stdout
