"""A competitor in Chromium: signs in with the link the organiser sent, uploads a kit bot as a zip, watches it
get admitted, opens one of its games and sees its own stderr beside a decision, and not another author's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.storage import Store
from tests.browser import screenshot, set_viewport, start_chromium
from tests.helpers import wait_until
from tests.server.conftest import Server, admitted, kit_bot, slip_bot, upload, zipped

pytestmark = pytest.mark.slow


@pytest.fixture
def driver() -> Iterator[Any]:
    yield from start_chromium()


def test_a_competitor_uploads_in_the_browser_and_reads_only_their_own_log(server: Server, tmp_path: Path,
                                                                           driver: Any) -> None:
    from selenium.webdriver.common.by import By

    code, _ = server.author("alice")
    _, bob = server.author("bob")
    rival = kit_bot(tmp_path / "bobbot")
    (rival / "bot.py").write_text((rival / "bot.py").read_text().replace("thinking about", "BOB-SECRET"))
    assert admitted(server, bob, upload(server, bob, zipped(rival)).json()["id"])
    archive = tmp_path / "alicebot.zip"
    archive.write_bytes(zipped(kit_bot(tmp_path / "alicebot"), top=True))

    _sign_in(driver, server, code)
    _upload(driver, archive)
    driver.execute_script("window.arenaLoaded = 'once';")  # gone if the page were loaded again
    assert wait_until(lambda: _text(driver, "status") in ("admitted", "refused"), 120)  # followed live
    assert _text(driver, "status") == "admitted", driver.page_source[-2000:]
    assert driver.execute_script("return window.arenaLoaded;") == "once"

    with server.client() as c:  # a game both bots played
        assert wait_until(lambda: _shared_game(c), 180)
        gid = _shared_game(c)
    driver.get(f"{server.url}/me/bots/alicebot")
    driver.find_element(By.CSS_SELECTOR, f'a.game[href^="/me/games/{gid}?"]').click()
    assert wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, ".said-line"))
    said = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".said-line")]
    assert any("thinking about" in text for text in said)
    assert "BOB-SECRET" not in driver.page_source and not any("BOB-SECRET" in text for text in said)


def _sign_in(driver: Any, server: Server, code: str) -> None:
    """Sign in by the link the organiser sent, onto one's own page."""
    from selenium.webdriver.common.by import By

    driver.get(f"{server.url}/signin/{code}")
    driver.find_element(By.ID, "sign-in").click()
    assert wait_until(lambda: driver.current_url.endswith("/me"))


def _upload(driver: Any, archive: Path) -> None:
    """Upload an archive from one's own page, onto the upload's page."""
    from selenium.webdriver.common.by import By

    driver.find_element(By.ID, "file").send_keys(str(archive))
    driver.find_element(By.ID, "upload").click()
    assert wait_until(lambda: "/me/submissions/" in driver.current_url)


def _text(driver: Any, element: str) -> str:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    try:
        return driver.find_element(By.ID, element).text
    except WebDriverException:  # the page is reloading
        return ""


def _body(driver: Any) -> str:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    try:
        return driver.find_element(By.TAG_NAME, "body").text
    except WebDriverException:  # the next page is on its way: no body yet
        return ""


def _shared_game(client: Any) -> int | None:
    for game in client.get("/api/games", params={"bot": "alicebot"}).json():
        if {"alicebot", "bobbot"} <= {s["bot"] for s in game["seats"]}:
            return game["number"]
    return None


