"""`arena play` and `arena bench` as a user runs them."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from arena.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_play_prints_the_log_and_a_result_table() -> None:
    r = run("play", "bali-2001", "--players", "4", "--seed", "1")
    assert r.exit_code == 0, r.output
    assert "--- turn 1:" in r.output and "plays" in r.output
    assert "game over" in r.output
    table = r.output.split("result:")[1].splitlines()
    assert "rank" in table[1] and "score" in table[1]
    assert sum(1 for line in table if re.match(r"\s*\d+\s+seat \d\s+\d+$", line)) == 4
    assert "draws 2:" not in r.output  # the spectator log hides drawn cards


def test_play_is_deterministic_and_verbose_shows_hidden_cards() -> None:
    a, b = run("play", "bali-2001", "-p", "3", "-s", "9"), run("play", "bali-2001", "-p", "3", "-s", "9")
    assert a.output == b.output
    verbose = run("play", "bali-2001", "-p", "3", "-s", "9", "--verbose")
    assert verbose.exit_code == 0 and "draws 2:" in verbose.output


def test_play_takes_game_options() -> None:
    r = run("play", "bali-2001", "-p", "3", "-s", "2", "--option", "max_turns=2")
    assert r.exit_code == 0, r.output
    assert "--- turn 3" not in r.output and "cut short" in r.output


@pytest.mark.parametrize("args, message", [
    (["play", "bali-2001", "--players", "5"], "players must be an integer from 3 to 4"),
    (["play", "bali-2001", "--players", "2"], "players must be an integer from 3 to 4"),
    (["play", "bali-2001", "--players", "4", "--seed", "x"], "'x' is not a valid integer"),
    (["play", "no-such-game", "--players", "4"], "unknown game 'no-such-game'"),
    (["play", "bali-2001", "-p", "4", "-o", "masks=[1,2]"], "option 'masks' must be a list of 16"),
    (["play", "bali-2001", "-p", "4", "-o", "start_cards=[]"], "option 'start_cards'"),
    (["play", "bali-2001", "-p", "4", "-o", "nonsense"], "expected KEY=VALUE"),
    (["play", "bali-2001", "-p", "4", "--variant", "oracle"], "unknown option 'oracle'"),
])
def test_bad_input_exits_2_with_a_message_and_no_traceback(args: list[str], message: str) -> None:
    r = run(*args)
    assert r.exit_code == 2
    assert message in r.output
    assert "Traceback" not in r.output


def test_play_through_a_real_subprocess() -> None:
    ok = subprocess.run([sys.executable, "-m", "arena", "play", "bali-2001", "-p", "4", "-s", "3"],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "result:" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "arena", "play", "bali-2001", "-p", "7"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "players must be" in bad.stderr and "Traceback" not in bad.stderr


def test_bench_reports_every_player_count() -> None:
    r = run("bench", "--game", "bali-2001", "--count", "2")
    assert r.exit_code == 0, r.output
    rows = [line for line in r.output.splitlines() if line.startswith("bali-2001")]
    assert [row.split()[1] for row in rows] == ["3", "4"]
