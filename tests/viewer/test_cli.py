"""`arena replay FILE --html` and `arena show GAME --html` through the command line, as a user runs them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.viewer.conftest import ROOT, page_data, run_arena


def test_replay_writes_the_referee_page_and_a_seat_page(match_2001: Path, tmp_path: Path) -> None:
    referee, seat = tmp_path / "referee.html", tmp_path / "seat1.html"
    done = run_arena("replay", str(match_2001), "--html", str(referee), cwd=tmp_path)
    assert f"replay page written to {referee}" in done.stderr and done.stdout == ""
    data = page_data(referee.read_text(encoding="utf-8"))
    assert data["mode"] == "record" and data["page_seat"] is None and data["num_players"] == 3
    run_arena("replay", str(match_2001), "--html", str(seat), "--seat", "1", cwd=tmp_path)
    data = page_data(seat.read_text(encoding="utf-8"))
    assert list(data["views"]) == ["1"] and data["page_seat"] == 1


@pytest.mark.parametrize("args, code, message", [
    (["--seat", "3"], 2, "the game had seats 0 to 2"),
    (["--html", "missing-folder/page.html"], 1, "cannot write"),
])
def test_bad_replay_page_requests_are_refused(match_2001: Path, tmp_path: Path, args: list[str], code: int,
                                              message: str) -> None:
    out = tmp_path / "page.html"
    done = run_arena("replay", str(match_2001), *(args if "--html" in args else ["--html", str(out), *args]),
                     cwd=tmp_path, check=False)
    assert done.returncode == code and message in done.stderr and "Traceback" not in done.stderr
    assert not out.exists() and not (tmp_path / "missing-folder").exists()


def test_a_record_that_does_not_reproduce_writes_no_page(match_2001: Path, tmp_path: Path) -> None:
    data = json.loads(match_2001.read_text(encoding="utf-8"))
    data["decisions"] = data["decisions"][:-1]
    broken, out = tmp_path / "broken.json", tmp_path / "page.html"
    broken.write_text(json.dumps(data), encoding="utf-8")
    done = run_arena("replay", str(broken), "--html", str(out), cwd=tmp_path, check=False)
    assert done.returncode == 1 and "does not reproduce" in done.stderr and "Traceback" not in done.stderr
    assert not out.exists()


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose results store holds a small bali-2017 tournament of two random bots."""
    folder = tmp_path_factory.mktemp("stored")
    random_bot = f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'}"
    run_arena("tournament", "bali-2017", random_bot, f"other={random_bot}", "--seats", "2", "--jobs", "1",
              cwd=folder)
    return folder


@pytest.mark.slow
def test_show_writes_a_stored_games_page(stored: Path) -> None:
    done = run_arena("show", "2", "--html", "game2.html", "--seat", "0", cwd=stored)
    assert "replay page written to game2.html" in done.stderr
    data = page_data((stored / "game2.html").read_text(encoding="utf-8"))
    assert list(data["views"]) == ["0"] and data["game"] == "bali-2017"
    run_arena("show", "1", "--html", "game1.html", cwd=stored)
    referee = page_data((stored / "game1.html").read_text(encoding="utf-8"))
    assert referee["mode"] == "record" and referee["page_seat"] is None


@pytest.mark.parametrize("args, message", [
    (["1", "--seat", "0"], "only with --html"),
    (["1", "--seat", "2", "--html", "x.html"], "the game had seats 0 to 1"),
])
def test_show_refuses_a_seat_it_cannot_draw(stored: Path, args: list[str], message: str) -> None:
    done = run_arena("show", *args, cwd=stored, check=False)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert not (stored / "x.html").exists()
