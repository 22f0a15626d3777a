"""The webhooks' routes: an author registers a hook (its secret shown once), lists theirs with their last attempts,
and ends one. Another author's hook is answered 404, as if there were none."""

from __future__ import annotations

import json
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.competition.addresses import AllowedHosts
from arena.competition.webhooks import MAX_HOOKS, check_hook, hook_secret, new_salt, signing_key
from arena.errors import ConfigError
from arena.server.hosting import Hosting
from arena.storage.authors import Author
from arena.storage.webhooks import Attempt, Webhook

LAST_ATTEMPTS = 10  # of each hook's, listed
SIGN_IN = "sign in, or send your API token as: Authorization: Bearer TOKEN"


class Asking(Protocol):
    """How a route knows who asks (app.py's): the author and whether by a session cookie, and the CSRF check a
    change made with a cookie must pass."""

    def who(self, request: Request) -> tuple[Author | None, bool]: ...

    def check_csrf(self, request: Request, sent: Any) -> None: ...


def attempt_json(attempt: Attempt) -> dict[str, Any]:
    return {"delivery": attempt.delivery, "event": attempt.event, "bot": attempt.bot, "attempt": attempt.number,
            "at": attempt.at, "status": attempt.status, "error": attempt.error, "seconds": round(attempt.seconds, 3),
            "state": attempt.state, "next": attempt.next}


class Routes:
    """POST, GET /api/webhooks and DELETE /api/webhooks/ID over one Hosting."""

    def __init__(self, hosting: Hosting, asking: Asking) -> None:
        self.h, self.asking = hosting, asking
        self.allowed = AllowedHosts(hosting.settings.webhook_hosts)

    def routes(self) -> list[Route]:
        return [Route("/api/webhooks", self.create, methods=["POST"]), Route("/api/webhooks", self.listed),
                Route("/api/webhooks/{hook:int}", self.end, methods=["DELETE"])]

    def _author(self, request: Request, changes: bool) -> Author:
        author, by_cookie = self.asking.who(request)
        if author is None:
            raise HTTPException(401, SIGN_IN)
        if changes and by_cookie:
            self.asking.check_csrf(request, None)
        return author

    async def create(self, request: Request) -> Response:
        """Register a hook: 201 with its id and its secret, shown this once."""
        author = await run_in_threadpool(self._author, request, True)
        try:
            data = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError):
            raise HTTPException(400, 'send JSON: {"url": "https://example.org/hook", "events": ["admitted"]}') \
                from None
        try:
            asked = check_hook(data, self.allowed)
        except ConfigError as exc:
            raise HTTPException(400, str(exc)) from None
        return await run_in_threadpool(self._create, author, asked.url, asked.events)

    def _create(self, author: Author, url: str, events: tuple[str, ...]) -> Response:
        salt = new_salt()
        hook = self.h.store().add_webhook(author.id, url, events, salt, MAX_HOOKS)
        if hook is None:
            raise HTTPException(400, f"you have {MAX_HOOKS} webhooks, the most an author may have: end one first "
                                "(DELETE /api/webhooks/ID)")
        secret = hook_secret(signing_key(self.h.settings.db), salt)
        return JSONResponse({"id": hook, "secret": secret, "url": url, "events": list(events)}, 201)

    def listed(self, request: Request) -> Response:
        """The asking author's hooks, each with its last attempts (newest first); never a secret."""
        author = self._author(request, False)
        store = self.h.store()
        return JSONResponse([self._hook_json(hook, store.attempts(hook.id, LAST_ATTEMPTS), store.waiting(hook.id))
                             for hook in store.webhooks(author.id)])

    @staticmethod
    def _hook_json(hook: Webhook, attempts: list[Attempt], waiting: int) -> dict[str, Any]:
        return {"id": hook.id, "url": hook.url, "events": list(hook.events), "created": hook.created,
                "waiting": waiting, "attempts": [attempt_json(a) for a in attempts]}

    def end(self, request: Request) -> Response:
        """End one of the asking author's hooks; 404 for anyone else's."""
        author = self._author(request, True)
        hook = request.path_params["hook"]
        if not self.h.store().end_webhook(author.id, hook):
            raise HTTPException(404, "not found")
        return JSONResponse({"id": hook, "status": "ended"})
