"""The time a decision is charged: the wall time it took, less the time the bot waited for a core, as on a machine
of its own. Sleeping, blocking and thinking all count; waiting behind other processes does not.

Linux counts, per thread, the nanoseconds it spent runnable but not running (the second field of
/proc/PID/task/TID/schedstat; it grows once the thread gets a core again). A decision answered within QUICK (5 ms,
arena/bots/channel.py) is charged its wall time and never read: it cannot have waited long, and the readings (several
hundred microseconds of the arena's time) would cost a large share of what the answer took. For a longer one the
meter reads it for every thread of the bot once QUICK has passed and at the end of the decision, through files it
keeps open, and at every look while the bot
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
The arena reads its own threads through files it keeps open as well (each thread its own, opened afresh in a
forked process), and lists its messaging threads again only when their number changes or a read fails: opening a
/proc file costs about twenty times what reading one kept open does.

The arena is late in a way no run queue shows, too: once the answer is in, the thread that waits for it must take
Python's interpreter lock, which another thread of the arena (the watchdog, a log reader) may hold while it waits
for a core; the waiting thread sleeps meanwhile, and on a busy machine that can last a second. So the time after
the answer was handed over is the arena's, all of it (`handed_over`): the messaging thread that carried the answer
stopped running after it handed it over, and the kernel stamps that stop (se.exec_start of /proc's sched file,
read while the thread sleeps and checked unchanged around the reading of its state). The stamp is on the clock of
the core it stopped on, which leaves out that core's time on interrupts or taken by the host, so it is compared
with the monotonic clock on that core only, through the waiting thread's own last start there (it moves to that
core for the reading if it runs elsewhere). Every error of this falls on the late side: a later stop (the carrier
ran again since), the offset between the clocks read after that start (so no smaller than it is), the core's clock
falling further behind since the stop. The bot is thus never credited time from before its answer came, whatever
it does: flooding its log makes the arena later to read the answer but cannot move the answer earlier. Of the
waits of the bot's threads, those seen since the last look before the answer count for no more than the time from
that look to the answer. Where the stamp cannot be read (no sched file, a carrier still busy after 10 ms), the
time after the answer is charged as before, less the waking thread's own wait for a core.

cgroup v2's `cpu.pressure` (`some`: the time at least one task of the cgroup waited) is not used: it needs a v2
cgroup per bot, which a root machine with cgroup v1 does not give, where schedstat needs no cgroup at all. Where
schedstat cannot be read, every decision is charged its wall time (`wait_accounting` says so once).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterable

_OWN = "/proc/thread-self/schedstat"
_OWN_SCHED = "/proc/thread-self/sched"
_OWN_STAT = "/proc/thread-self/stat"
_SCHED_SIZE = 16384  # bytes: more than a sched file holds
_ASLEEP = (b"S", b"D")  # the states of a thread that is not running nor waiting for a core
_SETTLE = 10  # milliseconds at most to wait for a busy messaging thread to stop, one at a time
_CPU = 36  # the field of /proc/PID/stat (after the command's closing bracket) that gives the core it last ran on
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
    turns = own_turns()
    return None if turns is None else turns[0]


def own_turns() -> tuple[int, int] | None:
    """(nanoseconds the calling thread has waited for a core, times it has been given one) so far; None where this
    cannot be read."""
    try:
        _, wait, turns = _own_file(_OWN, 128).split()
        return int(wait), int(turns)
    except (OSError, ValueError):
        return None


class _OwnFiles:
    """One thread's own /proc files, opened once and kept open (opening a /proc file costs the arena about twenty
    times what reading one kept open does), closed when the thread ends."""

    def __init__(self) -> None:
        self.tid = threading.get_native_id()
        self.fds: dict[str, int] = {}

    def read(self, path: str, size: int) -> bytes:
        fd = self.fds.get(path)
        if fd is None:
            fd = self.fds[path] = os.open(path, os.O_RDONLY)
        return os.pread(fd, size, 0)

    def __del__(self) -> None:
        for fd in self.fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)


_own = threading.local()


def _own_file(path: str, size: int) -> bytes:
    """The calling thread's /proc/thread-self file at `path`, read through a file it keeps open."""
    files = getattr(_own, "files", None)
    # A process forked by this thread keeps its locals, and its files, which are still the parent thread's.
    if files is None or files.tid != threading.get_native_id():
        files = _own.files = _OwnFiles()
    return files.read(path, size)


