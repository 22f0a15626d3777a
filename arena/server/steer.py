"""The routes by which a competitor steers their bot: its versions listed (`GET /api/bots/NAME`), and the admitted
version that plays chosen (`PUT /api/bots/NAME/active`, and the form of its page). Anyone but its author and the
organiser is told the bot does not exist (404)."""

from __future__ import annotations

import json
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.competition import versions
from arena.server.hosting import Hosting
from arena.storage.authors import Author

NOT_FOUND = "not found"


class Web(Protocol):
    """What these routes ask of the web layer: who is asking, and the CSRF check of a change by session."""

    h: Hosting

    def who(self, request: Request) -> tuple[Author | None, bool]: ...

    def check_csrf(self, request: Request, sent: Any) -> None: ...


def routes(web: Web) -> list[Route]:
    """The steering routes over the web layer `web`."""
    steer = _Steer(web)
    return [Route("/api/bots/{bot}", steer.api_versions, methods=["GET"]),
            Route("/api/bots/{bot}/active", steer.api_choose, methods=["PUT"]),
            Route("/me/bots/{bot}/active", steer.choose_form, methods=["POST"])]


def bot_versions(hosting: Hosting, viewer: Author | None, bot: str) -> dict[int, dict[str, Any]]:
    """The versions of a bot its page lists, by upload number ({} for anyone who may not see it)."""
    found = versions.listing(hosting.store(), hosting.settings.name, viewer, bot)
    return {} if found is None else {v["upload"]: v for v in found["versions"]}


class _Steer:
    def __init__(self, web: Web) -> None:
        self.web = web

    def api_versions(self, request: Request) -> Response:
        """GET /api/bots/NAME: {"bot", "active", "versions"}, to its author and the organiser."""
        author, _ = self.web.who(request)
        found = versions.listing(self.web.h.store(), self.web.h.settings.name, author, request.path_params["bot"])
        if found is None:
            raise HTTPException(404, NOT_FOUND)
        return JSONResponse(found)

    async def api_choose(self, request: Request) -> Response:
        """PUT /api/bots/NAME/active with {"version": V}: that admitted version plays from the next wave."""
        author, by_cookie = await run_in_threadpool(self.web.who, request)
        if by_cookie and author is not None:
            self.web.check_csrf(request, None)
        try:
            body = json.loads(await request.body() or b"null")
        except ValueError:
            body = None
        version = body.get("version") if isinstance(body, dict) else None
        if not isinstance(version, str) or not version:
            raise HTTPException(400, 'send JSON {"version": V}, V a version of the bot as GET /api/bots/NAME lists it')
        return JSONResponse(await run_in_threadpool(self._choose, author, request.path_params["bot"], version))

    async def choose_form(self, request: Request) -> Response:
        """The form of a bot's page that picks the version that plays."""
        author, by_session = await run_in_threadpool(self.web.who, request)
        async with request.form(max_files=0, max_fields=2) as form:
            if by_session:
                self.web.check_csrf(request, form.get("csrf"))
            version = form.get("version")
        bot = request.path_params["bot"]
        if not isinstance(version, str) or not version:
            raise HTTPException(400, "choose a version")
        await run_in_threadpool(self._choose, author, bot, version)
        return RedirectResponse(f"/me/bots/{bot}", 303)

    def _choose(self, author: Author | None, bot: str, version: str) -> dict[str, Any]:
        h = self.web.h
        try:
            chosen = versions.choose(h.store(), author, bot, version)
        except versions.VersionRefused as exc:
            raise HTTPException(exc.status, str(exc)) from None
        if chosen is None:
            raise HTTPException(404, NOT_FOUND)
        found = versions.listing(h.store(), h.settings.name, author, bot)
        assert found is not None  # it was seen a moment ago, and a bot's uploads are never deleted
        return found
