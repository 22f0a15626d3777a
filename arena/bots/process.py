"""Bot processes: start one from a command line, talk to it over a lazy-pirate REQ socket, and end it for good."""

from __future__ import annotations

import fcntl
import math
import os
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import IO, Any, Callable, cast

import zmq

from arena.bots import relay
from arena.bots.cgroups import new_cgroup
from arena.bots.meter import Span, Timing, WaitMeter, own_wait, wall_timing
from arena.bots.sandbox import (
    NO_SANDBOX,
    SCRIPT_SUFFIXES,
    Sandbox,
    Watchdog,
    kill_all,
    limit_fault,
    missing_hint,
    processes,
    reap_pids,
    tree_cpu,
    verdict,
)
from arena.errors import (
    BotCrashed,
    BotFault,
    BotTimeout,
    ConfigError,
    FaultKind,
    OversizedMessage,
    ProtocolError,
    WrongRequestId,
)
from protocol import (
    ARENA_PID_ENV,
    DEFAULT_MAX_MESSAGE,
    ENDPOINT_ENV,
    LIFELINE_ENV,
    REPLY_TO,
    Hello,
    Message,
    MessageError,
    OversizedError,
    Ready,
    Shutdown,
    decode,
    encode,
)
from protocol.codec import REPLY_LIMITS

DEFAULT_LOG_CAP = 1 << 20  # bytes per log file
# What a decision's record keeps of the bot's stderr while it decided (arena/match/record.py), per decision and
# per game.
DECISION_LOG_CAP = 4096
GAME_LOG_CAP = 64 << 10
STDERR_TAIL = 2000  # characters of stderr kept for fault records
_LOG_SETTLE = 1.0  # seconds at most to wait for the drain to read what the pipe held when the reply came
# The transport reads a message of up to twice the cap (so that an over-cap reply is an `oversized` fault) and cuts
# off anything larger (the connection drops and the bot reconnects): what it buffers per message stays near the cap.
TRANSPORT_CAP_FACTOR = 2
_ENVELOPE = 4096  # bytes of framing a message may carry besides its body
# Messages the arena's socket queues from one connection while it is not reading it (a bot may send unsolicited
# ones at any time, and zmq's default of 1000 would let it fill the arena's memory).
# A late reply that zmq drops (REQ_CORRELATE) still takes a place in this queue: it must hold more than the late
# replies a bot can owe (one per timeout in a row, and a bot is disqualified after --max-faults of them), or the
# answer to the request after them never arrives.
RECEIVE_QUEUE = 8
_LAST_WORDS = 0.5  # seconds to wait for a dead bot's stderr to drain before judging why it died
_SLICE = 0.05  # seconds between liveness checks where no pidfd is available
_LOOK = 0.01  # seconds at least between two looks at a bot's charged time once it has had its allowance on the wall
# clock
_WATCH = 0.05  # seconds at most between two looks at a bot's threads while it decides
_REAP_WAIT = 2.0  # seconds to wait for a killed bot's processes to die, to reap them
_REBIND_WAIT = 1.0  # seconds to retry binding a tcp port that a socket closed a moment ago still holds
_INTERPRETERS = ("python", "pypy", "node", "deno", "bun", "ruby", "perl", "java", "php", "sh", "bash", "julia")


class Transport(StrEnum):
    """How the arena reaches its bots."""

    IPC = "ipc"
    TCP = "tcp"


