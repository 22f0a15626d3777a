"""The time a decision is charged: the wall time it took, less the time the bot waited for a core, as on a machine
of its own. Sleeping, blocking and thinking all count; waiting behind other processes does not.

Linux counts, per thread, the nanoseconds it spent runnable but not running (the second field of
/proc/PID/task/TID/schedstat; it grows once the thread gets a core again). The meter reads it for every thread of
the bot at the start and the end of a decision, through files it keeps open, and at every look while the bot
decides (a thread born during the decision counts from zero; one that ends keeps the wait it had at the last look
before it ended, and loses the rest, which only charges the bot more). The task list is listed afresh only when it
may have changed: where the bot's cgroup counts its tasks, a look whose count is the number of tasks the meter
knows, all of which it could still read (a kept-open file of a task that ended reads nothing, even if its number
is taken again), has the same tasks, and costs one read per task and one for the count.

Several threads: their waits are added up. A decision passes from thread to thread (the thread of the bot's
messaging library wakes on the request and wakes the one that thinks, which wakes it again to send the answer),
and each waits for a core in turn; the longest wait of one thread alone would charge every bot on a busy machine
the waits of its other threads. Threads that wait at the same time are credited more than the wall time they
lost, so the charge never falls below the bot's CPU time shared over the cores it may use: what it would take on
a machine of its own with as many cores, computing on all of them. A bot that crowds its own threads (more
runnable threads than cores) waits for itself, and that floor charges it for it. The arena's own lateness is not
the bot's either: the waits of the arena's messaging threads (which carry the request to the bot and the reply
back) and of the arena's thread that wakes for the reply (`own_wait`).

cgroup v2's `cpu.pressure` (`some`: the time at least one task of the cgroup waited) is not used: it needs a v2
cgroup per bot, which a root machine with cgroup v1 does not give, where schedstat needs no cgroup at all. Where
schedstat cannot be read, every decision is charged its wall time (`wait_accounting` says so once).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Callable, Iterable

_OWN = "/proc/thread-self/schedstat"
_CARRIERS = b"ZMQbg/IO/"  # the names of the messaging library's threads that carry every request and reply


@dataclass(frozen=True)
class Timing:
    """One decision's figures, in seconds: what it was charged, how long the arena waited for it on the wall clock,
    and the part of that time it was not charged (waiting for a core; None: not measured, the wall time is
    charged)."""

    charged: float
    wall: float
    wait: float | None

    def describe(self) -> str:
        """'charged 0.41 s: wall 1.2 s less 0.790 s waiting for a core', as fault lines say it."""
        if self.wait is None:
            return f"charged {self.charged:.3g} s: the wall time"
        return f"charged {self.charged:.3g} s: wall {self.wall:.3g} s less {self.wait:.3f} s waiting for a core"


def wall_timing(wall: float) -> Timing:
    """The figures of a decision timed by the wall clock alone."""
    return Timing(wall, wall, None)


def _schedstat(text: bytes) -> tuple[int, int]:
    """(nanoseconds on a core, nanoseconds runnable waiting for one) from a schedstat line."""
    run, wait, _ = text.split(maxsplit=2)
    return int(run), int(wait)


def own_wait() -> int | None:
    """Nanoseconds the calling thread has waited for a core so far; None where this cannot be read."""
    try:
        with open(_OWN, "rb") as stat:
            return _schedstat(stat.read())[1]
    except (OSError, ValueError):
        return None


class _Carriers:
    """The arena's own messaging threads, read through kept-open schedstat files (the list refreshed each look)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: dict[int, int | None] = {}  # tid -> fd of its schedstat (None: not a carrier)

    def waited(self) -> int:
        """Nanoseconds the carriers have waited for a core so far (0 where they cannot be read)."""
        total = 0
        with self._lock:
            try:
                tids = {int(name) for name in os.listdir("/proc/self/task")}
            except OSError:
                return 0
            for tid in set(self._files) - tids:
                fd = self._files.pop(tid)
                if fd is not None:
                    os.close(fd)
            for tid in tids:
                if tid not in self._files:
                    self._files[tid] = _carrier(tid)
                fd = self._files[tid]
                try:
                    total += _schedstat(os.pread(fd, 128, 0))[1] if fd is not None else 0
                except (OSError, ValueError):
                    continue
        return total


def _carrier(tid: int) -> int | None:
    """An open schedstat file of the arena's thread tid if it is a messaging thread, else None."""
    try:
        with open(f"/proc/self/task/{tid}/comm", "rb") as comm:
            if not comm.read().startswith(_CARRIERS):
                return None
        return os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY)
    except OSError:
        return None


_carriers = _Carriers()


def wait_accounting() -> str | None:
    """How the arena measures a bot's waiting for a core here, in a few words; None where it cannot (every decision
    is then charged its wall time)."""
    return "its threads' run-queue wait (/proc schedstat)" if own_wait() is not None else None


