"""An author's webhooks as the store keeps them: each hook's address and events (its secret never: only the salt it
is derived from), the deliveries waiting or done (an outbox any process of the arena writes and the server's
delivery worker reads), each attempt's outcome, and the last rank each bot was told of."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from arena.storage.connection import Connection, _guarded

PENDING, DELIVERED, FAILED, DROPPED = "pending", "delivered", "failed", "dropped"
KEPT_DELIVERIES = 50  # per hook: older finished deliveries (and their attempts) are removed as new ones come


@dataclass(frozen=True)
class Webhook:
    """A registered hook: where it posts, for which events, and the salt its secret is derived from (with the key
    kept beside the store: the secret itself is never stored)."""

    id: int
    author_id: int
    url: str
    events: tuple[str, ...]
    salt: bytes
    created: float
    ended: float | None = None


@dataclass(frozen=True)
class Delivery:
    """One event on its way to one hook: the exact body that is signed and sent, and the attempts made so far."""

    id: int
    hook_id: int
    url: str
    salt: bytes
    event: str
    bot: str
    body: bytes
    attempts: int


@dataclass(frozen=True)
class Attempt:
    """One try at a delivery: when, the receiver's HTTP status (None if none came), what went wrong ("" if it was
    taken), and what the delivery is now (pending: tried again at `next`)."""

    delivery: int
    event: str
    bot: str
    number: int
    at: float
    status: int | None
    error: str
    seconds: float
    state: str
    next: float | None


class Webhooks(Connection):
    """Webhooks, their deliveries and attempts, and the bots' last announced ranks."""

    @_guarded
    def add_webhook(self, author_id: int, url: str, events: tuple[str, ...], salt: bytes, most: int) -> int | None:
        """A new hook of the author's (its id), or None if they hold `most` already: counted and added in one
        transaction, so that two requests at once cannot both take the last place."""
        with self._transaction():
            held = self.db.execute("SELECT COUNT(*) FROM webhooks WHERE author_id = ? AND ended IS NULL",
                                   (author_id,)).fetchone()[0]
            if held >= most:
                return None
            return self.db.execute("INSERT INTO webhooks (author_id, url, events, salt, created) VALUES (?,?,?,?,?)",
                                   (author_id, url, json.dumps(list(events)), salt, time.time())).lastrowid

    _HOOK = "SELECT id, author_id, url, events, salt, created, ended FROM webhooks "

    @staticmethod
    def _hook(row: tuple[object, ...]) -> Webhook:
        hid, author_id, url, events, salt, created, ended = row
        return Webhook(hid, author_id, url, tuple(json.loads(events)), bytes(salt), created, ended)  # type: ignore[arg-type]

    @_guarded
    def webhooks(self, author_id: int) -> list[Webhook]:
        """The author's hooks that have not been ended, oldest first."""
        rows = self.db.execute(self._HOOK + "WHERE author_id = ? AND ended IS NULL ORDER BY id", (author_id,))
        return [self._hook(row) for row in rows]

    @_guarded
    def webhook(self, hook_id: int) -> Webhook | None:
        """One hook by id (ended ones too), or None."""
        row = self.db.execute(self._HOOK + "WHERE id = ?", (hook_id,)).fetchone()
        return None if row is None else self._hook(row)

    @_guarded
    def end_webhook(self, author_id: int, hook_id: int) -> bool:
        """End one of the author's hooks (its deliveries still waiting are dropped); False if the author has no
        such hook."""
        with self._transaction():
            ended = self.db.execute("UPDATE webhooks SET ended = ? WHERE id = ? AND author_id = ? AND ended IS NULL",
                                    (time.time(), hook_id, author_id)).rowcount
            self.db.execute("UPDATE webhook_deliveries SET state = ? WHERE hook_id = ? AND state = ?",
                            (DROPPED, hook_id, PENDING))
        return bool(ended)

    @_guarded
    def subscribers(self, author: str, event: str) -> list[int]:
        """The ids of the author's live hooks that asked for this event."""
        rows = self.db.execute("SELECT w.id, w.events FROM webhooks w JOIN authors a ON a.id = w.author_id WHERE "
                               "a.name = ? AND w.ended IS NULL AND a.revoked IS NULL ORDER BY w.id", (author,))
        return [hid for hid, events in rows if event in json.loads(events)]

    @_guarded
    def queue_delivery(self, hook_id: int, event: str, bot: str, body: bytes, once: str | None,
                       most_pending: int) -> bool:
        """Queue a delivery for the hook, due now; False if one with the same `once` key was queued before. Past
        `most_pending` waiting deliveries of the hook, the oldest are dropped (a receiver down for long does not
        make the outbox grow without end), and finished ones beyond KEPT_DELIVERIES are removed."""
        now = time.time()
        with self._transaction():
            added = self.db.execute("INSERT OR IGNORE INTO webhook_deliveries (hook_id, event, bot, once, body, state, "
                                    "due, created) VALUES (?,?,?,?,?,?,?,?)",
                                    (hook_id, event, bot, once, body, PENDING, now, now)).rowcount
            self.db.execute("UPDATE webhook_deliveries SET state = ? WHERE id IN (SELECT id FROM webhook_deliveries "
                            "WHERE hook_id = ? AND state = ? ORDER BY id DESC LIMIT -1 OFFSET ?)",
                            (DROPPED, hook_id, PENDING, most_pending))
            old = ("SELECT id FROM webhook_deliveries WHERE hook_id = ? AND state != ? ORDER BY id DESC LIMIT -1 "
                   "OFFSET ?")
            self.db.execute(f"DELETE FROM webhook_attempts WHERE delivery_id IN ({old})",
                            (hook_id, PENDING, KEPT_DELIVERIES))
            self.db.execute(f"DELETE FROM webhook_deliveries WHERE id IN ({old})", (hook_id, PENDING, KEPT_DELIVERIES))
        return bool(added)

    @_guarded
    def due_deliveries(self, now: float, most: int, besides: frozenset[int] = frozenset()) -> list[Delivery]:
        """Up to `most` waiting deliveries of live hooks due by now, oldest due first, but those in `besides` (the
        ones being sent)."""
        rows = self.db.execute(
            "SELECT d.id, d.hook_id, w.url, w.salt, d.event, d.bot, d.body, d.attempts FROM webhook_deliveries d JOIN "
            "webhooks w ON w.id = d.hook_id WHERE d.state = ? AND d.due <= ? AND w.ended IS NULL ORDER BY d.due, d.id "
            "LIMIT ?", (PENDING, now, most + len(besides)))
        found = [Delivery(i, h, u, bytes(s), e, b, bytes(body), n) for i, h, u, s, e, b, body, n in rows]
        return [d for d in found if d.id not in besides][:most]

    @_guarded
    def record_attempt(self, delivery: int, at: float, status: int | None, error: str, seconds: float,
                       state: str, due: float | None = None) -> None:
        """One attempt's outcome, and what the delivery is now (pending again: due at `due`)."""
        with self._transaction():
            self.db.execute("INSERT INTO webhook_attempts (delivery_id, at, status, error, seconds) VALUES "
                            "(?,?,?,?,?)", (delivery, at, status, error, seconds))
            self.db.execute("UPDATE webhook_deliveries SET attempts = attempts + 1, state = ?, due = COALESCE(?, "
                            "due) WHERE id = ? AND state = ?", (state, due, delivery, PENDING))

    @_guarded
    def attempts(self, hook_id: int, most: int) -> list[Attempt]:
        """The hook's last `most` attempts, newest first, each numbered within its delivery."""
        rows = self.db.execute(
            "SELECT d.id, d.event, d.bot, (SELECT COUNT(*) FROM webhook_attempts p WHERE p.delivery_id = d.id AND "
            "p.id <= t.id), t.at, t.status, t.error, t.seconds, d.state, d.due FROM webhook_attempts t JOIN "
            "webhook_deliveries d ON d.id = t.delivery_id WHERE d.hook_id = ? ORDER BY t.id DESC LIMIT ?",
            (hook_id, most))
        return [Attempt(d, e, b, n, at, status, error, seconds, state, due if state == PENDING else None)
                for d, e, b, n, at, status, error, seconds, state, due in rows]

    @_guarded
    def waiting(self, hook_id: int) -> int:
        """How many deliveries of the hook wait for their next attempt."""
        return self.db.execute("SELECT COUNT(*) FROM webhook_deliveries WHERE hook_id = ? AND state = ?",
                               (hook_id, PENDING)).fetchone()[0]

    @_guarded
    def announced_ranks(self) -> dict[str, int]:
        """Each bot's rank as last announced (after the last wave)."""
        return dict(self.db.execute("SELECT bot, rank FROM bot_ranks"))

    @_guarded
    def set_announced_ranks(self, ranks: dict[str, int]) -> None:
        """Replace the bots' last announced ranks."""
        with self._transaction():
            self.db.execute("DELETE FROM bot_ranks")
            self.db.executemany("INSERT INTO bot_ranks VALUES (?, ?)", sorted(ranks.items()))
