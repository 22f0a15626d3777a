"""A competitor steers which version of their bot plays, through a real `arena serve`: the versions listed with
their games and ratings, a rollback the next ladder wave plays, and anyone else told the bot does not exist."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import wait_until
from tests.server.conftest import Server, admitted
from tests.server.test_one_truth import submit, versioned

pytestmark = pytest.mark.slow


def _games_after(server: Server, cursor: int) -> tuple[list[dict[str, Any]], int]:
    """Every game of /api/games stored after the cursor, and the cursor of the last."""
    games: list[dict[str, Any]] = []
    with server.client() as c:
        while True:
            page = c.get("/api/games", params={"after": cursor, "limit": 1000}).json()
            games += page["games"]
            cursor = games[-1]["cursor"] if games else cursor
            if page["next"] is None:
                return games, cursor


def _played(server: Server, cursor: int, version: str) -> bool:
    return any(s["version"] == version for g in _games_after(server, cursor)[0] for s in g["seats"])


def _two_versions(server: Server, token: str, tmp_path: Path) -> tuple[int, int]:
    """alicebot's versions 0.1 then 0.2, each uploaded and admitted: their upload numbers."""
    uploads = []
    for version in ("0.1", "0.2"):
        uploads.append(submit(server, token, versioned(tmp_path / "bot", "alicebot", version)))
        assert admitted(server, token, uploads[-1])
    return uploads[0], uploads[1]


def test_a_rollback_is_played_by_the_next_wave(server: Server, tmp_path: Path) -> None:
    _, token = server.author("alice")
    first, second = _two_versions(server, token, tmp_path)
    v1, v2 = f"0.1#{first}", f"0.2#{second}"
    assert wait_until(lambda: _played(server, 0, v2), 300)  # the newer version plays, as an admission makes it
    with server.client(token) as c:
        listed = c.get("/api/bots/alicebot").json()
        assert listed["bot"] == "alicebot" and listed["active"] == v2, listed
        assert [(v["version"], v["status"]) for v in listed["versions"]] == [(v1, "retired"), (v2, "admitted")]
        playing = listed["versions"][1]
        assert playing["games"] > 0 and playing["mu"] is not None and playing["sigma"] is not None, playing
        _, cursor = _games_after(server, 0)
        reply = c.put("/api/bots/alicebot/active", json={"version": v1})
        assert reply.status_code == 200 and reply.json()["active"] == v1, reply.text
    # The wave under way plays on with 0.2; the games stored from the next wave on seat 0.1 again.
    assert wait_until(lambda: _played(server, cursor, v1), 300)
    assert server.status(token, second)["status"] == "retired"
    assert "chosen by its author" in server.status(token, second)["reason"]
    with server.client(token) as c:
        assert wait_until(lambda: c.get("/api/bots/alicebot").json()["versions"][0]["games"] > 0, 60)


def test_versions_are_their_authors_and_only_admitted_ones_play(server: Server, tmp_path: Path) -> None:
    _, token = server.author("alice")
    _, other = server.author("bob")
    _, organiser = server.author("boss", organiser=True)
    first = submit(server, token, versioned(tmp_path / "bot", "alicebot", "0.1"))
    assert admitted(server, token, first)
    broken = tmp_path / "bot"
    (broken / "bot.py").write_text("this is not python\n")
    refused = submit(server, token, versioned(broken, "alicebot", "0.2"))
    assert not admitted(server, token, refused)
    with server.client(other) as c:  # someone else's bot does not exist for bob, nor its versions
        assert c.get("/api/bots/alicebot").status_code == 404
        assert c.put("/api/bots/alicebot/active", json={"version": f"0.1#{first}"}).status_code == 404
    with server.client() as c:
        assert c.get("/api/bots/alicebot").status_code == 404
    with server.client(organiser) as c:
        assert c.get("/api/bots/alicebot").json()["active"] == f"0.1#{first}"
    with server.client(token) as c:
        assert c.put("/api/bots/alicebot/active", json={"version": "9.9"}).status_code == 404
        no = c.put("/api/bots/alicebot/active", json={"version": "0.2"})
        assert no.status_code == 409 and "refused, not admitted" in no.json()["error"], no.text
        assert c.put("/api/bots/alicebot/active", json=["0.1"]).status_code == 400
        same = c.put("/api/bots/alicebot/active", json={"version": "0.1"})  # the manifest's version names it too
        assert same.status_code == 200 and same.json()["active"] == f"0.1#{first}"


def test_an_author_rolls_back_with_the_form_of_the_bot_page(server: Server, tmp_path: Path) -> None:
    code, token = server.author("alice")
    first, second = _two_versions(server, token, tmp_path)
    with server.client() as c:
        assert c.post("/signin", data={"code": code}).status_code == 303
        page = c.get("/me/bots/alicebot").text
        assert f'value="0.1#{first}"' in page and '<span class="active">plays</span>' in page, page
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        assert c.post("/me/bots/alicebot/active", data={"version": f"0.1#{first}"}).status_code == 403  # no token
        done = c.post("/me/bots/alicebot/active", data={"version": f"0.1#{first}", "csrf": csrf})
        assert done.status_code == 303, done.text
        page = c.get("/me/bots/alicebot").text
        assert f'value="0.2#{second}"' in page and f'value="0.1#{first}"' not in page
    assert server.status(token, first)["status"] == "admitted"
    with server.client() as c:  # and asks for a challenge with the form below (signed in by the token this time)
        assert c.post("/signin", data={"token": token}).status_code == 303
        page = c.get("/me/bots/alicebot").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        ask = {"rivals": "heuristic_bot", "games": "3", "csrf": csrf}
        assert c.post("/me/bots/alicebot/challenge", data={**ask, "csrf": ""}).status_code == 403
        wrong = c.post("/me/bots/alicebot/challenge", data={**ask, "rivals": "nobody"})
        assert wrong.status_code == 404 and "there is no bot &#39;nobody&#39; in the ladder" in wrong.text
        assert c.post("/me/bots/alicebot/challenge", data=ask).status_code == 303
        assert wait_until(lambda: re.search(r"heuristic_bot: ahead \d+, behind \d+, level \d+",
                                            c.get("/me/bots/alicebot").text), 600)
