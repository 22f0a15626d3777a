"""The routes by which a competitor steers their bot: its versions listed (`GET /api/bots/NAME`), the admitted
version that plays chosen (`PUT /api/bots/NAME/active`, and the form of its page), and challenges asked for and
followed (`/api/challenges`). Anyone but its author and the organiser is told the bot does not exist (404)."""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.competition import challenges, versions
from arena.server.auth import Authentication
from arena.server.guard import Access, access, author, check_csrf, guarded, known, not_found
from arena.server.hosting import Hosting
from arena.storage.authors import Author


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


async def _json_body(request: Request) -> Any:
    try:
        return json.loads(await request.body() or b"null")
    except (ValueError, UnicodeDecodeError):
        return None


class Steering:
    """The steering routes over one Hosting."""

    def __init__(self, hosting: Hosting) -> None:
        self.h = hosting

    def routes(self, auth: Authentication) -> list[Route]:
        """The steering routes, each held to its handler's rule."""
        return [guarded(auth, path, handler, methods) for path, handler, methods in (
            ("/api/bots/{bot}", self.api_versions, ["GET"]), ("/api/bots/{bot}/active", self.api_choose, ["PUT"]),
            ("/me/bots/{bot}/active", self.choose_form, ["POST"]),
            ("/me/bots/{bot}/challenge", self.challenge_form, ["POST"]),
            ("/api/challenges", self.api_challenge, ["POST"]), ("/api/challenges", self.api_challenges, ["GET"]),
            ("/api/challenges/{cid:number}", self.api_challenge_view, ["GET"]),
            ("/api/challenges/{cid:number}/games/{number:number}/log", self.api_challenge_log, ["GET"]))]

    @access(Access.BOT_AUTHOR)
    def api_versions(self, request: Request) -> Response:
        """GET /api/bots/NAME: {"bot", "active", "versions"}, to its author and the organiser."""
        found = versions.listing(self.h.store(), self.h.settings.name, author(request), request.path_params["bot"])
        if found is None:
            raise not_found()
        return JSONResponse(found)

    @access(Access.BOT_AUTHOR)
    async def api_choose(self, request: Request) -> Response:
        """PUT /api/bots/NAME/active with {"version": V}: that admitted version plays from the next wave."""
        if known(request).by_cookie:
            check_csrf(request, None)
        body = await _json_body(request)
        version = body.get("version") if isinstance(body, dict) else None
        if not isinstance(version, str) or not version:
            raise HTTPException(400, 'send JSON {"version": V}, V a version of the bot as GET /api/bots/NAME lists it')
        return JSONResponse(await run_in_threadpool(self._choose, author(request), request.path_params["bot"],
                                                    version))

    @access(Access.BOT_AUTHOR)
    async def choose_form(self, request: Request) -> Response:
        """The form of a bot's page that picks the version that plays."""
        async with request.form(max_files=0, max_fields=2) as form:
            if known(request).by_cookie:
                check_csrf(request, form.get("csrf"))
            version = form.get("version")
        bot = request.path_params["bot"]
        if not isinstance(version, str) or not version:
            raise HTTPException(400, "choose a version")
        await run_in_threadpool(self._choose, author(request), bot, version)
        return RedirectResponse(f"/me/bots/{bot}", 303)

    def _choose(self, chooser: Author, bot: str, version: str) -> dict[str, Any]:
        try:
            chosen = versions.choose(self.h.store(), chooser, bot, version)
        except versions.VersionRefused as exc:
            raise HTTPException(exc.status, str(exc)) from None
        if chosen is None:
            raise not_found()
        found = versions.listing(self.h.store(), self.h.settings.name, chooser, bot)
        assert found is not None  # it was seen a moment ago, and a bot's uploads are never deleted
        return found

    @access(Access.SENDER)
    async def api_challenge(self, request: Request) -> Response:
        """POST /api/challenges: a challenge queued (202 {"id"}), or why not."""
        if known(request).by_cookie:
            check_csrf(request, None)
        found = await self._ask(author(request), await _json_body(request))
        return JSONResponse({"id": found.id, "status": found.status}, 202)

    async def _ask(self, asker: Author, body: Any) -> Any:
        h = self.h
        try:
            return await run_in_threadpool(lambda: challenges.ask(h.store(), h.settings, asker, body))
        except challenges.ChallengeRefused as exc:
            raise HTTPException(exc.status, str(exc)) from None

    @access(Access.BOT_AUTHOR)
    def api_challenges(self, request: Request) -> Response:
        """GET /api/challenges?bot=NAME: the bot's challenges, to its author and the organiser."""
        return JSONResponse(bot_challenges(self.h, author(request), request.query_params.get("bot", "")))

    @access(Access.ANYONE)
    def api_challenge_view(self, request: Request) -> Response:
        """GET /api/challenges/ID: where it is and what its games came to (404 for anyone but its sides)."""
        found = challenges.view(self.h.store(), self.h.settings, known(request).author, request.path_params["cid"])
        if found is None:
            raise not_found()
        return JSONResponse(found)

    @access(Access.ANYONE)
    def api_challenge_log(self, request: Request) -> Response:
        """GET /api/challenges/ID/games/N/log?bot=NAME: the bot's own log of a challenge's game."""
        found = challenges.game_log(self.h.store(), self.h.settings, known(request).author,
                                    request.path_params["cid"], request.path_params["number"],
                                    request.query_params.get("bot", ""))
        if found is None:
            raise not_found()
        return JSONResponse(found)

    @access(Access.BOT_AUTHOR)
    async def challenge_form(self, request: Request) -> Response:
        """The challenge form of a bot's page: rivals (names apart by commas or spaces) and games, or two of its
        versions to test until decided."""
        async with request.form(max_files=0, max_fields=6) as form:
            if known(request).by_cookie:
                check_csrf(request, form.get("csrf"))
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
        await self._ask(author(request), body)
        return RedirectResponse(f"/me/bots/{bot}#challenges", 303)
