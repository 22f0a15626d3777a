"""`arena match`, `arena validate`, `arena replay` and `arena bench --protocol` as a user runs them."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from tests.arena.conftest import ROOT, Spawned, faulty, sample_bot

RANDOM_BOT = str(sample_bot("random_bot"))
FAST = ("--timeout", "0.5", "--init-timeout", "20")


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def records(results: Path) -> list[Path]:
    return sorted(results.glob("matches/*/game-*.json"))


def test_match_prints_a_results_table_and_writes_records(tmp_path: Path, spawned: Spawned) -> None:
    r = run("match", "bali-2001", RANDOM_BOT, str(sample_bot("heuristic_bot")), RANDOM_BOT, "--games", "3",
            "--seed", "2", "--results", str(tmp_path), *FAST)
    assert r.exit_code == 0, r.output
    header = next(line for line in r.output.splitlines() if "mean rank" in line)
    assert "wins" in header and "faults" in header
    assert "heuristic 1.0" in r.output and "random 1.0" in r.output
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


def test_validate_passes_a_good_bot(tmp_path: Path) -> None:
    r = run("validate", str(sample_bot("plain_bot")), "--game", "bali-2017", "--players", "3",
            "--results", str(tmp_path), *FAST)
    assert r.exit_code == 0, r.output
    assert r.output.count(": ok:") == 3 and "PASS: bot 'plain' version '1.0'" in r.output


@pytest.mark.parametrize("mode, kind", [("garbage", "malformed"), ("die_at_start", "crash")])
def test_validate_fails_a_faulty_bot_and_lists_every_fault(mode: str, kind: str, tmp_path: Path) -> None:
    r = run("validate", str(faulty(mode)), "--game", "bali-2001", "--games", "2", "--results", str(tmp_path),
            *FAST)
    assert r.exit_code == 1, r.output
    faults = [line for line in r.output.splitlines() if line.startswith("  fault at")]
    assert faults and all(f": {kind}: " in line for line in faults)
    assert "FAIL" in r.output and "validation failed" in r.output
    if mode == "die_at_start":
        assert "stderr| faulty_bot: dying at start on purpose" in r.output


def test_replay_reproduces_shows_turns_and_a_seats_messages(tmp_path: Path) -> None:
    assert run("match", "bali-2001", RANDOM_BOT, str(faulty("stale_id")), RANDOM_BOT, "--seed", "3",
               "--results", str(tmp_path), *FAST).exit_code == 0
    file = str(records(tmp_path)[0])
    r = run("replay", file)
    assert r.exit_code == 0, r.output
    assert "the replay reproduces the recorded result" in r.output
    assert "--- turn 1:" in r.output and "! wrong_id:" in r.output and "disqualified" in r.output
    seat = run("replay", file, "--seat", "1")
    assert seat.exit_code == 0, seat.output
    messages = [json.loads(line) for line in seat.stdout.splitlines() if line.startswith("{")]
    assert messages[0]["type"] == "new_game" and messages[0]["seat"] == 1
    assert messages[-1]["type"] == "game_over"
    assert [m["id"] for m in messages] == list(range(messages[0]["id"], messages[0]["id"] + len(messages)))


def test_replay_of_a_tampered_record_exits_1(tmp_path: Path) -> None:
    assert run("match", "bali-2001", RANDOM_BOT, RANDOM_BOT, RANDOM_BOT, "--seed", "3", "--results",
               str(tmp_path), *FAST).exit_code == 0
    file = records(tmp_path)[0]
    data = json.loads(file.read_text())
    data["result"]["scores"][0] += 5
    file.write_text(json.dumps(data))
    r = run("replay", str(file))
    assert r.exit_code == 1
    assert "does not reproduce" in r.output and "the result differs" in r.output


@pytest.mark.parametrize("args, code, message", [
    (["missing.json"], 2, "does not exist"),
    (["{bad}", "--seat", "7"], 2, "seats 0 to 2"),
    (["{not_json}"], 1, "is not JSON"),
])
def test_replay_errors(args: list[str], code: int, message: str, tmp_path: Path) -> None:
    not_json = tmp_path / "x.json"
    not_json.write_text("{")
    assert run("match", "bali-2001", RANDOM_BOT, RANDOM_BOT, RANDOM_BOT, "--seed", "3", "--results",
               str(tmp_path), *FAST).exit_code == 0
    args = [a.replace("{bad}", str(records(tmp_path)[0])).replace("{not_json}", str(not_json)) for a in args]
    r = run("replay", *args)
    assert r.exit_code == code and message in r.output and "Traceback" not in r.output


def test_bench_protocol_reports_round_trips_and_games_per_second() -> None:
    r = run("bench", "--game", "bali-2017", "--count", "2", "--protocol", "--round-trips", "20",
            "--match-games", "1")
    assert r.exit_code == 0, r.output
    header = next(line for line in r.output.splitlines() if "b/a" in line)
    assert "(a) raw µs" in header and "(b) arena µs" in header and "fresh processes" in header
    row = [line for line in r.output.splitlines() if line.startswith("bali-2017")][-1]  # after the engine rows
    assert len(row.split()) == 9 and float(row.split()[5]) > 0  # b/a


def test_the_arena_command_runs_a_match_and_replays_it(tmp_path: Path) -> None:
    arena = [sys.executable, "-m", "arena"]
    played = subprocess.run([*arena, "match", "bali-2017", f"{sys.executable} sample_bots/random_bot.py",
                             f"{sys.executable} -m sample_bots.plain_bot", "--seed", "9", "--results", str(tmp_path),
                             *FAST], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert "plain 1.0" in played.stdout and "records and logs:" in played.stdout
    replayed = subprocess.run([*arena, "replay", str(records(tmp_path)[0])], capture_output=True, text=True,
                              timeout=120)
    assert replayed.returncode == 0 and "reproduces" in replayed.stdout
    usage = subprocess.run([*arena, "match", "bali-2017", "no-such-bot"], capture_output=True, text=True,
                           timeout=120)
    assert usage.returncode == 2 and "Traceback" not in usage.stderr
