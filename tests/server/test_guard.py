"""The authentication middleware, in-process: each route is held to the rule its handler states, who sent a
request is asked once (never for an open route), a private thing is 404 for anyone else whatever they send, and a
signed-out request is told how to sign in."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any, Iterator

import anyio.to_thread
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.testclient import TestClient

from arena.competition.season import SeasonSettings
from arena.server.app import make_app
from arena.server.auth import Authentication, Known
from arena.server.guard import Access, access, guarded, known
from arena.server.hosting import Hosting
from arena.tournament.formats.base import Play


@pytest.fixture
def hosting(tmp_path: Path) -> Iterator[Hosting]:
    h = Hosting(SeasonSettings(play=Play(game="bali-2001"), name="t", results_dir=tmp_path,
                               db=tmp_path / "arena.sqlite"))
    yield h
    h.close()


def _signed_in(hosting: Hosting, code: str) -> tuple[TestClient, str]:
    """A browser signed in by its sign-in code, and the CSRF token its pages carry."""
    client = TestClient(make_app(hosting))
    assert client.post("/signin", data={"code": code}, follow_redirects=False).status_code == 303
    return client, re.findall(r'name="csrf" value="([^"]+)"', client.get("/me").text)[0]


def test_who_sent_a_request_is_asked_once_and_never_for_an_open_route(hosting: Hosting,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _, token, _ = hosting.store().add_author("alice")
    asked = []
    who = Authentication.who

    def counted(self: Authentication, request: Request) -> Known:
        asked.append(request.url.path)
        return who(self, request)

    monkeypatch.setattr(Authentication, "who", counted)
    client = TestClient(make_app(hosting), headers={"Authorization": f"Bearer {token}"})
    for path in ("/me", "/", "/api/sessions", "/me/bots/nobot"):
        client.get(path)
    assert asked == ["/me", "/", "/api/sessions", "/me/bots/nobot"]
    bad = TestClient(make_app(hosting), headers={"Authorization": "Bearer not-a-token"})
    for path in ("/health", "/api/leaderboard", "/api/games", "/games/1", "/signin", "/site/x"):
        assert bad.get(path).status_code in (200, 404), path  # not a 401: no one was asked
    assert asked == ["/me", "/", "/api/sessions", "/me/bots/nobot"]
    assert bad.get("/me").status_code == 401 and bad.get("/").status_code == 401


def test_a_bots_private_routes_are_404_for_anyone_else_whatever_they_send(hosting: Hosting, tmp_path: Path) -> None:
    store = hosting.store()
    alice, alice_token, _ = store.add_author("alice")
    _, bob_token, bob_code = store.add_author("bob")
    store.add_submission(alice, "alicebot", "0.1", str(tmp_path / "alicebot"))
    bob, csrf = _signed_in(hosting, bob_code)
    for answer in (bob.post("/me/bots/alicebot/retire", data={"csrf": csrf}), bob.post("/me/bots/alicebot/retire"),
                   bob.delete("/api/bots/alicebot"), bob.delete("/api/bots/alicebot", headers={"X-CSRF-Token": csrf}),
                   bob.get("/me/bots/alicebot"), bob.get("/api/games/1/log?bot=alicebot"),
                   bob.get("/me/games/1?bot=alicebot"), bob.get("/api/submissions/1"), bob.get("/me/submissions/1"),
                   bob.get("/me/submissions/1/game"), bob.get("/events/submissions/1")):
        assert answer.status_code == 404, answer.request.url
    anyone = TestClient(make_app(hosting))
    assert anyone.post("/me/bots/alicebot/retire").status_code == 404
    assert anyone.delete("/api/bots/alicebot", headers={"Authorization": f"Bearer {bob_token}"}).status_code == 404
    # Its author gets past the rule: a change by a session still needs the session's CSRF token.
    owner = TestClient(make_app(hosting), headers={"Authorization": f"Bearer {alice_token}"})
    assert owner.get("/me/bots/alicebot").status_code == 200
    assert owner.get("/api/submissions/1").json()["bot"] == "alicebot"


def test_a_signed_out_request_is_told_how_to_sign_in(hosting: Hosting) -> None:
    _, _, code = hosting.store().add_author("alice")
    client, csrf = _signed_in(hosting, code)
    assert client.post("/signout", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    anyone = TestClient(make_app(hosting))
    assert anyone.get("/api/sessions").json() == {"error": "sign in first. Sign in at /signin with your API token, or "
                                                           "with a sign-in link: ask the organiser for one"}
    ended = TestClient(make_app(hosting), cookies={"arena_session": "an-ended-session"})
    assert "Your session has ended" in ended.get("/api/sessions").json()["error"]
    for answer in (anyone.delete("/api/sessions"), anyone.post("/api/submissions")):
        assert answer.status_code == 401
        assert answer.json() == {"error": "sign in, or send your API token as: Authorization: Bearer TOKEN"}


def test_a_handler_that_states_no_rule_gets_no_route(hosting: Hosting) -> None:
    def unruled(request: Request) -> Response:
        return Response("")

    with pytest.raises(TypeError, match="states no access rule"):
        guarded(Authentication(hosting), "/unruled", unruled)


def test_a_handler_in_a_worker_thread_has_its_request_checked_in_that_thread(hosting: Hosting,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """One hand-over to a worker thread a request: the check of who sent it runs where its handler then runs (so
    that both use that thread's one connection to the store); a coroutine's check still runs in a worker thread,
    never on the event loop's."""
    _, token, _ = hosting.store().add_author("alice")
    loop_thread: list[int] = []
    checked_in: list[int] = []
    handled_in: list[int] = []
    who = Authentication.who

    def noted(self: Authentication, request: Request) -> Known:
        checked_in.append(threading.get_ident())
        return who(self, request)

    monkeypatch.setattr(Authentication, "who", noted)
    handed_over: list[str] = []
    run_sync = anyio.to_thread.run_sync

    async def counted(function: Any, *args: Any, **kwargs: Any) -> Any:
        handed_over.append(getattr(function, "__name__", repr(function)))
        loop_thread.append(threading.get_ident())
        return await run_sync(function, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)

    @access(Access.SIGNED_IN)
    def plain(request: Request) -> Response:
        handled_in.append(threading.get_ident())
        return Response(known(request).author.name)  # type: ignore[union-attr]

    @access(Access.SIGNED_IN)
    async def coroutine(request: Request) -> Response:
        return Response(known(request).author.name)  # type: ignore[union-attr]

    auth = Authentication(hosting)
    app = Starlette(routes=[guarded(auth, "/plain", plain), guarded(auth, "/coroutine", coroutine)])
    client = TestClient(app, headers={"Authorization": f"Bearer {token}"})
    assert client.get("/plain").text == "alice"
    assert len(handed_over) == 1 and checked_in == handled_in  # one hand-over, the check and the handler in it
    assert client.get("/coroutine").text == "alice"
    assert len(handed_over) == 2 and checked_in[-1] != loop_thread[-1]  # the check handed over to a worker thread
    assert TestClient(app).get("/plain").status_code == 401  # the rule still holds, signed out


def test_a_number_in_a_path_too_large_for_the_store_is_404_on_every_route(hosting: Hosting) -> None:
    """Every numeric path parameter is bounded where the path is read: a number beyond SQLite's integers matches
    no route, instead of overflowing a query (a 500) on a route whose library does not bound it itself."""
    _, token, _ = hosting.store().add_author("alice")
    client = TestClient(make_app(hosting), raise_server_exceptions=False,
                        headers={"Authorization": f"Bearer {token}"})
    for digits in (19, 30):
        big = "9" * digits
        for method, path in (("GET", f"/api/challenges/{big}"), ("GET", f"/api/challenges/{big}/games/1/log"),
                             ("GET", f"/api/challenges/1/games/{big}/log"), ("DELETE", f"/api/webhooks/{big}"),
                             ("GET", f"/games/{big}"), ("GET", f"/me/games/{big}"), ("GET", f"/api/games/{big}/log"),
                             ("GET", f"/api/submissions/{big}"), ("GET", f"/me/submissions/{big}"),
                             ("GET", f"/me/submissions/{big}/game"), ("GET", f"/events/submissions/{big}")):
            assert client.request(method, path).status_code == 404, (method, path)
    for method, path in (("GET", "/api/challenges/" + "9" * 18), ("DELETE", "/api/webhooks/" + "9" * 18)):
        assert client.request(method, path).json() == {"error": "not found"}  # the largest routed: the library's 404
