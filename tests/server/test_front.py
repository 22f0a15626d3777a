"""The front page explains the competition to a stranger: the game and its rules, the season's dates, how to enter
in three steps, a starter kit per language to download, and the live board."""

from __future__ import annotations

import io
import re
import sqlite3
import zipfile
from pathlib import Path

import pytest

from tests.server.conftest import Server, admitted, start, stop, upload

pytestmark = pytest.mark.slow

DESCRIPTION = "**The winter cup.** Prizes for the top three. <script>alert('x')</script> [bad](javascript:alert(1))"


@pytest.fixture
def described(tmp_path: Path) -> Server:
    results = tmp_path / "results"
    process, url = start(results, "--description", DESCRIPTION, "--start", "2020-01-01", "--end", "2099-12-31")
    yield Server(url, results, process)
    stop(process)


def test_the_front_page_says_what_the_competition_is_and_how_to_enter(described: Server, tmp_path: Path) -> None:
    with described.client() as c:
        page = c.get("/").text
        assert "<strong>The winter cup.</strong> Prizes for the top three." in page
        assert "<script>alert" not in page and 'href="javascript:' not in page
        assert "open until 2099-12-31" in page and "from 2020-01-01 to 2099-12-31" in page
        assert 'id="steps"' in page and 'id="leaderboard"' in page
        rules = re.search(r'href="([^"]*rules[^"]*)"', page).group(1)
        text = c.get(rules).text
        assert "bali-2001: the bot author&#x27;s reference" in text or "bali-2001: the bot author's reference" in text
        assert "Rules as implemented" in text
        kits = re.findall(r'href="(/kits/[a-z]+\.zip)"', page)
        assert sorted(kits) == sorted(f"/kits/{k}.zip" for k in ("python", "javascript", "cpp", "java", "rust"))
        named = c.get("/kits/python.zip", params={"name": "carol"})
        assert named.status_code == 200 and named.headers["content-type"] == "application/zip"
        names = zipfile.ZipFile(io.BytesIO(named.content)).namelist()
        assert "carol/manifest.toml" in names and "carol/bot.py" in names
        assert c.get("/kits/cobol.zip").status_code == 404
        bad = c.get("/kits/python.zip", params={"name": "no/such name"})
        assert bad.status_code == 400 and "is not a valid bot name" in bad.text
        assert str(tmp_path) not in bad.text and "/tmp" not in bad.text


def test_a_kit_downloaded_from_the_front_page_is_admitted_as_it_is(described: Server) -> None:
    _, token = described.author("dora")
    with described.client(token) as c:
        data = c.get("/kits/python.zip").content  # named after its author: dora-python
    assert "dora-python/manifest.toml" in zipfile.ZipFile(io.BytesIO(data)).namelist()
    sid = upload(described, token, data, "kit.zip").json()["id"]
    assert admitted(described, token, sid), described.status(token, sid)
    assert described.status(token, sid)["bot"] == "dora-python"


