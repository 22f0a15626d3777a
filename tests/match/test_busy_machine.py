"""The tests that once failed only on a busy machine pass while four processes keep every core busy, twice in a row:
decisions are charged their wall time less the time the bots waited for a core, so waiting makes no bot late,
whether it thinks, sleeps or thinks on two threads."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.errors import FaultKind
from arena.match.record import load_record
from tests.helpers import ROOT

BURNERS = 4
# The files that failed at a load average of about 10 on 2 cores, and the time tests.
PART = ("tests/match/test_wire.py", "tests/match/test_faults.py", "tests/cli/test_validate.py",
        "tests/bench/test_arena_bench.py", "tests/match/test_clock.py")


@pytest.fixture
def busy() -> Iterator[None]:
    """Four processes that keep the CPU busy for as long as the test runs."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(BURNERS)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


@pytest.mark.soak
def test_the_time_sensitive_tests_pass_twice_in_a_row_under_a_parallel_cpu_load(busy: None) -> None:
    for run in (1, 2):
        done = subprocess.run([sys.executable, "-m", "pytest", *PART, "-n", "0", "-m", "not soak", "-q", "-p",
                               "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=3600)
        assert done.returncode == 0, (run, done.stdout[-4000:])


BUSY_BOT = f"{sys.executable} tests/bot_programs/busy_bot.py"
PACER_BOT = f"{sys.executable} tests/bot_programs/pacer_bot.py"
# Each needs 15% of its 1 s at every decision: thinking, asleep, or thinking on two threads at once.
GOOD = {"thinks": f"{BUSY_BOT} 0.15", "sleeps": f"{PACER_BOT} sleep 0.15 0", "threads": f"{PACER_BOT} threads 0.15 0"}
GREEDY = f"{BUSY_BOT} 1.5"  # needs 150% of its time at every decision


@pytest.mark.soak
def test_at_six_jobs_on_two_cores_beside_four_busy_processes_only_the_bot_that_needs_too_much_is_late(
        tmp_path: Path, busy: None) -> None:
    # Six tables at once beside four busy processes: the bots that need 15% of their limit are never late for the
    # time they wait for a core, over more than 1,000 decisions; the one that needs 150% times out at every decision
    # it is asked (and is disqualified after three).
    entrants = [f"{name}={command}" for name, command in GOOD.items()] + [f"greedy={GREEDY}"]
    done = subprocess.run([sys.executable, "-m", "arena", "tournament", "bali-2017", *entrants, "--seats", "2",
                           "--rounds", "2", "--jobs", "6", "--results", str(tmp_path / "results")], cwd=ROOT,
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-2000:]
    records = [load_record(path) for path in sorted((tmp_path / "results").glob("matches/*/game-*.json"))]
    asked = [(r.seats[d.seat].entrant, d) for r in records for d in r.decisions if d.time is not None]
    good = [d for entrant, d in asked if entrant != "greedy"]
    assert len(good) > 1000
    faults = [f for r in records for f in r.faults if f.bot != "greedy"]
    assert not faults, [f.message() for f in faults][:5]
    assert all(d.charged is not None and d.wait is not None for d in good)
    greedy = [d for entrant, d in asked if entrant == "greedy"]
    assert greedy and all(d.fault == FaultKind.TIMEOUT for d in greedy)
