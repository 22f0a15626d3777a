"""The watchdog: what it needs of a bot, the bot's processes and their CPU time, the thread that stops a bot over a
limit, the orphans it adopts and reaps, and the verdict on a dead bot (which limit killed it)."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Protocol

from arena.bots.cgroups import BotCgroup
from arena.bots.sandbox.limits import Limits
from arena.bots.sandbox.proctree import HZ, Task, become_subreaper, child_pids, disk_full, environ_has, tree
from arena.errors import FaultKind

_TICK = 0.1  # seconds between two looks of the watchdog
_REAP_WAIT = 2.0  # seconds to wait for killed orphans to die before leaving them for a later look
_MEMORY_NEAR = 0.9  # a bot that died with this share of its address space in use ran out of memory
# What runtimes print when a limit refuses them; stderr is the only trace the kernel leaves of some limits.
_STDERR_SIGNS = (
    (FaultKind.MEMORY, ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory",
                        "OutOfMemoryError", "heap out of memory")),
    (FaultKind.FILE_SIZE, ("File too large", "[Errno 27]")),
    (FaultKind.OPEN_FILES, ("Too many open files", "[Errno 24]")),
    (FaultKind.DISK, ("No space left on device", "[Errno 28]", "ENOSPC")),
)


class Watched(Protocol):
    """What the watchdog needs of a bot process."""

    pid: int
    endpoint: str
    limits: Limits
    limited: bool
    cgroup: BotCgroup | None
    adopted: set[int]  # orphans the bot left that the arena inherited
    seen: set[int]  # every process seen as part of the bot
    cpu_base: float | None  # CPU seconds used when the current game began (None: not yet measured)
    cpu_peak: float
    vm_peak: int
    limit_hit: FaultKind | None


def processes(bot: Watched) -> list[Task]:
    """Every live process of the bot: its tree, its cgroup, and the orphans it left to the arena (with theirs)."""
    roots = {bot.pid, *bot.adopted, *(bot.cgroup.pids() if bot.cgroup else ())}
    found: dict[int, Task] = {}
    for root in roots:
        if root not in found:
            found.update((t.pid, t) for t in tree(root))
    return list(found.values())


def tree_cpu(bot: Watched) -> float | None:
    """CPU seconds the bot's live processes (and the children they reaped) have used, from /proc; None if none
    is found."""
    group = processes(bot)
    return sum(t.ticks for t in group) / HZ if group else None


class Watchdog:
    """Looks at a match's bots every 100 ms: adopts the orphans they leave, and stops any that uses more memory,
    tasks, or CPU in a game, than it may (summed over all its processes: from its cgroup where there is one).

    The kernel's rlimits stop the rest (address space, file size and open files per process).
    """

    def __init__(self) -> None:
        self._bots: list[Watched] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        become_subreaper()

    def watch(self, bot: Watched) -> None:
        """Start watching bot (and the watchdog, on the first)."""
        with self._lock:
            self._bots.append(bot)
        if self._thread is None:
            # Kept only once started: a Ctrl-C inside start() must not leave close() a thread it cannot join.
            thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
            thread.start()
            self._thread = thread

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
            adopt(bots)
            for bot in bots:
                self.check(bot)

    @staticmethod
    def check(bot: Watched) -> None:
        """Stop bot if its processes go over a limit; note its address space for the verdict on its death."""
        reap(bot, block=False)
        group = processes(bot)
        bot.seen.update(t.pid for t in group)
        if not group or bot.limit_hit is not None or not bot.limited:
            return
        limits, cgroup = bot.limits, bot.cgroup
        bot.vm_peak = max(bot.vm_peak, max(t.vsize for t in group))
        counted = cgroup.counts if cgroup else frozenset()
        cpu = cgroup.cpu_seconds() if "cpu" in counted else None
        bot.cpu_peak = max(bot.cpu_peak, cpu if cpu is not None else sum(t.ticks for t in group) / HZ)
        # Read once: a new game (another thread) may reset the base to None at any moment.
        base = bot.cpu_base
        if base is None:
            base = bot.cpu_base = bot.cpu_peak
        if cgroup is not None and cgroup.out_of_memory():
            stop(bot, FaultKind.MEMORY, group)
        elif "memory" not in counted and sum(t.rss for t in group) > limits.memory:
            stop(bot, FaultKind.MEMORY, group)
        elif cgroup is not None and cgroup.refused_tasks():
            stop(bot, FaultKind.PROCESSES, group)
        elif "pids" not in counted and sum(t.threads for t in group) > limits.processes:
            stop(bot, FaultKind.PROCESSES, group)
        elif bot.cpu_peak - base > limits.cpu:
            stop(bot, FaultKind.CPU, group)
        elif disk_full(group):
            stop(bot, FaultKind.DISK, group)


def adopt(bots: list[Watched]) -> None:
    """Give each orphan the arena inherited to the bot it came from: one seen in the bot's tree before, or one
    whose environment names the bot's endpoint."""
    roots = {bot.pid for bot in bots}
    known = set().union(*(bot.adopted for bot in bots)) if bots else set()
    for pid in set(child_pids(os.getpid()) or ()) - roots - known:
        for bot in bots:
            if pid in bot.seen or environ_has(pid, f"ARENA_ENDPOINT={bot.endpoint}".encode()):
                bot.adopted.add(pid)
                break


def stop(bot: Watched, kind: FaultKind, group: list[Task]) -> None:
    """Kill every process of bot for going over a limit of the given kind."""
    bot.limit_hit = kind
    kill_all(bot, group)


def kill_all(bot: Watched, group: list[Task] | None = None) -> list[int]:
    """SIGKILL every process of the bot (its cgroup, its tree, its adopted orphans); their pids."""
    group = processes(bot) if group is None else group
    if bot.cgroup is not None:
        bot.cgroup.kill()
    for task in group:
        try:
            os.kill(task.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # gone already
    return [t.pid for t in group]


def reap(bot: Watched, block: bool = True) -> None:
    """Collect the exit status of the bot's orphans the arena inherited, else they stay zombies; block: they were
    just killed, wait a moment for each."""
    reap_pids(bot.adopted, _REAP_WAIT if block else 0.0)


def reap_pids(pids: set[int], patience: float) -> None:
    """Reap those of pids that are (or become within patience seconds) dead children of the arena; the others
    are left out of pids."""
    deadline = time.monotonic() + patience
    while pids:
        for pid in list(pids):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid  # not the arena's child, or reaped already
            if done:
                pids.discard(pid)
        if not pids or time.monotonic() >= deadline:
            return
        time.sleep(0.005)


def verdict(bot: Watched, returncode: int, stderr: str) -> FaultKind | None:
    """The limit a dead bot went over, from what the watchdog saw, its cgroup, its exit signal and last words."""
    if bot.limit_hit is not None:
        return bot.limit_hit
    if bot.cgroup is not None and bot.cgroup.out_of_memory():
        return FaultKind.MEMORY
    if bot.cgroup is not None and bot.cgroup.refused_tasks():
        return FaultKind.PROCESSES
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
