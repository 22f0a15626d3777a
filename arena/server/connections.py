"""Connections `arena serve` keeps open, bounded per client address: so many at once from one address, and a
connection that has not sent a whole request's headers within a few seconds is closed, so that slow connections
from one place cannot take the server's connections from everyone else."""

from __future__ import annotations

import asyncio
from collections import Counter

from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_PER_ADDRESS = 32  # connections open at once from one client address
HEADER_SECONDS = 10.0  # a connection's request line and headers must arrive within this

_open: Counter[str] = Counter()  # connections open now, per client address (one server per process)


class GuardedConnection(H11Protocol):
    """uvicorn's HTTP/1.1 connection, refused past MAX_PER_ADDRESS from its address and closed when it sends no
    whole request within HEADER_SECONDS of opening or of its last answer."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._address = self.client[0] if self.client else ""
        self._counted = _open[self._address] < MAX_PER_ADDRESS
        self._timer: asyncio.TimerHandle | None = None
        if not self._counted:
            transport.close()
            return
        _open[self._address] += 1
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._counted:
            self._counted = False
            _open[self._address] -= 1
            if _open[self._address] <= 0:
                del _open[self._address]
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later(HEADER_SECONDS, self._late)

    def _late(self) -> None:
        """No request under way HEADER_SECONDS after the connection opened or was last answered: closed."""
        waiting = self.cycle is None or self.cycle.response_complete
        if waiting and not self.transport.is_closing():
            self.transport.close()
