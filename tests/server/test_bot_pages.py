"""A bot's public page on the live server (`/bots/NAME`): the board's figures for it as they stand, its versions,
its latest games linked by their one number, its rating chart; reached from the board's names; 404 for a name that
names no bot; and nothing a bot wrote, nor why an upload was refused."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.storage.keys import bot_of
from tests.helpers import wait_until
from tests.server.conftest import Server, admitted, kit_bot, upload, zipped

pytestmark = pytest.mark.slow

MARKER = "PRIVATE-MARKER-5d1c"  # what the bot writes to its stderr at every decision
REFUSED = "REFUSED-MARKER-93be"  # what a version that cannot start writes to its stderr


def _marked_bot(folder: Path) -> Path:
    bot = kit_bot(folder)
    (bot / "bot.py").write_text((bot / "bot.py").read_text().replace("thinking about", MARKER))
    return bot


def _row(c: httpx.Client, name: str) -> dict[str, Any] | None:
    return next((r for r in c.get("/api/leaderboard").json() if r["name"] == name), None)


def _cells(page: str, table: str) -> list[list[str]]:
    """The text of each body row's cells of the table with this id."""
    if f'<table id="{table}">' not in page:
        return []
    body = page.split(f'<table id="{table}">', 1)[1].split("</table>", 1)[0]
    body = body.split("<tbody>", 1)[1] if "<tbody>" in body else body
    rows = ([html.unescape(re.sub(r"<[^>]*>", "", cell)).strip() for cell in re.findall(r"<td>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S))
    return [row for row in rows if row]  # not the heading's


def _board_cells(r: dict[str, Any]) -> list[str]:
    """A row of the board as the front page writes it."""
    above = "" if r["p_above_next"] is None else f"{r['p_above_next']:.2f}"
    return [str(r["rank"]), f"{r['rank_low']}–{r['rank_high']}", r["name"], f"{r['score']:.2f}",
            f"{r['mu']:.2f} ± {3 * r['sigma']:.2f}", str(r["games"]),
            f"{r['faulty_games']} ({100 * r['fault_rate']:.0f}%)", above]


def _as_on_the_board(c: httpx.Client, bot: str) -> dict[str, Any] | None:
    """The bot's row of /api/leaderboard if its page, read between two equal reads of the board and of its games,
    shows that row's figures and its latest game; None if they differ (or the board changed meanwhile)."""
    board, games = c.get("/api/leaderboard").json(), c.get("/api/games", params={"bot": bot}).json()
    page = c.get(f"/bots/{bot}").text
    if c.get("/api/leaderboard").json() != board or c.get("/api/games", params={"bot": bot}).json() != games:
        return None
    rows = [r for r in board if r["bot"] == bot]
    latest = re.search(r'<a class="game" href="(/games/\d+)">', page)
    if not rows or _cells(page, "rating") != [_board_cells(r) for r in rows] or latest is None \
            or latest.group(1) != games[0]["url"]:
        return None
    return rows[0]


def test_a_bots_public_page_is_as_fresh_as_the_board_linked_from_it_and_holds_nothing_private(
        server: Server, tmp_path: Path) -> None:
    _, alice = server.author("alice")
    sid = upload(server, alice, zipped(_marked_bot(tmp_path / "alicebot"))).json()["id"]
    assert admitted(server, alice, sid), server.status(alice, sid)
    with server.client() as c:
        assert wait_until(lambda: _row(c, "alicebot") is not None, 180)
        # Its figures are the board's the moment games are stored: no wait for a publish after the wave.
        assert wait_until(lambda: _as_on_the_board(c, "alicebot") is not None, 60)
        first = _row(c, "alicebot")["games"]
        assert wait_until(lambda: (_row(c, "alicebot") or {"games": 0})["games"] > first, 300)
        assert wait_until(lambda: (_as_on_the_board(c, "alicebot") or {"games": 0})["games"] > first, 60)
        page = c.get("/bots/alicebot").text
        assert "<h1>alicebot</h1>" in page and '<svg class="chart"' in page and ">alicebot<" in page.split(
            '<svg class="chart"', 1)[1]  # the chart, its line named
        assert _cells(page, "versions") == [["alicebot", "0.1#" + str(sid), "in the ladder"]]
        # Every game it lists is the public replay of that one number, in which it played.
        games = re.findall(r'<a class="game" href="/games/(\d+)">game (\d+)</a>', page)
        assert games and all(link == shown for link, shown in games)
        listed = {g["number"] for g in c.get("/api/games", params={"bot": "alicebot"}).json()}
        assert {int(n) for n, _ in games} <= listed
        replay = c.get(f"/games/{games[0][0]}")
        assert replay.status_code == 200 and f"game {games[0][0]} of bali-2001-ladder" in replay.text
        # Every name on the board links to its bot's page, which shows that bot.
        front = c.get("/").text
        links = re.findall(r'<td><a href="([^"]+)">([^<]+)</a></td>', front.split('<tbody id="rows">', 1)[1])
        assert ("/bots/alicebot", "alicebot") in links and len(links) == len(c.get("/api/leaderboard").json())
        for href, name in links:
            assert href == f"/bots/{bot_of(name)}"
            answer = c.get(href)
            assert answer.status_code == 200 and f"<h1>{bot_of(name)}</h1>" in answer.text
    with server.client(alice) as c:  # what it wrote is in its author's log, so its absence below says something
        assert MARKER in c.get(f"/api/games/{games[0][0]}/log", params={"bot": "alicebot"}).text

    # A version whose build fails is refused, its build's output (quoting the line at fault) on its author's page:
    # the public page shows neither the version nor why it was refused.
    folder = tmp_path / "alicebot"
    (folder / "manifest.toml").write_text((folder / "manifest.toml").read_text().replace('"0.1"', '"0.2"'))
    (folder / "bot.py").write_text(f"print({REFUSED!r} +)\n")
    refused = upload(server, alice, zipped(folder)).json()["id"]
    assert not admitted(server, alice, refused)
    with server.client(alice) as c:
        assert REFUSED in c.get(f"/me/submissions/{refused}").text
    # Retired, it leaves the board; its page stays, with its games.
    with server.client(alice) as c:
        assert c.delete("/api/bots/alicebot").status_code == 200
    with server.client() as c:
        assert wait_until(lambda: _row(c, "alicebot") is None and "retired" in c.get("/bots/alicebot").text, 300)
        page = c.get("/bots/alicebot").text
        assert 'id="rating">Not on the board: retired.' in page.replace("\n", " ")
        assert re.search(r'<a class="game" href="/games/\d+">', page) and '<svg class="chart"' in page
        assert _cells(page, "versions") == [["alicebot", "0.1#" + str(sid), "retired"]]
        for path in ("/bots/alicebot", "/", "/api/leaderboard", f"/games/{games[0][0]}",
                     *(f"/games/{n}" for n, _ in games)):
            text = c.get(path).text
            assert MARKER not in text and REFUSED not in text and f"0.2#{refused}" not in text, path


def test_a_name_that_names_no_bot_is_404(server: Server) -> None:
    with server.client() as c:
        assert wait_until(lambda: any(r["name"] == "random_bot" for r in c.get("/api/leaderboard").json()), 180)
        assert c.get("/bots/random_bot").status_code == 200  # the sample bots' pages are there
        for name in ("nosuchbot", "random", "random_bot-9", "a" * 65, "a" * 5000, "random_bot%0A", "~2erandom_bot",
                     "random_bot%00", "..%2Fapi%2Fleaderboard", "%2e%2e", "random_bot.html", "RANDOM_BOT"):
            answer = c.get(f"/bots/{name}")
            assert answer.status_code == 404 and "not found" in answer.text.lower(), name
