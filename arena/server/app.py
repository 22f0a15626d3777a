"""The web layer of `arena serve`: routes that turn requests into calls of the hosting library (hosting.py) and
their results into JSON or pages. Private pages answer 404, never 403, to anyone but their author and the
organiser, so that whether a bot or game exists does not leak."""

from __future__ import annotations

import asyncio
import datetime
import hmac
import mimetypes
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from arena import __version__
from arena.competition.ending import FinalTable
from arena.competition.uploads import UploadRefused
from arena.errors import ConfigError
from arena.kits import PREPARE, Language
from arena.server import dataset, steer
from arena.server.auth import COOKIE, DEFAULT_BACKENDS, LIMITED_WAIT, Authentication, Backend, TooManyFailures
from arena.server.events import EventStream, StreamLimits
from arena.server.hosting import BOT_PAGES, MAX_SECRET, SESSION_SECONDS, STOPPING, Hosting
from arena.server.limits import SMALL_BODY, BodyRefused, BoundedRequests
from arena.server.webhook_routes import Routes as WebhookRoutes
from arena.site.markdown import html as markdown_html
from arena.storage.authors import ACTIVE, Author, Session, SessionSource, Status, Submission

UPLOAD_PATHS = ("/api/submissions", "/me/upload")
NOT_FOUND = "not found"
ACTIVE_STATUSES = {s.value for s in ACTIVE}
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")  # they change nothing: no CSRF token or origin is asked of them
CSRF_HEADER = "x-csrf-token"  # a script's cookie-authenticated change sends its page's CSRF token here
# same-origin: a page's address (a sign-in link's code among them) is never sent on to another site, while a form
# sent to this site still names its origin (no-referrer would make it "null").
_HEADERS = {"Cache-Control": "no-store", "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin"}
# The starter kits offered on the front page, with the step to run before uploading where a kit needs one.
KITS = [(k.value, " ".join(PREPARE[k]) if k in PREPARE else "") for k in Language]
_env = jinja2.Environment(loader=jinja2.PackageLoader("arena.server", "templates"), autoescape=True)


def make_app(hosting: Hosting, backends: tuple[Backend, ...] = DEFAULT_BACKENDS) -> BoundedRequests:
    """The served competition as an ASGI app, every request bounded in size and time; requests known by the ways
    of signing in `backends` (auth.py)."""
    web = _Web(hosting, backends)
    routes = [
        Route("/health", web.health), Route("/", web.board), Route("/api/leaderboard", web.api_leaderboard),
        Route("/rules", web.rules), Route("/kits/{language}.zip", web.kit),
        Route("/api/games", web.api_games), Route("/api/games/{number:int}/log", web.api_game_log),
        Route("/api/export/{name}", web.api_export),
        Route("/games/{number:int}", web.game), Route(BOT_PAGES + "{bot}", web.public_bot),
        Route("/api/submissions", web.api_submit, methods=["POST"]),
        Route("/api/submissions/{sid:int}", web.api_submission),
        Route("/signin", web.signin_page), Route("/signin/{code}", web.signin_page),
        Route("/signin", web.signin, methods=["POST"]),
        Route("/join/{code}", web.join_page), Route("/join", web.join, methods=["POST"]),
        Route("/signout", web.signout, methods=["POST"]),
        Route("/signout/everywhere", web.signout_everywhere, methods=["POST"]), Route("/me", web.me),
        Route("/api/sessions", web.api_sessions), Route("/api/sessions", web.api_end_sessions, methods=["DELETE"]),
        Route("/me/upload", web.upload, methods=["POST"]), Route("/me/bots/{bot}", web.my_bot),
        Route("/me/bots/{bot}/retire", web.retire, methods=["POST"]),
        Route("/api/bots/{bot}", web.api_retire, methods=["DELETE"]),
        Route("/api/bots/{bot}/rivals", web.api_rivals),
        Route("/me/games/{number:int}", web.my_game), Route("/me/submissions/{sid:int}", web.my_submission),
        Route("/me/submissions/{sid:int}/game", web.my_first_game),
        Route("/events/leaderboard", web.leaderboard_events),
        Route("/events/submissions/{sid:int}", web.submission_events),
        *WebhookRoutes(hosting, web).routes(),
    ]
    hosting.settings.site.mkdir(parents=True, exist_ok=True)
    hosting.sweep_temp()  # what uploads cut off by a SIGKILL left: the app's own temp folders, named by its store
    routes += steer.routes(web)
    routes.append(Route("/site/{path:path}", web.published))
    app = Starlette(routes=routes, exception_handlers={HTTPException: _error, UploadRefused: _refused,
                                                       TooManyFailures: _too_many})
    cap = hosting.limits.max_upload + SMALL_BODY  # the multipart envelope around the archive
    return BoundedRequests(app, lambda path: cap if path in UPLOAD_PATHS else SMALL_BODY, hosting.body_seconds)


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith(("/api/", "/events/")) or request.url.path == "/health"


