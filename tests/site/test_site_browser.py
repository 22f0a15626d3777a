"""The published site in a real Chromium, opened from file:// as a spectator would."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.site import tournament_data
from arena.storage import Store
from tests.browser import DESKTOP, PHONE, console_errors, screenshot, set_viewport, start_chromium

RANDOM = f"{sys.executable} -m sample_bots.random_bot"
HEURISTIC = f"{sys.executable} -m sample_bots.heuristic_bot"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A site published by `arena publish` from a small tournament: (site folder, results folder)."""
    root = tmp_path_factory.mktemp("site-browser")
    for args in (["tournament", "bali-2017", f"h={HEURISTIC}", f"a={RANDOM}", f"b={RANDOM}", "--seats", "3",
                  "--jobs", "1", "--name", "cup"],
                 ["publish", "-o", "site", "--title", "Browser cup"]):
        done = subprocess.run([sys.executable, "-m", "arena", *args], cwd=root, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
    return root / "site", root / "results"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from start_chromium()


def _open(browser: Any, page: Path, size: tuple[int, int] = DESKTOP) -> None:
    set_viewport(browser, size)
    browser.get(page.as_uri())
    assert console_errors(browser) == []


def _fits(browser: Any) -> bool:
    return browser.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth")


@pytest.mark.slow
def test_the_leaderboard_shows_the_stores_ranking(site: tuple[Path, Path], browser: Any) -> None:
    out, results = site
    _open(browser, out / "cup" / "index.html")
    shown = browser.execute_script(
        "return [...document.querySelectorAll('table.ranking tbody tr')].map(r => r.dataset.bot)")
    with Store(results / "arena.sqlite") as store:
        data = tournament_data(store, store.tournament("cup"))
    assert shown == [r.bot for r in data.board.rows]
    assert browser.execute_script("return document.querySelectorAll('svg.chart').length") == 3
    screenshot(browser, "site-leaderboard-desktop")


@pytest.mark.parametrize("page", ["index.html", "cup/index.html", "cup/bots/h.html"])
def test_every_page_fits_a_phone(site: tuple[Path, Path], browser: Any, page: str) -> None:
    _open(browser, site[0] / page, PHONE)
    assert _fits(browser), f"{page} overflows a {PHONE[0]} px screen"
    screenshot(browser, "site-" + re.sub(r"[^a-z]+", "-", page.removesuffix(".html")) + "-phone")


@pytest.mark.slow
def test_links_lead_from_the_index_to_a_bot_and_a_game(site: tuple[Path, Path], browser: Any) -> None:
    _open(browser, site[0] / "index.html")
    browser.find_element("link text", "cup").click()
    assert browser.current_url.endswith("/cup/index.html") and console_errors(browser) == []
    browser.find_element("css selector", 'a[href="bots/h.html"]').click()
    assert browser.current_url.endswith("/cup/bots/h.html") and console_errors(browser) == []
    screenshot(browser, "site-bot-desktop")
    browser.find_element("css selector", 'a[href^="../games/"]').click()
    assert re.search(r"/cup/games/\d+\.html$", browser.current_url)
    assert console_errors(browser) == []
    # The page re-played its game with the site's own scripts (the generator, the core, the facts, the engine, the
    # board, the viewer) and styles, and links to nothing else.
    assert browser.execute_script("return !arenaViewer.problem && arenaViewer.position().last > 0")
    linked = browser.execute_script(
        "return [...document.querySelectorAll('script[src], link[href]')].map(e => e.src || e.href)")
    assert len(linked) == 7 and all(u.startswith((site[0] / "assets").as_uri() + "/") for u in linked), linked
    screenshot(browser, "site-game-desktop")
    browser.find_element("css selector", "a.back").click()  # the game page leads back to its tournament
    assert browser.current_url.endswith("/cup/index.html") and console_errors(browser) == []


@pytest.fixture(scope="module")
def long_names(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site whose bots have long names (as the README's own bots do): the folder of its tournament page."""
    root = tmp_path_factory.mktemp("long-names")
    for args in (["tournament", "bali-2017", HEURISTIC, RANDOM, RANDOM, "--seats", "3", "--jobs", "1", "--name",
                  "cup"], ["publish", "-o", "site", "--no-games"]):
        done = subprocess.run([sys.executable, "-m", "arena", *args], cwd=root, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
    return root / "site" / "cup"


@pytest.mark.slow
def test_on_a_phone_the_ranking_scrolls_in_its_box_with_every_name_whole(long_names: Path, browser: Any) -> None:
    _open(browser, long_names / "index.html", PHONE)
    assert _fits(browser), "the page is wider than the phone"
    names = browser.execute_script(
        "return [...document.querySelectorAll('table.ranking td.name a')].map(a => [a.textContent,"
        " a.getClientRects().length])")
    assert sorted(n for n, _ in names) == ["heuristic_bot", "random_bot", "random_bot-2"]
    assert all(lines == 1 for _, lines in names), names  # no name broken over lines
    box = "document.querySelector('table.ranking').parentElement"
    assert browser.execute_script(f"return {box}.getBoundingClientRect().right") <= PHONE[0]
    # Every column is in the box: scrolled to its end, the last one shows, and the rank and names stay in view.
    browser.execute_script(f"{box}.scrollLeft = {box}.scrollWidth")
    last, name, edge = browser.execute_script(
        "var r = document.querySelector('table.ranking tr');"
        "return [r.lastElementChild.getBoundingClientRect().right, r.children[1].getBoundingClientRect().left,"
        f" {box}.getBoundingClientRect()]")
    assert last <= edge["right"] + 1 and edge["left"] <= name < edge["left"] + 80, (last, name, edge)
    screenshot(browser, "site-ranking-phone-scrolled")


@pytest.fixture(scope="module")
def final_site(site: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same tournament after a season's end re-rating (`arena rerate --final`), published: the folder of its
    tournament page."""
    root = tmp_path_factory.mktemp("final-site")
    shutil.copytree(site[1], root / "results")
    for args in (["rerate", "--final"], ["publish", "-o", "site", "--no-games"]):
        done = subprocess.run([sys.executable, "-m", "arena", *args], cwd=root, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
    return root / "site" / "cup"


@pytest.mark.slow
def test_the_final_ranking_and_each_bots_rank_uncertainty_as_the_leaderboard_gives_them(
        final_site: Path, browser: Any) -> None:
    _open(browser, final_site / "index.html")
    note = browser.find_element("css selector", "p.final-ranking")
    assert note.is_displayed() and "arena rerate --final" in note.text
    shown = browser.execute_script(
        "return [...document.querySelectorAll('table.ranking tbody tr')].map(r => [r.dataset.bot,"
        " r.lastElementChild.textContent])")
    board = json.loads(subprocess.run([sys.executable, "-m", "arena", "leaderboard", "--format", "json"],
                                      cwd=final_site.parent.parent, capture_output=True, text=True,
                                      check=True).stdout)["ranking"]
    assert shown == [[r["bot"], "–" if r["p_above_next"] is None else f"{r['p_above_next']:.2f}"] for r in board]
    screenshot(browser, "site-final-ranking")
