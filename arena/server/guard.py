"""Who may use a route, stated by the route, and the one middleware that holds every request to it: it asks
(auth.py) who sent the request, once, and keeps the answer on the request for its handler (`known`), so that no
handler asks or checks by hand. A private thing is answered 404 for anyone who may not see it (never 403), so that
whether it exists does not leak; the CSRF token a change by a session cookie carries is still checked where the
change reads its form (`check_csrf`)."""

from __future__ import annotations

import enum
import functools
import hmac
import inspect
from dataclasses import dataclass
from typing import Any, Callable, TypeVar
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.convertors import IntegerConvertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from arena.server.auth import Authentication, Known, carried_session
from arena.server.identity import Identities
from arena.storage.authors import Author

NOT_FOUND = "not found"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")  # they change nothing: no CSRF token or origin is asked of them
CSRF_HEADER = "x-csrf-token"  # a script's cookie-authenticated change sends its page's CSRF token here
SIGN_IN_FIRST = ("sign in first.{ended} Sign in at /signin with your API token, or with a sign-in link: ask the "
                 "organiser for one")
SEND_TOKEN = "sign in, or send your API token as: Authorization: Bearer TOKEN"
ENDED = " Your session has ended (signed out, or expired)."
NUMBER_DIGITS = 18  # of a number in a route's path: 10**18 - 1 is below SQLite's largest integer, 2**63 - 1
F = TypeVar("F", bound=Callable[..., Any])


class Number(IntegerConvertor):
    """A number in a route's path (`{name:number}`): at most NUMBER_DIGITS digits, so that every one fits SQLite's
    integers; a longer one matches no route (404) instead of overflowing a query."""

    regex = f"[0-9]{{1,{NUMBER_DIGITS}}}"


register_url_convertor("number", Number())  # before any route is built: guarded() builds them all


class Access(enum.Enum):
    """Who may use a route: each handler states one (`access`), and the middleware holds its requests to it."""

    OPEN = "open"  # no one is asked who they are: the board's data, the published site, game pages, the doors' pages
    DOOR = "door"  # the sign-in and sign-up forms: no one is asked, but the form must come from this site's pages
    ANYONE = "anyone"  # anyone, known if signed in (the page names them)
    SIGNED_IN = "signed in"  # an author's own pages: 401 for anyone signed out
    SENDER = "sender"  # a change a program also makes with its API token: 401 for anyone signed out, naming it
    BOT_AUTHOR = "bot author"  # the bot's author or the organiser (the bot of the path, or of ?bot=): 404 else
    SUBMISSION_AUTHOR = "submission author"  # the upload's author or the organiser: 404 for anyone else


def access(rule: Access) -> Callable[[F], F]:
    """Mark a handler with who may use its route."""
    def marked(handler: F) -> F:
        handler.access = rule  # type: ignore[attr-defined]
        return handler
    return marked


def guarded(authentication: Authentication, path: str, handler: Callable[..., Any],
            methods: list[str] | None = None) -> Route:
    """The route of a handler, its requests held to the rule the handler states: by the middleware (Guard) around
    an open route or a coroutine, and by the same check first thing in the worker thread of any other handler."""
    rule = getattr(handler, "access", None)
    if not isinstance(rule, Access):
        raise TypeError(f"the handler of {path} states no access rule")
    if rule in (Access.OPEN, Access.DOOR) or inspect.iscoroutinefunction(handler):
        return Route(path, handler, methods=methods, middleware=[Middleware(Guard, authentication, rule)])
    held_to = Held(authentication, rule)

    @functools.wraps(handler)
    def held(request: Request) -> Any:
        # A handler that runs in a worker thread has its request's check run first in the same thread: one
        # hand-over to a thread a request, and one connection to the store, not two.
        request.state.known, request.state.submission = held_to.check(request)
        return handler(request)
    return Route(path, held, methods=methods)


class Guard:
    """The authentication middleware, around an open route or a coroutine handler: who sent the request, asked once
    (in a worker thread: a token's check is slow) for every route but an open one, is kept on the request as `known`,
    with the upload a SUBMISSION_AUTHOR route names as `submission`; a request its route's rule refuses is answered
    401 or 404 here, and a change sent with a session cookie from another site's page 403, before the handler runs."""

    def __init__(self, app: ASGIApp, authentication: Authentication, rule: Access) -> None:
        self.app, self.rule, self.held = app, rule, Held(authentication, rule)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        if self.rule in (Access.OPEN, Access.DOOR):
            if self.rule == Access.DOOR:
                same_origin(request)
            found: tuple[Known, Any] = (Known(None, False, carried_session(request)), None)
        else:
            found = await run_in_threadpool(self.held.check, request)
        request.state.known, request.state.submission = found
        await self.app(scope, receive, send)


@dataclass(frozen=True)
class Held:
    """A route's rule over the one authentication: the check the middleware makes of each request."""

    authentication: Authentication
    rule: Access

    def check(self, request: Request) -> tuple[Known, Any]:
        """Who sent the request, and the upload its route names (SUBMISSION_AUTHOR): HTTPException 401 or 404 where
        the route's rule refuses them (403 for a change sent with a cookie from another site's page)."""
        known = self.authentication.who(request)
        author = known.author
        if known.by_cookie and author is not None and request.method not in SAFE_METHODS:
            same_origin(request)  # every route's; each such change also carries its session's CSRF token
        if author is None and self.rule == Access.SIGNED_IN:
            raise HTTPException(401, SIGN_IN_FIRST.format(ended=ENDED if known.session else ""))
        if author is None and self.rule == Access.SENDER:
            raise HTTPException(401, SEND_TOKEN)
        hosting = self.authentication.hosting
        if self.rule == Access.BOT_AUTHOR:
            bot = request.path_params.get("bot", request.query_params.get("bot", ""))
            if not hosting.bots.may_see(author, bot):
                raise not_found()
        if self.rule == Access.SUBMISSION_AUTHOR:
            submission = None if author is None else hosting.submissions.submission(author, request.path_params["sid"])
            if submission is None:
                raise not_found()
            return known, submission
        return known, None


def known(request: Request) -> Known:
    """Who sent the request, as the middleware found it."""
    found: Known = request.state.known
    return found


def author(request: Request) -> Author:
    """The author who sent a request of a route that only a signed-in author reaches."""
    found = known(request).author
    if found is None:
        raise RuntimeError(f"{request.url.path}: a route for anyone asked for a signed-in author")
    return found


def same_origin(request: Request) -> None:
    """A form that signs in or up, or a change sent with a session cookie, must come from this site's own pages (a
    browser names the page's origin): another site's form cannot act as its visitor."""
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.headers.get("host", ""):
        raise HTTPException(403, "this request was sent from another site's page: use this site's own pages")


def csrf(request: Request) -> str:
    """The CSRF token of the session the request carries ("" for none), which its page's forms carry."""
    return Identities.csrf_for(known(request).session)


def check_csrf(request: Request, sent: Any) -> None:
    """A change made with a session cookie must carry the session's CSRF token (a form's hidden field, or the
    header CSRF_HEADER of a script's request)."""
    sent = request.headers.get(CSRF_HEADER, sent)
    if not isinstance(sent, str) or not sent or not hmac.compare_digest(sent, csrf(request)):
        raise HTTPException(403, "the request has no valid CSRF token: reload the page and send it again (a "
                            f"script sends the page's token as the header {CSRF_HEADER})")


def not_found() -> HTTPException:
    """The answer to anything that does not exist, or that the request may not see."""
    return HTTPException(404, NOT_FOUND)
