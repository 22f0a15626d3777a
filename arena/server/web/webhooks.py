"""The webhooks' routes: an author registers a hook (its secret shown once), lists theirs with their last attempts,
and ends one. Another author's hook is answered 404, as if there were none."""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.competition.addresses import AllowedHosts
from arena.competition.webhooks import MAX_HOOKS, check_hook, hook_secret, new_salt, signing_key
from arena.errors import ConfigError
from arena.server.auth import Authentication
from arena.server.guard import Access, access, author, check_csrf, guarded, known, not_found
from arena.server.hosting import Hosting
from arena.storage.authors import Author
from arena.storage.outbox import Attempt, Webhook

LAST_ATTEMPTS = 10  # of each hook's, listed


def attempt_json(attempt: Attempt) -> dict[str, Any]:
    """One delivery attempt as the listing shows it."""
    return {"delivery": attempt.delivery, "event": attempt.event, "bot": attempt.bot, "attempt": attempt.number,
            "at": attempt.at, "status": attempt.status, "error": attempt.error, "seconds": round(attempt.seconds, 3),
            "state": attempt.state, "next": attempt.next}


class Webhooks:
    """POST, GET /api/webhooks and DELETE /api/webhooks/ID over one Hosting."""

    def __init__(self, hosting: Hosting) -> None:
        self.h = hosting
        self.allowed = AllowedHosts(hosting.settings.webhook_hosts)

    def routes(self, auth: Authentication) -> list[Route]:
        """The webhooks' routes, each held to its handler's rule."""
        return [guarded(auth, path, handler, methods) for path, handler, methods in (
            ("/api/webhooks", self.create, ["POST"]), ("/api/webhooks", self.listed, ["GET"]),
            ("/api/webhooks/{hook:number}", self.end, ["DELETE"]))]

    @access(Access.SENDER)
    async def create(self, request: Request) -> Response:
        """Register a hook: 201 with its id and its secret, shown this once."""
        if known(request).by_cookie:
            check_csrf(request, None)
        try:
            data = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError):
            raise HTTPException(400, 'send JSON: {"url": "https://example.org/hook", "events": ["admitted"]}') \
                from None
        try:
            asked = check_hook(data, self.allowed)
        except ConfigError as exc:
            raise HTTPException(400, str(exc)) from None
        return await run_in_threadpool(self._create, author(request), asked.url, asked.events)

    def _create(self, owner: Author, url: str, events: tuple[str, ...]) -> Response:
        salt = new_salt()
        hook = self.h.store().add_webhook(owner.id, url, events, salt, MAX_HOOKS)
        if hook is None:
            raise HTTPException(400, f"you have {MAX_HOOKS} webhooks, the most an author may have: end one first "
                                "(DELETE /api/webhooks/ID)")
        secret = hook_secret(signing_key(self.h.settings.db), salt)
        return JSONResponse({"id": hook, "secret": secret, "url": url, "events": list(events)}, 201)

    @access(Access.SENDER)
    def listed(self, request: Request) -> Response:
        """The asking author's hooks, each with its last attempts (newest first); never a secret."""
        store = self.h.store()
        return JSONResponse([self._hook_json(hook, store.attempts(hook.id, LAST_ATTEMPTS), store.waiting(hook.id))
                             for hook in store.webhooks(author(request).id)])

    @staticmethod
    def _hook_json(hook: Webhook, attempts: list[Attempt], waiting: int) -> dict[str, Any]:
        return {"id": hook.id, "url": hook.url, "events": list(hook.events), "created": hook.created,
                "waiting": waiting, "attempts": [attempt_json(a) for a in attempts]}

    @access(Access.SENDER)
    def end(self, request: Request) -> Response:
        """End one of the asking author's hooks; 404 for anyone else's."""
        if known(request).by_cookie:
            check_csrf(request, None)
        hook = request.path_params["hook"]
        if not self.h.store().end_webhook(author(request).id, hook):
            raise not_found()
        return JSONResponse({"id": hook, "status": "ended"})
