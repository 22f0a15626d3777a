"""The end-of-session check (tests/stored_games.py) finds the game records below a folder, re-plays each distinct
game that reproduces in node, leaves out records that are broken or do not reproduce, and does not play again a
game found equal before."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from arena.match.record import save_record
from tests.stored_games import check_stored, record_files
from tests.viewer.conftest import engine_record
from tests.viewer.test_js_engines import _node


def test_every_stored_game_is_found_and_replayed_once(tmp_path: Path) -> None:
    _node()
    first = engine_record("bali-2017", 3, 7, {"oracle": True})
    (tmp_path / "a" / "results").mkdir(parents=True)
    save_record(first, tmp_path / "a" / "results" / "game-1.json")
    save_record(first, tmp_path / "copy.json")  # the same game stored twice is played once
    save_record(engine_record("bali-2001", 3, 2, {"max_turns": 12}), tmp_path / "game-2.json")
    wrong = replace(first, decisions=first.decisions[:-1])  # ends early: does not reproduce
    save_record(wrong, tmp_path / "cut.json")
    (tmp_path / "broken.json").write_text('{"format": "bali-arena-game", "game": 3}', encoding="utf-8")
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else"}), encoding="utf-8")

    assert len(list(record_files(tmp_path))) == 5
    found = check_stored(tmp_path)
    # Three distinct games (the broken file is none): one does not reproduce, two agree.
    assert (found.records, found.games, found.known, found.left_out, found.problems) == (5, 3, 0, 1, [])
    assert len(found.agreed) == 2
    again = check_stored(tmp_path, found.agreed)
    assert (again.games, again.known, again.left_out, again.agreed) == (3, 2, 1, set())
