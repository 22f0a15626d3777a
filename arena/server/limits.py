"""Every request `arena serve` takes is bounded: its body in size (declared or not) and in the time it may take to
arrive, and the whole request in time; a request over a bound gets a one-line answer, not a hung worker."""

from __future__ import annotations

import asyncio
import contextvars
import ipaddress
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Awaitable, Callable, TypeVar

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_HEADERS = 16 * 1024  # bytes of a request's line and headers
SMALL_BODY = 64 * 1024  # bytes of any request body but an upload's
BODY_SECONDS = 30.0  # a body must have arrived whole within this (a slow or endless body is cut off)
REQUEST_SECONDS = 60.0  # a request must be answered within this


class BodyRefused(BaseException):  # past the app's own handlers of Exception, to this middleware
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class BoundedRequests:
    """ASGI middleware: a body over `cap(path)` bytes is refused with 413, one that takes over BODY_SECONDS to
    arrive with 408, and a request not answered within REQUEST_SECONDS, or cut off by the server's stop, with 503."""

    def __init__(self, app: App, cap: Callable[[str], int], body_seconds: float = BODY_SECONDS,
                 request_seconds: float = REQUEST_SECONDS) -> None:
        self.app, self.cap = app, cap
        self.body_seconds, self.request_seconds = body_seconds, request_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = scope.get("headers") or []
        # However the headers arrived (in one piece or many), more than the limit are not served.
        if len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") + \
                sum(len(k) + len(v) + 4 for k, v in raw) > MAX_HEADERS:
            await _answer(send, 431, f"the request's line and headers are over {MAX_HEADERS} bytes, the limit")
            return
        cap = self.cap(scope["path"])
        headers = dict(raw)
        declared = headers.get(b"content-length", b"")
        # A body declared over the cap is refused when the app first asks for it, unread: the app may first learn
        # who sent it (an upload refused counts toward its author's daily limit).
        over = int(declared) if declared.isdigit() and int(declared) > cap else None
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await asyncio.wait_for(self.app(scope, _bounded(receive, cap, self.body_seconds, over), sending),
                                   self.request_seconds)
        except BodyRefused as exc:
            if not started:
                await _answer(send, exc.status, str(exc))
        except asyncio.TimeoutError:
            if not started:
                await _answer(send, 503, f"the request was not answered within {self.request_seconds:.0f} seconds")
        except asyncio.CancelledError:
            # The server stops, and its grace for requests under way is over: an answer in one line, not a traceback.
            if not started:
                await _answer(send, 503, "the server is stopping: send the request again once it is back")


def _bounded(receive: Receive, cap: int, seconds: float, over: int | None = None) -> Receive:
    """receive, refusing a body over cap bytes (declared as `over`, or as it arrives) or slower than `seconds` in
    all (raised as BodyRefused)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    state = {"size": 0, "done": False}

    async def bounded() -> Message:
        if over is not None:
            raise BodyRefused(413, f"the request body is {over} bytes, over the limit of {cap}")
        if state["done"]:
            return await receive()
        try:
            message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
        except asyncio.TimeoutError:
            raise BodyRefused(408, f"the request body did not arrive within {seconds:.0f} seconds") from None
        if message["type"] == "http.request":
            state["size"] += len(message.get("body", b""))
            if state["size"] > cap:
                raise BodyRefused(413, f"the request body is over the limit of {cap} bytes")
            state["done"] = not message.get("more_body", False)
        return message

    return bounded


async def _answer(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


MAX_FAILURES = 20  # failed secrets (sign-ins, tokens, invite codes) an address may send in FAILURE_WINDOW
ALL_FAILURES = 100  # failed secrets from all addresses together in FAILURE_WINDOW: past it, no slow hash is begun
FAILURE_WINDOW = 60.0  # seconds
SLOW_CHECKS = 2  # secrets checked by the slow hash at once (scrypt takes 16 MiB each): the rest wait their turn
IPV6_NETWORK = 64  # an IPv6 address is counted by its /64: one subscriber is given a whole one


def address_key(client: str) -> str:
    """What a client address is counted as: an IPv4 address as itself, an IPv6 one as its /64 network."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((address, IPV6_NETWORK), strict=False))
    return str(address.ipv4_mapped or address) if isinstance(address, ipaddress.IPv6Address) else str(address)


T = TypeVar("T")


class Limited(Exception):
    """A secret refused unchecked: its address (or all addresses together) failed too often lately."""


class FailedAuthentications:
    """Failed secrets per client address (an IPv6 one by its /64) and from all addresses together, in a sliding
    window. Each check is counted as a failure before it is made (and forgiven if it succeeds), so that requests
    sent at once cannot pass the limit together; past a limit a secret is refused before any slow hash."""

    def __init__(self, limit: int = MAX_FAILURES, everyone: int = ALL_FAILURES, window: float = FAILURE_WINDOW,
                 slow: int = SLOW_CHECKS) -> None:
        self.limit, self.everyone, self.window = limit, everyone, window
        self._seen: dict[str, list[float]] = {}
        self._all: list[float] = []
        self._lock = threading.Lock()
        # The slow hash runs on these threads only: the memory a check takes (scrypt's 16 MiB) stays with the
        # allocator of at most `slow` threads, not with every request thread that ever checked a secret.
        self._slow = ThreadPoolExecutor(slow, thread_name_prefix="slow-check")

    def slowly(self, check: Callable[[], T]) -> T:
        """check() on one of the slow-check threads, the caller waiting for it (at most SLOW_CHECKS at once)."""
        return self._slow.submit(contextvars.copy_context().run, check).result()

    def attempt(self, client: str) -> float:
        """Count a check of a secret from the address as a failure until forgive() says otherwise: its stamp;
        Limited if the address, or everyone, failed too often within the window."""
        key, now = address_key(client), time.monotonic()
        with self._lock:
            mine = self._recent(key, now)
            self._all = [t for t in self._all if t > now - self.window][-self.everyone:]
            if len(mine) >= self.limit:
                raise Limited("too many failed sign-ins, tokens or invite codes from your address: wait a minute")
            if len(self._all) >= self.everyone:
                raise Limited("too many failed sign-ins, tokens or invite codes lately: wait a minute")
            mine.append(now)
            self._all.append(now)
            if len(self._seen) > 10_000:  # an address flood: keep only those still in their window
                self._seen = {k: v for k, v in self._seen.items() if v and v[-1] > now - self.window}
        return now

    def forgive(self, client: str, stamp: float) -> None:
        """The check counted at `stamp` succeeded: it is no failure."""
        key = address_key(client)
        with self._lock:
            for times in (self._seen.get(key, []), self._all):
                if stamp in times:
                    times.remove(stamp)

    def blocked(self, client: str) -> bool:
        """True if the address failed `limit` times within the window (an address with no failure is not kept)."""
        now = time.monotonic()
        with self._lock:
            return sum(t > now - self.window for t in self._seen.get(address_key(client), ())) >= self.limit

    def _recent(self, key: str, now: float) -> list[float]:
        times = [t for t in self._seen.get(key, []) if t > now - self.window][-self.limit:]
        self._seen[key] = times
        return times
