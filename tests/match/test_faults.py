"""Every faulty bot: the match finishes, the fault is recorded with its kind, the bot is disqualified and ranks
last, the other seats play on normally, and nothing of the bot is left afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.process import BotCommand
from arena.errors import FaultKind
from arena.games import available
from arena.match.record import GameRecord, Phase
from arena.match.replay import resimulate
from protocol import TimeControl
from tests.helpers import quick_run
from tests.match.conftest import FAST, RANDOM, Spawned, faulty, play

# mode -> (kind of its faults, the phase of the first one)
FAULTY = {
    "sleep": (FaultKind.TIMEOUT, Phase.DECIDE),
    "think": (FaultKind.TIMEOUT, Phase.DECIDE),
    "die_at_start": (FaultKind.CRASH, Phase.HANDSHAKE),
    "die_mid_game": (FaultKind.CRASH, Phase.DECIDE),
    "garbage": (FaultKind.MALFORMED, Phase.DECIDE),
    "illegal": (FaultKind.ILLEGAL, Phase.DECIDE),
    "stale_id": (FaultKind.WRONG_ID, Phase.DECIDE),
    "silent": (FaultKind.TIMEOUT, Phase.DECIDE),
    "flood": (FaultKind.TIMEOUT, Phase.DECIDE),
    "oversized": (FaultKind.OVERSIZED, Phase.DECIDE),
}
LOG_CAP = 64 * 1024


def faulty_seat(record: GameRecord) -> int:
    return next(s.seat for s in record.seats if s.participant == 0)


def assert_disqualified_and_last(record: GameRecord, kind: FaultKind, phase: Phase) -> None:
    seat = faulty_seat(record)
    mine = [f for f in record.faults if f.seat == seat and f.phase != Phase.GAME_OVER]
    assert mine and mine[0].kind == kind and mine[0].phase == phase
    assert all(f.kind == kind for f in mine)  # in particular, no late reply shows up as a wrong id
    assert len(mine) == (1 if kind == FaultKind.CRASH else 3)  # disqualified at once, or after the third
    assert record.disqualified == (seat,)
    assert all(record.ranks[seat] > record.ranks[other] for other in range(record.num_players) if other != seat)
    # The faulty seat got the default every time; the others answered every decision themselves.
    assert all(d.index == 0 for d in record.decisions if d.seat == seat and (d.fault or d.time is None))
    others = [d for d in record.decisions if d.seat != seat]
    assert others and all(d.time is not None and d.fault is None for d in others)
    assert not [f for f in record.faults if f.seat != seat]
    assert resimulate(record).reproduces


# Faults are the arena's, not a game's: every mode in the short game in the quick run, in both with slow tests.
@pytest.mark.parametrize("game", quick_run(available(), {"bali-2017"}))
# The modes that take seconds (a timeout waited out, a flood read) are slow tests; the quick run has the others.
@pytest.mark.parametrize("mode", quick_run(FAULTY, set(FAULTY) - {"sleep", "think", "silent", "flood"}))
def test_a_faulty_bot_is_disqualified_and_the_match_finishes(mode: str, game: str, tmp_path: Path,
                                                             spawned: Spawned) -> None:
    kind, phase = FAULTY[mode]
    result = play(tmp_path, game, [faulty(mode), RANDOM, RANDOM, RANDOM], log_cap=LOG_CAP)
    record = result.records[0]
    assert_disqualified_and_last(record, kind, phase)
    assert result.standings[0].disqualified == 1 and result.standings[0].faults >= 1
    spawned.assert_all_gone()
    for log in (result.directory / "logs").iterdir():
        assert log.stat().st_size <= LOG_CAP + 100


def test_a_crash_is_recorded_with_the_bots_last_words_and_the_bot_restarts(tmp_path: Path,
                                                                           spawned: Spawned) -> None:
    crasher = faulty("die_mid_game")
    result = play(tmp_path, "bali-2001", [crasher, RANDOM, RANDOM], games=2)
    for record in result.records:
        assert_disqualified_and_last(record, FaultKind.CRASH, Phase.DECIDE)
        crash = record.faults[0]
        assert "status 1" in crash.detail and "dying mid-game on purpose" in crash.stderr
        assert crash.decision is not None and record.decisions[crash.decision].fault == FaultKind.CRASH
    assert spawned.starts(crasher) == 2  # the crashed bot was started afresh for the second game
    assert_others_started_once_unless_they_faulted(result.records, spawned)
    spawned.assert_all_gone()


@pytest.mark.slow
def test_a_flood_of_output_is_capped_in_the_log(tmp_path: Path, spawned: Spawned) -> None:
    result = play(tmp_path, "bali-2001", [faulty("flood"), RANDOM, RANDOM], log_cap=LOG_CAP)
    log = next((result.directory / "logs").glob("p0-*.stdout.log"))
    text = log.read_bytes()
    assert text.startswith(b"flood flood") and text.endswith(f"[log truncated at {LOG_CAP} bytes]\n".encode())
    spawned.assert_all_gone()


@pytest.mark.slow
def test_a_hanging_bot_is_restarted_for_the_next_game(tmp_path: Path, spawned: Spawned) -> None:
    silent = faulty("silent")
    result = play(tmp_path, "bali-2001", [silent, RANDOM, RANDOM], games=2,
                  time=TimeControl(timeout=0.3, init=20.0))
    for record in result.records:
        assert_disqualified_and_last(record, FaultKind.TIMEOUT, Phase.DECIDE)
        # game_over found it still hanging: a recorded fault that changes nothing
        assert record.faults[-1].phase == Phase.GAME_OVER
    assert spawned.starts(silent) == 2
    assert_others_started_once_unless_they_faulted(result.records, spawned)
    spawned.assert_all_gone()


def assert_others_started_once_unless_they_faulted(records: list[GameRecord], spawned: Spawned) -> None:
    """The two random bots: one process each for both games, unless one of them faulted itself (a random bot can
    be late on a very busy machine, and a late bot is started afresh like any other)."""
    others_faulted = any(f.participant != 0 for r in records for f in r.faults)
    assert spawned.starts(RANDOM) == 2 or (others_faulted and spawned.starts(RANDOM) > 2)


def test_a_command_that_cannot_start_is_a_crash_at_the_handshake(tmp_path: Path, spawned: Spawned) -> None:
    missing = BotCommand(("/nonexistent/bot",))
    result = play(tmp_path, "bali-2001", [missing, RANDOM, RANDOM], time=FAST)
    fault = result.records[0].faults[0]
    assert fault.kind == FaultKind.CRASH and fault.phase == Phase.HANDSHAKE and "cannot start" in fault.detail
    assert result.records[0].disqualified == (0,)
    spawned.assert_all_gone()
