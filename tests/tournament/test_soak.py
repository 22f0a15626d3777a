"""Soak: many games of good and hostile bots under `arena tournament --jobs 2`, sandboxed.

Every game is stored (played, or failed with a reason), no bot process outlives the tournament, the store is
consistent, and the arena's memory stays flat. The full run (500+ games): `python3 -m pytest -m soak -s`.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.tournament.formats import round_robin
from tests.helpers import processes_with, wait_until

ROOT = Path(__file__).resolve().parents[2]
SEATS = 3


def entrants(marker: str, hostile: bool) -> dict[str, str]:
    """Entrant name -> command; the marker (an -X option Python ignores) finds the bots and their children."""
    python = f"{sys.executable} -X{marker}"
    bots = {"random": f"{python} sample_bots/random_bot.py", "heuristic": f"{python} sample_bots/heuristic_bot.py",
            "crasher": f"{python} tests/bot_programs/faulty_bot.py die_mid_game",
            "memory": f"{python} tests/bot_programs/threat_bot.py memory"}
    if hostile:
        bots |= {"random2": f"{python} sample_bots/random_bot.py",
                 "garbage": f"{python} tests/bot_programs/faulty_bot.py garbage",
                 "forks": f"{python} tests/bot_programs/threat_bot.py fork_bomb"}
    return bots


def rss_kib(pid: int) -> int:
    """Resident memory of the arena: the coordinator and its workers (not the bots)."""
    total = 0
    for task in [pid, *workers(pid)]:
        try:
            for line in Path(f"/proc/{task}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def children(pid: int) -> list[int]:
    try:
        return [int(c) for t in Path(f"/proc/{pid}/task").iterdir()
                for c in (t / "children").read_text().split()]
    except OSError:
        return []


def workers(pid: int) -> list[int]:
    """The coordinator's worker processes (not its multiprocessing helpers)."""
    found = []
    for child in children(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
        except OSError:
            continue
    return found


def affinities(pids: list[int]) -> set[frozenset[int]]:
    """The CPU sets of the bots' processes; taskset itself is left out: it runs on every CPU until it has pinned
    itself, just before it starts the bot."""
    found = set()
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() != "taskset":
                found.add(frozenset(os.sched_getaffinity(pid)))
        except OSError:
            continue
    return found


@dataclass(frozen=True)
class Soak:
    games: int
    stored: int
    failed: int
    faults: int
    rss_start: int
    rss_end: int
    seconds: float
    pinned: frozenset[frozenset[int]]  # the CPU sets the bots were seen to run on


def soak(tmp_path: Path, rounds: int, hostile: bool) -> Soak:
    """Run the tournament, sampling the arena's memory, and check what it leaves behind."""
    marker = f"soak{uuid.uuid4().hex}"
    bots = entrants(marker, hostile)
    expected = sum(t.games for t in round_robin(list(bots), SEATS, rounds, False, 0))
    start = time.monotonic()
    arena = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "bali-2001", *(f"{n}={c}" for n, c in bots.items()),
         "--seats", str(SEATS), "--rounds", str(rounds), "--jobs", "2", "--timeout", "0.5", "--memory-limit", "256",
         "--max-processes", "24", "--results", str(tmp_path), "--option", "max_turns=60"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    samples: list[int] = []
    pinned: set[frozenset[int]] = set()
    try:
        while arena.poll() is None:
            if len(workers(arena.pid)) == 2:  # both workers up: the arena as it plays
                samples.append(rss_kib(arena.pid))
            pinned |= affinities(processes_with(marker, arena.pid))
            time.sleep(0.5)
        assert arena.returncode == 0, arena.stderr.read().decode() if arena.stderr else ""
        assert wait_until(lambda: not processes_with(marker, arena.pid)), "bot processes outlived the tournament"
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGKILL)
        arena.wait()
        for pid in processes_with(marker, arena.pid):
            os.kill(pid, signal.SIGKILL)
    seconds = time.monotonic() - start
    db = sqlite3.connect(tmp_path / "arena.sqlite")
    try:
        stored, failed = db.execute("SELECT COUNT(*), SUM(status = 'failed') FROM games").fetchone()
        assert stored == expected
        assert db.execute("SELECT COUNT(*) FROM games WHERE status = 'failed' AND reason = ''").fetchone()[0] == 0
        # Every played game has all its seats; every fault belongs to a stored game and one of its seats.
        short = db.execute("SELECT COUNT(*) FROM games m WHERE status = 'done' AND "
                           "(SELECT COUNT(*) FROM seats s WHERE s.game_id = m.id) != ?", (SEATS,)).fetchone()[0]
        assert short == 0
        stray = db.execute("SELECT COUNT(*) FROM faults f WHERE NOT EXISTS (SELECT 1 FROM seats s WHERE "
                           "s.game_id = f.game_id AND s.seat = f.seat)").fetchone()[0]
        assert stray == 0
        faults = db.execute("SELECT COUNT(*) FROM faults").fetchone()[0]
    finally:
        db.close()
    steady = samples[1:] or samples  # after the workers have imported everything
    return Soak(expected, stored, failed or 0, faults, steady[0] if steady else 0, steady[-1] if steady else 0,
                seconds, frozenset(pinned))


def report(result: Soak) -> None:
    print(f"\nsoak: {result.stored} games stored ({result.failed} failed), {result.faults} faults, "
          f"arena RSS {result.rss_start / 1024:.1f} MiB at start, {result.rss_end / 1024:.1f} MiB at end, "
          f"{result.seconds:.0f} s")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the bots and measure memory")
def test_a_short_soak_of_good_and_hostile_bots(tmp_path: Path) -> None:
    result = soak(tmp_path, rounds=1, hostile=False)
    report(result)
    assert result.faults > 0  # the hostile bots did their worst
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) >= 2:  # two jobs, two CPU sets: each match's bots on CPUs of their own
        share = len(cpus) // 2
        assert result.pinned and result.pinned <= {frozenset(cpus[:share]), frozenset(cpus[share:2 * share])}


@pytest.mark.soak
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the bots and measure memory")
def test_soak_500_games(tmp_path: Path) -> None:
    result = soak(tmp_path, rounds=5, hostile=True)
    report(result)
    assert result.games >= 500
    assert result.faults > 0
    assert result.rss_end < 1.5 * result.rss_start + 20 * 1024, "the arena's memory grew"
