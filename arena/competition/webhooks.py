"""Webhooks: an author's bots' events (admitted, refused, paused, a challenge done, a rank change) posted as signed
JSON to the addresses the author registered. An event is queued in the store (`notify`, from whichever process
sees it: the season's, or the server's) and sent by the server's delivery worker (delivery.py), so that neither a
request nor the season ever waits for a receiver.

A hook's secret signs its deliveries, so the server must be able to make it again, which a slow hash (as the
authors' tokens are kept) would not allow. It is not stored at all: it is derived from a random salt the store
keeps and a key kept in a file beside the store (`signing_key`), so that the store alone (a backup, a copy sent
for debugging) gives no secret away, and a key file replaced ends every hook's secret at once."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import AbstractSet as Set
from typing import Any, Mapping

from arena.competition.addresses import AllowedHosts, check_hook_url
from arena.errors import ConfigError
from arena.storage import Store
from arena.storage.authors import Status, Submission
from arena.storage.keys import bot_of

log = logging.getLogger("arena.serve")

ADMITTED, REFUSED, PAUSED, CHALLENGE_DONE, RANK_CHANGED = "admitted", "refused", "paused", "challenge_done", \
    "rank_changed"
EVENTS = (ADMITTED, REFUSED, PAUSED, CHALLENGE_DONE, RANK_CHANGED)
MAX_HOOKS = 5  # live hooks per author
MAX_PENDING = 100  # deliveries waiting per hook: past it the oldest are dropped
SIGNATURE_HEADER = "X-Arena-Signature"
KEY_SUFFIX = ".webhook-key"  # the signing key's file, beside the store's
KEY_BYTES = 32
SALT_BYTES = 16


@dataclass(frozen=True)
class HookRequest:
    """A hook as an author asks for it: checked."""

    url: str
    events: tuple[str, ...]


def check_hook(data: Any, allowed: AllowedHosts) -> HookRequest:
    """The hook a request's JSON asks for, checked: ConfigError naming the first thing wrong."""
    if not isinstance(data, dict):
        raise ConfigError('send a JSON object: {"url": "https://example.org/hook", "events": ["admitted", ...]}')
    unknown = sorted(set(data) - {"url", "events"})
    if unknown:
        raise ConfigError(f"unknown field {unknown[0][:40]!r}: a hook has \"url\" and \"events\"")
    url = check_hook_url(data.get("url"), allowed)
    events = data.get("events")
    if not isinstance(events, list) or not events or not all(isinstance(e, str) for e in events):
        raise ConfigError(f'"events" must be a non-empty list of event names, of: {", ".join(EVENTS)}')
    for event in events:
        if event not in EVENTS:
            raise ConfigError(f"unknown event {event[:40]!r}: the events are {', '.join(EVENTS)}")
    return HookRequest(url, tuple(e for e in EVENTS if e in events))


def key_path(db: Path) -> Path:
    """Where the key that hooks' secrets are derived from is kept: beside the store."""
    return Path(db).with_name(Path(db).name + KEY_SUFFIX)


def signing_key(db: Path) -> bytes:
    """The key hooks' secrets are derived from, made (readable by its user alone) at its first use."""
    path = key_path(db)
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(KEY_BYTES))
    try:
        key = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the webhooks' key {str(path)!r} ({exc.strerror or exc})") from None
    if len(key) < KEY_BYTES:  # cut short, as by a crash between its creation and its write: never a weak key
        raise ConfigError(f"the webhooks' key {str(path)!r} is damaged: remove it (every hook's secret then changes; "
                          "authors register their hooks again)")
    return key


def new_salt() -> bytes:
    """A new hook's salt, kept in the store: its secret is derived from it."""
    return secrets.token_bytes(SALT_BYTES)


def hook_secret(key: bytes, salt: bytes) -> str:
    """A hook's secret, as its author is shown it once and as deliveries are signed with (its UTF-8 bytes)."""
    return "whsec_" + hmac.new(key, b"webhook secret\0" + salt, hashlib.sha256).hexdigest()


def signature(secret: str, body: bytes) -> str:
    """The X-Arena-Signature of a body: sha256=HEX, HMAC-SHA256 of the body's exact bytes under the secret."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def body_of(event: str, bot: str, payload: Mapping[str, Any]) -> bytes:
    """A delivery's body: the event, the bot, when, and the event's own fields, as compact JSON."""
    return json.dumps({**payload, "event": event, "bot": bot, "at": round(time.time(), 3)}, sort_keys=True,
                      separators=(",", ":")).encode()


def notify(store: Store, event: str, bot: str, payload: Mapping[str, Any] | None = None, author: str | None = None,
           once: str | None = None) -> int:
    """Queue `event` of `bot` for every hook of its author's (the bot's owner unless `author` is given) that asked
    for it; how many deliveries were queued. Any process may call it: the server's delivery worker sends what the
    store holds. `once`: a key that queues the event only once per hook however often it is told."""
    if event not in EVENTS:
        raise ValueError(f"unknown webhook event {event!r}")
    author = author or store.bot_owner(bot)
    if author is None:  # a sample bot's, or a name given back: nobody to tell
        return 0
    hooks = store.subscribers(author, event)
    if not hooks:
        return 0
    body = body_of(event, bot, payload or {})
    return sum(store.queue_delivery(hook, event, bot, body, once, MAX_PENDING) for hook in hooks)


def announce_decision(store: Store, submission: Submission, status: Status, reason: str = "") -> None:
    """An upload admitted or refused, told to its author's hooks (the reason of a refusal as the author is shown
    it)."""
    event = ADMITTED if status == Status.ADMITTED else REFUSED
    payload: dict[str, Any] = {"version": submission.version, "upload": submission.id}
    if event == REFUSED:
        payload["reason"] = reason
    notify(store, event, submission.bot, payload, author=submission.author, once=f"{event}:{submission.id}")


def announce_pause(store: Store, submission: Submission, reason: str) -> None:
    """An admitted version that sits out of the ladder, told once per upload and reason."""
    notify(store, PAUSED, submission.bot, {"version": submission.version, "upload": submission.id,
                                           "reason": reason},
           author=submission.author, once=f"{PAUSED}:{submission.id}:{reason}")


def board_ranks(scores: Mapping[str, float], retired: set[str]) -> dict[str, int]:
    """Each bot's place on the board (1 = first) given its entrants' scores (mu - 3 sigma, of those that have
    played) by key: ordered as the served board orders them (by score, ties by key), retired versions left out,
    a bot at its best version's place."""
    ordered = sorted((key for key in scores if key not in retired), key=lambda k: (-scores[k], k))
    ranks: dict[str, int] = {}
    for place, key in enumerate(ordered, 1):
        ranks.setdefault(bot_of(key), place)
    return ranks


def announce_ranks(store: Store, scores: Mapping[str, float], retired: Set[str]) -> int:
    """After a ladder wave: every owned bot whose place on the board differs from the one last announced is told
    (`previous` null at its first place); the places are kept for the next wave. `retired`: the keys of the
    versions off the board, as the ladder keeps them. How many bots moved."""
    now = board_ranks(scores, retired)
    owners = store.bot_owners()
    now = {bot: rank for bot, rank in now.items() if bot in owners}
    before = store.announced_ranks()
    moved = [bot for bot, rank in now.items() if before.get(bot) != rank]
    for bot in moved:
        notify(store, RANK_CHANGED, bot, {"rank": now[bot], "previous": before.get(bot)},
               author=owners[bot])
    if now != before:
        store.set_announced_ranks(now)
    return len(moved)

