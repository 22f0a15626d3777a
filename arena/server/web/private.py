"""A bot's private routes, for its author and the organiser only (404 for anyone else): its page (its rows, uploads,
games and faults), its log of a game, its private replay pages, and retiring it."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.server.auth import Authentication
from arena.server.guard import Access, access, author, check_csrf, csrf, guarded, known, not_found
from arena.server.hosting import Hosting
from arena.server.web.pages import page
from arena.server.web.steering import bot_challenges, bot_versions


class PrivatePages:
    """The routes of a bot's private pages, over one Hosting."""

    def __init__(self, hosting: Hosting) -> None:
        self.h = hosting

    def routes(self, auth: Authentication) -> list[Route]:
        """The private routes, each held to its handler's rule."""
        return [guarded(auth, path, handler, methods) for path, handler, methods in (
            ("/api/games/{number:number}/log", self.api_game_log, None), ("/me/bots/{bot}", self.my_bot, None),
            ("/me/bots/{bot}/retire", self.retire, ["POST"]), ("/api/bots/{bot}", self.api_retire, ["DELETE"]),
            ("/me/games/{number:number}", self.my_game, None))]

    @access(Access.BOT_AUTHOR)
    def api_game_log(self, request: Request) -> Response:
        found = self.h.games.game_log(request.path_params["number"], request.query_params.get("bot", ""))
        if found is None:
            raise not_found()
        return JSONResponse(found)

    @access(Access.BOT_AUTHOR)
    def my_bot(self, request: Request) -> Response:
        viewer, bot = author(request), request.path_params["bot"]
        rows = [r for r in self.h.board.leaderboard() if r["bot"] == bot]
        submissions = [s for s in self.h.submissions.listed(viewer) if s.bot == bot]
        games = self.h.bots.games_of(bot)
        return page("bot.html.j2", bot, viewer, csrf(request), bot=bot, rows=rows, submissions=submissions,
                    games=games, faults=self.h.bots.faults_of(bot, games), paused=self.h.bots.paused(bot),
                    versions=bot_versions(self.h, viewer, bot), challenges=bot_challenges(self.h, viewer, bot))

    @access(Access.BOT_AUTHOR)
    def api_retire(self, request: Request) -> Response:
        """Retire a bot with its owner's (or the organiser's) token, or their session with its CSRF token: it
        leaves the ladder, its games stay."""
        if known(request).by_cookie:
            check_csrf(request, None)
        if not self.h.bots.retire(author(request), request.path_params["bot"]):
            raise not_found()
        return JSONResponse({"bot": request.path_params["bot"], "status": "retired"})

    @access(Access.BOT_AUTHOR)
    async def retire(self, request: Request) -> Response:
        """The retire button of a bot's page."""
        async with request.form(max_files=0, max_fields=2) as form:
            if known(request).by_cookie:
                check_csrf(request, form.get("csrf"))
        bot = request.path_params["bot"]
        if not await run_in_threadpool(self.h.bots.retire, author(request), bot):
            raise not_found()
        return RedirectResponse(f"/me/bots/{bot}", 303)

    @access(Access.BOT_AUTHOR)
    def my_game(self, request: Request) -> Response:
        found = self.h.games.private_replay(request.path_params["number"], request.query_params.get("bot", ""))
        if found is None:
            raise not_found()
        return HTMLResponse(found, headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY"})
