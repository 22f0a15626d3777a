"""The routes by which a competitor steers their bot: its versions listed (`GET /api/bots/NAME`), the admitted
version that plays chosen (`PUT /api/bots/NAME/active`, and the form of its page), and challenges asked for and
followed (`/api/challenges`). Anyone but its author and the organiser is told the bot does not exist (404)."""

from __future__ import annotations

import json
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.competition import challenges, versions
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
            Route("/me/bots/{bot}/active", steer.choose_form, methods=["POST"]),
            Route("/me/bots/{bot}/challenge", steer.challenge_form, methods=["POST"]),
            Route("/api/challenges", steer.api_challenge, methods=["POST"]),
            Route("/api/challenges", steer.api_challenges, methods=["GET"]),
            Route("/api/challenges/{cid:int}", steer.api_challenge_view, methods=["GET"]),
            Route("/api/challenges/{cid:int}/games/{number:int}/log", steer.api_challenge_log, methods=["GET"])]


def bot_versions(hosting: Hosting, viewer: Author | None, bot: str) -> dict[int, dict[str, Any]]:
    """The versions of a bot its page lists, by upload number ({} for anyone who may not see it)."""
    found = versions.listing(hosting.store(), hosting.settings.name, viewer, bot)
    return {} if found is None else {v["upload"]: v for v in found["versions"]}


def bot_challenges(hosting: Hosting, viewer: Author | None, bot: str) -> list[dict[str, Any]]:
    """The challenges a bot's page lists (its own and those it was challenged to), newest first, as their author or
    a rival's sees them."""
    store = hosting.store()
    shown = (challenges.view(store, hosting.settings, viewer, c.id) for c in store.challenges_of([bot]))
    return [c for c in shown if c is not None]


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

    async def api_challenge(self, request: Request) -> Response:
        """POST /api/challenges: a challenge queued (202 {"id"}), or why not."""
        author, by_cookie = await run_in_threadpool(self.web.who, request)
        if author is None:
            raise HTTPException(401, "sign in, or send your API token as: Authorization: Bearer TOKEN")
        if by_cookie:
            self.web.check_csrf(request, None)
        try:
            body = json.loads(await request.body() or b"null")
        except ValueError:
            body = None
        h = self.web.h
        try:
            found = await run_in_threadpool(lambda: challenges.ask(h.store(), h.settings, author, body))
        except challenges.ChallengeRefused as exc:
            raise HTTPException(exc.status, str(exc)) from None
        return JSONResponse({"id": found.id, "status": found.status}, 202)

    def api_challenges(self, request: Request) -> Response:
        """GET /api/challenges?bot=NAME: the bot's challenges, to its author and the organiser."""
        author, _ = self.web.who(request)
        bot = request.query_params.get("bot", "")
        h = self.web.h
        if not self.web.h.may_see(author, bot):
            raise HTTPException(404, NOT_FOUND)
        return JSONResponse(bot_challenges(h, author, bot))

    def api_challenge_view(self, request: Request) -> Response:
        """GET /api/challenges/ID: where it is and what its games came to."""
        author, _ = self.web.who(request)
        found = challenges.view(self.web.h.store(), self.web.h.settings, author, request.path_params["cid"])
        if found is None:
            raise HTTPException(404, NOT_FOUND)
        return JSONResponse(found)

    def api_challenge_log(self, request: Request) -> Response:
        """GET /api/challenges/ID/games/N/log?bot=NAME: the bot's own log of a challenge's game."""
        author, _ = self.web.who(request)
        h = self.web.h
        found = challenges.game_log(h.store(), h.settings, author, request.path_params["cid"],
                                    request.path_params["number"], request.query_params.get("bot", ""))
        if found is None:
            raise HTTPException(404, NOT_FOUND)
        return JSONResponse(found)

    async def challenge_form(self, request: Request) -> Response:
        """The challenge form of a bot's page: rivals (names apart by commas or spaces) and games, or two of its
        versions to test until decided."""
        author, by_session = await run_in_threadpool(self.web.who, request)
        if author is None:
            raise HTTPException(404, NOT_FOUND)
        async with request.form(max_files=0, max_fields=6) as form:
            if by_session:
                self.web.check_csrf(request, form.get("csrf"))
            fields = {k: v.strip() for k in ("rivals", "games", "version", "rival_version")
                      if isinstance(v := form.get(k), str)}
        bot = request.path_params["bot"]
        games = fields.get("games", "")
        body: dict[str, Any] = {"bot": bot, "games": int(games) if games.isdigit() else games}
        if fields.get("version") or fields.get("rival_version"):
            body.update(rivals=[bot], until="decided", version=fields.get("version"),
                        rival_version=fields.get("rival_version"))
        else:
            body["rivals"] = fields.get("rivals", "").replace(",", " ").split()
        h = self.web.h
        try:
            await run_in_threadpool(lambda: challenges.ask(h.store(), h.settings, author, body))
        except challenges.ChallengeRefused as exc:
            raise HTTPException(exc.status, str(exc)) from None
        return RedirectResponse(f"/me/bots/{bot}#challenges", 303)
