"""Authors and their submissions as a hosted competition keeps them: typed rows, statuses, and the secrets (API
tokens, sign-in links) that are stored only as slow salted hashes and compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from enum import StrEnum
from typing import Callable

from arena.errors import ConfigError

AUTHOR_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
# scrypt's cost: about 16 MiB and some tens of milliseconds per check, so that a stolen store's hashes are slow to
# guess, while a token (32 random bytes) is never guessable in the first place.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 1 << 14, 8, 1
SALT_BYTES = 16
SECRET_BYTES = 32
SIGN_IN_SECONDS = 7 * 24 * 3600  # how long a sign-in link may wait for its first use
MAX_SESSIONS = 20  # an author's sessions at once: a new one ends the least recently used beyond
SEEN_EVERY = 60.0  # seconds: a session's last use is noted at most this often
NameCheck = Callable[[list[str]], None]  # raises ConfigError for a name that clashes with one of the names given
HOUSE_AUTHOR = "organiser"  # who the organiser's own submission folders belong to, if no organiser was added


class Status(StrEnum):
    """Where a submission is on its way into the ladder."""

    QUEUED = "queued"
    BUILDING = "building"
    VALIDATING = "validating"
    ADMITTED = "admitted"
    REFUSED = "refused"
    RETIRED = "retired"  # was admitted; its author took the bot out of the ladder (its games stay)


ACTIVE = (Status.QUEUED, Status.BUILDING, Status.VALIDATING)  # not yet decided


@dataclass(frozen=True)
class Author:
    """A competitor (or the organiser) as stored: never their secrets, only whether they may still sign in."""

    id: int
    name: str
    organiser: bool
    created: float
    revoked: float | None = None


class SessionSource(StrEnum):
    """What a session was made from: it ends when that secret is replaced (and with the author's revocation)."""

    LINK = "sign-in link"
    TOKEN = "API token"
    SIGN_UP = "sign-up"  # an invite code: the session goes with the API token given at sign-up


@dataclass(frozen=True)
class Session:
    """A session as its author is shown it: never its id."""

    number: int
    created: float
    source: SessionSource
    seen: float | None
    expires: float
    current: bool = False  # the session of the request that asked


@dataclass(frozen=True)
class Invite:
    """An invite code as stored: how many sign-ups it allows and has had, until when (never the code itself)."""

    id: int
    uses: int
    used: int
    expires: float
    created: float
    revoked: float | None = None

    def usable(self, now: float) -> bool:
        """True if the code would still sign someone up."""
        return self.revoked is None and self.used < self.uses and self.expires > now


@dataclass(frozen=True)
class Submission:
    """One uploaded version of a bot, with where it is on its way into the ladder."""

    id: int
    author: str
    bot: str
    version: str
    folder: str
    status: Status
    reason: str
    created: float
    updated: float
    build_log: str = ""

    def to_dict(self) -> dict[str, object]:
        """The plain form the API answers with."""
        plain: dict[str, object] = {"id": self.id, "bot": self.bot, "version": self.version,
                                    "status": self.status.value, "created": self.created, "updated": self.updated}
        if self.status in (Status.REFUSED, Status.RETIRED) and self.reason:  # why refused, or what replaced it
            plain["reason"] = self.reason
        return plain


def check_author_name(name: str) -> str:
    """name, if it can name an author: ConfigError saying what a name may hold."""
    if not AUTHOR_PATTERN.match(name):
        raise ConfigError(f"author name {name!r} must be 1-64 letters, digits, '_', '.' or '-', starting with a "
                          "letter or digit")
    return name


def new_secret(author_id: int) -> str:
    """A fresh secret for an author: their id (which row to check it against) and 32 random bytes."""
    return f"{author_id}.{secrets.token_urlsafe(SECRET_BYTES)}"


def salted_hash(secret: str, salt: bytes | None = None) -> tuple[bytes, bytes]:
    """(salt, scrypt hash) of a secret; a fresh random salt unless one is given."""
    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return salt, digest


def matches(secret: str, salt: bytes | None, digest: bytes | None) -> bool:
    """True if secret is the one hashed as digest with salt (compared in constant time)."""
    if not salt or not digest:
        return False
    return hmac.compare_digest(salted_hash(secret, salt)[1], digest)


def session_hash(session: str) -> bytes:
    """What the store keeps of a session id: its SHA-256 (an id is 32 random bytes, so no slow hash is needed to
    keep a stolen store's hashes from being turned back into sessions)."""
    return hashlib.sha256(session.encode()).digest()


def new_session() -> str:
    """A fresh session id: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(SECRET_BYTES)


def author_id_of(secret: str) -> int | None:
    """The author id a secret names (its part before the dot), or None for anything not shaped like one."""
    head, _, tail = secret.partition(".")
    if not head.isdigit() or len(head) > 12 or not tail or len(secret) > 200:
        return None
    return int(head)
