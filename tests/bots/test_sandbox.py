"""The sandbox, attacked: each threat bot through a real `arena match` (and `arena tournament`), at the default level
and at every named level, asserting the answer arena/bots/SANDBOX.md documents for that level."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.bots.cgroups import DISABLE_ENV
from arena.bots.sandbox import MIB, NO_SANDBOX, Isolation, Limits, Sandbox, bwrap_problem, cpu_sets
from arena.bots.sandbox.watchdog import Watchdog
from arena.errors import FaultKind
from arena.games import get_game
from arena.match.play import MatchConfig, run_match
from protocol import TimeControl
from tests.helpers import processes_with, sandbox_levels, wait_until
from tests.match.conftest import ROOT, Spawned

BWRAP = bwrap_problem() is None
needs_bwrap = pytest.mark.skipif(not BWRAP, reason=f"bubblewrap: {bwrap_problem()}")
# The default level and every named one; auto is bwrap on a machine that has it.
LEVELS = sandbox_levels()
ISOLATED = {"bwrap"} | ({"auto"} if BWRAP else set())  # the levels that keep bots apart
LIMITED = {"auto", "rlimit", "bwrap"}
# Small limits make each attack hit its wall at once; a healthy random bot stays far below all of them.
LIMIT_OPTIONS = ["--memory-limit", "512", "--cpu-limit", "2", "--max-processes", "24", "--max-file-size", "8",
                 "--max-open-files", "64", "--timeout", "5", "--init-timeout", "20"]
EXCEEDS = {"memory": FaultKind.MEMORY, "fork_bomb": FaultKind.PROCESSES, "cpu_spin": FaultKind.CPU,
           "disk_fill": FaultKind.FILE_SIZE, "open_files": FaultKind.OPEN_FILES, "spread_memory": FaultKind.MEMORY,
           "daemon_spin": FaultKind.CPU}


@dataclass
class Arena:
    """One `arena match` run: its exit, its game records, and whether any bot process was left behind."""

    run: subprocess.CompletedProcess[str]
    records: list[dict] = field(default_factory=list)
    left: list[int] = field(default_factory=list)

    def faults(self, participant: int) -> list[str]:
        return [f["kind"] for r in self.records for f in r["faults"] if f["participant"] == participant]


def bot(marker: str, script: str, *args: str) -> str:
    """A bot command whose processes (forked children included) carry the marker in their command line."""
    return " ".join([sys.executable, f"-X{marker}", script, *args])


def threat(marker: str, mode: str, *args: str) -> str:
    return bot(marker, "tests/bot_programs/threat_bot.py", mode, *args)


def match(tmp_path: Path, level: str, first: str | list[str], *options: str, env: dict[str, str] | None = None,
          games: int = 2, marker: str = "") -> Arena:
    """Play the threat bot(s) against random bots at a level; wait until the bots are all gone (5 s at most)."""
    marker = marker or new_marker()
    firsts = first if isinstance(first, list) else [first]
    bots = [*firsts, *[bot(marker, "sample_bots/random_bot.py")] * max(3 - len(firsts), 1)]
    results = tmp_path / "results"
    run = subprocess.run([sys.executable, "-m", "arena", "match", "bali-2001", *bots, "--games", str(games),
                          "--seed", "3", "--sandbox", level, "--results", str(results), "-q", *LIMIT_OPTIONS,
                          *options], cwd=ROOT, capture_output=True, text=True, timeout=240,
                         env={**os.environ, **(env or {})})
    records = [json.loads(p.read_text()) for p in sorted(results.glob("matches/*/game-*.json"))]
    gone = wait_until(lambda: not processes_with(marker, -1), 5.0)
    left = [] if gone else processes_with(marker, -1)
    for pid in left:
        os.kill(pid, 9)
    return Arena(run, records, left)


def new_marker() -> str:
    return f"marker-{uuid.uuid4().hex}"


def assert_unharmed(arena: Arena, *participants: int) -> None:
    for participant in participants:
        assert arena.faults(participant) == [], arena.run.stderr
    assert not arena.left, f"bot processes left behind: {arena.left}"


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
# The quick run stops one bot over each of three limits; the other limits are slow tests.
@pytest.mark.parametrize("modes", [("memory", "fork_bomb", "open_files"),
                                   pytest.param(("cpu_spin", "disk_fill", "spread_memory"), marks=pytest.mark.slow),
                                   pytest.param(("daemon_spin",), marks=pytest.mark.slow)], ids="+".join)
def test_a_bot_over_a_limit_is_stopped_with_that_fault(modes: tuple[str, ...], level: str, tmp_path: Path) -> None:
    if level == "none" and "daemon_spin" in modes:
        pytest.skip("without limits the daemon would spin its 40 s: the daemon test covers none")
    marker = new_marker()
    # A spinning or dying bot must stay in the game until the limit stops it, however busy the machine: a long
    # timeout (the other bots answer at once). Without limits nothing stops it but its timeouts: short ones.
    timeout = "10" if level in LIMITED else "1"
    arena = match(tmp_path, level, [threat(marker, mode) for mode in modes], "--timeout", timeout, games=1,
                  marker=marker)
    assert arena.run.returncode == 0, arena.run.stderr
    assert len(arena.records) == 1
    for participant, mode in enumerate(modes):
        kinds = arena.faults(participant)
        if level in LIMITED:
            assert EXCEEDS[mode].value in kinds, (mode, kinds, arena.run.stderr)
            record = arena.records[0]
            seat = next(s["seat"] for s in record["seats"] if s["participant"] == participant)
            assert seat in record["disqualified"]
        else:
            assert EXCEEDS[mode].value not in kinds  # none sets no limits: SANDBOX.md says so
    assert_unharmed(arena, len(modes))


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_the_limits_hold_without_cgroups_too(level: str, tmp_path: Path) -> None:
    """Where no cgroup can be made, the watchdog sums memory and CPU over the bot's tree, daemons included."""
    if level == "none":
        pytest.skip("none sets no limits")
    for mode in ("spread_memory", "daemon_spin"):
        marker = new_marker()
        arena = match(tmp_path / mode, level, threat(marker, mode), "--timeout", "10", env={DISABLE_ENV: "1"},
                      games=1, marker=marker)
        assert "limits by the watchdog" in arena.run.stderr
        assert EXCEEDS[mode].value in arena.faults(0), arena.run.stderr
        assert_unharmed(arena, 1, 2)


