"""No bot outlives its arena: not when the arena is told to stop, not even when it is killed outright."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.arena.conftest import ROOT
from tests.helpers import PATIENCE, processes_with, wait_until


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
        assert wait_until(lambda: len(processes_with(marker, arena.pid)) == 3), "the bots did not start"
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
