"""No bot outlives its arena: not when the arena is told to stop, not even when it is killed outright."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.arena.conftest import ROOT

PATIENCE = 20.0  # seconds; generous for a busy machine, and only ever waited in full on failure


def processes_with(marker: str, besides: int) -> list[int]:
    """Live processes (zombies excluded) but `besides` whose command line holds marker."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == besides:
            continue
        try:
            if marker.encode() in (entry / "cmdline").read_bytes() and \
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(entry.name))
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
    return found


def wait_for(condition, patience: float = PATIENCE) -> bool:
    deadline = time.monotonic() + patience
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


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
        assert wait_for(lambda: len(processes_with(marker, arena.pid)) == 3), "the bots did not start"
        time.sleep(0.3)  # into the games
        arena.send_signal(sig)
        arena.wait(PATIENCE)
        gone = wait_for(lambda: not processes_with(marker, arena.pid))
        assert gone, f"bots left after {sig.name}: {processes_with(marker, arena.pid)}"
    finally:
        arena.kill()
        arena.wait()
        for pid in processes_with(marker, arena.pid):
            os.kill(pid, signal.SIGKILL)
