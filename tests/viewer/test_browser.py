"""The replay viewer in a real browser (headless Chromium from the Debian packages), pages opened from file://:
no script error, no request, every decision reachable, links to a moment, no leak in a seat's page, a phone-width
layout that does not overflow, and the figures of a long game (printed, never asserted)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from arena.match.record import GameRecord, load_record
from arena.viewer import render_replay, write_replay
from arena.viewer.games import GAMES
from tests.browser import DESKTOP, PHONE, console_errors, screenshot, set_viewport
from tests.helpers import quick_run
from tests.viewer.conftest import (
    LONG_2001,
    bot,
    card_ids,
    cli_match_record,
    engine_record,
    referee_knowledge,
    run_arena,
    seat_knowledge,
)


@dataclass(frozen=True)
class Page:
    """A replay page on disk and the record it was made from."""

    name: str
    path: Path
    record: GameRecord
    seat: int | None

    @property
    def url(self) -> str:
        return self.path.as_uri()

    @property
    def view(self) -> str:
        return "referee" if self.seat is None else str(self.seat)


@pytest.fixture(scope="module")
def pages(match_2001: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Page]:
    """bali-2001 pages made by `arena replay --html` from a real match (with faults), bali-2017 pages made by the
    library from an engine game with both variants."""
    folder = tmp_path_factory.mktemp("pages")
    made: dict[str, Page] = {}
    record_2001 = load_record(match_2001)
    for seat in (None, 1):
        name = "bali-2001-" + ("referee" if seat is None else f"seat{seat}")
        path = folder / f"{name}.html"
        run_arena("replay", str(match_2001), "--html", str(path), *(["--seat", str(seat)] if seat is not None else []),
                  cwd=folder)
        made[name] = Page(name, path, record_2001, seat)
    record_2017 = engine_record("bali-2017", 3, 7, {"oracle": True, "demon": True})
    for seat in (None, 2):
        name = "bali-2017-" + ("referee" if seat is None else f"seat{seat}")
        path = folder / f"{name}.html"
        write_replay(record_2017, path, seat)
        made[name] = Page(name, path, record_2017, seat)
    return made


PAGE_NAMES = ["bali-2001-referee", "bali-2001-seat1", "bali-2017-referee", "bali-2017-seat2"]


def open_page(driver: Any, url: str) -> None:
    """Open a page afresh (a new document even if only the fragment differs) and wait for the viewer."""
    driver.get("about:blank")
    driver.get(url)
    driver.execute_script("return document.readyState")
    assert driver.execute_script("return typeof window.arenaViewer === 'object'"), console_errors(driver)


def position(driver: Any) -> dict[str, Any]:
    return driver.execute_script("return arenaViewer.position()")


@pytest.mark.parametrize("name", quick_run(PAGE_NAMES, set(PAGE_NAMES) - {"bali-2001-referee"}))
def test_a_page_runs_without_errors_or_requests(chromium: Any, pages: dict[str, Page], name: str) -> None:
    page = pages[name]
    set_viewport(chromium, DESKTOP)
    open_page(chromium, page.url)
    chromium.execute_script("arenaViewer.go(arenaViewer.position().last); arenaViewer.go(0);")
    assert console_errors(chromium) == []
    assert chromium.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert position(chromium) == {"step": 0, "view": page.view, "last": len(page.record.decisions)}
    screenshot(chromium, f"{name}-desktop-start")


# Stepping through all of a 1,000-decision bali-2001 game takes a while: a slow test.
@pytest.mark.parametrize("name", quick_run(["bali-2001-referee", "bali-2017-seat2"], {"bali-2017-seat2"}, str))
def test_the_viewer_steps_to_the_last_decision_and_shows_the_recorded_scores(chromium: Any, pages: dict[str, Page],
                                                                             name: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = pages[name]
    set_viewport(chromium, DESKTOP)
    open_page(chromium, page.url + "#step=0")
    body = chromium.find_element(By.TAG_NAME, "body")
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    assert position(chromium)["step"] == 3
    chromium.find_element(By.ID, "back").click()
    assert position(chromium)["step"] == 2
    last = len(page.record.decisions)
    seen = chromium.execute_script("""
        var seen = [arenaViewer.position().step], button = document.getElementById('forward');
        while (arenaViewer.position().step < arguments[0]) { button.click(); seen.push(arenaViewer.position().step); }
        button.click(); seen.push(arenaViewer.position().step);
        return seen;""", last)
    assert seen == [*range(2, last + 1), last]  # one decision per step, and no step past the end
    rows = chromium.execute_script("""
        return Array.from(document.querySelectorAll('.result-row')).map(function (row) {
          return [+row.dataset.seat, +row.cells[0].textContent, +row.querySelector('.score').textContent]; });""")
    result = page.record
    assert sorted(rows) == [[s, result.ranks[s], result.result.scores[s]] for s in range(result.num_players)]
    assert result.result.reason in chromium.find_element(By.CSS_SELECTOR, ".final h3").text
    assert console_errors(chromium) == []
    screenshot(chromium, f"{name}-desktop-end")


def test_a_link_opens_its_moment_and_moving_updates_it(chromium: Any, pages: dict[str, Page]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.wait import WebDriverWait

    page = pages["bali-2001-referee"]
    step = min(120, len(page.record.decisions) - 2)
    set_viewport(chromium, DESKTOP)
    open_page(chromium, f"{page.url}#step={step}&seat=2")
    assert position(chromium)["step"] == step and position(chromium)["view"] == "2"
    assert chromium.find_element(By.ID, "view").get_attribute("value") == "2"
    assert f"Decision #{step}:" in chromium.find_element(By.ID, "decision").text
    chromium.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    WebDriverWait(chromium, 30).until(
        lambda d: d.execute_script("return location.hash") == f"#step={step + 1}&seat=2&speed=1")
    chromium.execute_script("location.hash = '#step=7&seat=referee'")
    assert position(chromium) == {"step": 7, "view": "referee", "last": len(page.record.decisions)}
    turn = chromium.execute_script("return arenaViewer.frames('referee')[7].turn")
    chromium.find_element(By.ID, "next-turn").click()
    moved = position(chromium)["step"]
    assert chromium.execute_script(f"return arenaViewer.frames('referee')[{moved}].turn") == turn + 1
    assert chromium.execute_script(f"return arenaViewer.frames('referee')[{moved - 1}].turn") == turn
    seat_page = pages["bali-2001-seat1"]
    open_page(chromium, f"{seat_page.url}#step=5&seat=0")  # a seat page shows its own seat whatever the link says
    assert position(chromium)["step"] == 5 and position(chromium)["view"] == "1"
    assert console_errors(chromium) == []


PLAYED = """
    var done = arguments[arguments.length - 1], want = arguments[0];
    var start = arenaViewer.position().step, began = performance.now();
    document.getElementById('play').click();
    (function check() {
      var moved = arenaViewer.position().step - start;
      if (moved >= want || !arenaViewer.playing()) {
        var took = performance.now() - began;
        document.getElementById('play').click();
        done([moved, took]);
      } else { setTimeout(check, 5); }
    })();"""


@pytest.mark.slow
def test_playback_speeds_are_kept_in_the_link_and_32x_plays_at_least_20_decisions_a_second(
        chromium: Any, pages: dict[str, Page]) -> None:
    """Playback keeps to the page's clock, so the rate is measured there: the time the step took to advance by a
    count (each bound holds on a machine of any load: 32x shows a decision every 14 ms however slow a frame is)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.wait import WebDriverWait

    page = pages["bali-2001-referee"]
    assert len(page.record.decisions) > 100
    set_viewport(chromium, DESKTOP)
    open_page(chromium, f"{page.url}#step=3&seat=referee&speed=4")
    speed = Select(chromium.find_element(By.ID, "speed"))
    assert [o.text for o in speed.options] == ["0.5×", "1×", "2×", "4×", "8×", "16×", "32×"]
    assert chromium.find_element(By.ID, "speed-label").text.startswith("speed")
    assert speed.first_selected_option.text == "4×" and chromium.execute_script("return arenaViewer.speed()") == 4
    body = chromium.find_element(By.TAG_NAME, "body")
    body.send_keys("+")
    assert chromium.execute_script("return arenaViewer.speed()") == 8
    WebDriverWait(chromium, 30).until(
        lambda d: d.execute_script("return location.hash") == "#step=3&seat=referee&speed=8")
    body.send_keys("-", "-", "-", "-")
    assert chromium.execute_script("return arenaViewer.speed()") == 0.5
    body.send_keys("-")  # no slower speed: it stays
    assert speed.first_selected_option.text == "0.5×"
    speed.select_by_visible_text("2×")
    chromium.execute_script("arenaViewer.go(0)")
    moved, took = chromium.execute_async_script(PLAYED, 2)
    assert moved >= 2 and took >= moved * 450 / 2  # 2x: 225 ms a decision, never sooner
    speed.select_by_visible_text("32×")
    WebDriverWait(chromium, 30).until(lambda d: d.execute_script("return location.hash").endswith("&speed=32"))
    moved, took = chromium.execute_async_script(PLAYED, 40)
    assert moved >= 40, "playback stopped before 40 decisions"
    assert moved / (took / 1000) >= 20, f"32x played {moved} decisions in {took:.0f} ms"
    print(f"\n32x played {moved} decisions in {took:.0f} ms: {moved / took * 1000:.1f} a second")
    assert not chromium.execute_script("return arenaViewer.playing()")
    assert console_errors(chromium) == []


