"""The authentication seam: a second way of signing in is one backend handed to the app, and every route then
knows its requests, with the same access policy; the token and the cookie still work beside it."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.testclient import TestClient

from arena.competition.season import SeasonSettings
from arena.server.app import make_app
from arena.server.auth import DEFAULT_BACKENDS, Check, Known
from arena.server.hosting import Hosting
from arena.tournament.formats.base import Play

PROVIDER_HEADER = "x-provider-user"  # what an identity provider's proxy would set once it has signed someone in


class ProviderHeader:
    """A login by an identity provider in front of the server, which names the author it signed in."""

    def authenticate(self, request: Request, hosting: Hosting, check: Check) -> Known | None:
        name = request.headers.get(PROVIDER_HEADER)
        if name is None:
            return None
        found = [a for a in hosting.store().authors() if a.name == name and a.revoked is None]
        return Known(found[0] if found else None, False)


def test_a_second_way_to_sign_in_is_one_backend(tmp_path: Path) -> None:
    hosting = Hosting(SeasonSettings(play=Play(game="bali-2001"), name="t", results_dir=tmp_path,
                                     db=tmp_path / "arena.sqlite"))
    hosting.store().add_author("alice")
    hosting.store().add_author("bob")
    client = TestClient(make_app(hosting, (ProviderHeader(), *DEFAULT_BACKENDS)))
    page = client.get("/me", headers={PROVIDER_HEADER: "alice"})
    assert page.status_code == 200 and "alice: your bots" in page.text
    assert client.get("/me", headers={PROVIDER_HEADER: "mallory"}).status_code == 401  # no such author
    assert client.get("/me").status_code == 401  # no way of signing in used
    # The token still works beside it, and the access policy is the same: bob's upload 404 for alice.
    _, token = hosting.store().new_token("bob")
    assert "bob: your bots" in client.get("/me", headers={"Authorization": f"Bearer {token}"}).text
    assert client.get("/api/submissions/1", headers={PROVIDER_HEADER: "alice"}).status_code == 404
