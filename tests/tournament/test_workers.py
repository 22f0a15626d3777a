"""No signal a bot sends stops a tournament: each table runs in a worker, and a worker that dies or stops costs
only its table (played again, then stored as failed with the reason)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from arena.bots.sandbox import WALL_CEILING
from arena.tournament.worker import STOP_GRACE
from protocol import DEFAULT_MAX_MESSAGE
from tests.bots.test_flood import BOTS, FLOOD_BOT, bound, rss
from tests.helpers import processes_with, wait_until

ROOT = Path(__file__).resolve().parents[2]
SIGNAL_BOT = ROOT / "tests" / "bot_programs" / "signal_bot.py"
TIMEOUT = 0.5  # seconds per decision
PATIENCE = 240  # seconds a whole tournament may take on a busy machine


def with_marker(marker: str, where: tuple[str, ...] = ("environ", "cmdline")) -> list[int]:
    """Live processes whose command line or environment holds marker (workers inherit the arena's environment)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in b"".join((entry / part).read_bytes() for part in where) and \
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(entry.name))
        except (OSError, IndexError):
            continue
    return found


def tournament(results: Path, marker: str, jobs: int, *entrants: str) -> subprocess.Popen[str]:
    """Start `arena tournament` at --sandbox rlimit, two seats a table, its processes marked."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "bali-2017", *entrants, "--seats", "2", "--jobs", str(jobs),
         "--timeout", str(TIMEOUT), "--sandbox", "rlimit", "--results", str(results)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "ARENA_TEST_MARKER": marker})


def finish(proc: subprocess.Popen[str], marker: str) -> tuple[str, str]:
    """Wait for the arena, then for every process it started to be gone; kill any that is left (and fail)."""
    try:
        out, err = proc.communicate(timeout=PATIENCE)
    finally:
        proc.kill()
        proc.wait()
        gone = wait_until(lambda: not with_marker(marker))
        for pid in with_marker(marker):
            os.kill(pid, signal.SIGKILL)
    assert gone, "processes outlived the tournament"
    return out, err


def stored(results: Path) -> list[tuple[str, str, list[str]]]:
    """Each stored game: its status, its reason and its bots."""
    with sqlite3.connect(results / "arena.sqlite") as db:
        rows = db.execute("SELECT m.status, m.reason, m.id FROM games m ORDER BY m.seq").fetchall()
        return [(status, reason, [b for (b,) in db.execute("SELECT name FROM seats WHERE game_id = ?", (mid,))])
            for status, reason, mid in rows]


def decisions_over_time(results: Path) -> list[tuple[str, float]]:
    """Decisions charged more than the timeout (or waited for past its ceiling on the wall clock) without being
    recorded as timeouts (none should)."""
    late = []
    for replay in results.glob("matches/*/game-*.json"):
        record = json.loads(replay.read_text())
        for decision in record["decisions"]:
            took = decision.get("time")
            if took is not None and decision.get("fault") != "timeout" and (
                    decision.get("charged", took) > TIMEOUT or took > WALL_CEILING * TIMEOUT):
                late.append((replay.name, took))
    return late


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_bots_that_terminate_kill_or_stop_the_arena_cost_only_their_own_tables(jobs: int, tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    bot = f"{sys.executable} {SIGNAL_BOT}"
    random = f"{sys.executable} -m sample_bots.random_bot {marker}"
    proc = tournament(tmp_path, marker, jobs, f"term={bot} TERM {marker}", f"kill={bot} KILL {marker}",
                      f"stop={bot} STOP {marker}", f"random={random}")
    out, err = finish(proc, marker)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "rank" in out
    games = stored(tmp_path)
    assert len(games) == 12  # six tables of two, each in both seat orders
    for status, reason, bots in games:
        if "kill" in bots:
            assert status == "failed" and "killed by SIGKILL" in reason and "try 3 of 3" in reason, reason
        else:
            assert status == "done", (bots, reason)
    failed = sum(status == "failed" for status, _, _ in games)
    assert f"12/12 games (100%), {failed} failed," in err  # the progress line counts them as they are stored
    with sqlite3.connect(tmp_path / "arena.sqlite") as db:
        random_faults = db.execute("SELECT COUNT(*) FROM faults f JOIN seats s ON s.game_id = f.game_id AND "
                                   "s.seat = f.seat WHERE s.name = 'random'")
        assert random_faults.fetchone()[0] == 0
    assert not decisions_over_time(tmp_path)


def test_ctrl_c_still_stops_a_one_job_tournament_at_once(tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    slow = tmp_path / "slow_bot.py"
    slow.write_text("import time\nfrom protocol import run_bot\n"
                    "run_bot(lambda view, options, decision: time.sleep(0.05) or 0, name='slow')\n")
    bot = f"{sys.executable} {slow} {marker}"
    proc = tournament(tmp_path / "results", marker, 1, *(f"{n}={bot}" for n in "abcd"))
    try:
        assert wait_until(lambda: len(processes_with(marker, proc.pid)) == 2, PATIENCE), "no table started"
        proc.send_signal(signal.SIGINT)
        start = time.monotonic()
        out, err = finish(proc, marker)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "run the same command to resume" in err
    assert "Traceback" not in err
    assert time.monotonic() - start < STOP_GRACE + 30  # the worker stopped when asked (generous for load)


@pytest.mark.slow
def test_a_flooding_bot_in_a_parallel_tournament_stays_under_the_memory_bound(tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    slow = tmp_path / "slow_bot.py"  # keeps the games going while the flood arrives
    slow.write_text("import time\nfrom protocol import run_bot\n"
                    "run_bot(lambda view, options, decision: time.sleep(0.02) or 0, name='slow')\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "bali-2017", f"flood={sys.executable} {FLOOD_BOT} unsolicited "
         f"48 {16 << 20}", f"slow={sys.executable} {slow} {marker}", f"random={sys.executable} -m "
         f"sample_bots.random_bot {marker}", "--seats", "3", "--jobs", "2", "--sandbox", "rlimit",
         "--results", str(tmp_path / "results")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "ARENA_TEST_MARKER": marker})
    peak = [0]

    def sample() -> None:  # the coordinator and its workers (the bots' scrubbed environment lacks the marker)
        while proc.poll() is None:
            peak[0] = max([peak[0], *(rss(pid) for pid in with_marker(marker, where=("environ",)))])
            time.sleep(0.02)  # the sampling interval

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        out, err = finish(proc, marker)
    finally:
        sampler.join()
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert 0 < peak[0] < bound(DEFAULT_MAX_MESSAGE, BOTS), f"a process of the arena reached {peak[0] >> 20} MiB"
    assert [status for status, _, _ in stored(tmp_path / "results")] == ["done"] * 3
