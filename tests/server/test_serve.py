"""`arena serve` end to end over HTTP: an author uploads a kit bot with their token, follows it to admission, sees
it ranked, lists its games and reads its own log; nobody else can."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import wait_until
from tests.server.conftest import STDERR_LINE, Server, admitted, kit_bot, tarred, upload, zipped

pytestmark = pytest.mark.slow


def test_an_uploaded_kit_bot_is_admitted_ranked_and_its_log_is_its_authors_only(server: Server,
                                                                                  tmp_path: Path) -> None:
    _, alice = server.author("alice")
    _, bob = server.author("bob")
    _, boss = server.author("boss", organiser=True)
    sent = upload(server, alice, zipped(kit_bot(tmp_path / "alicebot")))
    assert sent.status_code == 202, sent.text
    sid = sent.json()["id"]
    assert sent.json()["status"] == "queued"
    assert admitted(server, alice, sid), server.status(alice, sid)
    with server.client() as c:
        assert wait_until(lambda: any(r["name"] == "alicebot" for r in c.get("/api/leaderboard").json()), 120)
        row = next(r for r in c.get("/api/leaderboard").json() if r["name"] == "alicebot")
        assert row["games"] >= 1 and row["sigma"] > 0 and isinstance(row["mu"], float)
        games = c.get("/api/games", params={"bot": "alicebot"}).json()
        assert games and all("id" in g for g in games)
        gid = games[0]["id"]
        assert c.get(f"/api/games/{gid}/log", params={"bot": "alicebot"}).status_code == 404  # not signed in
    with server.client(alice) as c:
        log = c.get(f"/api/games/{gid}/log", params={"bot": "alicebot"})
        assert log.status_code == 200
        assert any("thinking about" in d["log"] for d in log.json()["decisions"])
        assert c.get(f"/me/games/{gid}", params={"bot": "alicebot"}).status_code == 200
    with server.client(boss) as c:  # the organiser sees everything
        assert c.get(f"/api/games/{gid}/log", params={"bot": "alicebot"}).status_code == 200
        assert c.get(f"/api/submissions/{sid}").json()["status"] == "admitted"
    with server.client(bob) as c:  # another author: as if there were nothing
        for path in (f"/api/games/{gid}/log?bot=alicebot", f"/me/games/{gid}?bot=alicebot", "/me/bots/alicebot",
                     f"/api/submissions/{sid}", f"/me/submissions/{sid}"):
            answer = c.get(path)
            assert answer.status_code == 404 and "thinking" not in answer.text and STDERR_LINE not in answer.text
    assert server.process.poll() is None


def test_a_new_version_replaces_the_old_one_in_the_ladder(server: Server, tmp_path: Path) -> None:
    _, alice = server.author("alice")
    first = upload(server, alice, tarred(kit_bot(tmp_path / "alicebot")), "bot.tar.gz").json()["id"]
    assert admitted(server, alice, first)
    manifest = tmp_path / "alicebot" / "manifest.toml"
    manifest.write_text(manifest.read_text().replace('version = "0.1"', 'version = "0.2"'))
    second = upload(server, alice, zipped(tmp_path / "alicebot", top=True)).json()["id"]
    assert admitted(server, alice, second)
    with server.client() as c:
        assert wait_until(lambda: any(r["name"].startswith("alicebot@0.2") for r in c.get("/api/leaderboard")
                                      .json()), 120)
        wait_until(lambda: not any(r["name"] == "alicebot" for r in c.get("/api/leaderboard").json()), 60)
        names = [r["name"] for r in c.get("/api/leaderboard").json()]
    assert "alicebot" not in names and sum(n.startswith("alicebot") for n in names) == 1
