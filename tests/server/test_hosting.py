"""The server's library side, in-process: what a request reads is kept fresh in the background."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.competition.season import SeasonSettings
from arena.server import hosting as hosting_module
from arena.server.hosting import Hosting
from arena.tournament.formats.base import Play
from tests.helpers import wait_until


def test_the_leaderboards_refresher_outlives_a_look_that_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    h = Hosting(SeasonSettings(play=Play(game="bali-2001"), name="t", results_dir=tmp_path,
                               db=tmp_path / "arena.sqlite"))
    assert h.leaderboard() == []  # the first request works it out and starts the refresher
    monkeypatch.setattr(hosting_module, "BOARD_LOOK", 0.01)
    looks = []
    fresh = [{"bot": "fresh"}]

    def look(board: object) -> object:
        looks.append(board)
        if len(looks) == 1:
            raise RuntimeError("a look that fails for a reason the store does not name")
        return (1, 1, 1), fresh

    monkeypatch.setattr(h, "_look_at_board", look)
    assert wait_until(lambda: h.leaderboard() == fresh), looks
    assert "the leaderboard was not worked out again" in caplog.text