class _Carriers:
    """The arena's own messaging threads, read through kept-open files (the list refreshed each look): their
    schedstat, and for when they last stopped running, their stat and sched files."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: dict[int, tuple[int, int, int] | None] = {}  # tid -> fds of schedstat, stat, sched (None: not
        # a carrier)
        self._count = 0  # the links of /proc/self/task when the threads were last listed (their number, plus 2)
        self._listed: list[tuple[int, int, int]] | None = None  # the carriers' files then

    def _refresh(self) -> list[tuple[int, int, int]]:
        """The files of the carriers now (the lock held). The threads are listed afresh only when their number
        changed or a read failed since (a thread that ends fails its kept-open files' reads), a third of the cost."""
        try:
            count = os.stat("/proc/self/task").st_nlink
            if count == self._count and self._listed is not None:
                return self._listed
            tids = {int(name) for name in os.listdir("/proc/self/task")}
        except OSError:
            return []
        for tid in set(self._files) - tids:
            for fd in self._files.pop(tid) or ():
                if fd >= 0:
                    os.close(fd)
        for tid in tids - set(self._files):
            self._files[tid] = _carrier(tid)
        self._count, self._listed = count, [fds for fds in self._files.values() if fds is not None]
        return self._listed

    def _failed(self) -> None:
        """A read failed: list the threads afresh next time (the lock held)."""
        self._listed = None

    def waited(self) -> int:
        """Nanoseconds the carriers have waited for a core so far (0 where they cannot be read)."""
        total = 0
        with self._lock:
            for stat, _, _ in self._refresh():
                try:
                    total += _schedstat(os.pread(stat, 128, 0))[1]
                except (OSError, ValueError):
                    self._failed()
                    continue
        return total

    def stops(self) -> list[tuple[int, int]] | None:
        """When each carrier last stopped running, in nanoseconds of the clock of the core it stopped on, with that
        core: after it handed over the last message it carried. None where that is not known (a carrier is running
        or waiting for a core, or ran while it was read; or there is no sched file)."""
        found = []
        with self._lock:
            for _, stat, sched in self._refresh():
                try:
                    stopped = _exec_start(os.pread(sched, 4096, 0))
                    fields = os.pread(stat, 1024, 0).rsplit(b")", 1)[1].split()
                    # Asleep, and not run between the two reads of its stop: that stop is its last, on that core.
                    if fields[0] not in _ASLEEP or _exec_start(os.pread(sched, 4096, 0)) != stopped:
                        return None
                    found.append((stopped, int(fields[_CPU])))
                except (OSError, ValueError, IndexError):
                    self._failed()
                    return None
        return found


def _carrier(tid: int) -> tuple[int, int, int] | None:
    """Open schedstat, stat and sched files of the arena's thread tid if it is a messaging thread, else None."""
    try:
        with open(f"/proc/self/task/{tid}/comm", "rb") as comm:
            if not comm.read().startswith(_CARRIERS):
                return None
        fds = [os.open(f"/proc/self/task/{tid}/{name}", os.O_RDONLY) for name in ("schedstat", "stat")]
    except OSError:
        return None
    try:
        fds.append(os.open(f"/proc/self/task/{tid}/sched", os.O_RDONLY))
    except OSError:
        fds.append(-1)  # no scheduler debug file: stops() reads nothing
    return fds[0], fds[1], fds[2]


def _exec_start(text: bytes) -> int:
    """se.exec_start of a sched file (milliseconds with six decimals), in nanoseconds."""
    at = text.index(b"se.exec_start")
    whole, _, part = text[text.index(b":", at) + 1:text.index(b"\n", at)].strip().partition(b".")
    return int(whole) * 1_000_000 + int(part.ljust(6, b"0")[:6])


@dataclass(frozen=True)
class Handover:
    """When (time.monotonic()) the arena's messaging threads last handed a message over to a socket, or a moment
    later, never earlier; and the nanoseconds they had waited for a core by then."""

    at: float
    carried: int


def handed_over() -> Handover | None:
    """When the arena's messaging threads last handed a message over, as an answer is found waiting and before it
    is taken (taking it may wake a messaging thread again); None where this cannot be known."""
    stops = _carriers.stops()
    for _ in range(_SETTLE):
        if stops:
            break
        time.sleep(0.001)  # a carrier is busy: it will have stopped in a moment (later than the answer: no harm)
        stops = _carriers.stops()
    if not stops:
        return None
    latest = 0
    for stopped, core in stops:
        offset = _offset(core)
        if offset is None:
            return None
        latest = max(latest, stopped + offset)
    return Handover(latest / 1e9, _carriers.waited())


def _offset(core: int) -> int | None:
    """time.monotonic_ns() less the scheduler's clock of `core`, or more, never less; None where not known.

    Each core's scheduler clock (the one a thread's stop is stamped with) leaves out the time that core spent on
    interrupts or was taken by the host: it falls behind the monotonic clock, each core its own way, so the two are
    compared on the same core only. The calling thread's last start there, read before time.monotonic(), gives an
    offset no smaller than it is now, and so no smaller than it was at an earlier stop on that core. The thread is
    moved to that core for the reading if it runs elsewhere (and back)."""
    if _own_core() == core:
        return _own_offset(core)
    allowed = os.sched_getaffinity(0)
    if core not in allowed:
        return None
    try:
        os.sched_setaffinity(0, {core})
        return _own_offset(core)
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):  # the cores it may use changed meanwhile: the new ones hold
            os.sched_setaffinity(0, allowed)