@dataclass(frozen=True)
class BotCommand:
    """The command line that starts a bot (in cwd, if given); the arena appends the endpoint as the last argument."""

    argv: tuple[str, ...]
    cwd: str | None = None

    @classmethod
    def parse(cls, text: str) -> "BotCommand":
        """Split a shell-like command line; ValueError if it is empty or its quotes do not close."""
        try:
            argv = tuple(shlex.split(text))
        except ValueError as exc:
            raise ValueError(f"cannot split bot command {text!r}: {exc}") from None
        if not argv:
            raise ValueError("a bot command must not be empty")
        return cls(argv)

    def __str__(self) -> str:
        return shlex.join(self.argv)

    def check(self) -> None:
        """ConfigError if the program cannot be found, or a script it is given does not exist."""
        base = Path(self.cwd or ".")
        program = self.argv[0]
        if os.sep in program:
            if not os.access(base / program, os.X_OK) or not (base / program).is_file():
                raise ConfigError(f"bot command {self}: {program!r} does not exist or is not executable")
        elif shutil.which(program) is None:
            raise ConfigError(f"bot command {self}: {program!r} is not found on PATH")
        for arg in self.argv[1:]:
            # A missing script is the commonest broken command; the interpreter would only say so at run time.
            if arg.endswith(SCRIPT_SUFFIXES) and not (base / arg).is_file():
                raise ConfigError(f"bot command {self}: the script {arg!r} does not exist")

    @property
    def label(self) -> str:
        """A short name for the command: its script or module after an interpreter, else the program."""
        program = Path(self.argv[0]).name
        words = [w for w in self.argv[1:] if not w.startswith("-")] if program.startswith(_INTERPRETERS) else []
        path = Path(Path(words[0] if words else program).name)
        # bot.py -> bot, but sample_bots.random_bot (a module) -> random_bot
        return path.stem if len(path.suffix) <= 5 else path.suffix[1:]


def sample_bot(module: str) -> BotCommand:
    """The command of a bot shipped in the sample_bots package, run with this Python."""
    return BotCommand((sys.executable, "-m", f"sample_bots.{module}"))


@dataclass(frozen=True)
class Reply:
    """A valid answer, how long the arena waited for it (seconds) and the decision's figures (what it was charged,
    see arena/bots/meter.py)."""

    message: Message
    elapsed: float
    timing: Timing | None = None


@dataclass(frozen=True)
class Charge:
    """How a decision is timed by the time it took less its wait for a core: `meter` reads the bot's threads, and
    the arena waits up to `ceiling` wall seconds besides that wait (a guard for what the meter cannot see)."""

    meter: WaitMeter
    ceiling: float


@dataclass(frozen=True)
class DecisionLog:
    """What a bot wrote while it decided: the text kept, and the bytes written beyond the caps (not kept)."""

    text: str = ""
    dropped: int = 0


class LogDrain(threading.Thread):
    """Copies one pipe of a bot into a size-capped log file, keeping the last characters in memory and, between
    capture() and captured(), what went through for one decision (within DECISION_LOG_CAP and the game's budget).

    Each chunk is read and counted under one lock, so that captured() knows that nothing is on its way between the
    pipe and the count: what the pipe does not hold has been counted."""

    def __init__(self, pipe: IO[bytes], path: Path, cap: int) -> None:
        super().__init__(name=f"drain {path.name}", daemon=True)
        self._pipe = pipe
        self._fd = pipe.fileno()
        os.set_blocking(self._fd, False)
        self._path = path
        self._cap = cap
        self._tail = b""
        self._took = threading.Condition()  # held to read and count a chunk; notified after each
        self._read = 0  # bytes read from the pipe so far
        self._capture: bytearray | None = None
        self._dropped = 0
        self._budget = GAME_LOG_CAP
        self._done = False

    def run(self) -> None:
        written = 0
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        try:
            with self._path.open("wb") as log:
                # Keep reading past the cap so that a chatty bot never blocks on a full pipe.
                while chunk := self._next(poller):
                    if written < self._cap:
                        part = chunk[: self._cap - written]
                        log.write(part)
                        written += len(part)
                        if written >= self._cap:
                            log.write(f"\n[log truncated at {self._cap} bytes]\n".encode())
                        log.flush()
        finally:
            with self._took:
                self._done = True
                self._pipe.close()
                self._took.notify_all()

    def _next(self, poller: select.poll) -> bytes:
        """The next chunk from the pipe, counted (b"" at its end)."""
        while True:
            poller.poll()
            with self._took:
                try:
                    chunk = os.read(self._fd, 1 << 16)
                except BlockingIOError:
                    continue
                self._take(chunk)
                return chunk

    def _take(self, chunk: bytes) -> None:
        self._read += len(chunk)
        self._tail = (self._tail + chunk)[-STDERR_TAIL:]
        if self._capture is not None:
            room = min(DECISION_LOG_CAP - len(self._capture), self._budget)
            kept = chunk[:max(room, 0)]
            self._capture += kept
            self._budget -= len(kept)
            self._dropped += len(chunk) - len(kept)
        self._took.notify_all()

    def tail(self) -> str:
        """The last characters that went through the pipe."""
        return self._tail.decode("utf-8", errors="replace")

    def new_game(self) -> None:
        """A game begins: its budget of kept bytes is full again."""
        with self._took:
            self._budget = GAME_LOG_CAP

    def capture(self) -> None:
        """Start keeping what comes through for one decision."""
        with self._took:
            self._capture = bytearray()
            self._dropped = 0

    def captured(self) -> DecisionLog:
        """Stop keeping, and return what came through since capture(). Output arrives on its own: what the bot
        wrote before its reply came in (what the pipe holds now) counts too, once the drain has read it (within
        _LOG_SETTLE seconds); what reaches the pipe after the reply counts for the bot's next decision."""
        deadline = time.monotonic() + _LOG_SETTLE
        with self._took:
            due = self._read + (0 if self._done else _pending(self._fd))
            while not self._done and self._read < due and (left := deadline - time.monotonic()) > 0:
                self._took.wait(left)
            kept, dropped = self._capture or b"", self._dropped
            self._capture, self._dropped = None, 0
        return DecisionLog(kept.decode("utf-8", errors="replace"), dropped)


