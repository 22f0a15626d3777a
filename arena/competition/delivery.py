"""Webhooks' deliveries, sent by the server in threads of their own: the store's outbox read every POLL seconds into a
bounded queue, a few senders posting each delivery, a failed one tried again after a growing wait, a bounded
number of times. Every request is checked against the SSRF policy where it is sent: the receiver's host resolved,
every address it resolves to checked, and the connection made to the address checked (never resolved again, so
that a name that answers a public address to the check and a private one to the connection gets nowhere);
redirects are not followed."""

from __future__ import annotations

import http.client
import logging
import queue
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from arena import __version__
from arena.competition.addresses import AllowedHosts, refused_because
from arena.competition.webhooks import SIGNATURE_HEADER, hook_secret, signature, signing_key
from arena.errors import ArenaError
from arena.storage import Store
from arena.storage.outbox import DELIVERED, FAILED, PENDING, Delivery

log = logging.getLogger("arena.serve")
POLL = 1.0  # seconds between two looks at the outbox
SENDERS = 4  # deliveries sent at once: a slow receiver holds up one sender, not the others
QUEUED = 32  # deliveries taken from the outbox and waiting for a sender, at most
TIMEOUT = 10.0  # seconds a receiver has to connect, and then for each read
RETRY_AFTER = (3.0, 30.0, 300.0, 1800.0)  # seconds before the 2nd, 3rd, ... attempt
ATTEMPTS = len(RETRY_AFTER) + 1  # then the delivery has failed
ANSWER_BYTES = 4096  # of a receiver's answer read (and dropped)
ERROR_CHARS = 200  # of what went wrong, kept with an attempt


class Refused(ArenaError):
    """A delivery the SSRF policy does not send: its host resolves to an address that is refused."""


@dataclass(frozen=True)
class Outcome:
    """What one attempt came to: the receiver's HTTP status (None if none came) and what went wrong ("" if it took
    the delivery); `final`: not tried again, whatever is left."""

    status: int | None
    error: str
    final: bool = False


def checked_addresses(host: str, port: int, allowed: AllowedHosts) -> list[str]:
    """The addresses host resolves to, if every one may be reached: Refused naming the first that may not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ArenaError(f"{host[:80]} does not resolve ({exc})") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    for address in addresses:
        why = refused_because(address, allowed, host)
        if why is not None:
            raise Refused(f"{host[:80]} resolves to {address}, {why}: refused (the organiser may allow the host in "
                          "[serve] webhook_hosts)")
    return addresses


class _Pinned(http.client.HTTPConnection):
    """An HTTP connection to one address checked already, whatever its host's name resolves to now."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedTLS(http.client.HTTPSConnection):
    """An HTTPS connection to one address checked already, the certificate checked against the host's name."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def post(url: str, body: bytes, headers: dict[str, str], allowed: AllowedHosts,
         timeout: float = TIMEOUT) -> Outcome:
    """POST body to url if the SSRF policy allows its host's every address: the receiver's answer (2xx: taken)."""
    parts = urlsplit(url)
    host, tls = parts.hostname or "", parts.scheme == "https"
    port = parts.port or (443 if tls else 80)
    try:
        address = checked_addresses(host, port, allowed)[0]
    except Refused as exc:
        return Outcome(None, str(exc), final=True)
    except ArenaError as exc:
        return Outcome(None, str(exc))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection = (_PinnedTLS if tls else _Pinned)(host, port, address, timeout)
    try:
        connection.request("POST", path, body, headers)
        answer = connection.getresponse()
        answer.read(ANSWER_BYTES)
    except (OSError, http.client.HTTPException) as exc:
        return Outcome(None, f"{type(exc).__name__}: {exc}"[:ERROR_CHARS] or "the connection failed")
    finally:
        connection.close()
    if 200 <= answer.status < 300:
        return Outcome(answer.status, "")
    if 300 <= answer.status < 400:
        return Outcome(answer.status, "a redirect, which is not followed: register the address it names instead",
                       final=True)
    return Outcome(answer.status, f"the receiver answered {answer.status} {answer.reason}"[:ERROR_CHARS])


def headers_for(delivery: Delivery, secret: str) -> dict[str, str]:
    """A delivery's headers: its signature, event and number (a retry has the same number: a receiver drops a
    number it took already)."""
    return {"Content-Type": "application/json", "User-Agent": f"bali-arena/{__version__} webhooks",
            SIGNATURE_HEADER: signature(secret, delivery.body), "X-Arena-Event": delivery.event,
            "X-Arena-Delivery": str(delivery.id)}


class Deliveries:
    """The server's delivery worker: `start()` with the server, `stop()` when it stops (an attempt cut off is
    made again at the next start)."""

    def __init__(self, db: Path, allowed: AllowedHosts, senders: int = SENDERS, poll: float = POLL) -> None:
        self.db, self.allowed, self.poll = Path(db), allowed, poll
        self.stopping = threading.Event()
        self.queue: queue.Queue[Delivery] = queue.Queue(QUEUED)
        self._busy: set[int] = set()  # deliveries taken from the outbox and not yet recorded
        self._lock = threading.Lock()
        self._key: bytes | None = None
        self.threads = [threading.Thread(target=self._guard, args=(self._look,), name="webhooks", daemon=True),
                        *(threading.Thread(target=self._guard, args=(self._send,), name=f"webhook-sender-{n}",
                                           daemon=True) for n in range(senders))]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def stop(self, wait: float = 2.0) -> None:
        """Take nothing more from the outbox, and wait a while for the requests under way (each has its timeout)."""
        self.stopping.set()
        deadline = time.monotonic() + wait
        for thread in self.threads:
            if thread.ident is not None:
                thread.join(max(0.0, deadline - time.monotonic()))

    def _guard(self, loop: object) -> None:
        while not self.stopping.is_set():
            try:
                loop()  # type: ignore[operator]
                return
            except ArenaError as exc:  # the store failed: said, and tried again a while later
                log.error("webhooks: %s", exc)
                self.stopping.wait(5 * self.poll)

    def _look(self) -> None:
        with Store(self.db) as store:
            while not self.stopping.wait(self.poll):
                room = QUEUED - self.queue.qsize()
                with self._lock:
                    busy = frozenset(self._busy)
                for delivery in store.due_deliveries(time.time(), room, busy) if room > 0 else ():
                    with self._lock:
                        self._busy.add(delivery.id)
                    self.queue.put(delivery)

    def _send(self) -> None:
        with Store(self.db) as store:
            while not self.stopping.is_set():
                try:
                    delivery = self.queue.get(timeout=self.poll)
                except queue.Empty:
                    continue
                try:
                    self._deliver(store, delivery)
                finally:
                    with self._lock:
                        self._busy.discard(delivery.id)

    def _deliver(self, store: Store, delivery: Delivery) -> None:
        if self._key is None:
            self._key = signing_key(self.db)
        secret = hook_secret(self._key, delivery.salt)
        began = time.time()
        outcome = post(delivery.url, delivery.body, headers_for(delivery, secret), self.allowed)
        seconds = time.time() - began
        number = delivery.attempts + 1
        if not outcome.error:
            state, due = DELIVERED, None
        elif outcome.final or number >= ATTEMPTS:
            state, due = FAILED, None
        else:
            state, due = PENDING, time.time() + RETRY_AFTER[number - 1]
        if self.stopping.is_set() and state == PENDING:
            return  # cut off by the stop, maybe: not counted, tried again at the next start
        store.record_attempt(delivery.id, began, outcome.status, outcome.error, seconds, state, due)