@pytest.mark.parametrize("args, message", [
    (("--start", "2026-13-01"), "start: '2026-13-01' is not a date (YYYY-MM-DD)"),
    (("--start", "2026-12-01", "--end", "2026-11-01"), "the season ends (2026-11-01) before it starts (2026-12-01)"),
])
def test_bad_season_dates_are_usage_errors(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    from tests.helpers import arena

    r = arena("serve", "bali-2001", "--port", "0", "--results", str(tmp_path / "r"), *args, cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_a_competition_files_serve_table_gives_the_description_and_the_dates(tmp_path: Path) -> None:
    config = tmp_path / "cup.toml"
    config.write_text('game = "bali-2001"\n[serve]\ndescription = """# Spring cup\\nBring a bot."""\n'
                      "start = 2020-03-01\nend = 2020-05-31\n")
    process, url = start(tmp_path / "results", "--config", str(config), "--no-play")
    try:
        page = Server(url, tmp_path / "results", process).client().get("/").text
        assert "<h1>Spring cup</h1>" in page and "<p>Bring a bot.</p>" in page
        assert "ended on 2020-05-31" in page and "from 2020-03-01 to 2020-05-31" in page
    finally:
        stop(process)


def test_the_files_title_is_the_heading_and_the_page_says_how_to_install_the_arena_and_get_an_invite(
        tmp_path: Path) -> None:
    config = tmp_path / "cup.toml"
    config.write_text('game = "bali-2001"\ntitle = "The Winter <Cup>"\n')
    process, url = start(tmp_path / "results", "--config", str(config), "--no-play")
    try:
        page = Server(url, tmp_path / "results", process).client().get("/").text
    finally:
        stop(process)
    assert "<h1>The Winter &lt;Cup&gt;</h1>" in page and "<title>The Winter &lt;Cup&gt;</title>" in page
    install = re.search(r'<li id="install">(.*?)</li>', page, re.S).group(1)
    assert "python3 -m pip install" in install and "arena validate" in install
    invite = re.search(r'<span id="invite">(.*?)</span>', page, re.S).group(1)
    assert "invite" in invite and f"{url}/join/" in invite
    from tests.helpers import arena

    bad = arena("serve", "bali-2001", "--port", "0", "--title", "two\nlines", cwd=tmp_path)
    assert bad.returncode == 2 and "the title must be one line" in bad.stderr and "Traceback" not in bad.stderr


def test_the_board_and_its_api_give_rank_score_rating_games_and_faults_in_rank_order(server: Server) -> None:
    from tests.helpers import wait_until

    with server.client() as c:
        assert wait_until(lambda: len(c.get("/api/leaderboard").json()) == 3 and
                          all(r["games"] for r in c.get("/api/leaderboard").json()), 180)
        rows = c.get("/api/leaderboard").json()
        page = c.get("/").text
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    for r in rows:
        assert r["score"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=0.002)
        assert r["faulty_games"] == round(r["fault_rate"] * r["games"]) and r["faulty_games"] <= r["games"]
    assert "Ranked by <strong>score</strong>" in page and "<th>score</th>" in page


def test_delete_api_bots_retires_a_bot_for_its_owner_only(server: Server, tmp_path: Path) -> None:
    from tests.server.conftest import kit_bot, zipped

    _, owner = server.author("hal")
    _, other = server.author("ida")
    assert admitted(server, owner, upload(server, owner, zipped(kit_bot(tmp_path / "halbot"))).json()["id"])
    with server.client(other) as c:
        assert c.delete("/api/bots/halbot").status_code == 404
    with server.client() as c:
        assert c.delete("/api/bots/halbot").status_code == 404
    with server.client(owner) as c:
        answer = c.delete("/api/bots/halbot")
        assert answer.status_code == 200 and answer.json() == {"bot": "halbot", "status": "retired"}
        assert c.delete("/api/bots/halbot").status_code == 404  # nothing admitted left to retire
    with sqlite3.connect(server.results / "arena.sqlite") as db:
        assert [r[0] for r in db.execute("SELECT status FROM submissions ORDER BY id")] == ["retired"]


def test_the_front_page_draws_the_leading_bots_ratings_over_the_season_and_keeps_it_fresh(server: Server) -> None:
    from tests.helpers import wait_until

    def chart() -> str:
        with server.client() as c:
            page = c.get("/").text
        return page.split('<figure id="season-chart">', 1)[1].split("</figure>", 1)[0] if "season-chart" in page else ""

    assert wait_until(lambda: "<svg" in chart(), 180)
    first = chart()
    with server.client() as c:
        names = [r["name"] for r in c.get("/api/leaderboard").json()]
    assert names and all(name in first for name in names)  # a line for each bot, named in the legend
    assert wait_until(lambda: chart() not in ("", first), 180)  # drawn again as games come in