@pytest.fixture(scope="module")
def chatty(tmp_path_factory: pytest.TempPathFactory) -> tuple[GameRecord, Path, Path]:
    """A bali-2017 game of a bot that writes a line to stderr at every decision (seat 0) against a random bot, by
    `arena match`, and its referee's page and seat 1's page by `arena replay --html`."""
    folder = tmp_path_factory.mktemp("chatty")
    path = cli_match_record(folder, "bali-2017", [bot("chatty_bot"), bot("random_bot")], seed=2)
    pages = folder / "referee.html", folder / "seat1.html"
    run_arena("replay", str(path), "--html", str(pages[0]), cwd=folder)
    run_arena("replay", str(path), "--html", str(pages[1]), "--seat", "1", cwd=folder)
    return load_record(path), *pages


@pytest.mark.slow
def test_a_bots_stderr_shows_at_the_decision_it_was_written_for(chromium: Any,
                                                                chatty: tuple[GameRecord, Path, Path]) -> None:
    from selenium.webdriver.common.by import By

    record, referee, seat_page = chatty
    mine = [k for k, d in enumerate(record.decisions) if d.seat == 0]
    theirs = next(k for k, d in enumerate(record.decisions) if d.seat == 1)
    open_page(chromium, referee.as_uri())
    for asked, step in [(1, mine[0]), (2, mine[1]), (len(mine), mine[-1])]:
        chromium.execute_script("arenaViewer.go(arguments[0])", step)
        said = chromium.find_element(By.CSS_SELECTOR, "#decision .said").text
        d = record.decisions[step]
        assert said.startswith(f"chatty: game 0 decision {asked} chose {d.index} of "), (step, said)
        entry = chromium.find_element(By.CSS_SELECTOR, f'#log .entry[data-step="{step}"] .said-line')
        assert entry.text == said
        chips = chromium.find_element(By.CSS_SELECTOR, "#decision .chips").text
        assert f"time {d.time * 1000:.1f} ms" in chips  # the wall time, what it was charged and its wait for a core
        assert d.charged is not None and f"charged {d.charged * 1000:.1f} ms" in chips
        assert d.wait is not None and f"waiting for a core {d.wait * 1000:.1f} ms" in chips
    screenshot(chromium, "bali-2017-bot-log")
    chromium.execute_script("arenaViewer.go(arguments[0])", theirs)
    assert chromium.find_elements(By.CSS_SELECTOR, "#decision .bot-log") == []  # the random bot wrote nothing
    assert console_errors(chromium) == []
    # A seat's page holds only its own bot's log: seat 1's holds none of seat 0's.
    assert "chatty:" not in seat_page.read_text(encoding="utf-8")
    # Markup a bot writes is shown as the text it is.
    hostile = '<b id="bold">bold</b><img src=x onerror="document.title=1">'
    first = replace(record.decisions[mine[0]], log=hostile)
    edited = referee.with_name("hostile.html")
    edited.write_text(render_replay(replace(record, decisions=tuple(
        first if k == mine[0] else d for k, d in enumerate(record.decisions)))), encoding="utf-8")
    open_page(chromium, f"{edited.as_uri()}#step={mine[0]}")
    assert chromium.find_element(By.CSS_SELECTOR, "#decision .said").text == hostile
    assert chromium.find_elements(By.CSS_SELECTOR, "#bold, #decision img, #log img") == []
    assert console_errors(chromium) == []


