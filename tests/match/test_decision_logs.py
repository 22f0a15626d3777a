"""Each decision keeps what its bot wrote to stderr while deciding, within the caps, through real matches; `arena
replay` prints it under the decision, and `--seat N` beside what the seat was sent."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bots.logs import DECISION_LOG_CAP, GAME_LOG_CAP
from arena.games import State
from arena.match.record import DecisionRecord, GameRecord, load_record, record_from_dict
from arena.match.replay import resimulate, took
from protocol import SchemaError
from tests.bot_programs.chatty_bot import LOUD_BYTES
from tests.helpers import ROOT, arena

CHATTY = f"{sys.executable} {ROOT / 'tests' / 'bot_programs' / 'chatty_bot.py'}"
RANDOM = f"{sys.executable} -m sample_bots.random_bot"


def _match(folder: Path, *bots: str, games: int = 2) -> list[Path]:
    done = arena("match", "bali-2017", *bots, "--games", str(games), "--seed", "4", "-q", cwd=folder)
    assert done.returncode == 0, done.stderr
    records = sorted((folder / "results" / "matches").glob("*/game-*.json"))
    assert len(records) == games
    return records


def _asked(record: GameRecord, seat: int) -> list[tuple[int, DecisionRecord, int]]:
    """The seat's decisions: (number in the game, record, how many options it had)."""
    found: list[tuple[int, DecisionRecord, int]] = []

    def visit(state: State, number: int, d: DecisionRecord) -> None:
        if d.seat == seat:
            found.append((number, d, len(state.options())))

    assert resimulate(record, visit).reproduces
    return found


def _seat_of(record: GameRecord, participant: int) -> int:
    return next(s.seat for s in record.seats if s.participant == participant)


@pytest.mark.slow
def test_each_decision_keeps_the_line_its_bot_wrote_and_replay_prints_it(tmp_path: Path) -> None:
    for game, path in enumerate(_match(tmp_path, CHATTY, RANDOM)):
        record = load_record(path)
        seat = _seat_of(record, 0)
        asked = _asked(record, seat)
        assert len(asked) > 10
        for k, (number, d, options) in enumerate(asked, start=1):
            assert d.log == f"chatty: game {game} decision {k} chose {d.index} of {options}\n", number
            assert d.log_dropped == 0 and d.time is not None
        assert all(not d.log for d in record.decisions if d.seat != seat)  # the random bot wrote nothing

        done = arena("replay", str(path), "--seat", str(seat), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        said = [line for line in done.stderr.splitlines() if line.strip().startswith(("#", "|"))]
        expected = []
        for k, (number, d, options) in enumerate(asked, start=1):
            expected += [f"# decision #{number} (its decision {k}): answered in {took(d)}",
                         f"| chatty: game {game} decision {k} chose {d.index} of {options}"]
        assert [line.strip() for line in said] == expected
        assert all(json.loads(line)["type"] for line in done.stdout.splitlines())  # stdout: only the messages

        text = arena("replay", str(path), cwd=tmp_path).stdout.splitlines()
        number, d, options = asked[2]
        at = next(i for i, line in enumerate(text) if line.startswith(f"  #{number} "))
        assert text[at + 1] == f"      | chatty: game {game} decision 3 chose {d.index} of {options}"


@pytest.mark.slow
def test_what_a_bot_writes_is_kept_within_the_caps_and_the_rest_counted(tmp_path: Path) -> None:
    for path in _match(tmp_path, f"{CHATTY} loud", RANDOM):
        record = load_record(path)
        asked = _asked(record, _seat_of(record, 0))
        assert len(asked) * DECISION_LOG_CAP > GAME_LOG_CAP  # the game's cap is reached in each game
        kept = 0
        for k, (number, d, options) in enumerate(asked, start=1):
            line = f"chatty: game {record.game_index} decision {k} chose {d.index} of {options}\n"
            assert len(d.log) + d.log_dropped == LOUD_BYTES + len(line), number  # every byte kept or counted
            assert len(d.log) == min(DECISION_LOG_CAP, GAME_LOG_CAP - kept)
            kept += len(d.log)
        assert kept == GAME_LOG_CAP


def _record(**decision: Any) -> dict[str, Any]:
    """A version 2 record of one bali-2017 game played in-process, its first decision changed."""
    from tests.viewer.conftest import engine_record

    data = engine_record("bali-2017", 2, 3).to_dict()
    data["decisions"][0].update(decision)
    return data


def test_a_decisions_log_round_trips_and_older_records_load_without_one() -> None:
    plain = _record()
    assert "log" not in plain["decisions"][0]
    old = record_from_dict(plain)
    assert old.decisions[0].log == "" and old.decisions[0].log_dropped == 0
    logged = dataclasses.replace(old, decisions=(dataclasses.replace(old.decisions[0], log="thinking\n\x1b[2J",
                                                                     log_dropped=7), *old.decisions[1:]))
    again = record_from_dict(json.loads(json.dumps(logged.to_dict())))
    assert again == logged and resimulate(again).reproduces
    assert "log" not in again.to_dict()["decisions"][1]  # only the decisions with a log carry one


@pytest.mark.parametrize("field, value, problem", [
    ("log", 5, "'decisions[0].log': expected a string"),
    ("log", "x" * (DECISION_LOG_CAP + 1), f"expected at most {DECISION_LOG_CAP} characters"),
    ("log_dropped", -1, "'decisions[0].log_dropped': expected an integer from 0"),
])
def test_a_bad_log_in_a_record_is_named(field: str, value: Any, problem: str) -> None:
    with pytest.raises(SchemaError) as raised:
        record_from_dict(_record(**{field: value}))
    assert problem in str(raised.value)


def test_a_line_written_just_before_the_reply_is_that_decisions(tmp_path: Path) -> None:
    """The drain reads and counts under one lock, so what the pipe held when the reply came is never lost between
    two decisions, however the threads are scheduled."""
    import os

    from arena.bots.logs import LogDrain

    read, write = os.pipe()
    drain = LogDrain(os.fdopen(read, "rb"), tmp_path / "bot.stderr.log", 1 << 20)
    drain.start()
    try:
        for k in range(500):
            drain.new_game()
            drain.capture()
            os.write(write, f"line {k}\n".encode())
            assert drain.captured().text == f"line {k}\n"
        drain.capture()
        assert drain.captured().text == ""  # nothing written: nothing kept, and no wait
    finally:
        os.close(write)
        drain.join(5)
    assert not drain.is_alive()
    assert (tmp_path / "bot.stderr.log").read_text() == "".join(f"line {k}\n" for k in range(500))
