"""Worker processes that play jobs (a tournament's tables) for a coordinator, watched by it.

A worker starts the bots of its job, so a bot sees the worker as its parent and as ARENA_PID, and at the weaker
sandbox levels it can signal it. So a worker ignores every catchable termination signal unless its coordinator
asked it to stop, and the coordinator watches each worker: one that died is replaced, one found stopped (SIGSTOP,
SIGTSTP) is continued, and one stopped too often or making no progress past its request's deadline is killed with
everything it started. Its job then counts as a failed try, for the caller to play again or give up.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context, resource_tracker
from multiprocessing.connection import Connection, wait
from types import FrameType
from typing import Any, Callable, Generic, Iterator, TypeVar

from arena.bots.channel import report_progress
from arena.interrupt import check_interrupted, die_with

J = TypeVar("J")
R = TypeVar("R")

# What a bot can send a worker that would end it, and that the worker can catch; SIGKILL and SIGSTOP it cannot.
IGNORED_SIGNALS = tuple(getattr(signal, name) for name in (
    "SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGPIPE",
    "SIGXCPU", "SIGXFSZ", "SIGPOLL") if hasattr(signal, name))
_TERMINAL_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
STALL_SLACK = 60.0  # seconds a worker may go past its request's deadline (or between requests) before it is stuck
MAX_STOPS = 3  # times a worker may be found stopped in one job before it is replaced
STOP_GRACE = 5.0  # seconds a worker gets to stop its bots when asked, before it is killed
LOOK = 0.25  # seconds between two looks at the workers
PLAYING = "playing this table"  # a worker's job, as its failure names it, unless the pool says otherwise


def _serve(conn: Connection, target: Callable[[Any], Any], coordinator: int, stop: Any, due: Any) -> None:
    """A worker's life: play the jobs the coordinator sends, one at a time, until it closes the pipe or says stop."""
    die_with(coordinator)

    stopping: list[int] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        # Only the coordinator sets stop; a bot's signal alone changes nothing. Once: a second signal (the
        # terminal's Ctrl-C besides the coordinator's SIGTERM) must not interrupt the stopping.
        if stop.value and not stopping:
            stopping.append(signum)
            raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")

    for sig in IGNORED_SIGNALS:
        signal.signal(sig, on_signal)
    report_progress(due)
    try:
        # Started with the termination signals blocked (see _held): one that came meanwhile is delivered now.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _TERMINAL_SIGNALS)
        while not stop.value:
            try:
                job = conn.recv()
            except EOFError:
                return
            try:
                result = target(job)
            except Exception as exc:  # a bug, not the bots: the job fails and the worker is replaced
                result = Failure(f"the worker process failed: {type(exc).__name__}: {exc}"[:500])
            conn.send(result)
    except KeyboardInterrupt:
        return  # asked to stop: the match under way has stopped its bots while unwinding