def _own_offset(core: int) -> int | None:
    try:
        began = _exec_start(_own_file(_OWN_SCHED, _SCHED_SIZE))
    except (OSError, ValueError):
        return None
    offset = time.monotonic_ns() - began
    return offset if _own_core() == core else None  # moved between the two readings: not known


def _own_core() -> int | None:
    """The core the calling thread runs on."""
    try:
        return int(_own_file(_OWN_STAT, 1024).rsplit(b")", 1)[1].split()[_CPU])
    except (OSError, ValueError, IndexError):
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

    def start(self, at: float = 0.0) -> "Span | None":
        """Start metering a decision `at` seconds after it began (the waits before are not credited); None where
        the bot's threads cannot be read (it is then charged its wall time)."""
        base = self.look()
        return None if base is None else Span(self, base, self.cpu(), at)

    def close(self) -> None:
        """Close the kept-open files."""
        for fd in self._files.values():
            os.close(fd)
        self._files.clear()


class Span:
    """One decision being metered, from start() on."""

    def __init__(self, meter: WaitMeter, base: dict[tuple[int, int], tuple[int, int]], cpu: float | None,
                 at: float = 0.0) -> None:
        self._meter = meter
        self._base = base
        self._cpu = cpu
        self._carried = _carriers.waited()  # ns the arena's messaging threads had waited when the decision began
        self._at = at  # seconds after the start of the last look
        self._last = base  # the last look
        self._before = base  # the look before it
        # (pid, tid) -> ns it waited since the start, at the last look (kept once the thread ends)
        self._waits: dict[tuple[int, int], int] = {}

    def timing(self, wall: float, late: float = 0.0, handed: Handover | None = None) -> Timing:
        """The figures of the decision after `wall` seconds, of which the arena itself was late `late` seconds
        (its thread waited for a core after the reply came) besides its messaging threads' waits. With `handed`
        (when the answer was handed over, in seconds after the start: see handed_over()), all the time after it is
        the arena's, and the threads' waits count up to then only."""
        looked, waited = self._at, sum(self._waits.values())
        now = self._meter.look()
        if now is not None:
            self._waits.update((key, wait - self._base.get(key, (0, 0))[1]) for key, (_, wait) in now.items())
            self._before, self._last, self._at = self._last, now, wall
        waits = sum(self._waits.values()) / 1e9
        carried = (handed.carried if handed is not None else _carriers.waited()) - self._carried
        if handed is not None:
            arrived = min(wall, max(0.0, handed.at))
            late = max(late, wall - arrived)
            # A wait seen since the look before the answer came counts for no more time than that look had left.
            waits = min(waits, waited / 1e9 + max(0.0, arrived - looked))
        late = max(late, 0.0) + max(0, carried) / 1e9
        own = max(0.0, wall - min(late, wall))
        floor = 0.0
        if self._cpu is not None and (cpu := self._meter.cpu()) is not None:
            floor = max(0.0, cpu - self._cpu) / self._meter.cores
        charged = min(own, max(own - waits, floor))
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