def _pending(fd: int) -> int:
    """How many bytes the pipe fd holds, not yet read."""
    return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])


# Where a supervising process reads when this one should next make progress (arena.tournament.worker).
_due: list[Any] = []


def report_progress(due: Any) -> None:
    """Keep due (a shared float with a `value`, such as multiprocessing's RawValue("d")) at the monotonic time by
    which this process should next make progress: the deadline of the request in flight, else the last answer's
    arrival. A supervising process that sees it pass by far knows this one is stuck."""
    _due[:] = [due]


def _progress(by: float) -> None:
    for due in _due:
        due.value = by


class Channel:
    """The arena's end of one bot link: a REQ socket it binds, used the lazy-pirate way.

    Every request gets the next id; a reply must echo it. On a timeout the socket is closed
    (LINGER 0) and bound afresh, so a late reply dies with the old socket; one that still
    turns up is recognised by its id and never taken as an answer.
    """

    def __init__(self, context: zmq.Context, endpoint: str, max_message: int = DEFAULT_MAX_MESSAGE,
                 exited: Callable[[], BotFault | None] = lambda: None, watch_fd: int | None = None) -> None:
        self._context = context
        self.endpoint = endpoint
        self.max_message = max_message
        self._exited = exited
        self.next_id = 1
        self.stuck = False  # the last request timed out: the bot may still be busy with it
        self._late = 0  # ns the arena's thread waited for a core after the last reply arrived
        self._metered = False  # the request in flight is metered: read the arena's own lateness
        self._abandoned: set[int] = set()
        self._socket = self._bind(endpoint)
        if endpoint.endswith(":*"):
            self.endpoint = self._socket.getsockopt_string(zmq.LAST_ENDPOINT)
        self.watch(watch_fd)

    def _bind(self, endpoint: str) -> zmq.Socket:
        socket = self._context.socket(zmq.REQ)
        socket.setsockopt(zmq.LINGER, 0)
        # The bot's REP socket keeps its queue across reconnects, so a late reply can reach the new socket:
        # CORRELATE makes zmq drop any reply that does not belong to the request in flight.
        socket.setsockopt(zmq.REQ_CORRELATE, 1)
        socket.setsockopt(zmq.REQ_RELAXED, 1)
        socket.setsockopt(zmq.MAXMSGSIZE, transport_cap(self.max_message))
        socket.setsockopt(zmq.RCVHWM, RECEIVE_QUEUE)
        deadline = time.monotonic() + _REBIND_WAIT
        while True:
            try:
                socket.bind(endpoint)
                return socket
            except zmq.ZMQError as exc:
                # A tcp port of a socket closed a moment ago may still be held by its closing listener.
                if exc.errno != zmq.EADDRINUSE or time.monotonic() > deadline:
                    socket.close(linger=0)
                    raise ConfigError(f"cannot bind {endpoint}: {exc}") from None
                time.sleep(0.005)

    def ask(self, request: Message, timeout: float, charge: Charge | None = None) -> Reply:
        """Send request under the next id and return the checked reply; a BotFault if there is none.

        With `charge`, the bot is charged the wall time less its wait for a core (and less the arena's own lateness)
        and has `timeout` seconds of that, and at most `charge.ceiling` seconds on the wall clock besides its wait;
        without it (or where the meter cannot read the bot), `timeout` wall seconds."""
        request_id = self.next_id
        self.next_id += 1
        data = encode(request, request_id)
        busy = max(self._abandoned) if self.stuck and self._abandoned else None
        span = charge.meter.start() if charge is not None else None
        start = time.monotonic()
        wall = charge.ceiling if charge is not None and span is not None else timeout
        deadline = start + wall
        _progress(deadline)
        self._late, self._metered = 0, span is not None
        if not self._send(data, deadline, start):
            self._reopen(request_id)
            raise BotTimeout(f"request {request_id} could not be delivered within {wall:.3g} s: "
                             "the bot is not connected", time.monotonic() - start)
        frames = self._await(start, timeout, deadline, span)
        elapsed = time.monotonic() - start
        late = self._late / 1e9 if frames is not None else 0.0
        timing = span.timing(elapsed, late) if span is not None else wall_timing(elapsed)
        _progress(start + elapsed)
        if frames is None:
            self._reopen(request_id)
            timing = _out_at(timing, timeout)
            raise _late(f"no answer within {_limit_hit(timeout, wall, timing)}", timing, busy)
        self.stuck = False
        if elapsed > wall + (timing.wait or 0.0) or timing.charged > timeout:
            # Whatever held it up (the bot, the machine, a signal that stopped the arena), the arena's clock rules.
            raise _late(f"the answer came over its {_limit_hit(timeout, wall, timing)}", timing, busy)
        return Reply(self._check(request, request_id, frames, elapsed), elapsed, timing)

    def _await(self, start: float, timeout: float, deadline: float, span: Span | None) -> list[bytes] | None:
        """The reply's frames, or None once the bot is out of time: (metered) once it has been charged `timeout`
        seconds, or at the deadline, which the time the bot waited for a core pushes back (the guard). The meter
        looks at the bot's threads every _WATCH seconds, so that the wait of a thread that ends before the answer is
        not lost; the charge, never more than the wall time, is only checked once `timeout` has passed."""
        if span is None:
            return self._receive(deadline, start)
        while True:
            now = time.monotonic()
            # A quick answer needs no look but the last: the first look waits until the bot has had _LOOK seconds.
            timing = span.timing(now - start) if now - start >= _LOOK else wall_timing(now - start)
            guard = deadline + (timing.wait or 0.0)
            _progress(guard)
            if now - start >= timeout and timing.charged >= timeout and not span.queued() or now >= guard:
                return None
            until = min(guard, now + max(min(timeout - timing.charged, _WATCH), _LOOK))
            frames = self._receive(until, start)
            if frames is not None:
                return frames

    def _send(self, data: bytes, deadline: float, start: float) -> bool:
        while True:
            try:
                self._socket.send(data, zmq.NOBLOCK)
                return True
            except zmq.Again:
                # No bot connected (yet, or again after a reopen): wait for it.
                if not self._wait(zmq.POLLOUT, deadline, start):
                    return False

    def _receive(self, deadline: float, start: float) -> list[bytes] | None:
        while self._wait(zmq.POLLIN, deadline, start):
            try:
                return self._socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                self._late = 0  # the arena woke for nothing the bot owes now
                continue  # what arrived was a late reply to an earlier request, and zmq dropped it
        return None

    def _check(self, request: Message, request_id: int, frames: list[bytes], elapsed: float) -> Message:
        if len(frames) != 1:
            raise ProtocolError(f"a reply must be one frame, got {len(frames)}", elapsed)
        try:
            reply = decode(frames[0], REPLY_TO[type(request)], self.max_message, REPLY_LIMITS)
        except OversizedError as exc:
            raise OversizedMessage(str(exc), elapsed) from None
        except MessageError as exc:
            raise ProtocolError(f"invalid {request.TYPE.value} reply: {exc}", elapsed) from None
        if reply.id != request_id:
            late = " (a late reply to an abandoned request, dropped)" if reply.id in self._abandoned else ""
            raise WrongRequestId(f"reply carries id {reply.id}, the request had id {request_id}{late}", elapsed)
        return reply

    def _wait(self, flag: int, deadline: float, start: float) -> bool:
        """Wait until the socket is ready for flag; False at the deadline, BotCrashed if the bot exits."""
        poller = self._pollers[flag]
        while True:
            remaining = deadline - time.monotonic()
            wait = max(remaining, 0.0) if self.watch_fd is not None else min(max(remaining, 0.0), _SLICE)
            before = own_wait() if self._metered else None
            ready = dict(poller.poll(math.ceil(wait * 1000)))
            if ready.get(self._socket, 0) & flag:
                # The arena's thread woke for the reply but may have waited for a core first: not the bot's time.
                after = own_wait() if before is not None else None
                self._late = after - before if before is not None and after is not None else 0
                return True
            fault = self._exited() if ready or self.watch_fd is None else None
            if fault is not None:
                fault.elapsed = time.monotonic() - start
                raise fault
            if remaining <= 0:
                return False

    def watch(self, fd: int | None) -> None:
        """Also wake up when fd turns readable (a pidfd: the bot exited); None: check for that every 50 ms."""
        self.watch_fd = fd
        self._pollers = {}
        for flag in (zmq.POLLIN, zmq.POLLOUT):
            poller = self._pollers[flag] = zmq.Poller()
            poller.register(self._socket, flag)
            if fd is not None:
                poller.register(fd, zmq.POLLIN)

    def _reopen(self, request_id: int) -> None:
        """Lazy pirate: drop the stuck socket and bind a fresh one at the same endpoint."""
        self._abandoned.add(request_id)
        self.stuck = True
        self._socket.close(linger=0)
        # zmq does not unlink an ipc file on close, and a bind replaces a leftover file, so this cannot race.
        self._socket = self._bind(self.endpoint)
        self.watch(self.watch_fd)

    def close(self) -> None:
        """Close the socket at once; the ipc file goes with it."""
        self._socket.close(linger=0)
        path = _ipc_path(self.endpoint)
        if path is not None:
            path.unlink(missing_ok=True)