@pytest.mark.slow
def test_the_legend_explains_every_abbreviation_on_the_board(chromium: Any, pages: dict[str, Page]) -> None:
    from selenium.webdriver.common.by import By

    for name in ("bali-2001-referee", "bali-2017-referee"):
        page = pages[name]
        legend = GAMES[page.record.game].legend()
        open_page(chromium, page.url)
        listed = [[term.find_element(By.TAG_NAME, "dt").text, term.find_element(By.TAG_NAME, "dd").text]
                  for term in chromium.find_elements(By.CSS_SELECTOR, "#legend .term")]
        assert listed == legend["entries"]
        terms = {term for term, _ in listed}
        # Every short form a card is drawn with on the board, at every 10th step, is one the legend explains.
        drawn = chromium.execute_script("""
            var seen = {};
            var last = arenaViewer.position().last;
            for (var step = 0; step <= last + 9; step += 10) {
              arenaViewer.go(Math.min(step, last));
              document.querySelectorAll('#board .card').forEach(function (c) { seen[c.textContent] = true; });
            }
            return Object.keys(seen);""")
        islands = set(legend["islands"].values())
        for text in drawn:
            kind, _, pair = text.partition(" ")
            assert kind in terms, f"{name}: {text!r} is drawn but not in the legend"
            assert set(pair) <= islands, f"{name}: {text!r} names islands the legend does not list"
        assert set(legend["cards"].values()) <= terms
        assert console_errors(chromium) == []