@pytest.mark.parametrize("level", LEVELS)
def test_a_daemon_never_outlives_the_match(level: str, tmp_path: Path) -> None:
    marker = new_marker()
    arena = match(tmp_path, level, threat(marker, "daemon"), marker=marker)
    assert arena.run.returncode == 0, arena.run.stderr
    assert_unharmed(arena, 0, 1, 2)


@pytest.mark.parametrize("tmpdir", ["default", "elsewhere"])
@pytest.mark.parametrize("level", LEVELS)
def test_only_isolation_keeps_a_bot_from_answering_for_the_others(level: str, tmpdir: str, tmp_path: Path) -> None:
    env = {}
    if tmpdir == "elsewhere":  # not under /tmp, which bubblewrap always empties
        (tmp_path / "tmp").mkdir()
        env = {"TMPDIR": str(tmp_path / "tmp")}
    marker = new_marker()
    arena = match(tmp_path, level, threat(marker, "hijack"), env=env, games=1, marker=marker)
    assert arena.run.returncode == 0, arena.run.stderr
    victims = arena.faults(1) + arena.faults(2)
    if level in ISOLATED:
        assert_unharmed(arena, 1, 2)
    else:
        assert FaultKind.ILLEGAL.value in victims  # same user: SANDBOX.md says so
        assert not arena.left


@pytest.mark.parametrize("tmpdir", ["default", "elsewhere"])
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.slow
def test_only_isolation_hides_the_other_bots_homes(level: str, tmpdir: str, tmp_path: Path) -> None:
    env = {}
    if tmpdir == "elsewhere":
        (tmp_path / "tmp").mkdir()
        env = {"TMPDIR": str(tmp_path / "tmp")}
    if level == "none":
        pytest.skip("none gives no private home: the bots would write into the user's own")
    marker = new_marker()
    arena = match(tmp_path, level, [threat(marker, "peek"), threat(marker, "peek")], env=env, marker=marker)
    read = level not in ISOLATED
    for participant in (0, 1):
        assert (FaultKind.ILLEGAL.value in arena.faults(participant)) == read, arena.run.stderr
    assert_unharmed(arena, 2)


