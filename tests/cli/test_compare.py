"""`arena compare` as a bot author runs it: real bot processes, a real store, the verdict and its report."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import arena, stored, stored_count, wait_until

HEURISTIC = f"{sys.executable} -m sample_bots.heuristic_bot"
RANDOM = f"{sys.executable} -m sample_bots.random_bot"
REPORT_KEYS = {"verdict", "pairs", "wins", "draws", "losses", "estimate", "interval", "llr", "bounds", "los",
               "score", "score_interval", "test", "llr_not_better", "expected_pairs"}
LIVE = re.compile(r"^pairs (\d+) \(\+(\d+) =(\d+) -(\d+)\): elo \S+ \[\S+, \S+\]"
                  r"(; (undecided|better|not better): log-evidence for better [-+][\d.]+ of [\d.]+, "
                  r"for not better [-+][\d.]+ of [\d.]+(; about [\d,]+ more pairs expected|; more pairs expected "
                  r"than the [\d,]+ left \(--max-games\)|; not expected to decide within the [\d,]+ pairs left)?)?$")


def live_lines(stderr: str) -> list[re.Match[str]]:
    """The progress lines of a run's stderr, each checked against the documented form."""
    lines = [line for line in stderr.splitlines() if line.startswith("pairs ")]
    matches = [LIVE.match(line) for line in lines]
    assert all(matches), lines
    return [m for m in matches if m is not None]


