"""A served bot head to head with each rival: `/api/bots/NAME/rivals` against the store's own rows, and the table
on the bot's public page, read in Chromium."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from tests.browser import start_chromium
from tests.cli.test_rivals import expected_rivals
from tests.helpers import wait_until
from tests.server.conftest import Server

pytestmark = pytest.mark.slow

LADDER = "bali-2001-ladder"


@pytest.fixture
def driver() -> Iterator[Any]:
    yield from start_chromium()


def _agrees(server: Server, c: Any, bot: str) -> bool:
    """True once the API's list, read twice alike around a look at the store, has two rivals and says what the
    store's rows say."""
    first = c.get(f"/api/bots/{bot}/rivals").json()
    expected = expected_rivals(server.results / "arena.sqlite", LADDER, bot)
    if c.get(f"/api/bots/{bot}/rivals").json() != first or len(first) < 2:
        return False
    for r in first:
        e = expected.get(r["rival"])
        if e is None or [r[k] for k in ("games", "ahead", "behind", "level")] != \
                [e[k] for k in ("games", "ahead", "behind", "level")]:
            return False
        assert r["ahead"] + r["behind"] + r["level"] == r["games"]
        assert r["mean_score"] == pytest.approx(sum(e["scores"]) / len(e["scores"]))
        assert r["rival_mean_score"] == pytest.approx(sum(e["theirs"]) / len(e["theirs"]))
        assert sum(s["games"] for s in r["by_seat"]) == r["games"]
    return {k for k in expected if isinstance(k, str)} == {r["rival"] for r in first}


def test_a_bots_rivals_in_the_api_and_on_its_page(server: Server, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    with server.client() as c:
        assert wait_until(lambda: sum(r["games"] for r in c.get("/api/leaderboard").json()) >= 6, 240)
        assert wait_until(lambda: _agrees(server, c, "random_bot"), 120)
        assert c.get("/api/bots/nobody_here/rivals").status_code == 404
        assert c.get("/api/bots/no..name/rivals").status_code == 404
        listed = c.get("/api/bots/random_bot/rivals").json()

    driver.get(f"{server.url}/bots/random_bot")
    rows = driver.find_elements(By.CSS_SELECTOR, "#rivals tr")
    cells = [[td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows[1:]]
    # A row per rival in all, then one per seat it sat in; the games at least those the API listed a moment ago.
    totals = {row[0]: row for row in cells if row[1] == "all"}
    assert set(totals) == {r["rival"] for r in listed}
    for r in listed:
        shown = totals[r["rival"]]
        assert int(shown[2]) >= r["games"]
        assert int(shown[3]) + int(shown[4]) + int(shown[5]) == int(shown[2])
    assert any(row[1].startswith("seat ") for row in cells)
