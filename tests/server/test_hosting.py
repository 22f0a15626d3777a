"""The server's library side, in-process: what a request reads is kept fresh in the background."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from arena.competition.season import SeasonSettings
from arena.server import board as board_module
from arena.server.hosting import Hosting
from arena.tournament.formats.base import Play
from tests.helpers import wait_until


def test_the_leaderboards_refresher_outlives_a_look_that_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    h = Hosting(SeasonSettings(play=Play(game="bali-2001"), name="t", results_dir=tmp_path,
                               db=tmp_path / "arena.sqlite"))
    assert h.board.leaderboard() == []  # the first request works it out and starts the refresher
    monkeypatch.setattr(board_module, "BOARD_LOOK", 0.01)
    looks = []
    fresh = [{"bot": "fresh"}]

    def look(board: object) -> object:
        looks.append(board)
        if len(looks) == 1:
            raise RuntimeError("a look that fails for a reason the store does not name")
        return (1, 1, 1), fresh

    monkeypatch.setattr(h.board, "_look_at_board", look)
    assert wait_until(lambda: h.board.leaderboard() == fresh), looks
    assert "the leaderboard was not worked out again" in caplog.text


def test_close_ends_the_leaderboards_thread_after_the_chart_it_is_drawing(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop waits for the thread that draws the front page's chart: cut off inside matplotlib's C++ as the
    interpreter ends, it would abort the server (exit -6, not 130)."""
    h = Hosting(SeasonSettings(play=Play(game="bali-2001"), name="t", results_dir=tmp_path,
                               db=tmp_path / "arena.sqlite"))
    drawing, drawn = threading.Event(), threading.Event()

    def draw(rows: object) -> str:
        drawing.set()
        time.sleep(0.5)  # a chart being drawn when the stop comes
        drawn.set()
        return "<svg/>"

    monkeypatch.setattr(h.board, "_draw_board_chart", draw)
    h.board.leaderboard()
    assert drawing.wait(10)
    h.close()
    assert drawn.is_set() and h.board._refresher is not None and not h.board._refresher.is_alive()