@pytest.mark.parametrize("name", ["bali-2001-seat1", "bali-2017-seat2"])
def test_a_seat_page_holds_only_what_the_seat_was_sent(chromium: Any, pages: dict[str, Page], name: str) -> None:
    page = pages[name]
    seat = page.seat
    assert seat is not None
    open_page(chromium, page.url)
    data = chromium.execute_script("return arenaViewer.data")
    assert list(data["views"]) == [str(seat)]
    views, events = seat_knowledge(page.record, seat)
    assert chromium.execute_script(f"return arenaViewer.frames('{seat}')") == views
    assert all("options" not in d and "index" not in d for d in data["decisions"] if d["seat"] != seat)
    assert card_ids(data) <= card_ids(views) | card_ids(events)
    other = (seat + 1) % page.record.num_players
    assert "hidden" in chromium.execute_script(
        "return document.querySelectorAll('.seat-box')[arguments[0]].textContent", other)


@pytest.mark.parametrize("name", quick_run(["bali-2001-referee", "bali-2017-referee"], {"bali-2017-referee"}))
def test_the_referee_page_replays_the_record_as_the_engine_played_it(chromium: Any, pages: dict[str, Page],
                                                                    name: str) -> None:
    page = pages[name]
    record = page.record
    open_page(chromium, page.url)
    for seat in range(record.num_players):
        assert chromium.execute_script(f"return arenaViewer.frames('{seat}')") == seat_knowledge(record, seat)[0]
    tables, lines, options = referee_knowledge(record)
    assert chromium.execute_script("return arenaViewer.frames('referee')") == tables
    data = chromium.execute_script("return arenaViewer.data")
    assert data["events"] == lines
    assert [d["options"] for d in data["decisions"]] == options
    for view in data["views"].values():
        assert [row["total"] for row in view["scoring"]["rows"]] == list(record.result.scores)
    assert console_errors(chromium) == []