async def _error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if _wants_json(request):
        return JSONResponse({"error": exc.detail}, exc.status_code)
    return _page("message.html.j2", exc.detail, None, status=exc.status_code, message=exc.detail)


async def _too_many(request: Request, exc: Exception) -> Response:
    # The wait holds no thread (only this request's connection, of the few an address may hold).
    await asyncio.sleep(LIMITED_WAIT)
    return await _error(request, exc)


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, UploadRefused)
    if _wants_json(request):
        return JSONResponse({"error": str(exc)}, exc.status)
    return _page("message.html.j2", "upload refused", None, status=exc.status, message=str(exc))


def _page(template: str, title: str, author: Author | None, csrf: str = "", status: int = 200,
          **values: Any) -> HTMLResponse:
    text = _env.get_template(template).render(title=title, author=author, csrf=csrf, when=_when, now=time.time(),
                                              version=__version__, **values)
    return HTMLResponse(text, status, headers=_HEADERS)


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(stamp))


def _set_session(response: Response, session: str, request: Request) -> None:
    response.set_cookie(COOKIE, session, max_age=SESSION_SECONDS, httponly=True, samesite="lax",
                        secure=request.url.scheme == "https")


def _session_json(session: Session) -> dict[str, Any]:
    return {"number": session.number, "created": session.created, "source": session.source.value,
            "last_seen": session.seen, "expires": session.expires, "current": session.current}


def _not_found() -> HTTPException:
    return HTTPException(404, NOT_FOUND)