class WaitMeter:
    """Reads the run-queue wait of every thread of one bot, through kept-open schedstat files."""

    def __init__(self, pids: Callable[[], Iterable[int]], cpu: Callable[[], float | None], cores: int,
                 tasks: Callable[[], int | None] = lambda: None) -> None:
        """pids: the bot's processes now; cpu: the CPU seconds they have used so far (None: unknown); cores: how
        many cores the bot may use; tasks: how many tasks (processes and threads) the bot has now, counted by its
        cgroup (None: not counted, the task list is then listed at every look)."""
        self._pids = pids
        self.cpu = cpu
        self.cores = max(1, cores)
        self._tasks = tasks
        self._files: dict[tuple[int, int], int] = {}  # (pid, tid) -> fd of its schedstat

    def look(self) -> dict[tuple[int, int], tuple[int, int]] | None:
        """(pid, tid) -> (nanoseconds run, nanoseconds waited) so far, for every live thread of the bot; None if
        none can be read."""
        known = self._known()
        return known if known is not None else self._list()

    def _known(self) -> dict[tuple[int, int], tuple[int, int]] | None:
        """The look through the kept-open files alone, if the bot's tasks are still the ones they were; None if
        they may not be (the count differs or is unknown, or a task ended)."""
        count = self._tasks()
        if not self._files or count != len(self._files):
            return None
        seen: dict[tuple[int, int], tuple[int, int]] = {}
        for key, fd in self._files.items():
            try:
                seen[key] = _schedstat(os.pread(fd, 128, 0))
            except (OSError, ValueError):
                return None
        return seen

    def _list(self) -> dict[tuple[int, int], tuple[int, int]] | None:
        """The look at the bot's tasks listed afresh, their files opened or closed to match."""
        seen: dict[tuple[int, int], tuple[int, int]] = {}
        live: set[tuple[int, int]] = set()
        for pid in set(self._pids()):
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue  # gone: its threads are dropped below
            for name in tids:
                key = (pid, int(name))
                stat = self._read(key)
                if stat is not None:
                    live.add(key)
                    seen[key] = stat
        for key in set(self._files) - live:
            os.close(self._files.pop(key))
        return seen or None

    def _read(self, key: tuple[int, int]) -> tuple[int, int] | None:
        fd = self._files.get(key)
        if fd is not None:
            try:
                return _schedstat(os.pread(fd, 128, 0))
            except (OSError, ValueError):
                os.close(self._files.pop(key))  # the task ended: its number may be a new task's now
        try:
            fd = self._files[key] = os.open(f"/proc/{key[0]}/task/{key[1]}/schedstat", os.O_RDONLY)
            return _schedstat(os.pread(fd, 128, 0))
        except (OSError, ValueError):
            return None

    def start(self) -> "Span | None":
        """Start metering a decision; None where the bot's threads cannot be read (it is then charged its wall
        time)."""
        base = self.look()
        return None if base is None else Span(self, base, self.cpu())

    def close(self) -> None:
        """Close the kept-open files."""
        for fd in self._files.values():
            os.close(fd)
        self._files.clear()


class Span:
    """One decision being metered, from start() on."""

    def __init__(self, meter: WaitMeter, base: dict[tuple[int, int], tuple[int, int]], cpu: float | None) -> None:
        self._meter = meter
        self._base = base
        self._cpu = cpu
        self._carried = _carriers.waited()  # ns the arena's messaging threads had waited when the decision began
        self._last = base  # the last look
        self._before = base  # the look before it
        # (pid, tid) -> ns it waited since the start, at the last look (kept once the thread ends)
        self._waits: dict[tuple[int, int], int] = {}

    def timing(self, wall: float, late: float = 0.0) -> Timing:
        """The figures of the decision after `wall` seconds, of which the arena itself was late `late` seconds
        (its thread waited for a core after the reply came) besides its messaging threads' waits."""
        now = self._meter.look()
        if now is not None:
            self._waits.update((key, wait - self._base.get(key, (0, 0))[1]) for key, (_, wait) in now.items())
            self._before, self._last = self._last, now
        late = max(late, 0.0) + max(0, _carriers.waited() - self._carried) / 1e9
        own = max(0.0, wall - min(late, wall))
        floor = 0.0
        if self._cpu is not None and (cpu := self._meter.cpu()) is not None:
            floor = max(0.0, cpu - self._cpu) / self._meter.cores
        charged = min(own, max(own - sum(self._waits.values()) / 1e9, floor))
        return Timing(charged, wall, wall - charged)

    def queued(self) -> bool:
        """True if a thread of the bot is runnable but has not run since the look before the last: it waits for a
        core, a wait the kernel counts only once the thread runs again (so the bot's time is not up yet)."""
        for key, (run, _) in self._last.items():
            before = self._before.get(key)
            if before is not None and before[0] == run and _runnable(key):
                return True
        return False


def _runnable(key: tuple[int, int]) -> bool:
    """True if the thread is running or waiting for a core (state R)."""
    try:
        with open(f"/proc/{key[0]}/task/{key[1]}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] == b"R"
    except (OSError, IndexError):
        return False
