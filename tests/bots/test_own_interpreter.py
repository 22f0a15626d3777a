"""Bots and builds find the arena's own interpreter first on their PATH, at every sandbox level, whatever PATH the
arena was started with: under a service manager's PATH (only the system's folders, whose Python has neither pyzmq
nor msgpack), a bot started as `python3 ...` still runs with the arena's Python."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.sandbox import Isolation, Sandbox
from arena.bots.sandbox.paths import tool_path
from arena.match.record import load_record
from tests.helpers import ROOT

SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
OWN = os.path.dirname(sys.executable)
LEVELS = [Isolation.NONE, Isolation.RLIMIT, Isolation.BWRAP]


def test_the_bots_path_puts_the_arenas_interpreter_first_once(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", SYSTEMD_PATH)
    assert tool_path() == f"{OWN}:{SYSTEMD_PATH}"
    assert tool_path(f"/usr/bin:{OWN}:/bin") == f"{OWN}:/usr/bin:/bin"
    for level in LEVELS:
        sandbox = Sandbox(level)
        assert sandbox.environment({}, tmp_path)["PATH"] == f"{OWN}:{SYSTEMD_PATH}"
        assert sandbox.build_environment(tmp_path)["PATH"] == f"{OWN}:{SYSTEMD_PATH}"


@pytest.mark.slow
@pytest.mark.parametrize("level", [level.value for level in LEVELS])
def test_a_python3_bot_runs_with_the_arenas_packages_under_a_service_managers_path(level: str,
                                                                                     tmp_path: Path) -> None:
    if level == "bwrap" and Sandbox(Isolation.BWRAP).resolved().level != Isolation.BWRAP:
        pytest.skip("bubblewrap cannot run here")
    bot = "python3 -m sample_bots.random_bot"  # the system's python3 has no pyzmq nor msgpack
    done = subprocess.run([f"{OWN}/arena", "match", "bali-2017", bot, bot, "--games", "1", "--sandbox", level,
                           "--results", str(tmp_path / "results")], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={"PATH": SYSTEMD_PATH, "HOME": str(tmp_path), "LANG": "C.UTF-8"})
    assert done.returncode == 0, done.stderr
    [path] = (tmp_path / "results" / "matches").glob("*/game-0001.json")
    record = load_record(path)
    assert not record.faults and record.disqualified == (), [f.message() for f in record.faults]