def start_time(pid: int) -> int | None:
    """When a process started (clock ticks since boot), to tell it from a later one with the same pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return ""


def descendants(pid: int) -> list[tuple[int, int | None]]:
    """Every process below pid (children first listed), each with its start time."""
    found: list[tuple[int, int | None]] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            threads = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for thread in threads:
            try:
                with open(f"/proc/{parent}/task/{thread}/children", "rb") as children:
                    pids = [int(c) for c in children.read().split()]
            except OSError:
                continue
            found.extend((child, start_time(child)) for child in pids)
            todo.extend(pids)
    return found


def _kill_all(processes: list[tuple[int, int | None]]) -> None:
    """SIGKILL each process that is still the one seen (same pid, same start time)."""
    for pid, started in processes:
        if started is not None and start_time(pid) == started:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


@dataclass
class Failure:
    """Why a worker failed its job."""

    reason: str


class Worker(Generic[J, R]):
    """One worker process, as the coordinator sees it: the job it plays, and what it has been seen doing."""

    def __init__(self, target: Callable[[J], R]) -> None:
        check_interrupted()  # a Ctrl-C that reached no handler of the arena still stops the run before a worker
        context = get_context("spawn")  # a worker must not inherit the coordinator's SQLite or ZeroMQ state
        self._conn, child = context.Pipe()
        self._stop = context.RawValue("b", 0)
        self._due = context.RawValue("d", time.monotonic())
        self.process = context.Process(target=_serve, args=(child, target, os.getpid(), self._stop, self._due),
                                       name="arena worker")
        try:
            with _held():
                self.process.start()
        except BaseException:
            # A signal held back while it started is delivered as it ends: the new worker must not outlive that.
            if self.process.pid is not None:
                self.process.kill()
                self.process.join()
            raise
        finally:
            child.close()
        self.job: J | None = None
        self.doing = PLAYING  # what its job is, as a failure names it
        self._stops = 0
        self._seen: list[tuple[int, int | None]] = []

    @property
    def waitables(self) -> list[Any]:
        """What to wait on for news of this worker: its pipe and its death."""
        return [self._conn, self.process.sentinel]

    def submit(self, job: J) -> None:
        """Give the worker a job; it must start a request within STALL_SLACK."""
        self.job, self._stops = job, 0
        self._due.value = time.monotonic()
        self._conn.send(job)

    def poll(self) -> R | Failure | None:
        """The job's result, a Failure if the worker failed it (the worker is then killed), or None for now."""
        if self._conn.poll():
            try:
                result: R | Failure = self._conn.recv()
            except (EOFError, OSError):
                pass  # it died while sending; the checks below say how
            else:
                self.job = None
                if isinstance(result, Failure):
                    self.kill()
                return result
        failure = self._failure()
        if failure is not None:
            self.kill()
        return failure

    def _failure(self) -> Failure | None:
        code = self.process.exitcode
        if code is not None:
            how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with status {code}"
            return Failure(f"the worker process {self.doing} {how}")
        self._seen = descendants(self.process.pid)
        if _state(self.process.pid) in ("T", "t"):
            self._stops += 1
            if self._stops > MAX_STOPS:
                return Failure(f"the worker process {self.doing} was stopped by a signal {self._stops} times")
            os.kill(self.process.pid, signal.SIGCONT)  # the decision it stalled is a timeout on its own clock
        late = time.monotonic() - self._due.value
        if late > STALL_SLACK:
            return Failure(f"the worker process {self.doing} made no progress for {late:.0f} s")
        return None

    def ask_to_stop(self) -> None:
        """Ask the worker to stop its match (its bots) and exit."""
        self._stop.value = 1
        if self.process.exitcode is not None:
            return  # gone already (and reaped: its pid may belong to another process by now)
        try:
            os.kill(self.process.pid, signal.SIGCONT)
            os.kill(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        """Kill the worker and everything it started, at once."""
        if self.process.exitcode is None:  # not reaped, so the pid is still the worker's
            self._seen += descendants(self.process.pid)
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.join()
        _kill_all(self._seen)  # its bots' own processes too, which no death signal reaches
        self._conn.close()


class WorkerPool(Generic[J, R]):
    """Up to `size` workers in slots, started on demand and replaced when they fail."""

    def __init__(self, size: int, target: Callable[[J], R]) -> None:
        self.size = size
        self._target = target
        self._slots: list[Worker[J, R] | None] = [None] * size
        self.doing = PLAYING  # what the jobs submitted from now on are, as a failure names them

    def submit(self, slot: int, job: J) -> None:
        """Play job in the worker of slot (starting one if there is none)."""
        worker = self._slots[slot]
        if worker is None or not worker.process.is_alive():
            if worker is not None:
                worker.kill()
            worker = self._slots[slot] = Worker(self._target)
        worker.doing = self.doing
        worker.submit(job)

    def pids(self) -> list[int]:
        """The process ids of the workers running now (a slot's worker is started at its first job)."""
        return [w.process.pid for w in self._slots if w is not None and w.process.pid is not None]

    def busy(self) -> list[int]:
        """The slots whose worker has a job."""
        return [i for i, w in enumerate(self._slots) if w is not None and w.job is not None]

    def finished(self, timeout: float = LOOK) -> list[tuple[int, J, R | Failure]]:
        """Wait up to timeout for news, then each slot whose job ended: its slot, its job, and its outcome."""
        busy = [w for w in self._slots if w is not None and w.job is not None]
        wait([x for w in busy for x in w.waitables], timeout)
        done: list[tuple[int, J, R | Failure]] = []
        for slot, worker in enumerate(self._slots):
            if worker is None or worker.job is None:
                continue
            job = worker.job
            outcome = worker.poll()
            if isinstance(outcome, Failure):
                self._slots[slot] = None
            if outcome is not None:
                done.append((slot, job, outcome))
        return done

    def close(self) -> None:
        """Stop every worker: ask each to stop its bots, wait up to STOP_GRACE, then kill what is left."""
        workers = [w for w in self._slots if w is not None]
        self._slots = [None] * self.size
        try:
            for worker in workers:
                worker.ask_to_stop()
            deadline = time.monotonic() + STOP_GRACE
            for worker in workers:
                worker.process.join(max(0.0, deadline - time.monotonic()))
        finally:
            for worker in workers:
                worker.kill()


@contextmanager
def _held() -> Iterator[None]:
    """While a worker starts: the termination signals held back, never lost. They are blocked, so that the worker
    inherits them blocked until it has set its own handlers (a Ctrl-C on the terminal reaches the whole process
    group, a starting worker included), and one that reaches this process meanwhile (blocked here, or taken by
    another thread) is only noted; once the worker has started, each noted signal is delivered again."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # Starting multiprocessing's resource tracker unblocks SIGINT and SIGTERM in this process: start it first.
    resource_tracker.ensure_running()
    noted: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, frame: noted.append(signum)) for sig in _TERMINAL_SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _TERMINAL_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a pending one is delivered here, and noted
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(noted):
            signal.raise_signal(sig)
