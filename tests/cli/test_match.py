"""`arena match` as a user runs it, in-process and as the `arena` command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import FAST, RANDOM_BOT, records, run
from tests.match.conftest import ROOT, Spawned, faulty, sample_bot


def test_match_prints_a_results_table_and_writes_records(tmp_path: Path, spawned: Spawned) -> None:
    r = run("match", "bali-2001", RANDOM_BOT, str(sample_bot("heuristic_bot")), RANDOM_BOT, "--games", "3",
            "--seed", "2", "--results", str(tmp_path), *FAST)
    assert r.exit_code == 0, r.output
    header = next(line for line in r.output.splitlines() if "mean rank" in line)
    assert "wins" in header and "faults" in header
    assert "heuristic_bot (heuristic)" in r.output and "random_bot (random)" in r.output
    assert re.search(r"game 3/3: .*rank", r.output)
    assert len(records(tmp_path)) == 3
    spawned.assert_all_gone()


def test_match_with_a_faulty_bot_reports_its_faults(tmp_path: Path) -> None:
    r = run("match", "bali-2001", str(faulty("illegal")), RANDOM_BOT, RANDOM_BOT, "--seed", "1", "-q",
            "--results", str(tmp_path), *FAST)
    assert r.exit_code == 0, r.output
    row = next(line for line in r.output.splitlines() if "faulty-illegal" in line)
    assert row.split()[-2:] == ["3", "1"]  # three faults, disqualified once


@pytest.mark.parametrize("args, message", [
    (["bali-2001", "nonexistent-bot-program"], "not found on PATH"),
    (["bali-2001", "python3 nowhere.py"], "does not exist"),
    (["bali-2001", "python3 'unclosed"], "quotation"),
    (["bali-2001", RANDOM_BOT, RANDOM_BOT], "takes 3 to 4 bots, got 2"),
    (["bali-1999", RANDOM_BOT], "unknown game"),
    (["bali-2001", RANDOM_BOT, RANDOM_BOT, RANDOM_BOT, "--timeout", "0"], "--timeout"),
    (["bali-2001", RANDOM_BOT, RANDOM_BOT, RANDOM_BOT, "--option", "max_turns=-3"], "max_turns"),
    (["bali-2001", RANDOM_BOT, RANDOM_BOT, RANDOM_BOT, "--games", "0"], "--games"),
])
def test_match_usage_errors_exit_2_without_a_traceback(args: list[str], message: str, tmp_path: Path) -> None:
    r = run("match", *args, "--results", str(tmp_path))
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output
    assert not records(tmp_path)


def test_the_arena_command_runs_a_match_and_replays_it(tmp_path: Path) -> None:
    arena = [sys.executable, "-m", "arena"]
    played = subprocess.run([*arena, "match", "bali-2017", f"{sys.executable} sample_bots/random_bot.py",
                             f"{sys.executable} -m sample_bots.plain_bot", "--seed", "9", "--results", str(tmp_path),
                             *FAST], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert "plain_bot (plain)" in played.stdout and "game records:" in played.stdout
    replayed = subprocess.run([*arena, "replay", str(records(tmp_path)[0])], capture_output=True, text=True,
                              timeout=120)
    assert replayed.returncode == 0 and "reproduces" in replayed.stdout
    usage = subprocess.run([*arena, "match", "bali-2017", "no-such-bot"], capture_output=True, text=True,
                           timeout=120)
    assert usage.returncode == 2 and "Traceback" not in usage.stderr
