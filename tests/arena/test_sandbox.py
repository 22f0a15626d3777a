"""The sandbox: each threat bot under rlimit and bwrap, through real bot processes and the arena's commands."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.bots import BotCommand
from arena.errors import FaultKind
from arena.games import get_game
from arena.match import MatchConfig, MatchResult, run_match
from arena.sandbox import (MIB, NO_SANDBOX, Isolation, Limits, Sandbox, bwrap_problem, cpu_sets, members,
                           read_tasks)
from protocol import TimeControl
from tests.arena.conftest import RANDOM, ROOT, Spawned, play, sample_bot
from tests.helpers import wait_until

# Small limits make each attack hit its wall at once; a healthy random bot stays far below all of them.
LIMITS = Limits(memory=512 * MIB, cpu=2.0, processes=24, file_size=8 * MIB, open_files=64)
CLOCK = TimeControl(timeout=1.0, init=20.0)
LEVELS = [Isolation.RLIMIT,
          pytest.param(Isolation.BWRAP, marks=pytest.mark.skipif(bwrap_problem() is not None,
                                                                 reason=f"bubblewrap: {bwrap_problem()}"))]
EXCEEDS = {"memory": FaultKind.MEMORY, "fork_bomb": FaultKind.PROCESSES, "cpu_spin": FaultKind.CPU,
           "disk_fill": FaultKind.FILE_SIZE, "open_files": FaultKind.OPEN_FILES}


def threat(mode: str, *args: str):
    return sample_bot("threat_bot", mode, *args)


def faults_of(result: MatchResult, participant: int) -> list[FaultKind]:
    return [f.kind for r in result.records for f in r.faults if f.participant == participant]


def group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def nothing_left(spawned: Spawned) -> None:
    """No process of any bot is left: not in its group, not in its session, not among its descendants."""
    tasks = read_tasks()
    for pid in spawned.pids:
        assert not members(pid, tasks), f"processes of bot {pid} are still running"
    # Killed processes of a PID namespace are reaped by the machine's init, a moment later.
    assert wait_until(lambda: not any(group_exists(pgid) for pgid in spawned.pids))
    spawned.assert_all_gone()


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("mode", sorted(EXCEEDS))
def test_a_bot_over_a_limit_is_stopped_with_that_fault(mode: str, level: Isolation, tmp_path: Path,
                                                       spawned: Spawned) -> None:
    # A spinning bot times out first; it must stay in the game until its CPU time runs out, however busy the machine.
    result = play(tmp_path, "bali-2001", [threat(mode), RANDOM, RANDOM], games=2, seed=3, time=CLOCK,
                  sandbox=Sandbox(level, LIMITS), max_faults=100)
    assert len(result.records) == 2
    assert EXCEEDS[mode] in faults_of(result, 0)
    for record in result.records:
        if any(f.participant == 0 for f in record.faults):
            assert next(s.seat for s in record.seats if s.participant == 0) in record.disqualified
    assert faults_of(result, 1) == faults_of(result, 2) == []
    nothing_left(spawned)


def test_without_a_sandbox_the_limits_do_not_apply(tmp_path: Path, spawned: Spawned) -> None:
    result = play(tmp_path, "bali-2001", [threat("open_files"), RANDOM, RANDOM], seed=3, time=CLOCK,
                  sandbox=NO_SANDBOX)
    assert FaultKind.OPEN_FILES not in faults_of(result, 0)
    nothing_left(spawned)


class Listener:
    """A tcp port on 127.0.0.1 that counts the connections that reach it."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()


@pytest.mark.parametrize("level", LEVELS)
def test_only_bwrap_keeps_a_bot_off_the_network(level: Isolation, tmp_path: Path, spawned: Spawned) -> None:
    listener = Listener()
    try:
        result = play(tmp_path, "bali-2001", [threat("connect", str(listener.port)), RANDOM, RANDOM], seed=3,
                      time=CLOCK, sandbox=Sandbox(level, LIMITS))
    finally:
        listener.server.close()
    got_through = level != Isolation.BWRAP  # rlimit does not isolate the network: SANDBOX.md says so
    assert (listener.accepted > 0) == got_through
    assert (FaultKind.ILLEGAL in faults_of(result, 0)) == got_through
    assert faults_of(result, 1) == faults_of(result, 2) == []
    nothing_left(spawned)


@pytest.mark.parametrize("level", LEVELS)
def test_only_bwrap_hides_the_other_bots_directories(level: Isolation, tmp_path: Path, spawned: Spawned) -> None:
    result = play(tmp_path, "bali-2001", [threat("peek"), threat("peek"), RANDOM], games=3, seed=3, time=CLOCK,
                  sandbox=Sandbox(level, LIMITS))
    read = level != Isolation.BWRAP  # under rlimit every bot runs as the same user
    for participant in (0, 1):
        assert (FaultKind.ILLEGAL in faults_of(result, participant)) == read
    assert faults_of(result, 2) == []
    nothing_left(spawned)


