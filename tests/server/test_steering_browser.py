"""An author in Chromium steers their bot on its page: rolls back to the older version, asks for a test of the two
versions with the page's challenge form, and reads the verdict with its Elo interval there."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.browser import screenshot, start_chromium
from tests.helpers import wait_until
from tests.server.conftest import Server, start, stop, upload, zipped
from tests.server.test_challenges import _sample

pytestmark = pytest.mark.slow


@pytest.fixture
def driver() -> Iterator[Any]:
    yield from start_chromium()


@pytest.fixture
def patient(tmp_path: Path) -> Iterator[Server]:
    """A server with short ladder waves (challenges get their turn often) whose bots get generous time: an upload's
    trial games must not time out on a busy machine."""
    results = tmp_path / "results"
    process, url = start(results, "--wave", "1", "--challenge-games", "120", "--timeout", "30",
                         "--init-timeout", "120")
    yield Server(url, results, process)
    stop(process)


def _admit(server: Server, token: str, data: bytes) -> None:
    """Upload an archive and wait for its admission, the refusal's reason in the failure."""
    reply = upload(server, token, data)
    assert reply.status_code == 202, reply.text
    sid = reply.json()["id"]
    assert wait_until(lambda: server.status(token, sid)["status"] in ("admitted", "refused"), 900)
    told = server.status(token, sid)
    assert told["status"] == "admitted", f"upload {sid} was not admitted: {told.get('reason')!r} ({told})"


def test_an_author_rolls_back_challenges_and_reads_a_verdict_in_the_browser(patient: Server, tmp_path: Path,
                                                                              driver: Any) -> None:
    from selenium.webdriver.common.by import By

    server = patient
    code, token = server.author("alice")
    _admit(server, token, zipped(_sample(tmp_path / "good", "heuristic_bot", "1.0")))
    _admit(server, token, zipped(_sample(tmp_path / "bad", "random_bot", "2.0")))
    with server.client(token) as c:
        listed = c.get("/api/bots/mine").json()
    old, new = (v["version"] for v in listed["versions"])
    assert listed["active"] == new, listed

    driver.get(f"{server.url}/signin/{code}")
    driver.find_element(By.ID, "sign-in").click()
    assert wait_until(lambda: driver.current_url.endswith("/me"))
    driver.get(f"{server.url}/me/bots/mine")
    assert _plays(driver) == "2.0"  # both versions listed, the newer one playing

    driver.find_element(By.CSS_SELECTOR, f'#versions input[name="version"][value="{old}"]').click()
    driver.find_element(By.ID, "choose").click()
    assert wait_until(lambda: _plays(driver) == "1.0", 60), driver.page_source[-3000:]
    with server.client(token) as c:
        assert c.get("/api/bots/mine").json()["active"] == old

    form = driver.find_element(By.ID, "challenge")
    form.find_element(By.NAME, "version").send_keys("2.0")
    form.find_element(By.NAME, "rival_version").send_keys("1.0")
    games = form.find_element(By.NAME, "games")
    games.clear()
    games.send_keys("120")
    form.find_element(By.ID, "ask").click()
    assert wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#challenges tr[id^=challenge-]"), 60), \
        driver.page_source[-3000:]
    row = driver.find_element(By.CSS_SELECTOR, "#challenges tr[id^=challenge-]").get_attribute("id")
    cid = int(row.split("-")[1])

    # The author reloads the page now and then, as a person would, until the test is done.
    assert wait_until(lambda: _reloaded_status(driver, row) == "done", 900, interval=5), driver.page_source[-3000:]
    screenshot(driver, "steering-verdict")
    verdict = driver.find_element(By.CSS_SELECTOR, f"#{row} td.verdict").text
    with server.client(token) as c:
        told = c.get(f"/api/challenges/{cid}").json()
    assert told["verdict"] in ("worse", "better", "undecided") and told["elo"] is not None, told
    shown = re.fullmatch(r"(\w+): (\S+) against (\S+), elo ([+-][\d.]+) \[([+-][\d.]+|-inf), ([+-][\d.]+|\+inf)\] "
                         r"over (\d+) pairs", verdict)
    assert shown, verdict
    assert shown.groups()[:4] == (told["verdict"], told["version"], told["rival_version"], f"{told['elo']:+.1f}")
    assert told["version"] == new and told["rival_version"] == old, told
    assert told["verdict"] == "worse", told  # a random bot against the heuristic: decided within the budget


def _plays(driver: Any) -> str | None:
    """The version the versions table shows as the one that plays (None while the page loads)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    try:
        rows = driver.find_elements(By.CSS_SELECTOR, "#versions tr")
        playing = [r for r in rows if r.find_elements(By.CSS_SELECTOR, "span.active")]
        return playing[0].find_elements(By.TAG_NAME, "td")[1].text if len(playing) == 1 else None
    except WebDriverException:
        return None


def _reloaded_status(driver: Any, row: str) -> str:
    """The challenge's status as the page shows it, loaded again."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    try:
        driver.refresh()
        return driver.find_element(By.CSS_SELECTOR, f"#{row} td:nth-child(4)").text
    except WebDriverException:
        return ""
