"""`arena play` as a user runs it, for both games: the log, a result table, options, variants, bad input."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.cli.conftest import run


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
    (["play", "bali-2001", "-p", "4", "--variant", "oracle"], "bali-2001 has no variant 'oracle'"),
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


@pytest.mark.parametrize("variants", [[], ["oracle"], ["demon"], ["oracle", "demon"]])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_bali2017_play_runs_every_variant_to_the_end(players: int, variants: list[str]) -> None:
    args = ["play", "bali-2017", "--players", str(players), "--seed", "3"]
    for variant in variants:
        args += ["--variant", variant]
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "game over (the deck ran out)" in result.output
    assert ("oracle" in result.output) == ("oracle" in variants)
    assert ("demon on row 0" in result.output) == ("demon" in variants)


@pytest.mark.parametrize("args, field", [
    (["--players", "5"], "players"),
    (["--players", "1"], "players"),
    (["--players", "3", "--variant", "dragon"], "dragon"),
    (["--players", "3", "--option", "oracle=3"], "oracle"),
])
def test_bali2017_bad_input_exits_2_naming_the_field(args: list[str], field: str) -> None:
    result = run("play", "bali-2017", *args)
    assert result.exit_code == 2
    assert field in result.output and "Traceback" not in result.output


def test_bali2017_verbose_play_shows_hidden_details() -> None:
    result = run("play", "bali-2017", "--players", "3", "--seed", "1", "--verbose")
    assert result.exit_code == 0
    assert "takes 3 start farmers into its hand:" in result.output
