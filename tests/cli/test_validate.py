"""`arena validate` as a user runs it: a good bot passes, a faulty one fails with every fault listed."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.cli.conftest import FAST, run
from tests.helpers import arena
from tests.match.conftest import faulty, sample_bot


def test_validate_passes_a_good_bot(tmp_path: Path) -> None:
    r = run("validate", str(sample_bot("plain_bot")), "--game", "bali-2017", "--players", "3",
            "--results", str(tmp_path), *FAST)
    assert r.exit_code == 0, r.output
    assert r.output.count(": ok:") == 3
    assert "PASS: bot plain_bot (handshake: 'plain' version '1.0')" in r.output


@pytest.mark.parametrize("mode, kind", [("garbage", "malformed"), ("die_at_start", "crash")])
def test_validate_fails_a_faulty_bot_and_lists_every_fault(mode: str, kind: str, tmp_path: Path) -> None:
    r = run("validate", str(faulty(mode)), "--game", "bali-2017", "--games", "2", "--results", str(tmp_path),
            *FAST)
    assert r.exit_code == 1, r.output
    faults = [line for line in r.output.splitlines() if line.startswith("  fault: game ")]
    assert faults and all(f": {kind}: " in line for line in faults)
    assert "FAIL" in r.output and "validation failed" in r.output
    if mode == "die_at_start":
        assert "stderr| faulty_bot: dying at start on purpose" in r.output


def fault_lines(output: str) -> list[str]:
    """The lines validate prints for faults shown in full."""
    return [line for line in output.splitlines() if line.startswith("  fault: game ")]


def test_a_crashing_bot_is_reported_at_its_own_decision_number_once_with_a_count(tmp_path: Path) -> None:
    r = run("validate", str(faulty("die_mid_game")), "--game", "bali-2017", "--games", "2", "--results",
            str(tmp_path), *FAST)
    assert r.exit_code == 1, r.output
    # The bot dies at the third decide request it is sent in a game: the number it counts itself.
    assert fault_lines(r.output) == [next(line for line in fault_lines(r.output))]
    # The decision as the viewer numbers it (every seat's, from 0), the bot's own count beside it.
    first = re.match(r"  fault: game 1, decision #(\d+) \(its 3rd\): crash: .*; the cause is in its stderr$",
                     fault_lines(r.output)[0])
    assert first, fault_lines(r.output)[0]
    assert "raise it" not in fault_lines(r.output)[0]  # a longer limit cures no crash
    assert "stderr| faulty_bot: dying mid-game on purpose" in r.output
    # The line that points at the moment: the game's replay page, opened at that decision in the bot's seat.
    # An absolute file:// URL, which a browser opens from any folder.
    url, step, seat = re.search(r"^    see it: file://(/\S+\.html)#step=(\d+)&seat=(\d+)$", r.output, re.M).groups()
    page = unquote(url)
    assert step == first.group(1) and Path(page).is_file()
    record = json.loads(Path(page).with_suffix(".json").read_text())
    assert record["decisions"][int(step)]["seat"] == int(seat) and record["decisions"][int(step)]["fault"] == "crash"
    assert "  fault: the same as in game 1" in r.output
    assert "the same fault 2 times, in every game: at its 3rd decision: crash: " in r.output
    assert "FAIL: bot faulty_bot (handshake: 'faulty-die_mid_game' version '1.0'): 2 fault(s) in 2 games" in r.output


LATE = r"(no answer within|the answer came over its) "
# What the decision was charged: its wall time less its wait for a core, and the same figure again against its limit.
CHARGED = (r"\(charged (?P<charged>[\d.]+) s: wall [\d.]+ s less [\d.]+ s waiting for a core\); "
           r"charged (?P=charged) s of its 0\.5 s limit")


@pytest.mark.slow
def test_a_slow_bot_is_told_how_long_it_took_against_its_limit_and_how_to_raise_it(tmp_path: Path) -> None:
    r = run("validate", str(faulty("think")), "--game", "bali-2017", "--games", "1", "--players", "3",
            "--results", str(tmp_path), *FAST)
    assert r.exit_code == 1, r.output
    first = fault_lines(r.output)[0]
    # It is charged the time it took, less its wait for a core.
    assert re.match(r"  fault: game 1, decision #\d+ \(its 1st\): timeout: " + LATE + r"0\.5 s " + CHARGED +
                    r" \(raise it with --timeout\)", first), first
    assert "request" not in first  # the arena's request ids are no numbering the bot author knows


@pytest.mark.slow
def test_a_sleeping_bot_is_charged_its_sleep_and_times_out_at_its_limit(tmp_path: Path) -> None:
    r = run("validate", str(faulty("sleep")), "--game", "bali-2017", "--games", "1", "--players", "3",
            "--results", str(tmp_path), *FAST)
    assert r.exit_code == 1, r.output
    first = fault_lines(r.output)[0]
    found = re.match(r"  fault: game 1, decision #\d+ \(its 1st\): timeout: " + LATE + r"0\.5 s " + CHARGED, first)
    assert found and float(found.group("charged")) >= 0.5, first


def test_a_syntax_error_is_shown_once_with_the_number_of_games_it_spoiled(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    tmp_path.chmod(0o755)  # an author's folder, readable by the user a bot runs as (nobody, for an arena run as root)
    (tmp_path / "my_bot.py").write_text("from protocol import run_bot\n\ndef decide(view, options, decision)\n"
                                        "    return 0\n")
    monkeypatch.chdir(tmp_path)  # a bot in the current folder, as its author runs it
    r = run("validate", f"{sys.executable} my_bot.py", "--game", "bali-2017", "--games", "3", "--results",
            str(tmp_path / "results"), *FAST)
    assert r.exit_code == 1, r.output
    assert len(fault_lines(r.output)) == 1
    assert fault_lines(r.output)[0].startswith("  fault: game 1, at handshake: crash: ")
    # A crash at start-up needs its stderr, not a longer limit.
    assert "raise it" not in fault_lines(r.output)[0] and "the cause is in its stderr" in fault_lines(r.output)[0]
    assert r.output.count("SyntaxError") == 1, r.output
    assert r.output.count("  fault: the same as in game 1") == 2
    assert "the same fault 3 times, in every game: at handshake: crash: " in r.output


def test_validate_names_its_logs_and_records_and_the_printed_paths_work(tmp_path: Path) -> None:
    r = run("validate", str(sample_bot("plain_bot")), "--game", "bali-2017", "--games", "2", "--players", "3",
            "--results", str(tmp_path), *FAST)
    assert r.exit_code == 0, r.output
    logs = Path(shlex.split(re.search(r"^logs: (.*)$", r.output, re.M).group(1))[0])
    assert sorted(p.name for p in logs.iterdir()) == [
        "p0-plain_bot-run1.stderr.log", "p0-plain_bot-run1.stdout.log", "p1-random_bot-run1.stderr.log",
        "p1-random_bot-run1.stdout.log", "p2-random_bot-2-run1.stderr.log", "p2-random_bot-2-run1.stdout.log"]
    replay = shlex.split(re.search(r"\(arena replay (.*)\)$", r.output, re.M).group(1))
    assert run("replay", *replay).exit_code == 0
    browse = re.search(r"^stored as games (\d+) to (\d+) of (\S+): arena (matches .*); arena (show .*)$", r.output,
                       re.M)
    assert browse and browse.group(1, 2) == ("1", "2") and browse.group(5).endswith(f" 1 -t {browse.group(3)}")
    listed = run(*shlex.split(browse.group(4)))
    assert listed.exit_code == 0 and "(bali-2017, match): 2 games" in listed.output, listed.output
    assert "plain_bot:" in listed.output and "random_bot-2:" in listed.output
    shown = run(*shlex.split(browse.group(5)))
    assert shown.exit_code == 0 and shown.output.startswith(f"game 1 of {browse.group(3)} (table 0)"), shown.output
    again = re.search(r"^replay: arena replay (.*)$", shown.output, re.M).group(1)
    assert run("replay", *shlex.split(again)).exit_code == 0


def test_a_script_given_as_the_program_that_is_not_executable_is_told_how_to_run_it(tmp_path: Path) -> None:
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "bot.py").write_text("print('hi')\n")
    run = arena("validate", "mybot/bot.py", "--game", "bali-2017", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "'mybot/bot.py' is not executable (run it with its interpreter: python3 mybot/bot.py)" in run.stderr
    assert "does not exist" not in run.stderr
