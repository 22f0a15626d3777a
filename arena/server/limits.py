"""Every request `arena serve` takes is bounded: its body in size (declared or not) and in the time it may take to
arrive, and the whole request in time; a request over a bound gets a one-line answer, not a hung worker."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

SMALL_BODY = 64 * 1024  # bytes of any request body but an upload's
BODY_SECONDS = 30.0  # a body must have arrived whole within this (a slow or endless body is cut off)
REQUEST_SECONDS = 60.0  # a request must be answered within this


class BodyRefused(BaseException):  # past the app's own handlers of Exception, to this middleware
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class BoundedRequests:
    """ASGI middleware: a body over `cap(path)` bytes is refused with 413, one that takes over BODY_SECONDS to
    arrive with 408, and a request not answered within REQUEST_SECONDS with 503."""

    def __init__(self, app: App, cap: Callable[[str], int], body_seconds: float = BODY_SECONDS,
                 request_seconds: float = REQUEST_SECONDS) -> None:
        self.app, self.cap = app, cap
        self.body_seconds, self.request_seconds = body_seconds, request_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = self.cap(scope["path"])
        headers = dict(scope.get("headers") or [])
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