class _Web:
    """The route handlers, over one Hosting."""

    def __init__(self, hosting: Hosting, backends: tuple[Backend, ...] = DEFAULT_BACKENDS) -> None:
        self.h = hosting
        self.streams = StreamLimits()
        self.auth = Authentication(hosting, backends)
        self._board: tuple[Any, list[dict[str, Any]], bytes] | None = None  # the page everyone else sees, made
        self.finals = FinalTable(hosting.settings)  # the season's final table, once it has ended

    # --- who is asking ------------------------------------------------------------------------------------------
    def who(self, request: Request) -> tuple[Author | None, bool]:
        """The one way a request is known (auth.py): (the author, whether by a session cookie). A change asked for
        with a session cookie from another site's page (its browser names that origin) is refused here, for every
        route; each such change also carries its session's CSRF token (check_csrf)."""
        known = self.auth.who(request)
        if known.by_cookie and known.author is not None and request.method not in SAFE_METHODS:
            self.same_origin(request)
        return known.author, known.by_cookie

    def signed_in(self, request: Request) -> Author:
        author, _ = self.who(request)
        if author is None:
            ended = " Your session has ended (signed out, or expired)." if request.cookies.get(COOKIE) else ""
            raise HTTPException(401, f"sign in first.{ended} Sign in at /signin with your API token, or with a "
                                "sign-in link: ask the organiser for one")
        return author

    @staticmethod
    def same_origin(request: Request) -> None:
        """A form that signs in or up must come from this site's own pages (a browser names the page's origin):
        another site's form cannot sign its visitor in as someone else."""
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host", ""):
            raise HTTPException(403, "this request was sent from another site's page: use this site's own pages")

    def csrf(self, request: Request) -> str:
        return self.h.csrf_for(request.cookies.get(COOKIE, ""))

    def check_csrf(self, request: Request, sent: Any) -> None:
        """A change made with a session cookie must carry the session's CSRF token (a form's hidden field, or the
        header CSRF_HEADER of a script's request)."""
        sent = request.headers.get(CSRF_HEADER, sent)
        if not isinstance(sent, str) or not sent or not hmac.compare_digest(sent, self.csrf(request)):
            raise HTTPException(403, "the request has no valid CSRF token: reload the page and send it again (a "
                                f"script sends the page's token as the header {CSRF_HEADER})")

    # --- public -------------------------------------------------------------------------------------------------
    def health(self, request: Request) -> Response:
        t = self.h.tournament()
        return JSONResponse({"status": "ok", "version": __version__, "tournament": t.name if t else None})

    def board(self, request: Request) -> Response:
        """The front page: what the competition is, how to enter, its rules and kits, and the live board."""
        author, _ = self.who(request)
        site = "/site/" if (self.h.settings.site / "index.html").is_file() else None
        rows, playing = self.h.leaderboard(), self.h.playing()
        today = datetime.datetime.now(datetime.timezone.utc).date()
        origin = str(request.base_url).rstrip("/")
        finals = self.finals.table(self.h.store())
        if author is not None:
            return self._front(author, self.csrf(request), rows, site, playing, today, origin, finals)
        # Everyone else's page is the same: made once per change of the ranking, of who plays, of the site, the day
        # or the finals.
        key = (id(rows), self.h.board_chart(), playing, site, self.csrf(request), today, origin, id(finals))
        cached = self._board
        if cached is None or cached[0] != key or cached[1] is not rows:
            page = self._front(None, key[4], rows, site, playing, today, origin, finals)
            cached = self._board = (key, rows, page.body)
        return HTMLResponse(cached[2], headers=_HEADERS)

    def _front(self, author: Author | None, csrf: str, rows: list[dict[str, Any]], site: str | None,
               playing: tuple[str, ...], today: datetime.date, origin: str,
               finals: dict[str, Any] | None = None) -> HTMLResponse:
        about = self.h.about
        return _page("board.html.j2", about.title or self.h.settings.name, author, csrf, rows=rows, site=site,
                     playing=playing,
                     game=self.h.settings.play.game, description=markdown_html(about.description) if about.description
                     else "", state=about.state(today), about=about, kits=KITS, origin=origin,
                     chart=self.h.board_chart(), finals=finals, ends=self.h.settings.ends)

    def rules(self, request: Request) -> Response:
        author, _ = self.who(request)
        return _page("rules.html.j2", f"{self.h.settings.play.game}: the rules", author, self.csrf(request),
                     rules=self.h.rules())

    def kit(self, request: Request) -> Response:
        """A starter kit as a zip, its bot named by ?name= (else the author's name and the language, or 'mybot')."""
        author, _ = self.who(request)
        language = request.path_params["language"]
        name = request.query_params.get("name") or (f"{author.name}-{language}" if author else "mybot")
        try:
            data = self.h.kit(language, name)  # a name that is no bot name is refused there, before it is echoed
        except ConfigError as exc:
            raise HTTPException(400, str(exc)) from None
        if data is None:
            raise _not_found()
        return Response(data, media_type="application/zip", headers={
            **_HEADERS, "Content-Disposition": f'attachment; filename="{name}.zip"'})

    def api_leaderboard(self, request: Request) -> Response:
        return Response(self.h.board_json(), media_type="application/json")

    def api_games(self, request: Request) -> Response:
        bot = request.query_params.get("bot", "")
        if not bot:  # every game, a page at a time (arena/server/dataset.py)
            try:
                after, limit = dataset.page_limits(request.query_params.get("after"), request.query_params.get("limit"))
            except ConfigError as exc:
                raise HTTPException(400, str(exc)) from None
            return JSONResponse(dataset.games_page(self.h.store(), self.h.tournament(), after, limit))
        return JSONResponse(self.h.games_of(bot))

    def api_export(self, request: Request) -> Response:
        """One of the season's export files, streamed from the file open when it was asked for."""
        found = dataset.open_export(self.h.settings, request.path_params["name"])
        if found is None:
            raise _not_found()
        f, size, kind = found
        return StreamingResponse(dataset.chunks(f), media_type=kind,
                                 headers={"Content-Length": str(size), "Cache-Control": "no-cache"})

    def public_bot(self, request: Request) -> Response:
        """A bot's public page: its place on the board, versions, latest games and rating chart, as stored now."""
        author, _ = self.who(request)
        found = self.h.public_bot(request.path_params["bot"])
        if found is None:
            raise _not_found()
        return _page("public_bot.html.j2", found.name, author, self.csrf(request), bot=found)

    def api_rivals(self, request: Request) -> Response:
        """A bot head to head with each rival bot it met in the ladder, as `arena leaderboard --rivals` lists it."""
        found = self.h.rivals(request.path_params["bot"])
        if found is None:
            raise _not_found()
        return JSONResponse(found)

    def published(self, request: Request) -> Response:
        """A page or asset of the published site, read whole at once: the publisher replaces pages while they are
        read (a file served by size, then read, could change between the two)."""
        root = self.h.settings.site.resolve()
        path = (root / request.path_params["path"]).resolve()
        if path.is_dir():
            path = path / "index.html"
        if not path.is_relative_to(root) or path.name.endswith(".partial"):
            raise _not_found()
        try:
            data = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise _not_found() from None
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return Response(data, media_type=kind, headers={"Cache-Control": "no-cache"})

    # --- live updates ---------------------------------------------------------------------------------------------
    def _stream(self, request: Request, event: str, look: Any, done: Any = lambda _: False) -> Response:
        client = request.client.host if request.client else ""
        refused = self.streams.take(client)
        if refused is not None:
            raise HTTPException(429, refused)
        return EventStream(request, event, look, done, lambda: self.streams.give_back(client), self.h.stream_seconds)

    def leaderboard_events(self, request: Request) -> Response:
        """The leaderboard and the bots playing now, sent again whenever they change."""
        return self._stream(request, "leaderboard", lambda: {"rows": self.h.leaderboard(),
                                                             "playing": list(self.h.playing())})

    def submission_events(self, request: Request) -> Response:
        """A submission's status (with its reason and build log), sent whenever it changes, to its author and the
        organiser only; the stream ends once it is admitted or refused."""
        author, _ = self.who(request)
        sid = request.path_params["sid"]
        if author is None or self.h.submission(author, sid) is None:
            raise _not_found()

        def look() -> dict[str, Any] | None:
            found = self.h.submission(author, sid)
            return None if found is None else {**self._submission(found), "build_log": found.build_log}

        return self._stream(request, "status", look, lambda s: s["status"] not in ACTIVE_STATUSES)

    # --- private: an author's own, else 404 ---------------------------------------------------------------------
    def api_game_log(self, request: Request) -> Response:
        author, _ = self.who(request)
        found = self.h.game_log(author, request.path_params["number"], request.query_params.get("bot", ""))
        if found is None:
            raise _not_found()
        return JSONResponse(found)

    def api_submission(self, request: Request) -> Response:
        author, _ = self.who(request)
        found = None if author is None else self.h.submission(author, request.path_params["sid"])
        if found is None:
            raise _not_found()
        return JSONResponse(self._submission(found))

    def _submission(self, found: Submission) -> dict[str, Any]:
        """A submission as its author reads it: with `replay`, where a refusal's fault is in its first game."""
        paused = self.h.paused(found.bot) if found.status == Status.ADMITTED else None
        return {**found.to_dict(), "replay": self.h.first_game_link(found), "paused": paused}

    async def api_submit(self, request: Request) -> Response:
        submission = await self._submit(request)
        return JSONResponse({"id": submission.id, "status": submission.status.value}, 202)

    async def upload(self, request: Request) -> Response:
        submission = await self._submit(request)
        return RedirectResponse(f"/me/submissions/{submission.id}", 303)

    async def _submit(self, request: Request) -> Any:
        author, by_session = await run_in_threadpool(self.who, request)
        if author is None:
            raise HTTPException(401, "sign in, or send your API token as: Authorization: Bearer TOKEN")
        await run_in_threadpool(self.h.check_rate, author)  # before the body is read: hammering costs little
        try:
            form = await request.form(max_files=1, max_fields=4)
        except BodyRefused as exc:  # too large: counted, as every upload refused before queueing is
            await run_in_threadpool(self.h.refused, author, str(exc))
            raise
        try:
            if by_session:  # not counted: a forged cross-site form must not use up its victim's uploads
                self.check_csrf(request, form.get("csrf"))
            upload = form.get("file")
            if not isinstance(upload, UploadFile) or not upload.filename:
                await run_in_threadpool(self.h.refused, author, "no archive in the multipart field 'file'")
                raise HTTPException(400, "choose your bot's archive (a .zip or .tar.gz) before you upload"
                                    if by_session else "send the archive as the multipart field 'file'")
            with tempfile.TemporaryDirectory(prefix=self.h.temp_prefix()) as work:
                archive = Path(work) / "upload"
                with open(archive, "wb") as out:
                    await run_in_threadpool(shutil.copyfileobj, upload.file, out)
                queued: list[Submission] = []
                try:
                    return await run_in_threadpool(self.h.submit, author, archive, upload.filename, queued.append)
                except asyncio.CancelledError:
                    # The server stops and cuts this request off: its author learns whether it was queued.
                    self.h.stop_uploads()
                    if queued:
                        return queued[0]
                    raise HTTPException(503, STOPPING) from None
        finally:
            await form.close()

    def signin_page(self, request: Request) -> Response:
        """The sign-in page: a link's code, sent on by pressing sign in (a POST, so that no code is followed by a
        browser's prefetch), or a field for a code or an API token."""
        code = request.path_params.get("code", "")[:MAX_SECRET]
        return _page("signin.html.j2", "sign in", None, code=code)

    async def signin(self, request: Request) -> Response:
        self.same_origin(request)
        async with request.form(max_files=0, max_fields=2) as form:
            secret = form.get("code") or form.get("token")
        if not isinstance(secret, str) or not secret.strip():
            raise HTTPException(400, "send the sign-in code or your API token")
        found = await run_in_threadpool(self.auth.checked, request, lambda: self.h.sign_in(secret.strip()))
        if found is None:
            raise HTTPException(403, "this sign-in link or token is not valid: a link works once and for a week; "
                                "ask the organiser for a new link, or use your API token")
        response = RedirectResponse("/me", 303)
        _set_session(response, await run_in_threadpool(self.h.session_for, *found), request)
        return response

    def join_page(self, request: Request) -> Response:
        return _page("join.html.j2", "sign up", None, code=request.path_params["code"][:200])

    async def join(self, request: Request) -> Response:
        """Sign up with an invite code: a new author, signed in, shown their API token this once."""
        self.same_origin(request)
        async with request.form(max_files=0, max_fields=2) as form:
            code, name = form.get("code"), form.get("name")
        if not isinstance(code, str) or not isinstance(name, str):
            raise HTTPException(400, "send the invite code and a name")
        try:
            self.h.check_new_author(name.strip())  # a name no one may have costs no guess of the code
            # A wrong code is a failed secret like a wrong token: counted toward the same limits, before its hash.
            found = await run_in_threadpool(self.auth.checked, request, lambda: self.h.sign_up(code, name.strip()))
        except UploadRefused as exc:  # the name: said as what it is, not as an upload's refusal
            raise HTTPException(exc.status, str(exc)) from None
        if found is None:
            raise HTTPException(403, "this invite code is not valid: it was used up, has expired or was revoked; "
                                "ask the organiser for a new one")
        author, token = found
        session = await run_in_threadpool(self.h.session_for, author, SessionSource.SIGN_UP)
        response = _page("joined.html.j2", f"welcome, {author.name}", author, self.h.csrf_for(session), token=token,
                         base=str(request.base_url).rstrip("/"))
        _set_session(response, session, request)
        return response

    async def signout(self, request: Request) -> Response:
        async with request.form(max_files=0, max_fields=2) as form:
            self.check_csrf(request, form.get("csrf"))
        await run_in_threadpool(self.h.end_session, request.cookies.get(COOKIE, ""))
        response = RedirectResponse("/", 303)
        response.delete_cookie(COOKIE)
        return response

    async def signout_everywhere(self, request: Request) -> Response:
        """The form of /me that ends every session of its author's, this one included."""
        author = self.signed_in(request)
        async with request.form(max_files=0, max_fields=2) as form:
            self.check_csrf(request, form.get("csrf"))
        await run_in_threadpool(self.h.end_sessions, author)
        response = RedirectResponse("/", 303)
        response.delete_cookie(COOKIE)
        return response

    def api_sessions(self, request: Request) -> Response:
        """The asking author's sessions: when each was made, from what, when last used (never its id)."""
        author = self.signed_in(request)
        return JSONResponse([_session_json(s) for s in self.h.sessions(author, request.cookies.get(COOKIE, ""))])

    def api_end_sessions(self, request: Request) -> Response:
        """End every session of the asking author's (by their token, or a session with its CSRF token)."""
        author, by_cookie = self.who(request)
        if author is None:
            raise HTTPException(401, "sign in, or send your API token as: Authorization: Bearer TOKEN")
        if by_cookie:
            self.check_csrf(request, None)
        return JSONResponse({"ended": self.h.end_sessions(author)})

    def me(self, request: Request) -> Response:
        author = self.signed_in(request)
        return _page("me.html.j2", f"{author.name}: your bots", author, self.csrf(request),
                     bots=self.h.bots_listed(author), submissions=self.h.submissions(author),
                     sessions=self.h.sessions(author, request.cookies.get(COOKIE, "")))

    def my_bot(self, request: Request) -> Response:
        author, _ = self.who(request)
        bot = request.path_params["bot"]
        if not self.h.may_see(author, bot):
            raise _not_found()
        rows = [r for r in self.h.leaderboard() if r["bot"] == bot]
        submissions = [s for s in self.h.submissions(author) if s.bot == bot]  # type: ignore[arg-type]
        games = self.h.games_of(bot)
        return _page("bot.html.j2", bot, author, self.csrf(request), bot=bot, rows=rows, submissions=submissions,
                     games=games, faults=self.h.faults_of(bot, games),
                     paused=self.h.paused(bot), versions=steer.bot_versions(self.h, author, bot),
                     challenges=steer.bot_challenges(self.h, author, bot))

    def api_retire(self, request: Request) -> Response:
        """Retire a bot with its owner's (or the organiser's) token, or their session with its CSRF token: it
        leaves the ladder, its games stay."""
        author, by_cookie = self.who(request)
        if by_cookie and author is not None:
            self.check_csrf(request, None)
        if not self.h.retire(author, request.path_params["bot"]):
            raise _not_found()
        return JSONResponse({"bot": request.path_params["bot"], "status": "retired"})

    async def retire(self, request: Request) -> Response:
        """The retire button of a bot's page."""
        author, by_session = self.who(request)
        async with request.form(max_files=0, max_fields=2) as form:
            if by_session:
                self.check_csrf(request, form.get("csrf"))
        bot = request.path_params["bot"]
        if not await run_in_threadpool(self.h.retire, author, bot):
            raise _not_found()
        return RedirectResponse(f"/me/bots/{bot}", 303)

    def my_game(self, request: Request) -> Response:
        author, _ = self.who(request)
        page = self.h.private_replay(author, request.path_params["number"], request.query_params.get("bot", ""))
        if page is None:
            raise _not_found()
        return HTMLResponse(page, headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY"})

    def game(self, request: Request) -> Response:
        """A game's public replay page (no seat's logs), from the moment it is stored."""
        page = self.h.public_replay(request.path_params["number"])
        if page is None:
            raise _not_found()
        return HTMLResponse(page, headers={"Cache-Control": "no-cache", "X-Frame-Options": "DENY"})

    def my_submission(self, request: Request) -> Response:
        author, _ = self.who(request)
        found = None if author is None else self.h.submission(author, request.path_params["sid"])
        if found is None:
            raise _not_found()
        return _page("submission.html.j2", f"submission {found.id}: {found.bot}", author, self.csrf(request),
                     s=found, replay=self.h.first_game_link(found))

    def my_first_game(self, request: Request) -> Response:
        author, _ = self.who(request)
        page = None if author is None else self.h.first_game_replay(author, request.path_params["sid"])
        if page is None:
            raise _not_found()
        return HTMLResponse(page, headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY"})