@pytest.mark.parametrize("level", LEVELS)
def test_only_bwrap_hides_the_other_entrants_folders(level: Isolation, tmp_path: Path, spawned: Spawned) -> None:
    folders = [tmp_path / "a", tmp_path / "b"]
    for folder in folders:
        folder.mkdir()
        (folder / "secret.txt").write_text(f"the code of {folder.name}")
    script = str(ROOT / "sample_bots" / "threat_bot.py")
    a = BotCommand((sys.executable, script, "peek", str(folders[1] / "secret.txt")), cwd=str(folders[0]))
    b = BotCommand((sys.executable, script, "peek", str(folders[0] / "secret.txt")), cwd=str(folders[1]))
    result = play(tmp_path / "results", "bali-2001", [a, b, RANDOM], seed=3, time=CLOCK,
                  sandbox=Sandbox(level, LIMITS))
    read = level != Isolation.BWRAP
    for participant in (0, 1):
        assert (FaultKind.ILLEGAL in faults_of(result, participant)) == read
    nothing_left(spawned)


@pytest.mark.parametrize("level", LEVELS)
def test_only_bwrap_keeps_a_bot_from_signalling_the_arena(level: Isolation, tmp_path: Path) -> None:
    bot = f"{sys.executable} sample_bots/threat_bot.py signal_parent"
    rand = f"{sys.executable} sample_bots/random_bot.py"
    arena = subprocess.run([sys.executable, "-m", "arena", "match", "bali-2001", bot, rand, rand, "--games", "2",
                            "--seed", "1", "--sandbox", level.value, "--results", str(tmp_path), "--quiet"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    if level == Isolation.BWRAP:
        assert arena.returncode == 0, arena.stderr
        assert len(list(tmp_path.glob("matches/*/game-*.json"))) == 2
    else:
        assert arena.returncode != 0  # the arena runs as the bot's user: rlimit cannot stop the signal


def test_bwrap_missing_fails_before_any_game_with_exit_2(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("prlimit", "taskset"):
        found = subprocess.run(["which", tool], capture_output=True, text=True).stdout.strip()
        if found:
            (bin_dir / tool).symlink_to(found)
    rand = f"{sys.executable} sample_bots/random_bot.py"
    arena = subprocess.run([sys.executable, "-m", "arena", "match", "bali-2001", rand, rand, rand, "--sandbox", "bwrap",
                            "--results", str(tmp_path / "results")], cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "PATH": str(bin_dir)}, timeout=60)
    assert arena.returncode == 2
    assert "bubblewrap is not installed" in arena.stderr and "apt-get install bubblewrap" in arena.stderr
    assert "Traceback" not in arena.stderr
    assert not (tmp_path / "results" / "matches").exists()


def test_the_environment_is_scrubbed_and_home_is_private(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "hunter2")
    env = Sandbox().environment({"ARENA_ENDPOINT": "ipc://x"}, tmp_path)
    assert "ARENA_TEST_SECRET" not in env
    assert env["HOME"] == env["TMPDIR"] == str(tmp_path / "home")
    assert env["ARENA_ENDPOINT"] == "ipc://x" and env["PATH"] == os.environ["PATH"]
    assert NO_SANDBOX.environment({}, tmp_path)["ARENA_TEST_SECRET"] == "hunter2"


def test_cpu_sets_are_disjoint_and_only_when_there_are_enough_cpus() -> None:
    available = sorted(os.sched_getaffinity(0))
    assert cpu_sets(1) == []
    assert cpu_sets(len(available) + 1) == []
    if len(available) >= 2:
        sets = cpu_sets(2)
        assert len(sets) == 2 and sets[0] and sets[1] and not set(sets[0]) & set(sets[1])
        assert set(sets[0]) | set(sets[1]) <= set(available)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="pinning needs two CPUs")
def test_bots_run_on_the_cpus_of_their_match(tmp_path: Path, spawned: Spawned) -> None:
    cpu = max(os.sched_getaffinity(0))
    seen: list[set[int]] = []
    config = MatchConfig(get_game("bali-2001"), (RANDOM, RANDOM, RANDOM), seed=3, time=CLOCK, results_dir=tmp_path,
                         sandbox=Sandbox(Isolation.RLIMIT, LIMITS, cpus=(cpu,)))
    run_match(config, on_game=lambda record: seen.extend(os.sched_getaffinity(pid) for pid in spawned.pids))
    assert seen and all(cpus == {cpu} for cpus in seen)
    nothing_left(spawned)
