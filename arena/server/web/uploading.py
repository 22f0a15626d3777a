"""The uploads' routes: an archive sent by a program or the upload form, an upload's status as JSON, as a page and
as a live stream, and a refused upload's first game, for its author and the organiser only."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.server.auth import Authentication
from arena.server.events import StreamLimits, limited_stream
from arena.server.guard import Access, access, author, check_csrf, csrf, guarded, known, not_found
from arena.server.hosting import Hosting
from arena.server.limits import BodyRefused
from arena.server.uploaded import STOPPING
from arena.server.web.pages import page
from arena.storage.authors import ACTIVE, Status, Submission

ACTIVE_STATUSES = {s.value for s in ACTIVE}


class Uploading:
    """The routes of uploads and their statuses, over one Hosting."""

    def __init__(self, hosting: Hosting, streams: StreamLimits) -> None:
        self.h, self.streams = hosting, streams
        self.uploads = hosting.submissions

    def routes(self, auth: Authentication) -> list[Route]:
        """The routes of uploads, each held to its handler's rule."""
        return [guarded(auth, path, handler, methods) for path, handler, methods in (
            ("/api/submissions", self.api_submit, ["POST"]),
            ("/api/submissions/{sid:number}", self.api_submission, None),
            ("/me/upload", self.upload, ["POST"]), ("/me/submissions/{sid:number}", self.my_submission, None),
            ("/me/submissions/{sid:number}/game", self.my_first_game, None),
            ("/events/submissions/{sid:number}", self.submission_events, None))]

    @access(Access.SENDER)
    async def api_submit(self, request: Request) -> Response:
        submission = await self._submit(request)
        return JSONResponse({"id": submission.id, "status": submission.status.value}, 202)

    @access(Access.SENDER)
    async def upload(self, request: Request) -> Response:
        submission = await self._submit(request)
        return RedirectResponse(f"/me/submissions/{submission.id}", 303)

    async def _submit(self, request: Request) -> Any:
        sender, by_session = author(request), known(request).by_cookie
        await run_in_threadpool(self.uploads.check_rate, sender)  # before the body is read: hammering costs little
        try:
            form = await request.form(max_files=1, max_fields=4)
        except BodyRefused as exc:  # too large: counted, as every upload refused before queueing is
            await run_in_threadpool(self.uploads.refused, sender, str(exc))
            raise
        try:
            if by_session:  # not counted: a forged cross-site form must not use up its victim's uploads
                check_csrf(request, form.get("csrf"))
            upload = form.get("file")
            if not isinstance(upload, UploadFile) or not upload.filename:
                await run_in_threadpool(self.uploads.refused, sender, "no archive in the multipart field 'file'")
                raise HTTPException(400, "choose your bot's archive (a .zip or .tar.gz) before you upload"
                                    if by_session else "send the archive as the multipart field 'file'")
            with tempfile.TemporaryDirectory(prefix=self.uploads.temp_prefix()) as work:
                archive = Path(work) / "upload"
                with open(archive, "wb") as out:
                    await run_in_threadpool(shutil.copyfileobj, upload.file, out)
                queued: list[Submission] = []
                try:
                    return await run_in_threadpool(self.uploads.submit, sender, archive, upload.filename, queued.append)
                except asyncio.CancelledError:
                    # The server stops and cuts this request off: its author learns whether it was queued.
                    self.uploads.stop_uploads()
                    if queued:
                        return queued[0]
                    raise HTTPException(503, STOPPING) from None
        finally:
            await form.close()

    def _status(self, found: Submission) -> dict[str, Any]:
        """A submission as its author reads it: with `replay`, where a refusal's fault is in its first game."""
        paused = self.h.bots.paused(found.bot) if found.status == Status.ADMITTED else None
        return {**found.to_dict(), "replay": self.uploads.first_game_link(found), "paused": paused}

    @access(Access.SUBMISSION_AUTHOR)
    def api_submission(self, request: Request) -> Response:
        return JSONResponse(self._status(request.state.submission))

    @access(Access.SUBMISSION_AUTHOR)
    def my_submission(self, request: Request) -> Response:
        found = request.state.submission
        return page("submission.html.j2", f"submission {found.id}: {found.bot}", known(request).author,
                    csrf(request), s=found, replay=self.uploads.first_game_link(found))

    @access(Access.SUBMISSION_AUTHOR)
    def my_first_game(self, request: Request) -> Response:
        found = self.uploads.first_game_replay(request.state.submission)
        if found is None:
            raise not_found()
        return HTMLResponse(found, headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY"})

    @access(Access.SUBMISSION_AUTHOR)
    def submission_events(self, request: Request) -> Response:
        """A submission's status (with its reason and build log), sent whenever it changes, to its author and the
        organiser only; the stream ends once it is admitted or refused."""
        viewer, sid = author(request), request.path_params["sid"]

        def look() -> dict[str, Any] | None:
            found = self.uploads.submission(viewer, sid)
            return None if found is None else {**self._status(found), "build_log": found.build_log}

        return limited_stream(request, self.streams, "status", look, lambda s: s["status"] not in ACTIVE_STATUSES,
                              self.h.stream_seconds)
