"""Challenges through a real `arena serve`: games against a chosen rival that count for no rating and whose logs
stay each side's own, a test of two versions until the sequential test decides, and the quotas."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.helpers import ROOT, wait_until
from tests.server.conftest import ENV, Server, admitted, kit_bot, start, stop, zipped
from tests.server.test_one_truth import submit, versioned

pytestmark = pytest.mark.slow


@pytest.fixture
def quick(tmp_path: Path) -> Iterator[Server]:
    """A server whose ladder waves are short (a table's seats in games), so that challenges get their turn often."""
    results = tmp_path / "results"
    process, url = start(results, "--wave", "1", "--challenges-per-day", "2", "--challenge-games", "120")
    yield Server(url, results, process)
    stop(process)


def _done(server: Server, token: str, cid: int) -> dict[str, Any]:
    with server.client(token) as c:
        assert wait_until(lambda: c.get(f"/api/challenges/{cid}").json()["status"] == "done", 600)
        return c.get(f"/api/challenges/{cid}").json()


def _ladder_games(server: Server, bot: str) -> int:
    """The games of the bot's versions in the ladder's own list of games (/api/games)."""
    games, cursor = 0, 0
    with server.client() as c:
        while True:
            page = c.get("/api/games", params={"after": cursor, "limit": 1000}).json()
            games += sum(any(s["bot"].split("@")[0] == bot for s in g["seats"]) for g in page["games"])
            if page["next"] is None:
                return games
            cursor = page["next"]


def test_a_challenge_counts_for_no_rating_and_each_side_reads_only_its_own_logs(quick: Server,
                                                                                   tmp_path: Path) -> None:
    server = quick
    _, alice = server.author("alice")
    _, bob = server.author("bob")
    _, carol = server.author("carol")
    a = submit(server, alice, zipped(_named(kit_bot(tmp_path / "a"), "alicebot")))
    b = submit(server, bob, zipped(_named(kit_bot(tmp_path / "b"), "bobbot")))
    assert admitted(server, alice, a), server.status(alice, a)
    assert admitted(server, bob, b), server.status(bob, b)
    with server.client(alice) as c:
        asked = c.post("/api/challenges", json={"bot": "alicebot", "rivals": ["bobbot"], "games": 6})
        assert asked.status_code == 202, asked.text
    cid = asked.json()["id"]
    done = _done(server, alice, cid)
    # bali-2001's table of 3: alicebot, bobbot and a sample bot, two deals each in its 3 seat rotations.
    assert done["games"] == [1, 2, 3, 4, 5, 6], done
    tally = done["results"]["bobbot"]
    assert tally["ahead"] + tally["behind"] + tally["level"] == 6, done
    with server.client(bob) as c:  # the rival's author sees it among bobbot's, and the same figures
        assert c.get(f"/api/challenges/{cid}").json()["games"] == done["games"]
        assert cid in [x["id"] for x in c.get("/api/challenges", params={"bot": "bobbot"}).json()]
        own = c.get(f"/api/challenges/{cid}/games/1/log", params={"bot": "bobbot"})
        assert own.status_code == 200 and own.json()["decisions"], own.text
        assert c.get(f"/api/challenges/{cid}/games/1/log", params={"bot": "alicebot"}).status_code == 404
    with server.client(alice) as c:
        log = c.get(f"/api/challenges/{cid}/games/1/log", params={"bot": "alicebot"}).json()
        seats = set(log["seats"])
        assert log["decisions"] and all(d["seat"] in seats for d in log["decisions"])
        assert any("thinking about" in (d["log"] or "") for d in log["decisions"]), log
        assert seats.isdisjoint(own.json()["seats"])
        assert c.get(f"/api/challenges/{cid}/games/1/log", params={"bot": "bobbot"}).status_code == 404
    # Both sides' lists of their challenges hold its games, by token; no one else's, nor a request signed out.
    for token, bot in ((alice, "alicebot"), (bob, "bobbot")):
        with server.client(token) as c:
            listed = {x["id"]: x for x in c.get("/api/challenges", params={"bot": bot}).json()}
            assert listed[cid]["games"] == done["games"], listed
    for token in (None, carol):
        with server.client(token) as c:
            for bot in ("alicebot", "bobbot"):
                assert c.get("/api/challenges", params={"bot": bot}).status_code == 404
    with server.client(carol) as c:
        assert c.get(f"/api/challenges/{cid}").status_code == 404
        assert c.get(f"/api/challenges/{cid}/games/1/log", params={"bot": "alicebot"}).status_code == 404
    # Unranked: every game the ladder rated alicebot for is one of the ladder's own, none of the challenge's.
    with server.client(alice) as c:
        assert wait_until(lambda: sum(v["games"] for v in c.get("/api/bots/alicebot").json()["versions"])
                          == _ladder_games(server, "alicebot"), 120)


def test_each_quota_is_answered_429(quick: Server, tmp_path: Path) -> None:
    server = quick
    _, alice = server.author("alice")
    sid = submit(server, alice, zipped(_named(kit_bot(tmp_path / "a"), "alicebot")))
    assert admitted(server, alice, sid)
    with server.client(alice) as c:
        ask = {"bot": "alicebot", "rivals": ["heuristic_bot"], "games": 2}  # a sample bot of the season
        many = c.post("/api/challenges", json={**ask, "games": 121})
        assert many.status_code == 429 and "at most 120 games" in many.json()["error"], many.text
        assert c.post("/api/challenges", json=ask).status_code == 202
        assert c.post("/api/challenges", json=ask).status_code == 202
        third = c.post("/api/challenges", json=ask)
        assert third.status_code == 429 and "2 challenges in the last 24 hours" in third.json()["error"], third.text
        assert c.post("/api/challenges", json={**ask, "rivals": ["nobody"]}).status_code in (404, 429)
    with server.client(alice) as c:
        assert c.post("/api/challenges", json={"bot": "bobbot", "rivals": ["alicebot"], "games": 2}).status_code \
            == 404


def test_settings_for_challenges_that_cannot_work_are_usage_errors(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "arena", "serve", "bali-2001", "--challenge-games", "1",
                          "--results", str(tmp_path / "r")], cwd=ROOT, env=ENV, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2 and "challenge_games at least 2" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


def test_a_version_test_decides_a_random_bot_against_the_heuristic(quick: Server, tmp_path: Path) -> None:
    server = quick
    _, alice = server.author("alice")
    _, bob = server.author("bob")
    good = submit(server, alice, zipped(_sample(tmp_path / "good", "heuristic_bot", "1.0")))
    assert admitted(server, alice, good), server.status(alice, good)
    bad = submit(server, alice, zipped(_sample(tmp_path / "bad", "random_bot", "2.0")))
    assert admitted(server, alice, bad), server.status(alice, bad)
    with server.client(alice) as c:
        asked = c.post("/api/challenges", json={"bot": "mine", "rivals": ["mine"], "version": "2.0",
                                                "rival_version": "1.0", "until": "decided", "games": 120})
        assert asked.status_code == 202, asked.text
    done = _done(server, alice, asked.json()["id"])
    assert done["verdict"] == "worse", done
    assert done["elo"] < 0 and done["elo_low"] < done["elo"] and (done["elo_high"] or 0) < 0 or \
        done["elo_low"] < done["elo"] <= (done["elo_high"] if done["elo_high"] is not None else 1e9), done
    with server.client(bob) as c:  # the verdict is its author's alone
        assert c.get(f"/api/challenges/{done['id']}").status_code == 404


def _named(folder: Path, name: str) -> Path:
    manifest = folder / "manifest.toml"
    manifest.write_text(manifest.read_text().replace('name = "', f'name = "{name}" #', 1))
    return folder


def _sample(folder: Path, module: str, version: str) -> Path:
    """A submission named 'mine' at `version` that runs one of the sample bots."""
    kit_bot(folder, stderr=False)
    shutil.copytree(ROOT / "sample_bots", folder / "sample_bots", ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "manifest.toml"
    text = manifest.read_text().replace('command = "python3 bot.py"', f'command = "python3 -m sample_bots.{module}"')
    manifest.write_text(text)
    return folder if versioned(folder, "mine", version) else folder
