"""The doors' routes: signing in (a one-time link's code or an API token), signing up by an invite code, signing
out here or everywhere, an author's sessions, and an author's own page."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.competition.uploads import UploadRefused
from arena.server.auth import Authentication, end_session, set_session
from arena.server.guard import Access, access, author, check_csrf, csrf, guarded, known
from arena.server.hosting import Hosting
from arena.server.identity import MAX_SECRET
from arena.server.web.pages import page
from arena.storage.authors import Session, SessionSource


class Doors:
    """The routes that sign authors in, up and out, over one Hosting and the authentication that limits failed
    secrets per address."""

    def __init__(self, hosting: Hosting, auth: Authentication) -> None:
        self.h, self.auth = hosting, auth
        self.people = hosting.identities

    def routes(self) -> list[Route]:
        """The routes of the doors, each held to its handler's rule."""
        return [guarded(self.auth, path, handler, methods) for path, handler, methods in (
            ("/signin", self.signin_page, None), ("/signin/{code}", self.signin_page, None),
            ("/signin", self.signin, ["POST"]), ("/join/{code}", self.join_page, None),
            ("/join", self.join, ["POST"]), ("/signout", self.signout, ["POST"]),
            ("/signout/everywhere", self.signout_everywhere, ["POST"]), ("/me", self.me, None),
            ("/api/sessions", self.api_sessions, None), ("/api/sessions", self.api_end_sessions, ["DELETE"]))]

    @access(Access.OPEN)
    def signin_page(self, request: Request) -> Response:
        """The sign-in page: a link's code, sent on by pressing sign in (a POST, so that no code is followed by a
        browser's prefetch), or a field for a code or an API token."""
        code = request.path_params.get("code", "")[:MAX_SECRET]
        return page("signin.html.j2", "sign in", None, code=code)

    @access(Access.DOOR)
    async def signin(self, request: Request) -> Response:
        async with request.form(max_files=0, max_fields=2) as form:
            secret = form.get("code") or form.get("token")
        if not isinstance(secret, str) or not secret.strip():
            raise HTTPException(400, "send the sign-in code or your API token")
        found = await run_in_threadpool(self.auth.checked, request, lambda: self.people.sign_in(secret.strip()))
        if found is None:
            raise HTTPException(403, "this sign-in link or token is not valid: a link works once and for a week; "
                                "ask the organiser for a new link, or use your API token")
        response = RedirectResponse("/me", 303)
        set_session(response, await run_in_threadpool(self.people.session_for, *found), request)
        return response

    @access(Access.OPEN)
    def join_page(self, request: Request) -> Response:
        return page("join.html.j2", "sign up", None, code=request.path_params["code"][:200])

    @access(Access.DOOR)
    async def join(self, request: Request) -> Response:
        """Sign up with an invite code: a new author, signed in, shown their API token this once."""
        async with request.form(max_files=0, max_fields=2) as form:
            code, name = form.get("code"), form.get("name")
        if not isinstance(code, str) or not isinstance(name, str):
            raise HTTPException(400, "send the invite code and a name")
        try:
            self.people.check_new_author(name.strip())  # a name no one may have costs no guess of the code
            # A wrong code is a failed secret like a wrong token: counted toward the same limits, before its hash.
            found = await run_in_threadpool(self.auth.checked, request, lambda: self.people.sign_up(code, name.strip()))
        except UploadRefused as exc:  # the name: said as what it is, not as an upload's refusal
            raise HTTPException(exc.status, str(exc)) from None
        if found is None:
            raise HTTPException(403, "this invite code is not valid: it was used up, has expired or was revoked; "
                                "ask the organiser for a new one")
        signed_up, token = found
        session = await run_in_threadpool(self.people.session_for, signed_up, SessionSource.SIGN_UP)
        response = page("joined.html.j2", f"welcome, {signed_up.name}", signed_up, self.people.csrf_for(session),
                        token=token, base=str(request.base_url).rstrip("/"))
        set_session(response, session, request)
        return response

    @access(Access.OPEN)
    async def signout(self, request: Request) -> Response:
        async with request.form(max_files=0, max_fields=2) as form:
            check_csrf(request, form.get("csrf"))
        await run_in_threadpool(self.people.end_session, known(request).session)
        response = RedirectResponse("/", 303)
        end_session(response)
        return response

    @access(Access.SIGNED_IN)
    async def signout_everywhere(self, request: Request) -> Response:
        """The form of /me that ends every session of its author's, this one included."""
        async with request.form(max_files=0, max_fields=2) as form:
            check_csrf(request, form.get("csrf"))
        await run_in_threadpool(self.people.end_sessions, author(request))
        response = RedirectResponse("/", 303)
        end_session(response)
        return response

    @access(Access.SIGNED_IN)
    def api_sessions(self, request: Request) -> Response:
        """The asking author's sessions: when each was made, from what, when last used (never its id)."""
        return JSONResponse([_session_json(s) for s in self.people.sessions(author(request), known(request).session)])

    @access(Access.SENDER)
    def api_end_sessions(self, request: Request) -> Response:
        """End every session of the asking author's (by their token, or a session with its CSRF token)."""
        if known(request).by_cookie:
            check_csrf(request, None)
        return JSONResponse({"ended": self.people.end_sessions(author(request))})

    @access(Access.SIGNED_IN)
    def me(self, request: Request) -> Response:
        signed_in = author(request)
        return page("me.html.j2", f"{signed_in.name}: your bots", signed_in, csrf(request),
                    bots=self.h.submissions.bots_listed(signed_in), submissions=self.h.submissions.listed(signed_in),
                    sessions=self.people.sessions(signed_in, known(request).session))


def _session_json(session: Session) -> dict[str, Any]:
    return {"number": session.number, "created": session.created, "source": session.source.value,
            "last_seen": session.seen, "expires": session.expires, "current": session.current}