def compare(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return arena("compare", *args, cwd=cwd, timeout=600)


@pytest.mark.slow
def test_a_bot_that_crashes_every_game_is_named_in_the_report_not_taken_for_a_draw(tmp_path: Path) -> None:
    crash = f"crash={sys.executable} -c 'import sys; sys.exit(3)'"
    run = compare(crash, f"r={RANDOM}", "--game", "bali-2017", "--games", "4", "--jobs", "1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "faults: crash in 100% of its games, r in 0% of its games" in run.stdout
    assert "warning: crash faulted in 100% of its games" in run.stdout and "--faults" in run.stdout
    as_json = compare(crash, f"r={RANDOM}", "--game", "bali-2017", "--games", "4", "--jobs", "1", "--json",
                      cwd=tmp_path)
    assert json.loads(as_json.stdout)["fault_rates"] == {"crash": 1.0, "r": 0.0}


@pytest.mark.slow
def test_a_fixed_comparison_reports_pairs_and_its_games_can_be_shown(tmp_path: Path) -> None:
    run = compare(f"h={HEURISTIC}", f"r={RANDOM}", "--game", "bali-2017", "--games", "16", "--jobs", "1",
                  "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert REPORT_KEYS <= set(report)
    assert report["pairs"] == 8 == report["wins"] + report["draws"] + report["losses"]
    assert report["llr"] is None and report["new"] == "h" and report["base"] == "r"
    games = stored(tmp_path / "results" / "arena.sqlite")
    assert sorted(games) == list(range(16))
    for deal in range(8):  # each pair: the same opponents in the same seats, h then r in the tested seat
        with_new = [name for _, _, name, _, _ in games[2 * deal]]
        with_base = [name for _, _, name, _, _ in games[2 * deal + 1]]
        seat = with_new.index("h")
        assert with_base[seat] == "r" and with_base[:seat] + with_base[seat + 1:] == \
            with_new[:seat] + with_new[seat + 1:]
    shown = arena("show", str(games[0][0][0]), cwd=tmp_path)
    assert shown.returncode == 0 and "--- turn 1" in shown.stdout


@pytest.mark.slow
def test_the_heuristic_bot_is_declared_better_than_the_random_bot(tmp_path: Path) -> None:
    # Public seeds here and below: a verdict reached by chance deals alone would make the test flaky.
    run = compare(f"h={HEURISTIC}", f"r={RANDOM}", "--game", "bali-2017", "--elo1", "100", "--jobs", "2",
                  "--json", "--seed", "3", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["verdict"] == "better" and report["llr"] >= report["bounds"][1] and report["test"] == "classic"
    assert report["sprt"]["elo1"] == 100 and report["llr_not_better"] == pytest.approx(-report["llr"])
    assert report["pairs"] <= 300 and report["interval"][0] > 0
    assert live_lines(run.stderr)[-1].group(6) == "better"  # the live report


@pytest.mark.slow
def test_the_text_report_names_the_verdict_and_bounds(tmp_path: Path) -> None:
    run = compare(f"h={HEURISTIC}", f"r={RANDOM}", "--game", "bali-2017", "--elo1", "100", "--jobs", "1",
                  "--seed", "3", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "verdict: better after" in run.stdout and "log-evidence for better" in run.stdout
    assert "test: classic SPRT, elo0 0 against elo1 100" in run.stdout
    assert "LOS:" in run.stdout and "pairs:" in run.stdout and "elo:" in run.stdout


@pytest.mark.slow
def test_a_killed_comparison_resumes_to_the_same_report_counting_no_pair_twice(tmp_path: Path) -> None:
    # A public seed, so that a clean run deals what the killed one dealt (a resumed one reuses its stored secret).
    args = ["compare", f"h={HEURISTIC}", f"r={RANDOM}", "--game", "bali-2017", "--games", "24", "--jobs", "1",
            "--json", "--seed", "0"]
    killed = tmp_path / "killed"
    killed.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "arena", *args], cwd=killed, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    db = killed / "results" / "arena.sqlite"
    try:
        assert wait_until(lambda: stored_count(db) >= 8, 240), "no table was stored"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert stored_count(db) < 24
    resumed = arena(*args, cwd=killed, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    clean = tmp_path / "clean"
    clean.mkdir()
    straight = arena(*args, cwd=clean, timeout=600)
    assert straight.returncode == 0, straight.stderr
    first, second = json.loads(resumed.stdout), json.loads(straight.stdout)
    assert {k: first[k] for k in REPORT_KEYS} == {k: second[k] for k in REPORT_KEYS}
    assert sorted(stored(db)) == list(range(24))


@pytest.mark.parametrize("args, message", [
    (["--alpha", "0.7"], "--alpha must be between 0 and 0.5"),
    (["--elo0", "5", "--elo1", "5"], "--elo1 must be greater than --elo0"),
    (["--seats", "9"], "bali-2017 is played by 2 to 4 seats"),
])
def test_settings_that_cannot_work_are_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    run = compare(RANDOM, RANDOM, "--game", "bali-2017", *args, cwd=tmp_path)
    assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "results" / "arena.sqlite").exists()


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bali-2001", "bali-2017"])
def test_at_the_defaults_the_heuristic_bot_is_declared_better_within_80_pairs(tmp_path: Path, game: str) -> None:
    run = compare(f"h={HEURISTIC}", f"r={RANDOM}", "--game", game, "--json", "--seed", "3", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["test"] == "mixture" and report["verdict"] == "better" and report["pairs"] <= 80, report
    assert report["llr"] >= report["bounds"][1] and report["expected_pairs"]["remaining"] == 0
    lines = live_lines(run.stderr)
    assert lines[-1].group(6) == "better" and int(lines[-1].group(1)) == report["pairs"]


@pytest.mark.slow
def test_o_names_an_opponent_and_click_warns_of_nothing(tmp_path: Path) -> None:
    run = compare(f"a={RANDOM}", f"b={RANDOM}", "--game", "bali-2017", "-o", f"opp={HEURISTIC}", "--games", "2",
                  "--jobs", "1", "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["opponents"] == ["opp"]
    assert "Warning" not in run.stderr, run.stderr
    shown = compare("--help", cwd=tmp_path)
    assert shown.returncode == 0 and "Warning" not in shown.stderr
    assert "-o, --opponents BOT" in shown.stdout and "--option KEY=VALUE" in shown.stdout


def test_the_game_options_are_still_given_by_their_long_name(tmp_path: Path) -> None:
    run = compare(RANDOM, RANDOM, "--game", "bali-2017", "--option", "nonsense", "--games", "2", cwd=tmp_path)
    assert run.returncode == 2 and "expected KEY=VALUE" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.slow
def test_each_progress_line_is_printed_once_and_names_the_estimate_and_verdict_so_far(tmp_path: Path) -> None:
    # Four tables of eight pairs, two at a time: a table that finishes before the one before it adds no pair.
    run = compare(f"h={HEURISTIC}", f"r={RANDOM}", "--game", "bali-2017", "--test", "classic", "--max-games", "64",
                  "--jobs", "2", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    pairs = [int(m.group(1)) for m in live_lines(run.stderr)]
    assert pairs and pairs == sorted(set(pairs)) and 0 not in pairs, run.stderr
    assert all(m.group(6) for m in live_lines(run.stderr))
    assert "verdict:" in run.stdout and "elo:" in run.stdout


# The default in the quick run; the options that change it repeat the same claim on more cases (slow).
@pytest.mark.parametrize("args, test, elo1", [
    ([], "mixture", 5.0),
    *(pytest.param(*case, marks=pytest.mark.slow) for case in [
        (["--elo1", "50"], "classic", 50.0), (["--test", "classic"], "classic", 5.0),
        (["--test", "mixture", "--elo1", "10"], "mixture", 10.0)]),
])
@pytest.mark.slow
def test_the_test_is_the_mixture_unless_elo0_or_elo1_or_test_say_otherwise(tmp_path: Path, args: list[str],
                                                                           test: str, elo1: float) -> None:
    run = compare(f"a={RANDOM}", f"b={RANDOM}", "--game", "bali-2017", "--max-games", "2", "--jobs", "1", "--json",
                  *args, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["test"] == test and report["sprt"]["elo1"] == elo1 and report["pairs"] == 1
    assert report["verdict"] == "undecided" and report["expected_pairs"]["model"].startswith("wald")


FIRST_OPTION = "from protocol import run_bot\nrun_bot(lambda view, options, decision: 0, name='first')\n"


def first_option_bots(folder: Path) -> tuple[str, str]:
    """NEW and BASE: two copies of a bot that always takes the first option (the heuristic bot beats both), in a
    folder the bots' own user may read (pytest makes its folders for its own user alone)."""
    folder.chmod(0o755)
    for name in ("first_new.py", "first_base.py"):
        (folder / name).write_text(FIRST_OPTION)
    return f"new={sys.executable} first_new.py", f"base={sys.executable} first_base.py"


@pytest.mark.slow
def test_when_draws_dominate_the_report_says_what_to_try(tmp_path: Path) -> None:
    new, base = first_option_bots(tmp_path)
    # A public seed fixes the deals: how often the first-option bots win depends on them, and the advice on that.
    seeded = ("--game", "bali-2017", "--max-games", "32", "--jobs", "1", "--seed", "1")
    run = compare(new, base, *seeded, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "verdict: undecided after 16 pairs" in run.stdout and "faults:" not in run.stdout, run.stdout
    shares = re.search(r"advice: 100% of the pairs were draws \(new won (\d+)% and base won (\d+)% of their games "
                       r"against heuristic_bot\): both versions end most deals alike, losing them; try weaker "
                       r"opponents, which leave outcomes open: --opponents 'python3 -m sample_bots.random_bot'",
                       run.stdout)
    assert shares and shares[1] == shares[2] and int(shares[1]) <= 15, run.stdout
    again = compare(new, base, *seeded, "--json", cwd=tmp_path)
    assert json.loads(again.stdout)["advice"].startswith("100% of the pairs were draws")


@pytest.mark.soak
def test_a_comparison_of_drawn_pairs_stops_early_when_the_cap_leaves_it_no_hope(tmp_path: Path) -> None:
    new, base = first_option_bots(tmp_path)
    run = compare(new, base, "--game", "bali-2017", "--max-games", "500", "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["verdict"] == "undecided" and report["stopped_early"] and report["pairs"] < report["pairs_cap"]
    assert live_lines(run.stderr)[-1].group(0).endswith("more pairs expected than the 42 left (--max-games)")


@pytest.mark.slow
def test_on_a_terminal_the_progress_is_one_line_rewritten_in_place(tmp_path: Path) -> None:
    leader, follower = os.openpty()
    run = subprocess.Popen([sys.executable, "-m", "arena", "compare", f"h={HEURISTIC}", f"r={RANDOM}", "--game",
                            "bali-2017", "--max-games", "64", "--jobs", "1"], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=follower, text=True)
    os.close(follower)
    out, _ = run.communicate(timeout=600)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal is closed once the command has ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert run.returncode == 0, shown
    progress = [line for line in shown.decode().split("\n") if "pairs " in line]
    assert len(progress) == 1 and progress[0].count("\rpairs ") >= 2, progress  # rewritten, never scrolled
    assert "\x1b[K" in progress[0] and "log-evidence" not in progress[0] and len(out.splitlines()) > 5


@pytest.mark.slow
def test_a_side_that_cannot_start_gets_its_fault_not_a_verdict(tmp_path: Path) -> None:
    # Against a copy that dies at its start, the heuristic bot wins every pair: the test would say "better" after
    # a dozen pairs, a verdict about the crash and not about the play.
    broken = f"copy={sys.executable} -c 'import sys; sys.exit(3)'"
    run = compare(HEURISTIC, broken, "--game", "bali-2017", "--jobs", "1", cwd=tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    verdict = run.stdout.splitlines()[-1]
    assert verdict.startswith("verdict: none: copy faulted in 100% of its games after "), run.stdout
    assert "its first fault: " in verdict and "--faults" in verdict and "better" not in verdict, verdict
    as_json = compare(HEURISTIC, broken, "--game", "bali-2017", "--jobs", "1", "--json", "--name", "again",
                      cwd=tmp_path)
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and report["verdict"] == "faulted", report
    assert report["faulted"]["bot"] == "copy" and report["faulted"]["share"] == 1.0 and report["faulted"]["fault"]
    assert report["pairs"] <= 8, report  # it stopped once the first table showed the fault: one table's deals
