"""Live updates for `arena serve`'s pages as server-sent events: the leaderboard, and a submission's status for its
author. Streams are bounded: so many at once in all and per client, each for a limited time (the browser's
EventSource opens the next one by itself)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from typing import Any, AsyncIterator, Callable

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

MAX_STREAMS = 64  # open at once in all (each holds one of the server's connections)
MAX_PER_CLIENT = 4  # open at once from one address
STREAM_SECONDS = 45.0  # a stream ends after this (within the server's time for a request), and is opened again
POLL = 1.0  # seconds between two looks at what a stream follows
KEEP_ALIVE = 10.0  # seconds of silence after which a comment is sent, so that a gone client is noticed
RETRY_MS = 2000  # the browser's wait before it opens the next stream


class StreamLimits:
    """How many streams are open, in all and per client address."""

    def __init__(self, total: int = MAX_STREAMS, per_client: int = MAX_PER_CLIENT) -> None:
        self.total, self.per_client = total, per_client
        self._open: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, client: str) -> str | None:
        """Open a stream for client: None, or why not (one line)."""
        with self._lock:
            if sum(self._open.values()) >= self.total:
                return f"{self.total} live streams are open, the most this server keeps: try again in a while"
            if self._open.get(client, 0) >= self.per_client:
                return f"{self.per_client} live streams are open from your address, the most per client"
            self._open[client] += 1
            return None

    def give_back(self, client: str) -> None:
        """A stream of client closed."""
        with self._lock:
            self._open[client] -= 1
            if self._open[client] <= 0:  # a client with none open is not kept
                del self._open[client]


class EventStream(StreamingResponse):
    """A text/event-stream of what `look` returns whenever it changes (None: nothing to send yet), until `done`
    says the last event was final, the client goes, or STREAM_SECONDS pass; its slot is given back however it
    ends."""

    def __init__(self, request: Request, event: str, look: Callable[[], Any], done: Callable[[Any], bool],
                 release: Callable[[], None], seconds: float = STREAM_SECONDS) -> None:
        super().__init__(_events(request, event, look, done, seconds), media_type="text/event-stream",
                         headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.release()


def limited_stream(request: Request, limits: StreamLimits, event: str, look: Callable[[], Any],
                   done: Callable[[Any], bool] = lambda _: False, seconds: float = STREAM_SECONDS) -> EventStream:
    """An EventStream for the request's client, within `limits` (a 429 past them)."""
    client = request.client.host if request.client else ""
    refused = limits.take(client)
    if refused is not None:
        raise HTTPException(429, refused)
    return EventStream(request, event, look, done, lambda: limits.give_back(client), seconds)


async def _events(request: Request, event: str, look: Callable[[], Any], done: Callable[[Any], bool],
                  seconds: float) -> AsyncIterator[str]:
    yield f"retry: {RETRY_MS}\n\n"
    last, quiet = None, time.monotonic()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not await request.is_disconnected():
        value = await run_in_threadpool(look)
        text = None if value is None else json.dumps(value, separators=(",", ":"))
        if text is not None and text != last:
            last, quiet = text, time.monotonic()
            yield f"event: {event}\ndata: {text}\n\n"
            if done(value):
                return
        elif time.monotonic() - quiet > KEEP_ALIVE:
            quiet = time.monotonic()
            yield ": still here\n\n"
        await asyncio.sleep(POLL)
