"""The channel to one bot: the arena's REQ socket, bound at the bot's endpoint and used the lazy-pirate way,
each request's reply checked and its time charged, and the progress a supervising process watches."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import zmq

from arena.bots.meter import Handover, Span, Timing, WaitMeter, handed_over, own_turns, wall_timing
from arena.bots.sandbox.hostuser import open_socket
from arena.errors import (
    BotFault,
    BotTimeout,
    ConfigError,
    OversizedMessage,
    ProtocolError,
    WrongRequestId,
)
from protocol import (
    DEFAULT_MAX_MESSAGE,
    REPLY_TO,
    Message,
    MessageError,
    OversizedError,
    decode,
    encode,
)
from protocol.codec import REPLY_LIMITS

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
_SLICE = 0.05  # seconds between liveness checks where no pidfd is available
_LOOK = 0.01  # seconds at least between two looks at a bot's charged time once it has had its allowance on the wall
# clock
_WATCH = 0.05  # seconds at most between two looks at a bot's threads while it decides
_REBIND_WAIT = 1.0  # seconds to retry binding a tcp port that a socket closed a moment ago still holds
# Seconds within which an answer is charged its wall time, unmetered: a bot cannot have waited for a core for long
# within it, and reading its threads would cost the arena a large share of what the answer took. It is the most a
# quick decision is overcharged, and the most of a slow one's wait left uncredited (the meter's first reading comes at
# this bound). It lies well beyond the arena's round trip on a loaded machine (whose slowest percent reaches 1 to 2 ms
# on 2 cores), because every decision past it costs the arena several hundred microseconds of reading /proc.
QUICK = 0.005
# The poll flags as plain ints: zmq's are IntFlag members, and `&` on those runs Python's enum machinery (about 2 µs
# a decision) where an int's takes 0.1.
_POLLIN, _POLLOUT = int(zmq.POLLIN), int(zmq.POLLOUT)


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


# Where a supervising process reads when this one should next make progress (arena.tournament.worker).
_due: list[Any] = []


def report_progress(due: Any) -> None:
    """Keep due (a shared float with a `value`, such as multiprocessing's RawValue("d")) at the monotonic time by
    which this process should next make progress: the deadline of the request in flight, else the last answer's
    arrival. A supervising process that sees it pass by far knows this one is stuck."""
    _due[:] = [due]


def expect_progress_within(seconds: float) -> None:
    """Tell a supervising process that this one's next sign of progress may be up to seconds away (a long step
    that asks no bot anything, such as a build)."""
    _progress(time.monotonic() + seconds)


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
                 exited: Callable[[], BotFault | None] = lambda: None, watch_fd: int | None = None,
                 shared: bool = False) -> None:
        """Bind endpoint; shared: an ipc socket the bot's group (a host uid of its own) may connect to."""
        self._context = context
        self._shared = shared
        self.endpoint = endpoint
        self.max_message = max_message
        self._exited = exited
        self.next_id = 1
        self.stuck = False  # the last request timed out: the bot may still be busy with it
        self._late = 0  # ns the arena's thread waited for a core after the last reply arrived
        self._handed: Handover | None = None  # when the last reply was handed over (or later)
        self._metered = False  # the request in flight is metered: read the arena's own lateness
        self._quick: float | None = None  # the end of the unmetered wait for a quick answer, while it lasts
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
                if self._shared and (path := ipc_path(endpoint)) is not None:
                    open_socket(path)
                return socket
            except zmq.ZMQError as exc:
                # A tcp port of a socket closed a moment ago may still be held by its closing listener.
                if exc.errno != zmq.EADDRINUSE or time.monotonic() > deadline:
                    socket.close(linger=0)
                    raise ConfigError(f"cannot bind {endpoint}: {exc}") from None
                time.sleep(0.005)
            except OSError as exc:  # the socket's file could not be shared
                socket.close(linger=0)
                raise ConfigError(f"cannot share {endpoint} with its bot: {exc}") from None

    def ask(self, request: Message, timeout: float, charge: Charge | None = None) -> Reply:
        """Send request under the next id and return the checked reply; a BotFault if there is none.

        With `charge`, the bot is charged the wall time less its wait for a core (and less the arena's own lateness)
        and has `timeout` seconds of that, and at most `charge.ceiling` seconds on the wall clock besides its wait;
        without it (or where the meter cannot read the bot), `timeout` wall seconds."""
        request_id = self.next_id
        self.next_id += 1
        data = encode(request, request_id)
        busy = max(self._abandoned) if self.stuck and self._abandoned else None
        wall = charge.ceiling if charge is not None else timeout
        self._late, self._handed, self._metered = 0, None, False
        _progress(time.monotonic() + wall)
        # Taken just before the request goes out: whatever holds the arena up before then is not the bot's.
        start = time.monotonic()
        deadline = start + wall
        if not self._send(data, deadline, start):
            self._reopen(request_id)
            raise BotTimeout(f"request {request_id} could not be delivered within {wall:.3g} s: "
                             "the bot is not connected", time.monotonic() - start)
        span, cut, quick = None, False, charge is not None
        if charge is None:
            frames = self._receive(deadline, start)
        else:
            frames, span = self._quickly(start, deadline, charge.meter)
            if frames is None:
                quick = False
                if span is None:  # the meter cannot read the bot: the wall clock rules
                    wall, deadline = timeout, start + timeout
                frames, cut = self._await(start, timeout, deadline, span)
        elapsed = time.monotonic() - start
        # The arena's lateness once the answer was in: its thread's wait for a core as it woke, and all the time
        # since the messaging thread handed the answer over (which also holds a wait for Python's interpreter lock
        # while another of the arena's threads held it).
        handed = replace(self._handed, at=self._handed.at - start) if frames is not None and self._handed else None
        late = self._late / 1e9 if frames is not None else 0.0
        if span is not None:
            timing = span.timing(elapsed, late, handed)
        else:
            timing = _quick_timing(elapsed, handed) if quick else wall_timing(elapsed)
        _progress(start + elapsed)
        if frames is None:
            self._reopen(request_id)
            timing = _out_at(timing, timeout, cut)
            raise _late(f"no answer within {_limit_hit(timeout, wall, timing)}", timing, busy)
        self.stuck = False
        if elapsed > wall + (timing.wait or 0.0) or timing.charged > timeout:
            # Whatever held it up (the bot, the machine, a signal that stopped the arena), the arena's clock rules.
            raise _late(f"the answer came over its {_limit_hit(timeout, wall, timing)}", timing, busy)
        return Reply(self._check(request, request_id, frames, elapsed), elapsed, timing)

    def _quickly(self, start: float, deadline: float, meter: WaitMeter) -> tuple[list[bytes] | None, Span | None]:
        """A quick answer, taken unmetered; else no frames and the meter started, lazily, once QUICK has passed."""
        self._quick = start + QUICK
        frames = self._receive(min(self._quick, deadline), start)
        self._quick = None
        if frames is not None:
            return frames, None
        span = meter.start(time.monotonic() - start)
        self._metered = span is not None
        return None, span

    def _await(self, start: float, timeout: float, deadline: float,
               span: Span | None) -> tuple[list[bytes] | None, bool]:
        """The reply's frames, or None once the bot is out of time: (metered) once it has been charged `timeout`
        seconds, or at the deadline, which the time the bot waited for a core pushes back (the guard); and whether
        a look found the bot charged its `timeout`. The meter looks at the bot's threads every _WATCH seconds, so
        that the wait of a thread that ends before the answer is not lost; the charge, never more than the wall
        time, is only checked once `timeout` has passed."""
        if span is None:
            return self._receive(deadline, start), False
        while True:
            now = time.monotonic()
            # A quick answer needs no look but the last: the first look waits until the bot has had _LOOK seconds.
            timing = span.timing(now - start) if now - start >= _LOOK else wall_timing(now - start)
            guard = deadline + (timing.wait or 0.0)
            _progress(guard)
            spent = now - start >= timeout and timing.charged >= timeout and not span.queued()
            if spent or now >= guard:
                # The arena may have been held up since the last look: an answer already there is taken first.
                return self._receive(now, start), spent
            until = min(guard, now + max(min(timeout - timing.charged, _WATCH), _LOOK))
            frames = self._receive(until, start)
            if frames is not None:
                return frames, False

    def _send(self, data: bytes, deadline: float, start: float) -> bool:
        while True:
            try:
                self._socket.send(data, zmq.NOBLOCK)
                return True
            except zmq.Again:
                # No bot connected (yet, or again after a reopen): wait for it.
                if not self._wait(_POLLOUT, deadline, start):
                    return False

    def _receive(self, deadline: float, start: float) -> list[bytes] | None:
        while self._wait(_POLLIN, deadline, start):
            try:
                return self._socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                self._late, self._handed = 0, None  # the arena woke for nothing the bot owes now
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
            before = own_turns() if self._metered else None
            ready = dict(poller.poll(math.ceil(wait * 1000)))
            if ready.get(self._socket, 0) & flag:
                # The arena's thread woke for the reply but may have waited for a core first: not the bot's time.
                after = own_turns() if before is not None else None
                self._late = after[0] - before[0] if before is not None and after is not None else 0
                # Given a core once, for the reply, and kept since: that wait was all its lateness. Otherwise (the
                # reply was there before it waited, or it slept again as it woke, for Python's lock) ask when the
                # reply was handed over.
                once = before is not None and after is not None and after[1] - before[1] == 1
                self._handed = handed_over() if before is not None and not once and flag == _POLLIN else None
                if self._quick is not None and time.monotonic() > self._quick:
                    self._handed = handed_over()  # the arena woke late for a quick answer: when did it come?
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
        for flag in (_POLLIN, _POLLOUT):
            poller = self._pollers[flag] = zmq.Poller()
            poller.register(self._socket, flag)
            if fd is not None:
                poller.register(fd, _POLLIN)

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
        path = ipc_path(self.endpoint)
        if path is not None:
            path.unlink(missing_ok=True)


