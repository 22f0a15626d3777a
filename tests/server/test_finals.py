"""A served season with an end: when it ends, uploads close, the ladder stops, its leading bots play the finals by
themselves, and the front page shows the final table with the confidence of each step (a real `arena serve`)."""

from __future__ import annotations

import datetime
import re
import sqlite3
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from tests.browser import missing_browser, screenshot, start_chromium
from tests.helpers import wait_until
from tests.server.conftest import Server, kit_bot, start, stop, upload, zipped

END_IN = 15  # seconds from the second start to the season's end: the page before it, an upload after it
BUDGET = 150  # the finals' games: the two random bots are never told apart, and spend what is left of it
FINAL = "the table is final"
FINALS_PATIENCE = 1800  # seconds the finals may take on a very busy machine (a minute or two on an idle one)


def _rows(page: str) -> list[tuple[str, str, str]]:
    """The final table's rows on the front page: (rank, bot, the step to the next row)."""
    table = re.search(r'<table id="finals">(.*?)</table>', page, re.S)
    assert table is not None, page
    cells = re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td><td>\d+</td>\s*<td class=\"(\w+)\">", table.group(1))
    return [(rank, bot, step) for rank, bot, step in cells]


def _front(client: httpx.Client) -> str:
    """The front page; "" if it did not answer within the client's patience (a first request to a server on a
    loaded machine may not): a wait looks again."""
    try:
        return client.get("/").text
    except httpx.TimeoutException:
        return ""


def _ladder_games(results: Path) -> int:
    with sqlite3.connect(results / "arena.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                          "WHERE t.name = 'bali-2001-ladder'").fetchone()[0]


@pytest.fixture
def ended(tmp_path: Path) -> Iterator[tuple[Server, str, datetime.datetime]]:
    """A server of the sample bots alone (the heuristic bot and two random bots: the ladder's bar at three seats)
    whose season ends END_IN seconds after its start; stopped at the end. Yields the server, an author's token and
    the end. Its ladder has played before (a first server without an end, stopped once a game is stored): on a busy
    machine a season's first wave may begin after an end this close, and a season of no games has no finals."""
    results = tmp_path / "results"
    args = ("--jobs", "2", "--sandbox", "rlimit", "--seed", "1")
    process, _ = start(results, *args)
    try:
        assert wait_until(lambda: _ladder_games(results) > 0, FINALS_PATIENCE)
    finally:
        stop(process)
    ends = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=END_IN)).replace(microsecond=0)
    process, url = start(results, "--end", ends.strftime("%Y-%m-%dT%H:%M:%SZ"), "--finals-top", "3",
                         "--finals-confidence", "0.9", "--finals-games", str(BUDGET), *args)
    server = Server(url, results, process)
    try:
        _, token = server.author("alice")
        yield server, token, ends
    finally:
        stop(process)


@pytest.mark.slow
def test_a_season_that_ends_closes_uploads_plays_its_finals_and_shows_the_final_table(
        ended: tuple[Server, str, datetime.datetime], tmp_path: Path) -> None:
    server, token, ends = ended
    with server.client() as client:
        if datetime.datetime.now(datetime.timezone.utc) < ends - datetime.timedelta(seconds=2):
            assert 'id="finals"' not in _front(client)  # before its end, the season's page is the ladder's
        assert wait_until(lambda: datetime.datetime.now(datetime.timezone.utc) >= ends, END_IN + 5)
        refused = upload(server, token, zipped(kit_bot(tmp_path / "late")))
        assert refused.status_code == 403 and "the season has ended: uploads are closed" in refused.text
        assert wait_until(lambda: FINAL in _front(client), FINALS_PATIENCE), _front(client)
        page = _front(client)
    assert "the season is <strong>over</strong>" in page
    assert "decided at confidence 0.9" in page and f"{BUDGET} games played; {FINAL}" in page
    rows = _rows(page)
    # The heuristic bot is decided above both random bots; the two random bots are one bot, never told apart.
    assert rows[0][:2] == ("1", "heuristic_bot") and rows[0][2] == "decided"
    assert sorted(bot for _, bot, _ in rows[1:]) == ["random_bot", "random_bot-2"]
    assert [rank for rank, _, _ in rows[1:]] == ["2", "2"] and rows[1][2] == "open" and rows[2][2] == "last"
    assert "not decided apart: same rank" in page
    with sqlite3.connect(server.results / "arena.sqlite") as db:
        finals = db.execute("SELECT COUNT(*) FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                            "WHERE t.name = 'bali-2001-ladder-finals'").fetchone()[0]
        ladder_after = db.execute("SELECT COUNT(*) FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                                  "WHERE t.name = 'bali-2001-ladder' AND g.finished > ?",
                                  (ends.timestamp() + 60,)).fetchone()[0]
    assert finals == BUDGET
    assert ladder_after == 0  # the ladder stopped at the end (a game under way then may finish)
    if missing_browser() is None:  # and as a browser shows it (where there is one: tests/browser.py)
        _seen_in_a_browser(server.url)


def _seen_in_a_browser(url: str) -> None:
    from selenium.webdriver.common.by import By

    for driver in start_chromium():
        driver.get(url + "/")
        table = driver.find_element(By.ID, "finals")
        assert table.is_displayed()
        rows = [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
                for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
        assert [(r[0], r[1]) for r in rows][0] == ("1", "heuristic_bot") and len(rows) == 3
        assert rows[0][3] == "better, decided at 0.9" and rows[1][3] == "not decided apart: same rank"
        assert "over" in driver.find_element(By.ID, "season").text
        screenshot(driver, "season-finals")
