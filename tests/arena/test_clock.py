"""Time: the game clock bounds a seat's thinking per game, and a decision is charged the CPU time of the bot's
processes (never more than the wall time) with a wall-clock ceiling, both figures kept in the record."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.bots import cgroups
from arena.bots.process import BotCommand
from arena.bots.sandbox import WALL_CEILING
from arena.errors import FaultKind
from arena.match.record import load_record, record_from_dict, save_record
from arena.match.replay import resimulate, seat_messages
from arena.match.wire import SeatClock, charged, time_identity
from protocol import Clock, TimeControl
from tests.arena.conftest import RANDOM, Spawned, double, play


def test_a_seat_is_told_no_more_time_than_its_game_clock_has_left() -> None:
    clock = SeatClock(TimeControl(timeout=1.0, game_clock=2.0))
    assert clock.clock() == Clock(remaining=1.0, bank=0.0, game_clock=2.0)
    assert clock.wall_limit() == WALL_CEILING * 1.0
    clock.charge(1.5, timed_out=False, cpu=0.9)  # waited for a core: charged 0.9 s
    assert clock.clock() == Clock(remaining=1.0, bank=0.0, game_clock=1.1) and not clock.out_of_time()
    clock.charge(0.8, timed_out=False, cpu=0.8)
    assert clock.clock().remaining == clock.allowance() == clock.left == pytest.approx(0.3)
    assert clock.runs_out(0.3, 0.3) and not clock.runs_out(0.3, 0.1)
    clock.charge(0.3, timed_out=False, cpu=0.3)
    assert clock.out_of_time() and clock.used == pytest.approx(2.0) and clock.waited == pytest.approx(2.6)


def test_a_sleeping_seat_runs_its_game_clock_out_on_the_wall_clock_at_three_times_it() -> None:
    clock = SeatClock(TimeControl(timeout=1.0, game_clock=2.0))
    for _ in range(2):
        clock.charge(2.5, timed_out=False, cpu=0.0)  # asleep: no CPU time, but the wall clock runs
    assert clock.wall_limit() == pytest.approx(WALL_CEILING * 2.0 - 5.0) and not clock.out_of_time()
    assert clock.runs_out(1.0, 0.0)
    clock.charge(1.0, timed_out=False, cpu=0.0)
    assert clock.out_of_time() and clock.left == 2.0


def test_without_a_game_clock_a_decision_waits_up_to_the_ceiling_and_the_bank_draws_on_charged_time() -> None:
    clock = SeatClock(TimeControl(timeout=1.0, bank=2.0))
    assert clock.clock() == Clock(remaining=3.0, bank=2.0, game_clock=0.0)
    assert clock.wall_limit() == WALL_CEILING * 3.0
    clock.charge(2.5, timed_out=False, cpu=1.25)  # 0.25 s over the timeout in CPU time: drawn from the bank
    assert clock.bank == 1.75 and not clock.out_of_time()
    clock.charge(2.5, timed_out=False)  # not measured: the wall time is charged
    assert clock.bank == 0.25


def test_the_charged_time_is_the_cpu_time_never_more_than_the_wall_time() -> None:
    assert charged(0.9, 0.2) == 0.2  # waiting for a core, or asleep
    assert charged(0.5, 1.6) == 0.5  # threads on several cores
    assert charged(0.7, None) == 0.7  # not measured


def test_the_fields_added_to_the_time_maps_default_for_older_arenas_and_records() -> None:
    assert TimeControl.parse({"timeout": 1, "init": 10, "bank": 0, "increment": 0}, "time").game_clock == 0.0
    assert Clock.parse({"remaining": 1.0, "bank": 0.0}, "time").game_clock == 0.0
    # A tournament without a game clock is identified as before there was one, so that it resumes.
    assert "game_clock" not in time_identity(TimeControl())
    assert time_identity(TimeControl(game_clock=60.0))["game_clock"] == 60.0


def test_a_decide_message_carries_the_game_clock_in_its_time_map() -> None:
    assert Clock(remaining=0.4, bank=0.0, game_clock=0.4).to_wire() == {"remaining": 0.4, "bank": 0.0,
                                                                      "game_clock": 0.4}


def test_every_decision_records_its_wall_and_cpu_time_and_a_record_of_before_loads(tmp_path: Path) -> None:
    record = play(tmp_path, "bali-2017", [RANDOM, RANDOM]).records[0]
    asked = [d for d in record.decisions if d.time is not None]
    assert asked and all(d.cpu is not None and 0 <= d.cpu for d in asked)
    save_record(record, tmp_path / "game.json")
    assert load_record(tmp_path / "game.json") == record
    plain = record.to_dict()
    for decision in plain["decisions"]:
        decision.pop("cpu", None)
    del plain["time"]["game_clock"]
    old = record_from_dict(plain)
    assert all(d.cpu is None for d in old.decisions) and old.time.game_clock == 0.0


def test_without_cgroups_the_cpu_time_comes_from_the_process_tree(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cgroups.DISABLE_ENV, "1")
    cgroups.hierarchy.cache_clear()
    try:
        record = play(tmp_path, "bali-2017", [RANDOM, RANDOM]).records[0]
    finally:
        monkeypatch.delenv(cgroups.DISABLE_ENV)
        cgroups.hierarchy.cache_clear()
    assert all(d.cpu is not None for d in record.decisions if d.time is not None)


def dozer(tmp_path: Path, seconds: float, decisions: int) -> BotCommand:
    """A bot that sleeps `seconds` at each of its first `decisions` decisions, then plays at once."""
    folder = tmp_path / "dozer"  # its own folder, which the sandbox binds, out of the results
    folder.mkdir()
    (folder / "dozer.py").write_text("import time\nfrom protocol import run_bot\nasked = []\n"
                      "def decide(view, options, decision):\n    asked.append(1)\n"
                      f"    time.sleep({seconds} if len(asked) <= {decisions} else 0)\n    return 0\n"
                      "run_bot(decide, name='dozer')\n")
    return BotCommand((sys.executable, "dozer.py"), cwd=str(folder))


def test_a_bot_asleep_past_its_limit_but_within_the_ceiling_is_not_late(tmp_path: Path, spawned: Spawned) -> None:
    # 0.75 s asleep of a 0.5 s limit: hardly any CPU time, and well within the 1.5 s on the wall clock.
    record = play(tmp_path / "results", "bali-2017", [dozer(tmp_path, 0.75, 2), RANDOM]).records[0]
    assert not record.faults
    slow = [d for d in record.decisions if d.seat == 0 and d.time is not None][:2]
    assert all(d.time > 0.5 and d.cpu is not None and d.cpu < 0.5 for d in slow)
    spawned.assert_all_gone()


def test_a_seat_whose_game_clock_runs_out_plays_the_default_for_the_rest_of_the_game(tmp_path: Path,
                                                                                    spawned: Spawned) -> None:
    blind = double("last_ms_bot", "blind")  # answers just before the per-decision timeout, game clock or not
    result = play(tmp_path, "bali-2017", [blind, RANDOM], time=TimeControl(timeout=0.3, init=20.0, game_clock=1.0))
    record = result.records[0]
    clock_faults = [f for f in record.faults if f.kind == FaultKind.CLOCK]
    assert len(clock_faults) == 1 and "--game-clock" in clock_faults[0].message()
    out = clock_faults[0].decision
    assert out is not None
    mine = [(n, d) for n, d in enumerate(record.decisions) if d.seat == 0]
    assert all(d.time is not None for n, d in mine if n <= out)
    assert all(d.time is None and d.index == 0 for n, d in mine if n > out)
    # The clock in charged time, and the arena's poll of its end; at most three times that on the wall clock.
    assert sum(charged(d.time, d.cpu) for _, d in mine if d.time is not None) <= 1.0 + 0.1
    assert sum(d.time or 0.0 for _, d in mine) <= WALL_CEILING * 1.0 + 0.1
    assert record.disqualified == () and resimulate(record).reproduces
    # What `arena replay --seat 0` shows is what the bot was told: never more time than its game clock had left.
    told = [m.time for m in seat_messages(record, 0) if m.TYPE.value == "decide"]
    assert told[0].game_clock == 1.0 and all(t.remaining <= t.game_clock for t in told)
    spawned.assert_all_gone()