def test_the_leaderboard_page_follows_the_games_without_reloading(server: Server, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    driver.get(server.url + "/")
    driver.execute_script("window.arenaLoaded = 'once';")
    first = driver.find_element(By.ID, "rows").text
    assert wait_until(lambda: _text(driver, "rows") not in ("", first), 180)  # the sample bots' games come in
    seen = _games_shown(driver)
    assert wait_until(lambda: _games_shown(driver) > seen, 180)
    assert driver.execute_script("return window.arenaLoaded;") == "once"
    assert "random_bot" in _text(driver, "rows")
    # The rows the script draws from the live updates read as the server's page draws them, names linked alike.
    with server.client() as c:
        assert wait_until(lambda: _rows_html(driver) == _rows_of(c.get("/").text), 120)
    # A name drawn by the script links to its bot's page, served as the store stands: its row, its chart.
    clicked: list[str] = []
    assert wait_until(lambda: _click_a_name(driver, clicked), 60)
    assert wait_until(lambda: driver.current_url == f"{server.url}/bots/{clicked[0]}")
    assert driver.find_element(By.TAG_NAME, "h1").text == clicked[0]
    assert driver.find_element(By.CSS_SELECTOR, "#chart svg.chart").is_displayed()
    assert clicked[0] in driver.find_element(By.ID, "rating").text
    with server.client() as c:
        assert clicked[0] in {r["bot"] for r in c.get("/api/leaderboard").json()}


def test_the_live_board_shows_each_bots_rank_interval_and_its_chance_above_the_next(server: Server,
                                                                                    driver: Any) -> None:
    driver.get(server.url + "/")
    driver.execute_script("window.arenaLoaded = 'once';")
    with server.client() as c:
        # Drawn by the script from the live updates (the page is not loaded again), read between two equal boards.
        assert wait_until(lambda: _intervals_drawn(driver, c), 240)
    assert driver.execute_script("return window.arenaLoaded;") == "once"


def _intervals_drawn(driver: Any, client: Any) -> bool:
    """True once the rows drawn show, for at least two bots with games, the interval and chance the API gives."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    board = client.get("/api/leaderboard").json()
    try:
        cells = [[td.text for td in row.find_elements(By.TAG_NAME, "td")]
                 for row in driver.find_elements(By.CSS_SELECTOR, "#rows tr")]
    except WebDriverException:  # the rows are being drawn again
        return False
    if len(board) < 2 or client.get("/api/leaderboard").json() != board or len(cells) != len(board):
        return False
    for r, row in zip(board, cells):
        assert 1 <= r["rank_low"] <= r["rank"] <= r["rank_high"] <= len(board)
        above = "" if r["p_above_next"] is None else f"{r['p_above_next']:.2f}"
        if row[:3] != [str(r["rank"]), f"{r['rank_low']}–{r['rank_high']}", r["name"]] or row[-1] != above:
            return False
    return board[-1]["p_above_next"] is None and all(0 <= r["p_above_next"] <= 1 for r in board[:-1])


def _click_a_name(driver: Any, clicked: list[str]) -> bool:
    """Click the first name of the board; False if the script drew the rows again meanwhile (try again)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    try:
        link = driver.find_element(By.CSS_SELECTOR, "#rows tr:first-child a")
        name, href = link.text, link.get_attribute("href")
        link.click()
    except WebDriverException:
        return False
    clicked.append(href.rsplit("/", 1)[1])
    assert name.split("@", 1)[0] == clicked[0], (name, href)
    return True


def _games_shown(driver: Any) -> int:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By

    try:
        return sum(int(row.find_elements(By.TAG_NAME, "td")[5].text)
                   for row in driver.find_elements(By.CSS_SELECTOR, "#rows tr"))
    except (WebDriverException, IndexError, ValueError):  # the rows are being drawn again
        return -1


def _rows_html(driver: Any) -> str:
    return re.sub(r">\s+<", "><", driver.execute_script("return document.getElementById('rows').innerHTML;"))


def _rows_of(page: str) -> str:
    return re.sub(r">\s+<", "><", page.split('<tbody id="rows">', 1)[1].split("</tbody>", 1)[0])


def test_a_stranger_reads_the_rules_downloads_a_kit_from_the_front_page_and_uploads_it_as_it_is(
        server: Server, tmp_path: Path, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    code, _ = server.author("erin")
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    _sign_in(driver, server, code)
    driver.get(f"{server.url}/")
    driver.find_element(By.CSS_SELECTOR, 'a[href="/rules"]').click()
    assert wait_until(lambda: "Rules as implemented" in _text(driver, "rules"))
    driver.back()
    driver.find_element(By.CSS_SELECTOR, 'a[href="/kits/python.zip"]').click()
    kit = downloads / "erin-python.zip"
    assert wait_until(lambda: kit.is_file() and not list(downloads.glob("*.crdownload")), 60)
    driver.get(f"{server.url}/me")
    _upload(driver, kit)
    assert wait_until(lambda: _text(driver, "status") in ("admitted", "refused"), 120)
    assert _text(driver, "status") == "admitted", driver.page_source[-2000:]


def test_uploading_with_no_archive_chosen_is_told_in_the_browsers_words(server: Server, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    code, _ = server.author("fay")
    _sign_in(driver, server, code)
    driver.find_element(By.ID, "upload").click()
    assert wait_until(lambda: "choose your bot's archive (a .zip or .tar.gz) before you upload" in driver.page_source)
    assert "multipart" not in driver.page_source


def test_an_author_retires_a_bot_with_its_button_and_it_leaves_the_ladder_while_its_games_stay(
        server: Server, tmp_path: Path, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    code, token = server.author("gil")
    assert admitted(server, token, upload(server, token, zipped(kit_bot(tmp_path / "gilbot"))).json()["id"])
    with server.client() as c:
        assert wait_until(lambda: any(r["bot"] == "gilbot" for r in c.get("/api/leaderboard").json()), 180)
    _sign_in(driver, server, code)
    driver.get(f"{server.url}/me/bots/gilbot")
    driver.find_element(By.CSS_SELECTOR, "#retire button").click()
    assert wait_until(lambda: "retired" in _body(driver))
    assert not driver.find_elements(By.ID, "retire")
    with server.client() as c:
        played = len(c.get("/api/games", params={"bot": "gilbot"}).json())
        assert played >= 1
        assert wait_until(lambda: all(r["bot"] != "gilbot" for r in c.get("/api/leaderboard").json()), 180)
        assert len(c.get("/api/games", params={"bot": "gilbot"}).json()) >= played  # its games stay


def test_a_refused_competitor_follows_the_refusal_to_the_faulty_decision_in_its_replay(server: Server, tmp_path: Path,
                                                                                        driver: Any) -> None:
    from selenium.webdriver.common.by import By

    code, _ = server.author("fay")
    slip = slip_bot(tmp_path / "faybot")
    archive = tmp_path / "faybot.zip"
    archive.write_bytes(zipped(slip, top=True))
    _sign_in(driver, server, code)
    _upload(driver, archive)
    assert wait_until(lambda: _text(driver, "status") == "refused", 120), driver.page_source[-2000:]
    decision = int(re.search(r"decision #(\d+)", _text(driver, "reason")).group(1))
    assert wait_until(lambda: driver.find_element(By.ID, "replay").is_displayed())  # shown live, no reload
    driver.find_element(By.CSS_SELECTOR, "#replay a").click()
    assert wait_until(lambda: f"Decision #{decision}:" in _text(driver, "decision")), _body(driver)[-2000:]
    said = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".said-line")]
    assert any("thinking about" in text for text in said), said  # its own stderr beside its decisions


NARROW_PHONE = (375, 812)


def test_on_a_375_px_phone_the_board_scrolls_within_the_page_and_the_token_is_whole_with_a_copy_button(
        server: Server, driver: Any) -> None:
    from selenium.webdriver.common.by import By

    set_viewport(driver, NARROW_PHONE)
    driver.get(server.url + "/")
    assert wait_until(lambda: _text(driver, "rows") != "", 180)  # the sample bots' first games are in
    driver.get(server.url + "/")
    # The page itself does not overflow; the board scrolls sideways in its own box, to its last column.
    assert driver.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"), \
        screenshot(driver, "server-board-375")
    last = driver.execute_script(
        "var board = document.getElementById('leaderboard'); board.scrollLeft = board.scrollWidth;"
        "var cells = board.querySelectorAll('thead th'); var cell = cells[cells.length - 1].getBoundingClientRect();"
        "return [cell.left, cell.right];")
    assert 0 <= last[0] and last[1] <= NARROW_PHONE[0] + 1, last
    # Signing up with an invite shows the API token once: whole on the screen, and copied by its button.
    with Store(server.results / "arena.sqlite") as store:
        _, code = store.add_invite(1, 3600)
    driver.get(f"{server.url}/join/{code}")
    driver.find_element(By.ID, "name").send_keys("phoebe")
    driver.find_element(By.ID, "sign-up").click()
    assert wait_until(lambda: driver.find_elements(By.ID, "token"))
    token = driver.find_element(By.ID, "token").text.strip()
    assert token.startswith(tuple("0123456789")) and "." in token
    box = driver.execute_script("var t = document.getElementById('token'); var r = t.getBoundingClientRect();"
                                "return [r.left, r.right, t.scrollWidth, t.clientWidth];")
    assert 0 <= box[0] and box[1] <= NARROW_PHONE[0] + 1 and box[2] <= box[3], box
    assert driver.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.url, "permissions": [
        "clipboardReadWrite", "clipboardSanitizedWrite"]})
    driver.find_element(By.ID, "copy-token").click()
    assert wait_until(lambda: "copied" in driver.find_element(By.ID, "copy-token").text)
    copied = driver.execute_async_script(
        "var done = arguments[0]; navigator.clipboard.readText().then(done, function (e) { done(String(e)); });")
    assert copied == token
    screenshot(driver, "server-token-375")
