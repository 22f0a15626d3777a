"""No bot outlives its arena: not when the arena is told to stop, not even when it is killed outright."""

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

from tests.helpers import PATIENCE, processes_with, sandbox_levels, wait_until
from tests.match.conftest import ROOT


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the bots")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=lambda s: s.name)
def test_stopping_or_killing_the_arena_ends_every_bot(sig: signal.Signals, tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    # The marker is an extra argument the bots ignore; it lets the test find them.
    bot = f"{sys.executable} sample_bots/plain_bot.py {marker}"
    arena = subprocess.Popen([sys.executable, "-m", "arena", "match", "bali-2001", bot, bot, bot, "--games", "100000",
                              "--seed", "1", "--results", str(tmp_path)], cwd=ROOT, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        # Each bot is a few processes in its sandbox (launcher, bubblewrap), each with the marker.
        assert wait_until(lambda: len(processes_with(marker, arena.pid)) >= 3), "the bots did not start"
        # Into the games: the first one is over, the next is being played.
        assert wait_until(lambda: any(tmp_path.glob("matches/*/game-*.json"))), "no game was finished"
        arena.send_signal(sig)
        arena.wait(PATIENCE)
        gone = wait_until(lambda: not processes_with(marker, arena.pid))
        assert gone, f"bots left after {sig.name}: {processes_with(marker, arena.pid)}"
    finally:
        arena.kill()
        arena.wait()
        for pid in processes_with(marker, arena.pid):
            os.kill(pid, signal.SIGKILL)


def kill_while_bots_start(level: str, tmp_path: Path, command: str = "match") -> list[int]:
    """Start an arena, SIGKILL it at a random moment while its bots start, and return the bot processes still
    running 5 seconds later (killed then, so that nothing stays behind)."""
    marker = f"marker-{uuid.uuid4().hex}"
    bot = f"{sys.executable} -X{marker} sample_bots/random_bot.py"
    args = ["match", "bali-2001", bot, bot, bot, "--games", "1000"] if command == "match" else \
        ["tournament", "bali-2001", bot, bot, f"third={bot} third", "--jobs", "2", "--rounds", "50"]
    arena = subprocess.Popen([sys.executable, "-m", "arena", *args, "--sandbox", level, "--results", str(tmp_path)],
                             cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        # The first trace of a bot is its launcher: from then on, any moment is a moment while bots start.
        assert wait_until(lambda: processes_with(marker, arena.pid)), "no bot started"
        time.sleep(random.uniform(0.0, 0.4))
    finally:
        arena.kill()
        arena.wait()
    if wait_until(lambda: not processes_with(marker, arena.pid), 5.0):
        return []
    left = processes_with(marker, arena.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


LEVELS = sandbox_levels()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the bots")
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.slow
def test_a_sigkill_while_bots_start_leaves_no_bot(level: str, tmp_path: Path) -> None:
    for attempt in range(3 if level == "auto" else 1):
        assert kill_while_bots_start(level, tmp_path / str(attempt)) == []


@pytest.mark.soak
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find the bots")
@pytest.mark.parametrize("command", ["match", "tournament"])
@pytest.mark.parametrize("level", LEVELS)
def test_many_sigkills_while_bots_start_leave_no_bot(level: str, command: str, tmp_path: Path) -> None:
    left = [kill_while_bots_start(level, tmp_path / str(attempt), command) for attempt in range(25)]
    assert not any(left), f"{sum(1 for pids in left if pids)} of 25 kills left bots: {left}"
