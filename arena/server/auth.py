"""How a request is known: the one authentication seam of `arena serve`. Each way of signing in is a backend that
reads its own part of a request (a bearer token, a session cookie); the first that finds its part decides. A
second way to sign in (an identity provider's login, which would give the request a session of its own once the
provider has said who it is) is one more backend in `Authentication.backends`, and no route changes. Only the
middleware (guard.py) asks who sent a request; only this module reads or writes the session cookie."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Protocol, TypeVar

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from arena.server.hosting import Hosting
from arena.server.identity import SESSION_SECONDS
from arena.server.limits import FailedAuthentications, Limited
from arena.storage.authors import Author

COOKIE = "arena_session"
LIMITED_WAIT = 1.0  # seconds a secret refused unchecked waits for its answer
T = TypeVar("T")
Check = Callable[[Callable[[], Author | None]], Author | None]  # a secret checked, failures limited per address


class TooManyFailures(HTTPException):
    """A 429 for a secret refused unchecked (limits.Limited): answered only after LIMITED_WAIT, so that a guesser
    held at the limit sends one request a second on each connection, not hundreds."""

    def __init__(self, message: str) -> None:
        super().__init__(429, message)


@dataclass(frozen=True)
class Known:
    """Who sent a request (None: no one signed in), and whether by a session cookie (whose forms need its CSRF
    token) rather than a token sent by a program; `session`, the session cookie the request carries ("" for none),
    whether or not it is still a session."""

    author: Author | None
    by_cookie: bool
    session: str = ""


class Backend(Protocol):
    """One way of signing in."""

    def authenticate(self, request: Request, hosting: Hosting, check: Check) -> Known | None:
        """Who the request is by this way (HTTPException 401 for a secret of this way that is not valid), or None
        where the request does not use it."""


class BearerToken:
    """A program's API token: `Authorization: Bearer TOKEN`."""

    def authenticate(self, request: Request, hosting: Hosting, check: Check) -> Known | None:
        header = request.headers.get("authorization", "")
        if not header:
            return None
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise HTTPException(401, "send the API token as the header: Authorization: Bearer TOKEN")
        # A token checked before in this process costs no slow hash: it is not counted toward the limits.
        identities = hosting.identities
        author = identities.by_known_token(token.strip()) or check(lambda: identities.by_token(token.strip()))
        if author is None:
            raise HTTPException(401, "the API token is not valid (revoked, mistyped, or replaced)")
        return Known(author, False)


class SessionCookie:
    """A browser's session, kept server-side: the cookie a sign-in sets."""

    def authenticate(self, request: Request, hosting: Hosting, check: Check) -> Known | None:
        cookie = carried_session(request)
        return Known(hosting.identities.by_session(cookie) if cookie else None, True, cookie)


DEFAULT_BACKENDS: tuple[Backend, ...] = (BearerToken(), SessionCookie())


class Authentication:
    """The backends, asked in turn (a bearer token wins over a cookie), and the limit on failed secrets per address
    that every one of them goes through."""

    def __init__(self, hosting: Hosting, backends: tuple[Backend, ...] = DEFAULT_BACKENDS) -> None:
        self.hosting, self.backends = hosting, backends
        self.failures = FailedAuthentications()

    def who(self, request: Request) -> Known:
        """Who sent the request; a 401 for a secret that is not valid, a 429 for an address that failed too often
        (before its secret is checked)."""
        for backend in self.backends:
            known = backend.authenticate(request, self.hosting, lambda secret: self.checked(request, secret))
            if known is not None:
                return known if known.session else replace(known, session=carried_session(request))
        return Known(None, False, carried_session(request))

    def checked(self, request: Request, check: Callable[[], T | None]) -> T | None:
        """check() of a secret the request sent (a token, a sign-in or invite code), counted as a failure unless it
        finds something; a 429 before the check for an address that failed too often lately, or when all
        addresses together did; at most SLOW_CHECKS checks at once, so that a flood of guesses takes neither the
        processor nor the memory."""
        client = request.client.host if request.client else ""
        try:
            stamp = self.failures.attempt(client)
        except Limited as exc:
            raise TooManyFailures(str(exc)) from None
        found = self.failures.slowly(check)
        if found is not None:
            self.failures.forgive(client, stamp)
        return found


def carried_session(request: Request) -> str:
    """The session cookie a request carries ("" for none), not yet looked up."""
    return request.cookies.get(COOKIE, "")


def set_session(response: Response, session: str, request: Request) -> None:
    """Sign the browser in: the response sets its session cookie."""
    response.set_cookie(COOKIE, session, max_age=SESSION_SECONDS, httponly=True, samesite="lax",
                        secure=request.url.scheme == "https")


def end_session(response: Response) -> None:
    """Sign the browser out: the response deletes its session cookie."""
    response.delete_cookie(COOKIE)
