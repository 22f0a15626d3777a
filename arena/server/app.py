"""The web layer of `arena serve` as an ASGI app: the routes of web/ over the hosting library (hosting.py), each
held by the authentication middleware (guard.py) to the rule its handler states, and errors answered as JSON or
as a page. Private pages answer 404, never 403, to anyone but their author and the organiser, so that whether a
bot or game exists does not leak."""

from __future__ import annotations

import asyncio

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.competition.uploads import UploadRefused
from arena.server.auth import DEFAULT_BACKENDS, LIMITED_WAIT, Authentication, Backend, TooManyFailures
from arena.server.events import StreamLimits
from arena.server.hosting import Hosting
from arena.server.limits import SMALL_BODY, BoundedRequests
from arena.server.web.doors import Doors
from arena.server.web.pages import page
from arena.server.web.private import PrivatePages
from arena.server.web.public import PublicSide
from arena.server.web.steering import Steering
from arena.server.web.uploading import Uploading
from arena.server.web.webhooks import Webhooks

UPLOAD_PATHS = ("/api/submissions", "/me/upload")


def make_app(hosting: Hosting, backends: tuple[Backend, ...] = DEFAULT_BACKENDS) -> BoundedRequests:
    """The served competition as an ASGI app, every request bounded in size and time; requests known by the ways
    of signing in `backends` (auth.py)."""
    auth = Authentication(hosting, backends)
    streams = StreamLimits()
    hosting.settings.site.mkdir(parents=True, exist_ok=True)
    hosting.submissions.sweep_temp()  # what uploads cut off by a SIGKILL left: the app's own temp folders
    routes = [*PublicSide(hosting, streams).routes(auth), *PrivatePages(hosting).routes(auth),
              *Uploading(hosting, streams).routes(auth), *Doors(hosting, auth).routes(),
              *Steering(hosting).routes(auth), *Webhooks(hosting).routes(auth)]
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
    return page("message.html.j2", exc.detail, None, status=exc.status_code, message=exc.detail)


async def _too_many(request: Request, exc: Exception) -> Response:
    # The wait holds no thread (only this request's connection, of the few an address may hold).
    await asyncio.sleep(LIMITED_WAIT)
    return await _error(request, exc)


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, UploadRefused)
    if _wants_json(request):
        return JSONResponse({"error": str(exc)}, exc.status)
    return page("message.html.j2", "upload refused", None, status=exc.status, message=str(exc))
