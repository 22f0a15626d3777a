"""Ctrl-C and SIGTERM end `arena match` and `arena validate` cleanly, keeping the games played; an arena stopped
by a signal turns the decision it stalled into a timeout."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import cast

import pytest

from arena.bots.sandbox.watchdog import Watchdog, Watched
from tests.helpers import processes_with, wait_until
from tests.match.conftest import ROOT

SIGNAL_BOT = ROOT / "tests" / "bot_programs" / "signal_bot.py"


def start(marker: str, *args: str) -> subprocess.Popen[str]:
    """An arena command, its output captured, in a session of its own."""
    return subprocess.Popen([sys.executable, "-m", "arena", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def end(proc: subprocess.Popen[str], marker: str) -> tuple[str, str]:
    """Wait for the arena and check that no bot outlives it."""
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
        proc.wait()
        gone = wait_until(lambda: not processes_with(marker, proc.pid))
        for pid in processes_with(marker, proc.pid):
            os.kill(pid, signal.SIGKILL)
    assert gone, "bots outlived the arena"
    return out, err


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_an_interrupted_match_keeps_and_lists_its_games_and_prints_a_partial_table(sig: signal.Signals,
                                                                                    tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    bot = f"{sys.executable} sample_bots/plain_bot.py {marker}"
    proc = start(marker, "match", "bali-2017", bot, bot, "--games", "100000", "--seed", "1", "--quiet",
                 "--results", str(tmp_path))
    assert wait_until(lambda: len(list(tmp_path.glob("matches/*/game-0002.json"))) == 1, 60), "no game finished"
    proc.send_signal(sig)
    out, err = end(proc, marker)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Aborted" not in err
    assert f"interrupted ({'signal SIGTERM' if sig == signal.SIGTERM else 'SIGINT'})" in err
    directory = next(tmp_path.glob("matches/*"))
    summary = json.loads((directory / "match.json").read_text())
    assert summary["interrupted"] is True and len(summary["records"]) >= 2
    for name in summary["records"]:
        assert (directory / name).is_file() and f"  {name}" in err  # kept, and listed
    games = len(summary["records"])
    assert f"{games} of 100000 games were played" in err
    assert "mean rank" in out and f"  {games}  " in out  # the partial table counts exactly those games


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_an_interrupted_validation_says_it_has_no_verdict_and_exits_130(tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    slow = tmp_path / "slow_bot.py"
    slow.write_text(f"# {marker}\nimport time\nfrom protocol import run_bot\n"
                    "run_bot(lambda view, options, decision: time.sleep(0.02) or 0, name='slow')\n")
    proc = start(marker, "validate", f"{sys.executable} {slow} {marker}", "--game", "bali-2001", "--games", "50",
                 "--results", str(tmp_path / "results"))
    # The bot's own process: the arena's children show the arena's command line (marker included) until they exec.
    assert wait_until(lambda: any(str(slow).encode() in _cmdline(pid) and b"validate" not in _cmdline(pid)
                                  for pid in processes_with(marker, proc.pid)), 60), "the bot did not start"
    proc.send_signal(signal.SIGTERM)
    out, err = end(proc, marker)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "no verdict" in err and "PASS" not in out


def test_a_ctrl_c_while_the_watchdog_starts_its_thread_leaves_a_watchdog_that_closes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A signal that lands in Thread.start() (which waits for the new thread) as the first bot of a match starts:
    # the match's clean-up closes the watchdog, which must not then fail on a thread it cannot join (a RuntimeError
    # that replaced the interruption: exit 1, not 130).
    def interrupted(thread: threading.Thread) -> None:
        raise KeyboardInterrupt("signal SIGTERM")

    closed, again = Watchdog(), Watchdog()
    with monkeypatch.context() as patch:
        patch.setattr(threading.Thread, "start", interrupted)
        for watchdog in (closed, again):
            with pytest.raises(KeyboardInterrupt):
                watchdog.watch(cast(Watched, object()))
    closed.close()
    again.watch(cast(Watched, object()))  # one that watches another bot starts its thread then
    assert wait_until(lambda: any(t.name == "watchdog" and t.is_alive() for t in threading.enumerate()))
    again.close()


@pytest.mark.slow
def test_a_decision_stalled_by_stopping_the_arena_is_a_timeout(tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    rand = f"{sys.executable} sample_bots/random_bot.py {marker}"
    proc = start(marker, "match", "bali-2017", f"{sys.executable} {SIGNAL_BOT} STOP {marker}", rand,
                 "--games", "1", "--seed", "1", "--timeout", "0.5", "--sandbox", "rlimit", "--quiet",
                 "--results", str(tmp_path))
    stat = Path(f"/proc/{proc.pid}/stat")
    try:
        assert wait_until(lambda: stat.read_text().rsplit(")", 1)[1].split()[0] == "T", 60), "never stopped"
        stopped = time.monotonic()
        # The stall must outlast the 0.5 s limit: the arena is stopped, not waiting for a core, so it is charged.
        while time.monotonic() - stopped < 2.0:
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    out, err = end(proc, marker)
    assert proc.returncode == 0, err
    record = json.loads(next(tmp_path.glob("matches/*/game-0001.json")).read_text())
    stalled = [f for f in record["faults"] if f["participant"] == 0]
    assert [f["kind"] for f in stalled] == ["timeout"]  # the answer came late, or not before the clock ran out
    assert not [f for f in record["faults"] if f["participant"] == 1]
    assert all(d["time"] is None or d["charged"] <= 0.5 or d.get("fault") == "timeout" for d in record["decisions"])