def _limit_hit(timeout: float, wall: float, timing: Timing) -> str:
    """The limit a late decision went over and the figures it was charged, as its fault's detail says them."""
    if timing.wall >= wall + (timing.wait or 0.0) and timing.charged < timeout:
        return f"guard of {wall:.3g} s on the wall clock beyond its wait for a core ({timing.describe()})"
    return f"{timeout:.3g} s ({timing.describe()})"


def _quick_timing(elapsed: float, handed: Handover | None) -> Timing:
    """A quick answer, charged its wall time up to when it was handed over where the arena woke late for it (the
    time after that is the arena's), else all of it: no wait for a core is credited."""
    charged = elapsed if handed is None else min(elapsed, max(0.0, handed.at))
    return Timing(charged, elapsed, elapsed - charged)


def _out_at(timing: Timing, timeout: float, spent: bool) -> Timing:
    """A decision that got no answer, charged its allowance and no more: the bot was out of time once it had been
    charged `timeout`; how late the arena was to see it (it looks every _WATCH seconds, and waits for a core too)
    is the arena's, not charged. `spent`: a look found it charged `timeout`, and the decision was cut there, so it
    is charged no less either: the kernel adds a queued thread's wait only once the thread runs again, and a
    reading after the cut may credit back a wait that the look could not see."""
    if timing.wait is None or timing.charged <= timeout and not spent:
        return timing
    return replace(timing, charged=timeout, wait=timing.wall - timeout)


def _late(detail: str, timing: Timing, busy: int | None) -> BotTimeout:
    if busy is not None:
        detail += f"; the bot was still busy with an earlier request that had timed out (request {busy})"
    fault = BotTimeout(detail, timing.wall)
    fault.charged, fault.wait = timing.charged, timing.wait
    return fault


def transport_cap(max_message: int) -> int:
    """The largest message the arena's socket takes in for a reply cap of max_message bytes."""
    return TRANSPORT_CAP_FACTOR * max_message + _ENVELOPE


def ipc_path(endpoint: str) -> Path | None:
    """The socket file of an ipc endpoint; None for any other transport."""
    return Path(endpoint[len("ipc://"):]) if endpoint.startswith("ipc://") else None