def _limit_hit(timeout: float, wall: float, timing: Timing) -> str:
    """The limit a late decision went over and the figures it was charged, as its fault's detail says them."""
    if timing.wall >= wall + (timing.wait or 0.0) and timing.charged < timeout:
        return f"guard of {wall:.3g} s on the wall clock beyond its wait for a core ({timing.describe()})"
    return f"{timeout:.3g} s ({timing.describe()})"


def _out_at(timing: Timing, timeout: float) -> Timing:
    """A decision that got no answer, charged its allowance and no more: the bot was out of time once it had been
    charged `timeout`; how late the arena was to see it (it looks every _WATCH seconds, and waits for a core too)
    is the arena's, not charged."""
    if timing.wait is None or timing.charged <= timeout:
        return timing
    return replace(timing, charged=timeout, wait=timing.wait + timing.charged - timeout)


def _late(detail: str, timing: Timing, busy: int | None) -> BotTimeout:
    if busy is not None:
        detail += f"; the bot was still busy with an earlier request that had timed out (request {busy})"
    fault = BotTimeout(detail, timing.wall)
    fault.charged, fault.wait = timing.charged, timing.wait
    return fault


def _cores() -> int:
    """The cores this process (and so a bot it starts unpinned) may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def transport_cap(max_message: int) -> int:
    """The largest message the arena's socket takes in for a reply cap of max_message bytes."""
    return TRANSPORT_CAP_FACTOR * max_message + _ENVELOPE


