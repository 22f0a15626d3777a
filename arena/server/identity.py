"""Who is asking, as a library: API tokens (the slow hash checked once per token and process), sessions kept by
the store, a session's CSRF token, sign-in by a one-time code or a token, and sign-up by an invite code. How a
request is known from these is auth.py's; what it may then do, the access policy's (arena/competition/access.py)."""

from __future__ import annotations

import hashlib
import hmac
import logging
from typing import Callable

from arena.competition import names
from arena.competition.uploads import UploadRefused
from arena.errors import ConfigError
from arena.storage import Store
from arena.storage.authors import Author, Session, SessionSource, check_author_name

log = logging.getLogger("arena.serve")

SESSION_SECONDS = 14 * 24 * 3600
MAX_SECRET = 200  # characters of a session id, sign-in code or token looked up (longer ones are none of them)


class Identities:
    """The authors of a served competition as requests name them, over a store connection per serving thread."""

    def __init__(self, store: Callable[[], Store]) -> None:
        self.store = store
        self._tokens: dict[bytes, tuple[int, bytes]] = {}  # sha256 of a token checked once -> (author id, hash)

    def by_token(self, token: str) -> Author | None:
        """The author whose API token this is; the slow hash is checked once per token and process, and whether
        the author was revoked at every request."""
        digest = hashlib.sha256(token.encode()).digest()
        known = self._tokens.get(digest)
        if known is not None:
            return self.store().author_holding(*known)  # None once revoked, or the token replaced
        found = self.store().author_by_token(token)
        if found is None:
            return None
        self._tokens[digest] = (found[0].id, found[1])
        return found[0]

    def by_known_token(self, token: str) -> Author | None:
        """The author of a token already checked by by_token in this process, if it is still theirs (no slow hash);
        None for any other."""
        known = self._tokens.get(hashlib.sha256(token.encode()).digest())
        return None if known is None else self.store().author_holding(*known)

    def session_for(self, author: Author, source: SessionSource) -> str:
        """A new session of the author's made from `source`, kept by the store (as a hash) for SESSION_SECONDS or
        until it is ended: by a sign-out, the replacement of that secret, or the author's revocation."""
        return self.store().open_session(author, SESSION_SECONDS, source)

    def by_session(self, value: str) -> Author | None:
        """The author of a session that has not expired or been ended, if they are not revoked."""
        return self.store().session_author(value) if 0 < len(value) <= MAX_SECRET else None

    def sessions(self, author: Author, current: str = "") -> list[Session]:
        """The author's own sessions (never their ids), `current` (the asking request's session) marked."""
        return self.store().sessions_of(author, current if len(current) <= MAX_SECRET else "")

    def end_sessions(self, author: Author) -> int:
        """Sign the author out everywhere: every session of theirs ends (their API token stays)."""
        ended = self.store().end_sessions(author)
        log.info("%s signed out everywhere (%d sessions)", author.name, ended)
        return ended

    def end_session(self, value: str) -> None:
        """Sign out: the session opens nothing from now on."""
        if 0 < len(value) <= MAX_SECRET:
            self.store().end_session(value)

    @staticmethod
    def csrf_for(session: str) -> str:
        """The CSRF token of a session: the forms of its pages carry it, and a change without it is refused. Made
        from the session id, a secret only its browser holds, so that no key need be kept."""
        return hmac.new(session.encode(), b"csrf", hashlib.sha256).hexdigest() if session else ""

    def sign_in(self, secret: str) -> tuple[Author, SessionSource] | None:
        """The author whose one-time sign-in code this is (then used up), or whose API token it is, with which of
        the two it was; failed tries are limited per address by the caller."""
        if not 0 < len(secret) <= MAX_SECRET:
            return None
        author = self.store().sign_in(secret)
        if author is not None:
            return author, SessionSource.LINK
        author = self.by_token(secret)
        return None if author is None else (author, SessionSource.TOKEN)

    @staticmethod
    def check_new_author(name: str) -> None:
        """UploadRefused (400, 409) for a name no one may sign up under: not a name, or one that looks like a
        reserved one (the organiser's, a sample bot's); checked before any invite code."""
        try:
            check_author_name(name)
        except ConfigError as exc:
            raise UploadRefused(str(exc), 400) from None
        try:
            names.check_author_look(name, ())
        except ConfigError as exc:
            raise UploadRefused(str(exc), 409) from None

    def sign_up(self, code: str, name: str) -> tuple[Author, str] | None:
        """A new author NAME signed up by an invite code: (the author, their API token); None if the code is not
        one with a use left; UploadRefused (400, 409) for a name that is not a name, or that looks like a reserved
        one or an author's (no use spent)."""
        self.check_new_author(name)
        if not 0 < len(code) <= MAX_SECRET:
            return None
        try:
            return names.redeem_invite(self.store(), code, name)
        except ConfigError as exc:
            raise UploadRefused(str(exc), 409) from None
