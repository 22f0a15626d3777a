"""The tests that once failed only on a busy machine pass while four processes keep every core busy, twice in a row:
decisions are charged the CPU time of the bots' processes, so waiting for a core makes no bot late."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.match.record import load_record
from tests.helpers import ROOT

BURNERS = 4
# The files that failed at a load average of about 10 on 2 cores, and the time tests.
PART = ("tests/arena/test_wire.py", "tests/arena/test_faults.py", "tests/cli/test_validate.py",
        "tests/cli/test_bench.py", "tests/arena/test_clock.py")


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


BUSY_BOT = f"{sys.executable} tests/bots/busy_bot.py 0.15"


@pytest.mark.soak
def test_bots_that_need_15_percent_of_their_limit_get_no_time_fault_at_six_jobs_on_two_cores(tmp_path: Path) -> None:
    # Six tables at once, each bot computing for 15% of its 1 s at every decision: charged its CPU time, no bot is
    # late for the time it waits for a core, over more than 1,000 decisions.
    entrants = [f"b{i}={BUSY_BOT}" for i in range(4)]
    done = subprocess.run([sys.executable, "-m", "arena", "tournament", "bali-2017", *entrants, "--seats", "2",
                           "--jobs", "6", "--results", str(tmp_path / "results")], cwd=ROOT, capture_output=True,
                          text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-2000:]
    records = [load_record(path) for path in sorted((tmp_path / "results").glob("matches/*/game-*.json"))]
    decisions = [d for r in records for d in r.decisions if d.time is not None]
    assert len(decisions) > 1000
    assert not [f for r in records for f in r.faults], [f.message() for r in records for f in r.faults][:5]
    assert all(d.cpu is not None and d.cpu < 0.5 for d in decisions)
