"""Whole matches over real subprocesses and ZeroMQ sockets: results, records, seating, seeds and clean-up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.bots.process import Transport
from arena.bots.sandbox import NO_SANDBOX
from arena.errors import ConfigError
from arena.games import available, get_game
from arena.match.play import MatchConfig
from arena.match.record import load_record
from arena.match.replay import resimulate
from arena.match.seeds import SecretSeed, Seed, derive_seed
from arena.match.wire import SeatClock, match_ranks
from protocol import TimeControl
from tests.match.conftest import HEURISTIC, PLAIN, RANDOM, RANDOM_MODULE, Spawned, double, play


@pytest.mark.parametrize("game", available())
def test_a_full_match_with_four_subprocess_bots(game: str, tmp_path: Path, spawned: Spawned) -> None:
    bots = [HEURISTIC, RANDOM, PLAIN, RANDOM_MODULE]
    result = play(tmp_path, game, bots, games=2, seed=5)
    assert len(result.records) == 2
    for record in result.records:
        assert record.game == game and record.num_players == 4 and not record.faults and not record.disqualified
        assert sorted(s.participant for s in record.seats) == [0, 1, 2, 3]
        assert {s.name for s in record.seats} == {"heuristic", "random", "plain"}
        assert all(d.time is not None and d.fault is None for d in record.decisions)
        assert sorted(record.ranks) == sorted(record.result.ranks)
        assert resimulate(record).reproduces
        saved = load_record(result.directory / f"game-{record.game_index + 1:04d}.json")
        assert saved == record
    assert [s.games for s in result.standings] == [2, 2, 2, 2]
    assert sum(s.faults for s in result.standings) == 0
    summary = json.loads((result.directory / "match.json").read_text())
    assert summary["bots"] == [str(b) for b in bots] and len(summary["standings"]) == 4
    assert len(list((result.directory / "logs").glob("*.stderr.log"))) == 4
    assert len(spawned.pids) == 4  # one process per bot, reused for the second game
    spawned.assert_all_gone()


def test_fresh_processes_start_every_bot_for_every_game(tmp_path: Path, spawned: Spawned) -> None:
    result = play(tmp_path, "bali-2001", [RANDOM, RANDOM, PLAIN], games=2, fresh_processes=True)
    assert len(result.records) == 2 and not any(r.faults for r in result.records)
    assert len(spawned.pids) == 6
    spawned.assert_all_gone()


def test_a_match_asks_all_its_bots_to_shut_down_at_once(tmp_path: Path) -> None:
    # Each bot stays after its shutdown until all four have been asked: asked one after another, each would be
    # killed at the end of its grace, and only the last would leave by itself.
    folder = tmp_path / "notes"
    folder.mkdir()
    lingering = double("lingering_bot", str(folder), "4")
    result = play(tmp_path / "results", "bali-2017", [lingering] * 4, games=1, sandbox=NO_SANDBOX,
                  time=TimeControl(timeout=5.0, init=20.0))  # the longest grace: 1 s
    assert not result.records[0].faults
    assert len([note for note in folder.iterdir() if note.name.startswith("left-")]) == 4


def test_tcp_transport(tmp_path: Path, spawned: Spawned) -> None:
    result = play(tmp_path, "bali-2001", [RANDOM, PLAIN, RANDOM], transport=Transport.TCP)
    assert not result.records[0].faults and resimulate(result.records[0]).reproduces
    spawned.assert_all_gone()


@pytest.mark.parametrize("seed", [11, SecretSeed("5e" * 32)], ids=["public", "secret"])
@pytest.mark.slow
def test_seats_rotate_and_seeding_replays_identically(seed: Seed, tmp_path: Path, spawned: Spawned) -> None:
    bots = [RANDOM, PLAIN, RANDOM_MODULE]
    first = play(tmp_path / "a", "bali-2001", bots, games=3, seed=seed)
    again = play(tmp_path / "b", "bali-2001", bots, games=3, seed=seed)
    for g, record in enumerate(first.records):
        assert [s.participant for s in record.seats] == [(seat - g) % 3 for seat in range(3)]
        assert record.seed == derive_seed(seed, "deal", g)
        assert [s.seed for s in record.seats] == [derive_seed(seed, "bot", g, seat) for seat in range(3)]
    # Bots that seed their generators from the arena's seeds play the very same games again.
    assert [[(d.seat, d.index) for d in r.decisions] for r in first.records] == \
           [[(d.seat, d.index) for d in r.decisions] for r in again.records]
    assert len({r.seed for r in first.records}) == 3
    spawned.assert_all_gone()


@pytest.mark.slow
def test_duplicate_deals_give_every_rotation_the_same_deal(tmp_path: Path) -> None:
    result = play(tmp_path, "bali-2001", [RANDOM, RANDOM, RANDOM], games=4, seed=3, duplicate=True)
    assert [r.seed for r in result.records[:3]] == [derive_seed(3, "deal", 0)] * 3
    assert result.records[3].seed == derive_seed(3, "deal", 1)


@pytest.mark.parametrize("bots, settings, problem", [
    (2, {}, "takes 3 to 4 bots, got 2"),
    (5, {}, "takes 3 to 4 bots, got 5"),
    (3, {"games": 0}, "at least 1"),
    (3, {"options": {"max_turns": -1}}, "max_turns"),
    (3, {"options": {"colour": "red"}}, "unknown option"),
    (3, {"time": TimeControl(timeout=0)}, "positive"),
])
def test_a_match_that_cannot_work_is_refused_before_any_bot_starts(bots: int, settings: dict, problem: str,
                                                                    tmp_path: Path) -> None:
    config = MatchConfig(get_game("bali-2001"), (RANDOM,) * bots, results_dir=tmp_path, **settings)
    with pytest.raises(ConfigError, match=problem):
        config.check()


def test_the_seed_derivation_is_stable() -> None:
    # A match seed must give the same games from release to release.
    assert derive_seed(0, "bot", 0, 0) == derive_seed(0, "bot", 0, 0) < 2 ** 31
    assert derive_seed(1, "deal", 0) == 504079386
    assert len({derive_seed(5, "bot", 0, seat) for seat in range(4)}) == 4


def test_the_clock_draws_on_the_bank_and_adds_the_increment() -> None:
    clock = SeatClock(TimeControl(timeout=1.0, bank=2.0, increment=0.5))
    assert clock.allowance() == 3.0
    clock.charge(0.2, timed_out=False)  # within the timeout: the bank only grows
    assert clock.bank == 2.5
    clock.charge(2.0, timed_out=False)  # one second over: taken from the bank
    assert clock.bank == 2.0 and clock.clock().remaining == 3.0
    clock.charge(3.0, timed_out=True)  # a timeout empties the bank
    assert clock.bank == 0.5
    clock.charge(None, timed_out=False)  # not asked: nothing changes
    assert clock.bank == 0.5


def test_plain_timeouts_without_a_bank() -> None:
    clock = SeatClock(TimeControl(timeout=0.25))
    clock.charge(0.1, timed_out=False)
    assert clock.allowance() == 0.25 and clock.bank == 0.0


@pytest.mark.parametrize("engine, disqualified, expected", [
    ((1, 2, 3, 4), set(), (1, 2, 3, 4)),
    ((1, 2, 3, 4), {0}, (4, 1, 2, 3)),
    ((2, 1, 3, 3), {1}, (1, 4, 2, 2)),
    ((1, 1, 3), {0, 2}, (2, 1, 3)),
    ((1, 2, 3), {0, 1, 2}, (1, 2, 3)),
])
def test_disqualified_seats_rank_below_every_other(engine: tuple[int, ...], disqualified: set[int],
                                                   expected: tuple[int, ...]) -> None:
    assert match_ranks(engine, frozenset(disqualified)) == expected
