"""A fault points at its moment: the link `arena validate` prints and the one on a published bot page open the
game's replay at that decision, in the faulty seat's view, and the title names the view shown."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.browser import DESKTOP, console_errors, set_viewport
from tests.helpers import arena
from tests.match.conftest import faulty

pytestmark = pytest.mark.slow
RANDOM = f"{sys.executable} -m sample_bots.random_bot"


def _open(driver: Any, url: str) -> dict[str, Any]:
    driver.get("about:blank")
    driver.get(url)
    assert driver.execute_script("return typeof window.arenaViewer === 'object'"), console_errors(driver)
    return driver.execute_script("return arenaViewer.position()")


def _title(driver: Any) -> str:
    return driver.execute_script("return document.getElementById('title').textContent")


def test_the_link_validate_prints_opens_the_fault_in_the_bots_seat(tmp_path: Path, chromium: Any) -> None:
    from selenium.webdriver.support.ui import Select

    done = arena("validate", str(faulty("die_mid_game")), "--game", "bali-2017", "--games", "1", "--players", "3",
                 cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    fault = re.search(r"^  fault: game 1, decision #(\d+) \(its 3rd\): crash", done.stdout, re.M)
    link = re.search(r"^    see it: (file:///\S+#step=(\d+)&seat=(\d+))$", done.stdout, re.M)
    _, step, seat = link.groups()
    assert fault and fault.group(1) == step
    set_viewport(chromium, DESKTOP)
    assert _open(chromium, link.group(1))["step"] == int(step)  # the printed URL, pasted as it is
    assert chromium.execute_script("return arenaViewer.position().view") == seat
    assert f"Decision #{step}:" in chromium.find_element("id", "decision").text
    assert _title(chromium).endswith(f", seat {seat}'s view (faulty_bot (faulty-die_mid_game))"), _title(chromium)
    Select(chromium.find_element("id", "view")).select_by_value("referee")
    assert _title(chromium).endswith(", referee's view (everything)")
    assert chromium.title == _title(chromium)
    assert console_errors(chromium) == []


def test_a_published_fault_links_to_its_game_and_decision(tmp_path: Path, chromium: Any) -> None:
    bad = f"bad={faulty('die_mid_game')}"
    for args in (("tournament", "bali-2017", bad, f"a={RANDOM}", f"b={RANDOM}", "--seats", "3", "--jobs", "1",
                  "--name", "cup", "--timeout", "0.5", "--init-timeout", "20"),
                 ("publish", "-o", "site", "--title", "Fault cup")):
        done = arena(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    bot_page = tmp_path / "site" / "cup" / "bots" / "bad.html"
    link = re.search(r'href="\.\./games/(\d+)\.html#step=(\d+)&amp;seat=(\d+)">#(\d+)</a>',
                     bot_page.read_text(encoding="utf-8"))
    assert link, "the bot page links no fault to its moment"
    number, step, seat, shown = link.groups()
    assert shown == step
    listing = arena("show", number, "-t", "cup", cwd=tmp_path)
    assert listing.returncode == 0 and listing.stdout.startswith(f"game {number} of cup (table ")
    assert f"seat {seat}, decision #{step}: crash" in listing.stdout
    set_viewport(chromium, DESKTOP)
    chromium.get("about:blank")
    chromium.get(bot_page.as_uri())
    chromium.find_element("css selector", f'a[href="../games/{number}.html#step={step}&seat={seat}"]').click()
    assert chromium.execute_script("return arenaViewer.position()")["step"] == int(step)
    assert _title(chromium) == f"bali-2017: game {number} of cup, seat {seat}'s view (bad (faulty-die_mid_game))"
    # The game list numbers the game as its page and its title do.
    games = (tmp_path / "site" / "cup" / "games-1.html").read_text(encoding="utf-8")
    assert f'<a href="games/{number}.html">#{number}</a>' in games


LONG_CRASH = """import sys
from protocol import run_bot

count = 0


def decide(view, options, decision):
    global count
    count += 1
    if count == 3:
        for n in range(60):
            print(f"frame {n}", file=sys.stderr)
        raise RuntimeError("the last line says what went wrong")
    return 0


run_bot(decide, name="long-crash")
"""


def test_a_crash_box_opens_at_the_end_of_the_stderr(tmp_path: Path, chromium: Any) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "long_crash.py").write_text(LONG_CRASH)
    done = arena("validate", f"{sys.executable} long_crash.py", "--game", "bali-2017", "--games", "1", "--players",
                 "2", cwd=tmp_path / "bot")
    assert done.returncode == 1, done.stdout + done.stderr
    url = re.search(r"^    see it: (file:///\S+)$", done.stdout, re.M).group(1)
    _open(chromium, url)
    box = chromium.find_element("css selector", ".fault .stderr")
    assert "the last line says what went wrong" in box.text
    top, height, shown = chromium.execute_script(
        "var p = arguments[0]; return [p.scrollTop, p.scrollHeight, p.clientHeight];", box)
    assert height > shown and top + shown >= height - 1, (top, height, shown)