def test_a_record_that_does_not_replay_shows_why(chromium: Any, tmp_path: Path) -> None:
    record = engine_record("bali-2017", 3, 7)
    path = tmp_path / "broken.html"
    path.write_text(render_replay(replace(record, decisions=record.decisions[:-1]), check=False), encoding="utf-8")
    open_page(chromium, path.as_uri())
    problem = chromium.execute_script("return arenaViewer.problem")
    assert problem == "the game is not over after the recorded decisions"
    assert problem in chromium.execute_script("return document.querySelector('.problem').textContent")
    assert console_errors(chromium) == []


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_the_phone_width_page_does_not_overflow(chromium: Any, pages: dict[str, Page], name: str) -> None:
    page = pages[name]
    set_viewport(chromium, PHONE)
    try:
        open_page(chromium, page.url)
        last = len(page.record.decisions)
        for step in (0, last // 2, last):
            chromium.execute_script("arenaViewer.go(arguments[0])", step)
            width, client = chromium.execute_script(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            assert client == PHONE[0] and width <= client, f"{name} at step {step}: {width} > {client}"
            if step:
                screenshot(chromium, f"{name}-phone-{'end' if step == last else 'middle'}")
        assert console_errors(chromium) == []
    finally:
        set_viewport(chromium, DESKTOP)


STEPS_MEASURED = 100


# A measurement (its figures are in the README), not a check of anything the other browser tests leave out.
@pytest.mark.slow
def test_a_long_game_opens_and_steps_fast(chromium: Any, tmp_path: Path) -> None:
    """Prints the figures of a 1,136-decision bali-2001 game: the time from navigation to the first frame drawn,
    and the time per step forward and per jump along the slider (drawing and layout, performance.now), one per
    animation frame, as a user moves."""
    record = engine_record(*LONG_2001)
    set_viewport(chromium, DESKTOP)
    figures = []
    for seat in (None, 0):
        path = tmp_path / f"long-{seat}.html"
        write_replay(record, path, seat)
        open_page(chromium, path.as_uri())
        load, marks = chromium.execute_script("return [arenaViewer.loadMs, arenaViewer.marks]")
        steps, jumps = (chromium.execute_async_script("""
            var done = arguments[arguments.length - 1], left = arguments[0], stride = arguments[1];
            arenaViewer.stepTimes.length = 0;
            function step() {
              if (left-- === 0) { done(arenaViewer.stepTimes.slice()); return; }
              arenaViewer.go((arenaViewer.position().step + stride) % arenaViewer.position().last);
              requestAnimationFrame(step);
            }
            requestAnimationFrame(step);""", STEPS_MEASURED, stride) for stride in (1, 389))
        assert len(steps) == len(jumps) == STEPS_MEASURED and console_errors(chromium) == []
        figures.append(
            f"{'referee' if seat is None else 'seat 0'} page ({path.stat().st_size / 1e3:,.0f} KB, "
            f"{len(record.decisions)} decisions): first frame drawn {load:.0f} ms after navigation (HTML parsed "
            f"{marks['start']:.0f} ms, data {marks['parsed'] - marks['start']:.0f} ms, record re-played "
            f"{marks['replayed'] - marks['parsed']:.0f} ms, frames {marks['frames'] - marks['replayed']:.0f} ms, "
            f"drawing {marks['drawn'] - marks['frames']:.0f} ms); "
            f"a step forward: median {statistics.median(steps):.1f} ms, 95th percentile "
            f"{statistics.quantiles(steps, n=20)[-1]:.1f} ms; a jump along the slider: median "
            f"{statistics.median(jumps):.1f} ms, 95th percentile {statistics.quantiles(jumps, n=20)[-1]:.1f} ms")
    print("\nviewer figures:\n  " + "\n  ".join(figures))
