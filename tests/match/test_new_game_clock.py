"""A new_game's time beyond NEW_GAME_ALLOWANCE is charged to the seat's game clock, through real matches: the
figures are in the record and in what the seat is told, and a stall that runs the clock out is a clock fault."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.cli.validate import game_report
from arena.errors import FaultKind
from arena.match.record import GameRecord, Phase, load_record, record_from_dict
from arena.match.replay import resimulate, seat_messages, turn_lines
from arena.match.wire import NEW_GAME_ALLOWANCE, SeatClock
from protocol import TimeControl
from protocol.messages import NEW_GAME_TIMEOUT
from tests.bot_programs.faulty_bot import STALL_SHARE
from tests.helpers import ROOT, arena
from tests.match.conftest import RANDOM, play

STALLER = f"{sys.executable} {ROOT / 'tests' / 'bot_programs' / 'faulty_bot.py'} stall_new_game"
RANDOM_BOT = f"{sys.executable} -m sample_bots.random_bot"
# The stall is a quarter of it: 3 s, two beyond the allowance, with 9 s to spare before the init timeout (and the
# new_game limit, set to it) however busy the machine is.
INIT = 12.0
STALL = STALL_SHARE * INIT


def _one_game(folder: Path, game_clock: float) -> tuple[GameRecord, str]:
    """A game of the staller (participant 0) against a random bot through `arena match`, and what it printed."""
    done = arena("match", "bali-2017", STALLER, RANDOM_BOT, "--games", "1", "--seed", "3", "--timeout", "1",
                 "--init-timeout", f"{INIT:g}", "--new-game-timeout", f"{INIT:g}", "--game-clock", f"{game_clock:g}",
                 cwd=folder)
    assert done.returncode == 0, done.stderr
    paths = list((folder / "results" / "matches").glob("*/game-0001.json"))
    assert len(paths) == 1
    return load_record(paths[0]), done.stdout + done.stderr


def _first_decide_clock(record: GameRecord, seat: int) -> float:
    """The game clock the seat was told it had at its first decision, as `arena replay --seat` shows it."""
    return next(m.time.game_clock for m in seat_messages(record, seat) if m.TYPE.value == "decide")


def test_a_seat_clock_charges_a_new_game_only_beyond_the_allowance_and_only_with_a_game_clock() -> None:
    clock = SeatClock(TimeControl(timeout=1.0, init=10.0, game_clock=5.0, new_game=10.0))
    assert clock.new_game_limit() == NEW_GAME_ALLOWANCE + 5.0  # the clock runs out before the new_game limit
    assert clock.new_game_charge(NEW_GAME_ALLOWANCE) == 0.0
    assert clock.new_game_charge(NEW_GAME_ALLOWANCE + 2.0) == 2.0
    clock.spend(2.0)
    assert clock.left == 3.0 and clock.wall_left == 8.0 and clock.clock().game_clock == 3.0
    assert SeatClock(TimeControl(game_clock=60.0)).new_game_limit() == NEW_GAME_TIMEOUT
    free = SeatClock(TimeControl(new_game=10.0))  # no game clock: the new_game limit alone bounds it
    assert free.new_game_limit() == 10.0 and free.new_game_charge(9.5) == 0.0


def test_the_protocol_states_the_allowance_it_has() -> None:
    spec = (ROOT / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    assert f"the first **{NEW_GAME_ALLOWANCE:g} s** of a `new_game`" in spec


def test_a_new_game_answered_within_the_allowance_is_charged_nothing(tmp_path: Path) -> None:
    control = TimeControl(timeout=0.5, init=20.0, game_clock=20.0)
    record = play(tmp_path, "bali-2017", [RANDOM, RANDOM], time=control).records[0]
    for seat in record.seats:
        assert seat.new_game_time is not None and seat.new_game_charged == 0.0
        assert _first_decide_clock(record, seat.seat) == 20.0
    assert not record.faults and resimulate(record).reproduces


@pytest.mark.slow
def test_a_new_game_stalled_under_the_init_timeout_costs_its_game_clock_the_time_beyond_the_allowance(
        tmp_path: Path) -> None:
    record, _ = _one_game(tmp_path, game_clock=20.0)
    staller = next(s for s in record.seats if s.participant == 0)
    other = next(s for s in record.seats if s.participant == 1)
    assert staller.new_game_time is not None and staller.new_game_time >= STALL
    assert staller.new_game_charged == pytest.approx(staller.new_game_time - NEW_GAME_ALLOWANCE)
    assert staller.new_game_charged >= STALL - NEW_GAME_ALLOWANCE
    # Within the init timeout and the game clock: no fault, but the bot is told the clock it has left.
    assert not record.faults and record.disqualified == ()
    assert _first_decide_clock(record, staller.seat) == pytest.approx(20.0 - staller.new_game_charged)
    assert other.new_game_charged == 0.0 and _first_decide_clock(record, other.seat) == 20.0
    assert resimulate(record).reproduces
    # `arena validate` counts it in the clock's use.
    report = game_report(record, 1.0, {})[0]
    assert f"{staller.new_game_charged:.3g} s of it at new_game" in report
    # The figures survive the file, and a record made before them loads charging nothing.
    plain = record.to_dict()
    for seat in plain["seats"]:
        del seat["new_game_time"], seat["new_game_charged"]
    old = record_from_dict(plain)
    assert all(s.new_game_time is None and s.new_game_charged == 0.0 for s in old.seats)


@pytest.mark.slow
def test_a_new_game_stall_that_runs_the_game_clock_out_is_a_clock_fault_and_the_seat_is_asked_nothing(
        tmp_path: Path) -> None:
    # 1 s of game clock: the arena gives up 2 s into the 3 s stall, and even an arena held up past the stall's end
    # finds 2 s charged, over the clock.
    record, printed = _one_game(tmp_path, game_clock=1.0)
    seat = next(s.seat for s in record.seats if s.participant == 0)
    assert len(record.faults) == 1
    fault = record.faults[0]
    assert (fault.seat, fault.phase, fault.kind, fault.decision) == (seat, Phase.NEW_GAME, FaultKind.CLOCK, None)
    assert fault.charged is not None and fault.charged >= 1.0 - 1e-6
    assert "new_game" in fault.detail and "--game-clock" in fault.message()
    assert "1 faults" in printed  # the match's own line for the game
    mine = [d for d in record.decisions if d.seat == seat]
    assert mine and all(d.time is None and d.index == 0 for d in mine)
    assert record.disqualified == () and resimulate(record).reproduces
    assert any("out of game clock" in line for line in turn_lines(record))
