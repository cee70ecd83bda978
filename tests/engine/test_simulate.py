"""`dragonstones simulate`: bot games offline, with a summary of how each kind of bot fared."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from app.simulate import derive_seed, main, play_game, seating, simulate

ROOT = Path(__file__).resolve().parents[2]


def test_seats_rotate_so_every_kind_sits_in_every_seat() -> None:
    bots = ["heuristic", "random", "random"]
    assert seating(bots, 4, 0) == ("heuristic", "random", "random", "heuristic")
    assert seating(bots, 4, 1) == ("random", "random", "heuristic", "random")
    for players in (3, 4, 5, 6):
        for kinds in (["heuristic", "random"], bots):
            for seat in range(players):
                held = {seating(kinds, players, game)[seat] for game in range(len(kinds))}
                assert held == set(kinds), (players, kinds, seat)


def test_a_game_is_played_to_its_end_and_can_be_played_again() -> None:
    game = play_game(5, 77, ("heuristic", "random", "heuristic", "random", "random"))
    assert 0 <= game.winner < 5 and game.winner_kind == game.kinds[game.winner]
    assert game.turns >= 1 and game.actions >= 5 * game.turns
    assert play_game(5, 77, game.kinds) == game  # deterministic: seed and seating decide it


def test_simulate_gathers_the_figures() -> None:
    result = simulate(8, 4, 3, ["heuristic", "random"])
    assert result.games == 8 and result.players == 4
    assert sum(result.wins.values()) == 8 == sum(result.seat_wins)
    assert result.seats == {"heuristic": 16, "random": 16}
    assert result.fair_share("heuristic") == 0.5
    assert result.turns >= 8 and result.actions > result.turns
    assert result.average_actions == result.actions / 8
    assert result.win_rate("heuristic") + result.win_rate("random") == pytest.approx(1.0)
    again = simulate(8, 4, 3, ["heuristic", "random"])
    assert (again.wins, again.turns, again.actions, again.seat_wins) == (
        result.wins,
        result.turns,
        result.actions,
        result.seat_wins,
    )
    other = simulate(8, 4, 4, ["heuristic", "random"])
    assert (other.turns, other.actions) != (result.turns, result.actions)  # the seed matters


def test_the_figures_match_the_games_one_by_one() -> None:
    games = []
    result = simulate(5, 3, 9, ["random"], on_game=lambda i, g: games.append((i, g)))
    assert [i for i, _ in games] == list(range(5))
    assert result.turns == sum(g.turns for _, g in games)
    assert result.actions == sum(g.actions for _, g in games)
    assert result.wins == {"random": 5}
    for i, g in games:
        assert g.seed == derive_seed(9, i)
        assert g.kinds == ("random",) * 3


def test_the_heuristic_bot_beats_random_ones() -> None:
    result = simulate(24, 4, 1, ["heuristic", "random"])
    assert result.win_rate("heuristic") > result.fair_share("heuristic") + 0.2, result.wins


def parse_summary(out: str) -> dict[str, object]:
    figures: dict[str, object] = {}
    m = re.search(r"Simulated (\d+) games of (\d+) players, seed (\d+), bots ([\w,]+)", out)
    assert m, out
    figures.update(games=int(m[1]), players=int(m[2]), seed=int(m[3]), bots=m[4])
    m = re.search(r"Per game: ([\d.]+) turns, ([\d.]+) actions on average", out)
    assert m, out
    figures.update(turns=float(m[1]), actions=float(m[2]))
    figures["wins"] = {
        k: (int(n), float(rate))
        for k, n, rate in re.findall(r"^\s+(\w+)\s+(\d+) wins\s+([\d.]+)% of games", out, re.M)
    }
    m = re.search(r"Time: [\d.]+ s, ([\d,]+) actions/s, ([\d,.]+) games/s", out)
    assert m, out
    figures["actions_per_second"] = int(m[1].replace(",", ""))
    return figures


def test_main_prints_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["--games", "6", "--players", "3", "--seed", "2", "--bots", "random,heuristic"]) == 0
    )
    out = capsys.readouterr().out
    figures = parse_summary(out)
    assert figures["games"] == 6 and figures["players"] == 3 and figures["seed"] == 2
    assert figures["bots"] == "random,heuristic"
    wins = figures["wins"]
    assert isinstance(wins, dict) and set(wins) == {"random", "heuristic"}
    assert sum(n for n, _ in wins.values()) == 6
    assert sum(rate for _, rate in wins.values()) == pytest.approx(100.0, abs=0.2)
    expected = simulate(6, 3, 2, ["random", "heuristic"])
    assert wins["heuristic"][0] == expected.wins["heuristic"]
    assert figures["turns"] == pytest.approx(expected.average_turns, abs=0.01)
    assert figures["actions"] == pytest.approx(expected.average_actions, abs=0.1)
    assert isinstance(figures["actions_per_second"], int) and figures["actions_per_second"] > 0
    assert "Wins by seat: 1: " in out


def test_main_prints_json_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--games", "3", "--players", "6", "--bots", "random", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["games"] == 3 and figures["players"] == 6
    assert figures["wins"]["random"]["count"] == 3 and figures["wins"]["random"]["rate"] == 1.0
    assert len(figures["seat_wins"]) == 6 and sum(figures["seat_wins"]) == 3


@pytest.mark.parametrize(
    "argv",
    [
        ["--games", "0"],
        ["--players", "7"],
        ["--players", "2"],
        ["--seed", "-1"],
        ["--bots", "heuristic,genius"],
        ["--bots", ","],
        ["--games", "many"],
        ["--colour", "red"],
        ["--budget", "-1"],
        ["--budget", "soon"],
        ["--playouts", "0"],
    ],
)
def test_bad_options_are_refused_clearly(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "error" in captured.err and "usage: dragonstones simulate" in captured.err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--games" in out and "--bots" in out and "heuristic" in out


def test_the_console_script_runs_a_simulation() -> None:
    script = Path(sys.executable).parent / "dragonstones"
    found = str(script) if script.exists() else shutil.which("dragonstones")
    assert found, "the dragonstones console script is not installed (pip install -e .)"
    done = subprocess.run(
        [
            found,
            "simulate",
            "--games",
            "4",
            "--players",
            "5",
            "--seed",
            "11",
            "--bots",
            "heuristic,random",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    figures = parse_summary(done.stdout)
    assert figures["games"] == 4 and figures["players"] == 5 and figures["seed"] == 11
    wins = figures["wins"]
    assert isinstance(wins, dict) and sum(n for n, _ in wins.values()) == 4
    bad = subprocess.run(
        [found, "simulate", "--players", "9"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert bad.returncode == 2 and "--players" in bad.stderr


def test_engine_seeds_differ_between_games() -> None:
    seeds = {derive_seed(1, i) for i in range(1000)}
    assert len(seeds) == 1000 and all(0 <= s < 2**63 for s in seeds)
    engine.new_game(3, max(seeds))  # a valid engine seed


def test_the_hard_bot_is_simulated_with_its_budget_and_the_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Win rates with their 95% interval, CPU per decision by kind; --budget 0 and --playouts
    make the run deterministic."""
    argv = [
        "--games",
        "3",
        "--players",
        "3",
        "--seed",
        "5",
        "--bots",
        "hard,heuristic,heuristic",
        "--budget",
        "0",
        "--playouts",
        "40",
        "--json",
    ]
    assert main(argv) == 0
    figures = json.loads(capsys.readouterr().out)
    hard = figures["wins"]["hard"]
    low, high = hard["ci95"]
    assert 0.0 <= low <= hard["rate"] <= high <= 1.0 and high - low > 0.2  # 3 games: wide
    assert hard["cpu_per_decision"]["decisions"] > 10
    assert 0 < hard["cpu_per_decision"]["mean"] <= hard["cpu_per_decision"]["p99"]
    assert figures["budget"] == {"playouts": 40, "seconds": 0.0}
    assert main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert (
        again["wins"]["hard"]["count"] == hard["count"] and again["actions"] == figures["actions"]
    )
    assert main(argv[:-1]) == 0
    out = capsys.readouterr().out
    assert re.search(r"hard\s+\d+ wins .*95% CI [\d.]+% to [\d.]+%", out), out
    assert re.search(r"hard\s+\d+ decisions\s+mean [\d.]+ ms\s+p99 [\d.]+ ms", out), out
    assert "Hard bot budget per decision: 40 playouts, no time limit" in out


def test_the_confidence_interval_is_wilsons() -> None:
    from app.simulate import SimulationResult

    result = SimulationResult(300, 3, 0, ("hard", "heuristic"), wins={"hard": 165})
    low, high = result.interval("hard")
    assert low == pytest.approx(0.4935, abs=1e-3) and high == pytest.approx(0.6049, abs=1e-3)
