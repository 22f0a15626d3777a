"""Replays: every recorded game reproduces; a tampered record is reported as not reproducing; a broken file is
a clear error."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import pytest

from arena.errors import ReplayError
from arena.games import GameResult, available
from arena.match.play import MatchResult
from arena.match.record import DecisionRecord, GameRecord, load_record, record_from_dict, save_record
from arena.match.replay import resimulate, seat_messages, turn_lines
from tests.match.conftest import PLAIN, RANDOM, faulty, play


@pytest.fixture(scope="module", params=available())
def match(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> MatchResult:
    """Two games of each game with a faulty bot among random ones, played once for the whole module."""
    results = tmp_path_factory.mktemp(request.param)
    return play(results, request.param, [RANDOM, faulty("illegal"), PLAIN, RANDOM], games=2, seed=4)


def first_free_decision(record: GameRecord) -> int:
    """The number of a decision a bot answered itself, with more than one option to choose from."""
    state_options: list[int] = []
    resimulate(record, lambda state, number, d: state_options.append(len(state.options())))
    return next(n for n, d in enumerate(record.decisions) if d.fault is None and d.time is not None
                and state_options[n] > 1)


def test_every_game_of_a_match_reproduces(match: MatchResult) -> None:
    for record in match.records:
        reproduction = resimulate(record)
        assert reproduction.reproduces, reproduction.problems
        assert reproduction.state.result() == record.result


def changed_decision(record: GameRecord, number: int, **changes: Any) -> GameRecord:
    decisions = list(record.decisions)
    decisions[number] = replace(decisions[number], **changes)
    return replace(record, decisions=tuple(decisions))


def another_index(record: GameRecord) -> GameRecord:
    n = first_free_decision(record)
    return changed_decision(record, n, index=1 if record.decisions[n].index == 0 else 0)


TAMPERINGS: dict[str, Callable[[GameRecord], GameRecord]] = {
    "another index": another_index,
    "an illegal index": lambda r: changed_decision(r, first_free_decision(r), index=999),
    "a faulted decision not played as the default": lambda r: replace(r, decisions=tuple(
        replace(d, index=1) if d.fault is not None else d for d in r.decisions)),
    "a decision dropped": lambda r: replace(r, decisions=r.decisions[:-1]),
    "a decision added": lambda r: replace(r, decisions=r.decisions + (DecisionRecord(0, 0, 0.001),)),
    "another seat": lambda r: changed_decision(r, 5, seat=(r.decisions[5].seat + 1) % r.num_players),
    "another score": lambda r: replace(r, result=GameResult((r.result.scores[0] + 1,) + r.result.scores[1:],
                                                             r.result.ranks, r.result.reason, r.result.cut_short)),
    "another seed": lambda r: replace(r, seed=r.seed + 1),
    "the disqualification removed": lambda r: replace(r, disqualified=()),
    "a fault removed": lambda r: replace(r, faults=r.faults[1:]),
    "a seat skipped without a disqualification": lambda r: changed_decision(r, first_free_decision(r), time=None),
    "other match ranks": lambda r: replace(r, ranks=tuple(reversed(r.ranks))),
}


@pytest.mark.parametrize("tamper", TAMPERINGS)
def test_a_tampered_record_does_not_reproduce(tamper: str, match: MatchResult, tmp_path: Path) -> None:
    record = match.records[0]
    assert record.faults and record.disqualified  # the faulty bot makes the tamperings meaningful
    path = tmp_path / "tampered.json"
    save_record(TAMPERINGS[tamper](record), path)
    reproduction = resimulate(load_record(path))
    assert not reproduction.reproduces
    assert reproduction.problems and all(isinstance(p, str) and p for p in reproduction.problems)


def test_a_record_survives_its_file(match: MatchResult, tmp_path: Path) -> None:
    for record in match.records:
        save_record(record, tmp_path / "again.json")
        assert load_record(tmp_path / "again.json") == record


def mutate(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    *keys, last = path.split(".")
    target: Any = data
    for key in keys:
        target = target[int(key)] if key.isdigit() else target[key]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return data


@pytest.mark.parametrize("path, value, message", [
    ("format", "something-else", "format"),
    ("format_version", 99, "format_version"),
    ("seed", "abc", "seed"),
    ("num_players", KeyError, "num_players"),
    ("decisions.0.index", -1, "decisions[0].index"),
    ("decisions.0.seat", 9, "decisions[0].seat"),
    ("decisions.1.fault", "sneezed", "decisions[1].fault"),
    ("seats.0.name", 5, "seats[0].name"),
    ("faults.0.kind", "unknown", "faults[0].kind"),
    ("time.timeout", -1, "time.timeout"),
    ("result", {"scores": [1]}, "result"),
])
def test_a_malformed_record_is_a_clear_error(path: str, value: Any, message: str, match: MatchResult,
                                             tmp_path: Path) -> None:
    data = json.loads(json.dumps(match.records[0].to_dict()))
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(mutate(data, path, value)))
    with pytest.raises(ReplayError) as caught:
        load_record(file)
    assert message in str(caught.value) and str(file) in str(caught.value)


@pytest.mark.parametrize("content, message", [
    (b"{not json", "is not JSON"), (b"\xff\xfe", "is not JSON"), (b"[1, 2]", "expected a map"),
])
def test_a_file_that_is_not_a_record_is_a_clear_error(content: bytes, message: str, tmp_path: Path) -> None:
    file = tmp_path / "x.json"
    file.write_bytes(content)
    with pytest.raises(ReplayError, match=message):
        load_record(file)
    with pytest.raises(ReplayError, match="cannot read"):
        load_record(tmp_path / "missing.json")


def test_an_unknown_game_is_a_clear_error(match: MatchResult) -> None:
    record = replace(match.records[0], game="bali-1999")
    with pytest.raises(ReplayError, match="unknown game 'bali-1999'"):
        resimulate(record)
    assert record_from_dict(match.records[0].to_dict()) == match.records[0]


def test_the_turn_by_turn_text_shows_decisions_faults_and_the_log(match: MatchResult) -> None:
    record = match.records[0]
    lines = list(turn_lines(record))
    decisions = [line for line in lines if line.startswith("  #")]
    assert len(decisions) == len(record.decisions)
    assert sum(line.strip().startswith("! game ") and ": illegal: index" in line for line in lines) == 3
    assert any("disqualified: default played" in line for line in lines)
    assert len(lines) > len(decisions)  # the game's own log is there too


def test_the_seat_view_is_limited_to_real_seats(match: MatchResult) -> None:
    record = match.records[0]
    with pytest.raises(ReplayError, match="seat must be"):
        list(seat_messages(record, record.num_players))
    types = [m.TYPE.value for m in seat_messages(record, 0)]
    assert types[0] == "new_game" and types[-1] == "game_over" and set(types[1:-1]) == {"decide"}