def _ipc_path(endpoint: str) -> Path | None:
    return Path(endpoint[len("ipc://"):]) if endpoint.startswith("ipc://") else None


class BotProcess:
    """One running bot: its process group, its channel and its two log files."""

    def __init__(self, command: BotCommand, context: zmq.Context, endpoint: str, log_stem: Path,
                 log_cap: int = DEFAULT_LOG_CAP, max_message: int = DEFAULT_MAX_MESSAGE,
                 sandbox: Sandbox = NO_SANDBOX, private: Path | None = None, hidden: tuple[str, ...] = (),
                 watchdog: Watchdog | None = None, games: int = 1, masked: tuple[Path, ...] = (),
                 relayed: bool = False) -> None:
        """Start command in sandbox; private is the bot's own directory (made by the caller, holding the ipc
        socket if any), hidden the other bots' directories and masked the arena's, watchdog what finds the bot's
        processes and enforces the per-game limits, games how many games the process may play; relayed (with an
        ipc endpoint): the bot is given a tcp endpoint of its own sandbox, which a relay joins to the endpoint."""
        self.command = command
        self.log_stem = log_stem
        self.ready: Ready | None = None
        self._pidfd: int | None = None
        self._lifeline: int | None = None
        self._killed = False
        sandbox = sandbox.resolved()
        self.limits = sandbox.limits
        self.limited = sandbox.limited
        self.cpu_base: float | None = None
        self.cpu_peak = 0.0
        self.vm_peak = 0
        self.limit_hit: FaultKind | None = None
        self.adopted: set[int] = set()
        self.seen: set[int] = set()
        self._sandbox = sandbox
        self._watchdog = watchdog
        self._relayed = relayed and _ipc_path(endpoint) is not None
        self._meter: WaitMeter | None = None
        try:
            command.check()
        except ConfigError as exc:
            raise BotCrashed(f"cannot start the bot: {exc}") from None
        log_stem.parent.mkdir(parents=True, exist_ok=True)
        # Bind before the bot starts, so that it can connect at once.
        self.channel = Channel(context, endpoint, max_message, self._exit_fault)
        self.endpoint = self.channel.endpoint
        self.cgroup = new_cgroup()
        try:
            self.process = self._spawn(command, sandbox, private or log_stem.parent, hidden, games, masked)
        except (OSError, ValueError) as exc:
            self.channel.close()
            if self.cgroup is not None:
                self.cgroup.remove()
            raise BotCrashed(f"cannot start {command}: {getattr(exc, 'strerror', None) or exc}") from None
        self.started = time.monotonic()
        if self._watchdog is not None:
            self._watchdog.watch(self)
        pipes = cast(tuple[IO[bytes], IO[bytes]], (self.process.stdout, self.process.stderr))
        self._drains = (LogDrain(pipes[0], log_stem.with_suffix(".stdout.log"), log_cap),
                        LogDrain(pipes[1], log_stem.with_suffix(".stderr.log"), log_cap))
        for drain in self._drains:
            drain.start()
        try:
            self._pidfd = os.pidfd_open(self.process.pid)
            self.channel.watch(self._pidfd)
        except (AttributeError, OSError):
            pass  # no pidfd here (not Linux, or an old kernel): the channel checks the process every 50 ms

    def _spawn(self, command: BotCommand, sandbox: Sandbox, private: Path, hidden: tuple[str, ...], games: int,
               masked: tuple[Path, ...]) -> subprocess.Popen[bytes]:
        """Start the bot: in its cgroup (limited), with a lifeline (a pipe whose far end only the arena holds, so
        that it reads end-of-file once the arena is gone, whatever pid the bot can see)."""
        if self.cgroup is not None and sandbox.limited:
            # The sandbox's own processes (bubblewrap outside and as init, unshare's, the relay) are in the bot's
            # cgroup too.
            self.cgroup.limit(self.limits.memory, self.limits.processes + sandbox.helpers + int(self._relayed))
        lifeline, self._lifeline = os.pipe()
        # In bwrap's PID namespace the arena cannot be seen; its pid 1 lives exactly as long as the arena.
        arena_pid = "1" if sandbox.confined else str(os.getpid())
        env = sandbox.environment({ENDPOINT_ENV: self.endpoint, ARENA_PID_ENV: arena_pid,
                                   LIFELINE_ENV: str(lifeline)}, private)
        # The relay appends the bot's own endpoint, and puts it in the environment in place of the arena's.
        wrapped = (*relay.command(str(_ipc_path(self.endpoint)), ENDPOINT_ENV), *command.argv) if self._relayed \
            else (*command.argv, self.endpoint)
        argv = sandbox.command(wrapped, command.cwd, private, hidden, games, masked,
                               self.cgroup.join if self.cgroup else ())
        try:
            return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=env, start_new_session=True, close_fds=True, pass_fds=(lifeline,),
                                    cwd=command.cwd)
        finally:
            os.close(lifeline)

    @property
    def pid(self) -> int:
        """The process id, which is also the id of the bot's process group."""
        return self.process.pid

    def alive(self) -> bool:
        """True while the bot process runs."""
        return self.process.poll() is None

    def _exit_fault(self) -> BotFault | None:
        code = self.process.poll()
        if code is None:
            return None
        if code >= 0:
            detail = f"the bot exited with status {code}"
        else:
            try:
                detail = f"the bot was killed by {signal.Signals(-code).name}"
            except ValueError:
                detail = f"the bot was killed by signal {-code}"
        kind = verdict(self, code, self.stderr_tail(_LAST_WORDS)) if self.limited else None
        hint = missing_hint(self.stderr_tail(), self.command.cwd is None) \
            if self._sandbox.confined and code > 0 else None
        detail += f"; {hint}" if kind is None and hint else ""
        return BotCrashed(detail) if kind is None else limit_fault(kind, detail, self.limits)

    def new_game(self) -> None:
        """A game begins: the CPU limit counts afresh from the next look of the watchdog, and the bot's budget of
        kept stderr is full again."""
        self.cpu_base = None
        self._drains[1].new_game()

    def handshake(self, arena: str, init_timeout: float, turn: float = 0.0) -> Ready:
        """Hello and ready, within init_timeout of the start or of `turn` (the monotonic time its handshake's turn
        came), whichever is later: a table-mate's slow handshake costs this bot nothing; a BotFault if it fails."""
        remaining = max(self.started, turn) + init_timeout - time.monotonic()
        reply = self.channel.ask(Hello(id=0, arena=arena, max_message=self.channel.max_message), max(remaining, 0))
        self.ready = cast(Ready, reply.message)  # the channel only returns the reply type the request asks for
        return self.ready

    def ask(self, request: Message, timeout: float, ceiling: float | None = None) -> Reply:
        """One request and its checked reply; a BotFault if there is none. With a ceiling, the bot is charged the
        wall time less its wait for a core, has `timeout` seconds of that and `ceiling` seconds on the wall clock
        (see Channel.ask)."""
        if ceiling is None:
            return self.channel.ask(request, timeout)
        if self._meter is None:
            self._meter = WaitMeter(self._pids, self.cpu_now, len(self._sandbox.cpus) or _cores(),
                                    self.cgroup.tasks_now if self.cgroup is not None else lambda: None)
        return self.channel.ask(request, timeout, Charge(self._meter, ceiling))

    def _pids(self) -> list[int]:
        """The bot's processes now: its cgroup's, else its process tree's."""
        if self.cgroup is not None:
            return self.cgroup.pids()
        return [t.pid for t in processes(self)]

    def cpu_now(self) -> float | None:
        """CPU seconds the bot's processes have used so far: its cgroup's, else its process tree's; None where
        neither can be read."""
        if self.cgroup is not None and "cpu" in self.cgroup.counts:
            return self.cgroup.cpu_now()
        return tree_cpu(self)

    def capture_log(self) -> None:
        """Keep what the bot writes to stderr from now on, for one decision."""
        self._drains[1].capture()

    def captured_log(self) -> DecisionLog:
        """What the bot wrote to stderr since capture_log(), within the caps."""
        return self._drains[1].captured()

    def stderr_tail(self, wait: float = 0.0) -> str:
        """The end of what the bot wrote to stderr; wait up to `wait` s for a dying bot's last words."""
        if wait and not self.alive():
            self._drains[1].join(wait)
        return self._drains[1].tail()

    def stop(self, grace: float) -> None:
        """Ask the bot to shut down, give it `grace` seconds, then kill its whole process group.

        A bot still busy with a request that timed out is not asked: it would not answer.
        """
        try:
            if self.alive() and self.ready is not None and not self.channel.stuck:
                self.channel.ask(Shutdown(id=0, reason="match over"), grace)
                self.process.wait(grace)
        except (BotFault, subprocess.TimeoutExpired):
            pass  # it is killed below either way
        finally:
            self.kill()

    def kill(self) -> None:
        """Kill every process of the bot at once, reap them, and release its socket, pipes, pidfd and cgroup
        (once)."""
        if self._killed:
            return
        self._killed = True
        if self._watchdog is not None:
            self._watchdog.forget(self)
        killed = set(kill_all(self)) - {self.process.pid}
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # the group is already gone
        self.process.wait()
        # With the bot reaped, its own children were handed to the arena (a subreaper): reap them as well.
        reap_pids(killed | self.adopted, _REAP_WAIT)
        for drain in self._drains:
            drain.join(1.0)
        self.channel.close()
        for fd in (self._pidfd, self._lifeline):
            if fd is not None:
                os.close(fd)
        self._pidfd = self._lifeline = None
        if self._meter is not None:
            self._meter.close()
        if self.cgroup is not None:
            self.cgroup.remove()
