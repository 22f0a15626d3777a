"""Isolation of bot processes: resource limits, a scrubbed environment, a private directory, bubblewrap.

The threat model (what each level prevents and what it does not) is in SANDBOX.md beside this file.
Everything here works without preexec_fn (unsafe in the arena, which has ZeroMQ threads): the limits and
the sandbox are wrapper commands (prlimit, taskset, bwrap) put in front of the bot's command line.
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from arena.errors import LIMIT_FAULTS, BotCrashed, ConfigError, FaultKind

MIB = 1 << 20
# Environment variables a bot keeps under rlimit and bwrap; everything else of the arena's is dropped.
PASSED_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "VIRTUAL_ENV")
_TICK = 0.1  # seconds between two looks of the watchdog
_MEMORY_NEAR = 0.9  # a bot that died with this share of its address space in use ran out of memory
# What runtimes print when a limit refuses them; stderr is the only trace the kernel leaves of some limits.
_STDERR_SIGNS = (
    (FaultKind.MEMORY, ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory",
                        "OutOfMemoryError", "heap out of memory")),
    (FaultKind.FILE_SIZE, ("File too large", "[Errno 27]")),
    (FaultKind.OPEN_FILES, ("Too many open files", "[Errno 24]")),
)


class Isolation(StrEnum):
    """How far a bot is kept from the machine."""

    NONE = "none"
    RLIMIT = "rlimit"
    BWRAP = "bwrap"


@dataclass(frozen=True)
class Limits:
    """What one bot process may use: address space and file size in bytes, CPU seconds per game, tasks, fds."""

    memory: int = 1024 * MIB
    cpu: float = 60.0
    processes: int = 64
    file_size: int = 64 * MIB
    open_files: int = 256

    def to_dict(self) -> dict[str, Any]:
        """The limits as plain data."""
        return {"memory": self.memory, "cpu": self.cpu, "processes": self.processes, "file_size": self.file_size,
                "open_files": self.open_files}


@dataclass(frozen=True)
class Sandbox:
    """The isolation level, the limits it enforces (not under none), and the CPUs the bots are pinned to."""

    level: Isolation = Isolation.RLIMIT
    limits: Limits = field(default_factory=Limits)
    cpus: tuple[int, ...] = ()  # empty: not pinned

    def to_dict(self) -> dict[str, Any]:
        """The level and limits as plain data (the pinning is not part of what defines a tournament)."""
        return {"level": self.level.value, "limits": self.limits.to_dict()}

    @property
    def limited(self) -> bool:
        """True at every level but none: the limits apply, the environment is scrubbed."""
        return self.level != Isolation.NONE

    def check(self) -> None:
        """ConfigError naming the problem if this sandbox cannot work here."""
        limits = self.limits
        if min(limits.memory, limits.processes, limits.file_size, limits.open_files) < 1 or limits.cpu <= 0:
            raise ConfigError("every limit must be positive")
        if self.limited and shutil.which("prlimit") is None:
            raise ConfigError(f"--sandbox {self.level.value} needs prlimit (Debian package util-linux)")
        if self.cpus and shutil.which("taskset") is None:
            raise ConfigError("pinning bots to CPUs needs taskset (Debian package util-linux)")
        if self.level == Isolation.BWRAP:
            problem = bwrap_problem()
            if problem is not None:
                raise ConfigError(f"--sandbox bwrap cannot be used: {problem}")

    def command(self, argv: tuple[str, ...], cwd: str | None, private: Path, hidden: tuple[str, ...],
                games: int = 1) -> list[str]:
        """The command line that runs argv in this sandbox for up to `games` games; private is the bot's own
        directory (socket, home), hidden the directories of the other bots, which bwrap masks."""
        prefix: list[str] = []
        if self.cpus:
            prefix += ["taskset", "--cpu-list", ",".join(map(str, self.cpus))]
        if self.limited:
            prefix += _prlimit(self.limits, games)
        if self.level == Isolation.BWRAP:
            prefix += _bwrap(Path(cwd or os.getcwd()).resolve(), private, hidden, argv)
        return [*prefix, *argv]

    def environment(self, endpoint_env: dict[str, str], private: Path) -> dict[str, str]:
        """The bot's environment: the arena's under none, else only PASSED_ENV, a private HOME and TMPDIR."""
        if not self.limited:
            return {**os.environ, **endpoint_env}
        home = str(private / "home")
        kept = {k: v for k, v in os.environ.items() if k in PASSED_ENV}
        return {**kept, "HOME": home, "TMPDIR": home, **endpoint_env}


NO_SANDBOX = Sandbox(Isolation.NONE)


def _prlimit(limits: Limits, games: int) -> list[str]:
    # CPU: the kernel's limit is a backstop over the process's life (the watchdog enforces the limit per game),
    # soft below hard so that the bot first gets SIGXCPU, which tells the cause.
    cpu = max(1, math.ceil(limits.cpu * games))
    return ["prlimit", f"--as={limits.memory}", f"--fsize={limits.file_size}", f"--nofile={limits.open_files}",
            f"--cpu={cpu}:{cpu + 1}", "--core=0", "--"]


def _bwrap(cwd: Path, private: Path, hidden: tuple[str, ...], argv: tuple[str, ...]) -> list[str]:
    args = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            "--tmpfs", "/dev/shm"]
    for path in _needed_in_tmp(cwd, argv):
        args += ["--ro-bind", str(path), str(path)]
    for folder in hidden:
        resolved = Path(folder).resolve()
        # A directory that holds the bot's own cannot be masked: the bot would lose its own too.
        if not cwd.is_relative_to(resolved) and resolved.is_dir():
            args += ["--tmpfs", str(resolved)]
    args += ["--bind", str(private), str(private), "--chdir", str(cwd), "--unshare-net", "--unshare-pid",
             "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--"]
    return args


def _needed_in_tmp(cwd: Path, argv: tuple[str, ...]) -> list[Path]:
    """What a bot needs that lies under /tmp, which bwrap empties: its folder, absolute paths in its command,
    and where this Python and the arena's own packages live (a virtual environment, an editable install)."""
    candidates = [cwd, Path(sys.prefix), Path(sys.base_prefix), Path(__file__).resolve().parents[1]]
    candidates += [Path(p) for p in sys.path if p]
    candidates += [Path(a) for a in argv if a.startswith("/")]
    tmp = Path("/tmp").resolve()
    found = sorted({c.resolve() for c in candidates if c.resolve().is_relative_to(tmp) and c.exists()
                    and c.resolve() != tmp})
    # A path inside another one already bound needs no binding of its own.
    return [p for p in found if not any(p != q and p.is_relative_to(q) for q in found)]


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot run a sandbox here, or None if it can."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    probe = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid",
             "--die-with-parent", "--", "true"]
    try:
        run = subprocess.run(probe, capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap does not run: {exc}"
    if run.returncode != 0:
        why = run.stderr.decode(errors="replace").strip() or f"status {run.returncode}"
        return f"bwrap cannot create a sandbox here ({why}); it needs unprivileged user namespaces or root"
    return None


@dataclass(frozen=True)
class Task:
    """One process as /proc shows it: parent, session, threads, CPU ticks (its own and its reaped children's),
    and address space in bytes."""

    pid: int
    ppid: int
    sid: int
    threads: int
    ticks: int
    vsize: int


_HZ = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def read_task(pid: int) -> Task | None:
    """One running process from /proc; None if it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == b"Z":
        return None
    return Task(pid, int(fields[1]), int(fields[3]), int(fields[17]), sum(int(f) for f in fields[11:15]),
                int(fields[20]))


def read_tasks() -> dict[int, Task]:
    """Every process now running, from /proc (empty where there is no /proc)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    tasks = (read_task(int(name)) for name in entries if name.isdigit())
    return {t.pid: t for t in tasks if t is not None}


def _children(pid: int) -> list[int] | None:
    """The children of a process from /proc (None where the kernel does not list them)."""
    found: list[int] = []
    try:
        for thread in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{thread}/children", "rb") as children:
                found.extend(int(c) for c in children.read().split())
    except FileNotFoundError:
        return None if os.path.isdir(f"/proc/{pid}") else []
    except OSError:
        return []
    return found


def tree(root: int) -> list[Task]:
    """A bot's processes: its first process and all its descendants. Walking down from the root costs a few
    reads per process of the bot, where a scan of /proc costs one per process of the machine."""
    found: list[Task] = []
    todo = [root]
    while todo:
        task = read_task(todo.pop())
        if task is None:
            continue
        found.append(task)
        children = _children(task.pid)
        if children is None:
            return members(root, read_tasks())  # no children lists here: scan everything
        todo.extend(children)
    return found


def members(root: int, tasks: dict[int, Task]) -> list[Task]:
    """The processes of a bot: its session and all descendants of its first process (even in a new session)."""
    found = {pid for pid, t in tasks.items() if t.sid == root or pid == root}
    grew = True
    while grew:
        more = {pid for pid, t in tasks.items() if t.ppid in found and pid not in found}
        found |= more
        grew = bool(more)
    return [tasks[pid] for pid in found]


class Watched(Protocol):
    """What the watchdog needs of a bot process."""

    pid: int
    limits: Limits
    cpu_base: float | None  # CPU seconds used when the current game began (None: not yet measured)
    vm_peak: int
    limit_hit: FaultKind | None


class Watchdog:
    """Looks at a match's bots every 100 ms and stops any that uses more tasks, or more CPU in a game, than it may.

    The kernel's rlimits stop the rest (memory, file size, open files); they have no per-bot count of tasks
    (RLIMIT_NPROC counts a whole user) and no per-game CPU clock.
    """

    def __init__(self) -> None:
        self._bots: list[Watched] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, bot: Watched) -> None:
        """Start watching bot (and the watchdog, on the first)."""
        with self._lock:
            self._bots.append(bot)
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
            self._thread.start()

    def forget(self, bot: Watched) -> None:
        """Stop watching bot (it is being killed anyway)."""
        with self._lock:
            if bot in self._bots:
                self._bots.remove(bot)

    def close(self) -> None:
        """Stop the watchdog's thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(_TICK):
            with self._lock:
                bots = list(self._bots)
            for bot in bots:
                self.check(bot)

    @staticmethod
    def check(bot: Watched) -> None:
        """Stop bot if its processes go over a limit; note its address space for the verdict on its death."""
        group = tree(bot.pid)
        if not group or bot.limit_hit is not None:
            return
        bot.vm_peak = max(bot.vm_peak, max(t.vsize for t in group))
        cpu = sum(t.ticks for t in group) / _HZ
        if bot.cpu_base is None:
            bot.cpu_base = cpu
        if sum(t.threads for t in group) > bot.limits.processes:
            stop(bot, FaultKind.PROCESSES, group)
        elif cpu - bot.cpu_base > bot.limits.cpu:
            stop(bot, FaultKind.CPU, group)


def stop(bot: Watched, kind: FaultKind, group: list[Task]) -> None:
    """Kill every process of bot for going over a limit of the given kind."""
    bot.limit_hit = kind
    for task in group:
        try:
            os.kill(task.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # gone already


def kill_members(root: int) -> None:
    """SIGKILL every process of the bot that started as root, including those that left its process group."""
    for task in members(root, read_tasks()):
        try:
            os.kill(task.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def verdict(bot: Watched, returncode: int, stderr: str) -> FaultKind | None:
    """The limit a dead bot went over, from what the watchdog saw, its exit signal and its last words."""
    if bot.limit_hit is not None:
        return bot.limit_hit
    if returncode == -signal.SIGXCPU:
        return FaultKind.CPU
    if returncode == -signal.SIGXFSZ:
        return FaultKind.FILE_SIZE
    for kind, signs in _STDERR_SIGNS:
        if any(sign in stderr for sign in signs):
            return kind
    if bot.vm_peak >= _MEMORY_NEAR * bot.limits.memory:
        return FaultKind.MEMORY
    return None


def limit_fault(kind: FaultKind, detail: str, limits: Limits) -> BotCrashed:
    """The fault of a bot stopped for going over the limit of the given kind."""
    what = {FaultKind.MEMORY: f"its address space of {limits.memory // MIB} MiB",
            FaultKind.CPU: f"{limits.cpu:g} CPU seconds in a game",
            FaultKind.PROCESSES: f"{limits.processes} processes and threads",
            FaultKind.FILE_SIZE: f"files of {limits.file_size // MIB} MiB",
            FaultKind.OPEN_FILES: f"{limits.open_files} open files"}[kind]
    return LIMIT_FAULTS[kind](f"the bot went over its limit of {what} and was stopped ({detail})")


def cpu_sets(jobs: int) -> list[tuple[int, ...]]:
    """Disjoint CPU sets, one per concurrent match, when there are at least as many CPUs as jobs (else none)."""
    try:
        available = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []
    if jobs < 2 or len(available) < jobs:
        return []
    share = len(available) // jobs
    return [tuple(available[i * share:(i + 1) * share]) for i in range(jobs)]