@pytest.mark.parametrize("level", LEVELS)
def test_only_isolation_keeps_a_bot_out_of_the_results(level: str, tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    secret = results / "arena.sqlite-secret"
    secret.write_text("the arena's own file")
    marker = new_marker()
    arena = match(tmp_path, level, [threat(marker, "peek", str(secret)), threat(marker, "write", str(secret))],
                  marker=marker)
    got_in = level not in ISOLATED
    assert (FaultKind.ILLEGAL.value in arena.faults(0)) == got_in, arena.run.stderr
    assert (FaultKind.ILLEGAL.value in arena.faults(1)) == got_in, arena.run.stderr
    assert ("threat_bot was here" in secret.read_text()) == got_in
    assert_unharmed(arena, 2)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.slow
def test_only_isolation_hides_the_other_entrants_folders(level: str, tmp_path: Path) -> None:
    marker = new_marker()
    for name, other in (("a", "b"), ("b", "a")):
        folder = tmp_path / "entries" / name
        folder.mkdir(parents=True)
        (folder / "secret.txt").write_text(f"the code of {name}")
        # A submission's command names only files of its folder: the bot is copied in, and told what to read.
        shutil.copy(ROOT / "tests" / "bot_programs" / "threat_bot.py", folder)
        (folder / "targets.txt").write_text(str(tmp_path / "entries" / other / "secret.txt"))
        command = [sys.executable, f"-X{marker}", "threat_bot.py", "steal"]
        (folder / "manifest.toml").write_text(f"name = {name!r}\nversion = '1'\ncommand = {command!r}\n")
    run = subprocess.run([sys.executable, "-m", "arena", "tournament", "bali-2017", "--submissions",
                          str(tmp_path / "entries"), f"random={bot(marker, 'sample_bots/random_bot.py')}",
                          # two more, so that a table fills when both thieves are kept out for what they told
                          f"random2={bot(marker, 'sample_bots/random_bot.py')}",
                          f"random3={bot(marker, 'sample_bots/random_bot.py')}",
                          "--seats", "3", "--jobs", "1", "--sandbox", level, "--results", str(tmp_path / "results"),
                          *LIMIT_OPTIONS], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    read = level not in ISOLATED
    assert told(tmp_path / "results", run.stderr) == read, run.stderr
    assert wait_until(lambda: not processes_with(marker, -1), 5.0)


def stored_faults(results: Path, kind: str) -> int:
    with sqlite3.connect(results / "arena.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM faults WHERE kind = ?", (kind,)).fetchone()[0]


def told(results: Path, stderr: str) -> bool:
    """A threat bot tells what it read by answering illegally: in its first game, which keeps it out of the
    tournament, or in a tournament's game."""
    refused = any(line.startswith("not admitted: ") and ": illegal: " in line for line in stderr.splitlines())
    return refused or stored_faults(results, "illegal") > 0


@pytest.mark.parametrize("level", LEVELS)
def test_only_isolation_keeps_a_bot_off_the_network(level: str, tmp_path: Path) -> None:
    listener = Listener()
    marker = new_marker()
    try:
        arena = match(tmp_path, level, threat(marker, "connect", str(listener.port)), games=1, marker=marker)
    finally:
        listener.server.close()
    got_through = level not in ISOLATED
    assert (listener.accepted > 0) == got_through
    assert (FaultKind.ILLEGAL.value in arena.faults(0)) == got_through
    assert_unharmed(arena, 1, 2)


@pytest.mark.parametrize("level", LEVELS)
def test_only_isolation_keeps_a_bot_from_signalling_the_arena(level: str, tmp_path: Path) -> None:
    marker = new_marker()
    arena = match(tmp_path, level, threat(marker, "signal_parent"), marker=marker)
    if level in ISOLATED:
        assert arena.run.returncode == 0, arena.run.stderr
        assert len(arena.records) == 2
    else:
        assert arena.run.returncode != 0  # the arena runs as the bot's user: SANDBOX.md says so
    assert not arena.left


@pytest.mark.parametrize("level", LEVELS)
def test_only_isolation_keeps_a_bot_from_killing_the_others(level: str, tmp_path: Path) -> None:
    marker = new_marker()
    arena = match(tmp_path, level, threat(marker, "signal_others"), games=1, marker=marker)
    assert arena.run.returncode == 0, arena.run.stderr
    if level in ISOLATED:
        assert_unharmed(arena, 1, 2)
    else:
        assert FaultKind.CRASH.value in arena.faults(1) + arena.faults(2)
        assert not arena.left


@pytest.mark.slow
def test_the_level_is_printed_stored_with_the_tournament_and_shown_with_its_leaderboard(tmp_path: Path) -> None:
    marker = new_marker()
    bots = [f"hijack={threat(marker, 'hijack')}", f"spin={threat(marker, 'daemon_spin')}",
            f"random={bot(marker, 'sample_bots/random_bot.py')}"]
    run = subprocess.run([sys.executable, "-m", "arena", "tournament", "bali-2001", *bots, "--seats", "3",
                          "--jobs", "1", "--results", str(tmp_path), *LIMIT_OPTIONS], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    level = "bwrap" if BWRAP else "rlimit"
    assert f"sandbox: {level}" in run.stderr
    board = subprocess.run([sys.executable, "-m", "arena", "leaderboard", "--results", str(tmp_path)], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
    assert f"sandbox {level}" in board.stdout
    with sqlite3.connect(tmp_path / "arena.sqlite") as db:
        config = json.loads(db.execute("SELECT config FROM tournaments").fetchone()[0])
    assert config["sandbox"]["level"] == level
    assert wait_until(lambda: not processes_with(marker, -1), 5.0)
    assert stored_faults(tmp_path, "cpu") > 0  # the daemon's CPU was charged
    if BWRAP:
        assert stored_faults(tmp_path, "illegal") == 0  # nobody answered for the others


def test_bwrap_missing_fails_before_any_game_with_exit_2(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("prlimit", "taskset", "setpriv", "sh", "unshare"):
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


def test_without_bwrap_auto_goes_on_at_rlimit_and_says_what_is_not_protected(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("prlimit", "taskset", "setpriv", "sh"):
        found = subprocess.run(["which", tool], capture_output=True, text=True).stdout.strip()
        if found:
            (bin_dir / tool).symlink_to(found)
    rand = f"{sys.executable} sample_bots/random_bot.py"
    arena = subprocess.run([sys.executable, "-m", "arena", "match", "bali-2001", rand, rand, rand, "--results",
                            str(tmp_path / "results")], cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "PATH": str(bin_dir)}, timeout=60)
    assert arena.returncode == 0, arena.stderr
    lines = arena.stderr.splitlines()
    assert any(line.startswith("sandbox: rlimit") for line in lines)
    warning = [line for line in lines if line.startswith("sandbox warning:")]
    assert len(warning) == 1 and "bubblewrap is not installed" in warning[0] and "network" in warning[0]


def test_the_environment_is_scrubbed_and_home_is_private(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "hunter2")
    env = Sandbox(Isolation.RLIMIT).environment({"ARENA_ENDPOINT": "ipc://x"}, tmp_path)
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
    random_bot = ROOT / "sample_bots" / "random_bot.py"
    from arena.bots.process import BotCommand
    rand = BotCommand((sys.executable, str(random_bot)))
    config = MatchConfig(get_game("bali-2001"), (rand, rand, rand), seed=3,
                         time=TimeControl(timeout=1.0, init=20.0), results_dir=tmp_path,
                         sandbox=Sandbox(Isolation.RLIMIT, Limits(memory=512 * MIB), cpus=(cpu,)))
    run_match(config, on_game=lambda record: seen.extend(os.sched_getaffinity(pid) for pid in spawned.pids))
    assert seen and all(cpus == {cpu} for cpus in seen)
    spawned.assert_all_gone()


class _ResetEveryRead:
    """A watched bot whose game restarts between any two looks: its CPU base reads None whatever was set."""

    def __init__(self) -> None:
        self.pid, self.endpoint, self.limits, self.limited, self.cgroup = os.getpid(), "", Limits(), True, None
        self.adopted: set[int] = set()
        self.seen: set[int] = set()
        self.cpu_peak, self.vm_peak, self.limit_hit = 0.0, 0, None

    @property
    def cpu_base(self) -> None:
        return None

    @cpu_base.setter
    def cpu_base(self, value: float | None) -> None:
        pass


def test_the_watchdog_survives_a_game_starting_while_it_looks() -> None:
    bot = _ResetEveryRead()
    Watchdog.check(bot)  # type: ignore[arg-type]
    assert bot.limit_hit is None and os.getpid() in bot.seen
