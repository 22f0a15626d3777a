"""The public side's routes: the front page and its live board, the rules and starter kits, the leaderboard and
the season's games as data, a bot's public page and rivals, a game's public replay, and the published site."""

from __future__ import annotations

import datetime
import mimetypes
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from arena import __version__
from arena.competition.ending import FinalTable
from arena.errors import ConfigError
from arena.kits import PREPARE, Language
from arena.server import dataset
from arena.server.auth import Authentication
from arena.server.board import BOT_PAGES
from arena.server.events import StreamLimits, limited_stream
from arena.server.guard import Access, access, csrf, guarded, known, not_found
from arena.server.hosting import Hosting
from arena.server.web.pages import HEADERS, page
from arena.site.markdown import html as markdown_html
from arena.storage.authors import Author

# The starter kits offered on the front page, with the step to run before uploading where a kit needs one.
KITS = [(k.value, " ".join(PREPARE[k]) if k in PREPARE else "") for k in Language]


class PublicSide:
    """The routes everyone may use, over one Hosting."""

    def __init__(self, hosting: Hosting, streams: StreamLimits) -> None:
        self.h, self.streams = hosting, streams
        self._board: tuple[Any, list[dict[str, Any]], bytes] | None = None  # the page everyone else sees, made
        self.finals = FinalTable(hosting.settings)  # the season's final table, once it has ended

    def routes(self, auth: Authentication) -> list[Route]:
        """The routes of this side, each held to its handler's rule."""
        return [guarded(auth, path, handler) for path, handler in (
            ("/health", self.health), ("/", self.board), ("/api/leaderboard", self.api_leaderboard),
            ("/rules", self.rules), ("/kits/{language}.zip", self.kit), ("/api/games", self.api_games),
            ("/api/export/{name}", self.api_export), ("/games/{number:number}", self.game),
            (BOT_PAGES + "{bot}", self.public_bot), ("/api/bots/{bot}/rivals", self.api_rivals),
            ("/events/leaderboard", self.leaderboard_events), ("/site/{path:path}", self.published))]

    @access(Access.OPEN)
    def health(self, request: Request) -> Response:
        t = self.h.board.tournament()
        return JSONResponse({"status": "ok", "version": __version__, "tournament": t.name if t else None})

    @access(Access.ANYONE)
    def board(self, request: Request) -> Response:
        """The front page: what the competition is, how to enter, its rules and kits, and the live board."""
        author = known(request).author
        site = "/site/" if (self.h.settings.site / "index.html").is_file() else None
        rows, playing = self.h.board.leaderboard(), self.h.playing()
        today = datetime.datetime.now(datetime.timezone.utc).date()
        origin = str(request.base_url).rstrip("/")
        finals = self.finals.table(self.h.store)
        if author is not None:
            return self._front(author, csrf(request), rows, site, playing, today, origin, finals)
        # Everyone else's page is the same: made once per change of the ranking, of who plays, of the site, the day
        # or the finals.
        key = (id(rows), self.h.board.board_chart(), playing, site, csrf(request), today, origin, id(finals))
        cached = self._board
        if cached is None or cached[0] != key or cached[1] is not rows:
            front = self._front(None, key[4], rows, site, playing, today, origin, finals)
            cached = self._board = (key, rows, front.body)
        return HTMLResponse(cached[2], headers=HEADERS)

    def _front(self, author: Author | None, token: str, rows: list[dict[str, Any]], site: str | None,
               playing: tuple[str, ...], today: datetime.date, origin: str,
               finals: dict[str, Any] | None = None) -> HTMLResponse:
        about = self.h.about
        return page("board.html.j2", about.title or self.h.settings.name, author, token, rows=rows, site=site,
                    playing=playing,
                    game=self.h.settings.play.game, description=markdown_html(about.description) if about.description
                    else "", state=about.state(today), about=about, kits=KITS, origin=origin,
                    chart=self.h.board.board_chart(), finals=finals, ends=self.h.settings.ends)

    @access(Access.ANYONE)
    def rules(self, request: Request) -> Response:
        return page("rules.html.j2", f"{self.h.settings.play.game}: the rules", known(request).author, csrf(request),
                    rules=self.h.rules())

    @access(Access.ANYONE)
    def kit(self, request: Request) -> Response:
        """A starter kit as a zip, its bot named by ?name= (else the author's name and the language, or 'mybot')."""
        author = known(request).author
        language = request.path_params["language"]
        name = request.query_params.get("name") or (f"{author.name}-{language}" if author else "mybot")
        try:
            data = self.h.kit(language, name)  # a name that is no bot name is refused there, before it is echoed
        except ConfigError as exc:
            raise HTTPException(400, str(exc)) from None
        if data is None:
            raise not_found()
        return Response(data, media_type="application/zip", headers={
            **HEADERS, "Content-Disposition": f'attachment; filename="{name}.zip"'})

    @access(Access.OPEN)
    def api_leaderboard(self, request: Request) -> Response:
        return Response(self.h.board.board_json(), media_type="application/json")

    @access(Access.OPEN)
    def api_games(self, request: Request) -> Response:
        bot = request.query_params.get("bot", "")
        if not bot:  # every game, a page at a time (arena/server/dataset.py)
            try:
                after, limit = dataset.page_limits(request.query_params.get("after"), request.query_params.get("limit"))
            except ConfigError as exc:
                raise HTTPException(400, str(exc)) from None
            return JSONResponse(dataset.games_page(self.h.store(), self.h.board.tournament(), after, limit))
        return JSONResponse(self.h.bots.games_of(bot))

    @access(Access.OPEN)
    def api_export(self, request: Request) -> Response:
        """One of the season's export files, streamed from the file open when it was asked for."""
        found = dataset.open_export(self.h.settings, request.path_params["name"])
        if found is None:
            raise not_found()
        f, size, kind = found
        return StreamingResponse(dataset.chunks(f), media_type=kind,
                                 headers={"Content-Length": str(size), "Cache-Control": "no-cache"})

    @access(Access.OPEN)
    def game(self, request: Request) -> Response:
        """A game's public replay page (no seat's logs), from the moment it is stored."""
        found = self.h.games.public_replay(request.path_params["number"])
        if found is None:
            raise not_found()
        return HTMLResponse(found, headers={"Cache-Control": "no-cache", "X-Frame-Options": "DENY"})

    @access(Access.ANYONE)
    def public_bot(self, request: Request) -> Response:
        """A bot's public page: its place on the board, versions, latest games and rating chart, as stored now."""
        found = self.h.bots.public_bot(request.path_params["bot"])
        if found is None:
            raise not_found()
        return page("public_bot.html.j2", found.name, known(request).author, csrf(request), bot=found)

    @access(Access.OPEN)
    def api_rivals(self, request: Request) -> Response:
        """A bot head to head with each rival bot it met in the ladder, as `arena leaderboard --rivals` lists it."""
        found = self.h.bots.rivals(request.path_params["bot"])
        if found is None:
            raise not_found()
        return JSONResponse(found)

    @access(Access.OPEN)
    def published(self, request: Request) -> Response:
        """A page or asset of the published site, read whole at once: the publisher replaces pages while they are
        read (a file served by size, then read, could change between the two)."""
        root = self.h.settings.site.resolve()
        path = (root / request.path_params["path"]).resolve()
        if path.is_dir():
            path = path / "index.html"
        if not path.is_relative_to(root) or path.name.endswith(".partial"):
            raise not_found()
        try:
            data = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise not_found() from None
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return Response(data, media_type=kind, headers={"Cache-Control": "no-cache"})

    @access(Access.OPEN)
    def leaderboard_events(self, request: Request) -> Response:
        """The leaderboard and the bots playing now, sent again whenever they change."""
        return limited_stream(request, self.streams, "leaderboard", lambda: {
            "rows": self.h.board.leaderboard(), "playing": list(self.h.playing())}, seconds=self.h.stream_seconds)
