"""A Ctrl-C at any moment of a parallel tournament (starting up, starting its workers, playing, storing) ends it with
exit 130 and the line that says how to resume, and leaves no process behind: no signal is lost."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.helpers import bots, wait_until
from tests.tournament.test_workers import PATIENCE, ROOT, with_marker

RESUME = "run the same command to resume"


def interrupted_at(delay: float, results: Path) -> subprocess.CompletedProcess[str]:
    """Start a long `--jobs 2` tournament, and Ctrl-C it (SIGINT to its process group, as a terminal does) after
    `delay` seconds; its outcome, once every process it started is gone."""
    marker = f"marker-{uuid.uuid4().hex}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "bali-2017", *bots(4), "--seats", "2", "--jobs", "2",
         "--rounds", "30", "--timeout", "0.5", "--sandbox", "rlimit", "--results", str(results)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "ARENA_TEST_MARKER": marker})
    try:
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=PATIENCE)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert wait_until(lambda: not with_marker(marker)), "processes of the arena were left behind"
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def check_interrupted(done: subprocess.CompletedProcess[str], delay: float, results: Path) -> None:
    if done.returncode == -signal.SIGINT and not done.stderr or "Fatal Python error: init_" in done.stderr:
        # Before the interpreter runs any of the arena's code (while it starts: its standard streams, its site
        # module), it ends as Python does, and nothing was done.
        assert not results.exists()
        return
    assert done.returncode == 130, (delay, done.returncode, done.stderr[-2000:])
    assert RESUME in done.stderr and "Traceback" not in done.stderr, (delay, done.stderr[-2000:])


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.3, 0.9, 1.6])
def test_a_ctrl_c_at_start_up_or_while_workers_start_ends_the_run_with_130_and_the_resume_line(
        delay: float, tmp_path: Path) -> None:
    check_interrupted(interrupted_at(delay, tmp_path / "results"), delay, tmp_path / "results")


@pytest.mark.soak
def test_a_ctrl_c_at_fifty_random_moments_is_never_lost(tmp_path: Path) -> None:
    rng = random.Random(24)
    for attempt in range(50):
        delay = rng.uniform(0.0, 3.0)
        results = tmp_path / f"results-{attempt}"
        check_interrupted(interrupted_at(delay, results), delay, results)


FINALIZER = """
import sys
from arena.interrupt import check_interrupted, remember_interrupts

class Finalized:
    def __init__(self, error):
        self.error = error

    def __del__(self):
        raise self.error

remember_interrupts()
Finalized(ValueError("a finalizer's own error"))  # still reported
# A Ctrl-C that lands in code whose exceptions Python can only report (an import lock's callback, a finalizer):
Finalized(KeyboardInterrupt())
try:
    check_interrupted()
except KeyboardInterrupt:
    print("stopped at the next check")
"""


def test_a_ctrl_c_that_python_can_only_report_is_remembered_and_not_printed() -> None:
    done = subprocess.run([sys.executable, "-c", FINALIZER], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "stopped at the next check"
    assert "KeyboardInterrupt" not in done.stderr and "a finalizer's own error" in done.stderr
