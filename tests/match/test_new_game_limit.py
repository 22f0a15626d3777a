"""A new_game has a short limit of its own (--new-game-timeout, `time.new_game_timeout` in a competition file):
a bot that holds each new_game just under the init timeout is at fault past it and plays the default for that
game, so that its table-mates wait no longer than that limit, through real matches."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.errors import FaultKind
from arena.match.record import GameRecord, Phase, load_record
from arena.match.replay import resimulate, turn_lines
from protocol.messages import NEW_GAME_TIMEOUT
from tests.helpers import ROOT, arena

pytestmark = pytest.mark.slow

HOLDER = f"{sys.executable} {ROOT / 'tests' / 'bot_programs' / 'faulty_bot.py'} hold_new_game"
RANDOM_BOT = f"{sys.executable} -m sample_bots.random_bot"


def _records(results: Path) -> list[GameRecord]:
    return [load_record(path) for path in sorted(results.rglob("game-*.json"))]


def _held(record: GameRecord, limit: float) -> None:
    """The holder (participant 0) timed out at new_game at `limit`, was asked nothing that game, and its
    table-mate played the game through."""
    holder = next(s.seat for s in record.seats if s.participant == 0)
    fault = next(f for f in record.faults if f.seat == holder)
    assert (fault.phase, fault.kind, fault.decision, fault.limit) == (Phase.NEW_GAME, FaultKind.TIMEOUT, None, limit)
    assert "--new-game-timeout" in fault.message()
    assert [f for f in record.faults if f.seat != holder] == []
    assert all(d.time is None and d.index == 0 for d in record.decisions if d.seat == holder)
    assert any(d.time is not None for d in record.decisions if d.seat != holder)
    assert record.disqualified == () and resimulate(record).reproduces
    assert any("new_game not answered in time" in line for line in turn_lines(record))


def test_a_bot_holding_each_new_game_under_the_init_timeout_is_at_fault_past_the_new_game_limit(
        tmp_path: Path) -> None:
    # The default init timeout (10 s): the holder sleeps 9.5 s in each new_game, within it.
    done = arena("match", "bali-2017", HOLDER, RANDOM_BOT, "--games", "2", "--seed", "5", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = _records(tmp_path / "results")
    assert len(records) == 2
    for record in records:
        _held(record, NEW_GAME_TIMEOUT)
    assert "new_game" in done.stdout + done.stderr


def test_the_new_game_limit_is_set_on_the_command_line_and_in_a_competition_file(tmp_path: Path) -> None:
    # Raised past the holder's 9.5 s on the command line: no fault.
    (tmp_path / "raised").mkdir()
    done = arena("match", "bali-2017", HOLDER, RANDOM_BOT, "--games", "1", "--seed", "5", "--new-game-timeout", "12",
                 cwd=tmp_path / "raised")
    assert done.returncode == 0, done.stderr
    [record] = _records(tmp_path / "raised" / "results")
    assert not record.faults
    assert record.time.new_game == 12.0
    # Lowered in a competition file's [time] table: the holder is at fault at that limit.
    folder = tmp_path / "file"
    folder.mkdir()
    (folder / "c.toml").write_text(f'game = "bali-2017"\nformat = "round-robin"\nseats = 2\njobs = 1\n'
                                   f'bots = [{HOLDER!r}, {RANDOM_BOT!r}]\n[time]\nnew_game_timeout = 1.5\n')
    done = arena("tournament", "--config", "c.toml", cwd=folder)
    assert done.returncode == 0, done.stderr
    records = _records(folder / "results")
    assert records
    for record in records:
        _held(record, 1.5)
