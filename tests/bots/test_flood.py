"""Whatever a bot sends, and whenever, the arena's memory stays under its documented bound."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from arena.bots.channel import RECEIVE_QUEUE, transport_cap
from protocol import DEFAULT_MAX_MESSAGE
from tests.helpers import processes_with, wait_until
from tests.match.conftest import ROOT

MIB = 1 << 20
FLOOD_BOT = ROOT / "tests" / "bot_programs" / "flood_bot.py"
BOTS = 3


def bound(max_message: int, bots: int) -> int:
    """The documented bound: 200 MiB, plus for each bot what its socket may hold (a message queued and one being
    read, each of up to the transport's cap)."""
    return 200 * MIB + bots * (RECEIVE_QUEUE + 1) * transport_cap(max_message)


def rss(pid: int) -> int:
    """The resident memory of a process in bytes (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


# The quick run floods once (over the reply cap); the slow tests both ways, over and under the transport's cap.
@pytest.mark.parametrize(("mode", "count", "size", "fault"), [
    pytest.param("unsolicited", 48, 16 * MIB, "illegal", marks=pytest.mark.slow,  # each over the cap: cut off
                 id="unsolicited-16MiB"),
    pytest.param("unsolicited", 200, 2 * MIB - 4096, "illegal", marks=pytest.mark.slow,  # each under it: taken
                 id="unsolicited-2MiB"),  # in, and dropped unread
    pytest.param("oversized", 0, MIB + MIB // 2, "oversized", id="oversized-1.5MiB"),  # over the reply cap only
    pytest.param("oversized", 0, 16 * MIB, "timeout", marks=pytest.mark.slow,  # over the transport's cap: the
                 id="oversized-16MiB"),  # connection drops, the answer never comes
])
@pytest.mark.slow
def test_a_flooding_bot_cannot_fill_the_arenas_memory(mode: str, count: int, size: int, fault: str,
                                                     tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    slow = tmp_path / "slow_bot.py"  # keeps the game going while the flood arrives
    slow.write_text("import time\nfrom protocol import run_bot\n"
                    "run_bot(lambda view, options, decision: time.sleep(0.02) or 0, name='slow')\n")
    flood = f"{sys.executable} {FLOOD_BOT} {mode} {count} {size}"
    arena = subprocess.Popen(
        [sys.executable, "-m", "arena", "match", "bali-2001", flood, f"{sys.executable} {slow} {marker}",
         f"{sys.executable} sample_bots/random_bot.py {marker}", "--games", "1", "--seed", "1", "--timeout", "1",
         "--sandbox", "rlimit", "--quiet", "--results", str(tmp_path / "results")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]

    def sample() -> None:
        while arena.poll() is None:
            peak[0] = max(peak[0], rss(arena.pid))
            time.sleep(0.01)  # the sampling interval

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        out, err = arena.communicate(timeout=180)
    finally:
        arena.kill()
        sampler.join()
    assert arena.returncode == 0, err
    assert "Traceback" not in err
    assert 0 < peak[0] < bound(DEFAULT_MAX_MESSAGE, BOTS), f"the arena reached {peak[0] / MIB:.0f} MiB"
    record = json.loads(next((tmp_path / "results").glob("matches/*/game-0001.json")).read_text())
    kinds = [f["kind"] for f in record["faults"] if f["participant"] == 0 and f["phase"] == "decide"]
    assert kinds[:3] == [fault] * 3 and 0 in record["disqualified"]
    assert not [f for f in record["faults"] if f["participant"] != 0]  # the other seats' game is normal
    assert wait_until(lambda: not processes_with(marker, arena.pid)), "bots outlived the match"
