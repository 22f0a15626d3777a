"""Tournament formats: every table, reproducible seeds, games numbered in schedule order, ladder waves from
ratings alone, and every format's rules enforced by the library itself."""

from __future__ import annotations

import sys
import threading
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from arena.bots.entrants import Entrant
from arena.errors import ConfigError
from arena.games import get_game
from arena.match.seeds import derive_seed
from arena.ratings.trueskill import GameOutcome, RatingConfig, rate_all
from arena.storage import Store
from arena.tournament.formats import (
    FORMATS,
    Gauntlet,
    Ladder,
    RoundRobin,
    gauntlet,
    get_format,
    ladder_wave,
    round_robin,
)
from arena.tournament.formats.base import Play, TournamentSpec, check_spec
from arena.tournament.ladder import Ladder as LivingLadder

BOTS = ["a", "b", "c", "d", "e"]


def test_round_robin_schedules_every_table_once_per_round() -> None:
    tables = round_robin(BOTS, 4, rounds=2, duplicate=False, seed=7)
    assert len(tables) == 5 * 2
    assert Counter(frozenset(t.bots) for t in tables) == {frozenset(c): 2 for c in combinations(BOTS, 4)}
    assert [t.table for t in tables] == list(range(10))
    seqs = [seq for t in tables for seq in t.seqs]
    assert seqs == list(range(5 * 2 * 4))  # each table plays one game per seat rotation
    assert len({t.seed for t in tables}) == 10
    assert not any(t.duplicate for t in tables)


def test_duplicate_is_carried_to_every_table() -> None:
    assert all(t.duplicate for t in round_robin(BOTS, 3, rounds=1, duplicate=True, seed=7))


def test_seeds_are_stable_across_runs_and_machines() -> None:
    assert derive_seed(1, 2, 3) == derive_seed(1, 2, 3) == 2072128759
    assert round_robin(BOTS, 4, 1, False, 5) == round_robin(BOTS, 4, 1, False, 5)
    assert round_robin(BOTS, 4, 1, False, 5) != round_robin(BOTS, 4, 1, False, 6)


def test_gauntlet_puts_the_challenger_at_every_table() -> None:
    tables = gauntlet("me", ["r1", "r2", "r3", "h"], 4, rounds=1, duplicate=False, seed=1)
    assert len(tables) == 4 and all(t.bots[0] == "me" for t in tables)
    assert {frozenset(t.bots[1:]) for t in tables} == {frozenset(c) for c in combinations(["r1", "r2", "r3", "h"], 3)}


def test_ladder_waves_anchor_on_uncertainty_and_are_reproducible() -> None:
    played = [GameOutcome(i, ("a", "b", "c"), (1, 2, 3)) for i in range(10)]
    ratings = rate_all(RatingConfig(), played)
    counts = {"a": 10, "b": 10, "c": 10}
    wave = ladder_wave(ratings, counts, BOTS, 3, tables=2, first_seq=30, first_table=10, seed=4)
    assert wave == ladder_wave(ratings, counts, BOTS, 3, tables=2, first_seq=30, first_table=10, seed=4)
    assert [t.table for t in wave] == [10, 11] and [t.first_seq for t in wave] == [30, 31]  # one game a table
    assert [t.games for t in wave] == [1, 1]
    assert {t.bots[0] for t in wave} == {"d", "e"}  # the unrated bots are the most uncertain
    assert all(len(set(t.bots)) == 3 for t in wave)


RANDOM = (sys.executable, "-m", "sample_bots.random_bot")


def spec(fmt: str, names: list[str] = BOTS, seats: int = 3, options: dict | None = None, **settings) -> TournamentSpec:
    entrants = tuple(Entrant(name, RANDOM) for name in names)
    return TournamentSpec(Play(game="bali-2001", options=options), get_format(fmt), entrants, seats, **settings)


def test_the_registry_names_every_format_and_refuses_unknown_ones() -> None:
    assert list(FORMATS) == ["round-robin", "gauntlet", "ladder", "compare"]
    assert get_format("ladder") == Ladder() and get_format("ladder").open_ended
    assert not RoundRobin.open_ended and not Gauntlet.open_ended
    with pytest.raises(ConfigError, match="unknown tournament format 'swiss'.*round-robin, gauntlet, ladder, compare"):
        get_format("swiss")


def test_a_fixed_format_is_one_wave_its_whole_schedule() -> None:
    s = spec("gauntlet", seats=4, rounds=2, seed=0)
    (wave,) = list(s.fmt.waves(s, lambda first, below: []))
    assert wave == gauntlet("a", BOTS[1:], 4, rounds=2, duplicate=False, seed=0)
    assert s.fmt.total_games(s) == sum(t.games for t in wave) == 4 * 2 * 4
    r = spec("round-robin", seats=4, seed=0)
    assert list(r.fmt.waves(r, lambda first, below: [])) == [round_robin(BOTS, 4, 1, False, 0)]


def test_only_a_lone_gauntlet_challenger_asks_for_opponents() -> None:
    assert Gauntlet().missing_opponents(1, 4) == 3 and Gauntlet().missing_opponents(5, 4) == 0
    assert RoundRobin().missing_opponents(1, 4) == 0 and Ladder().missing_opponents(1, 4) == 0


def test_each_format_chooses_its_own_seats_and_rounds_and_says_whether_its_entrants_change() -> None:
    game = get_game("bali-2001")  # 3 to 4 players
    assert [f.default_seats(game, 3) for f in (RoundRobin(), Ladder(), Gauntlet())] == [3, 3, 4]
    assert RoundRobin().default_seats(game, 9) == 4 and RoundRobin().default_seats(game, 1) == 3
    assert RoundRobin().default_rounds(5, 4) == Ladder().default_rounds(5, 4) == 1
    assert Gauntlet().default_rounds(4, 4) == 8  # one table of 4, every rotation: 4 games a round, 32 in all
    assert [name for name, f in FORMATS.items() if f.entrants_change] == ["ladder"]


def test_ladder_waves_stop_at_its_number_of_games() -> None:
    s = spec("ladder", seats=3, wave=2, max_games=10, seed=0)
    waves = list(s.fmt.waves(s, lambda first, below: []))
    assert [[t.first_seq for t in w] for w in waves] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]  # a game a table
    assert s.fmt.total_games(s) == 10


@pytest.mark.parametrize("bad, message", [
    (spec("ladder"), "a ladder needs --games or --time-limit"),
    (spec("ladder", max_games=9, wave=0), "the ladder wave must be at least 1 table"),
    (spec("round-robin", rounds=0), "rounds must be at least 1"),
    (spec("gauntlet", names=["me", "you"]), "2 entrants cannot fill a table of 3 seats"),
    (spec("round-robin", seats=5), "played by 3 to 4 seats, not 5"),
    (spec("round-robin", options={"max_turns": -1}), "bad options for bali-2001"),
    (spec("round-robin", names=[f"b{i}" for i in range(60)], seats=4),
     "60 entrants at 4 seats is 487,635 tables, 1,950,540 games: more than the 1,000,000 .* --format ladder"),
])
def test_check_spec_names_what_cannot_be_played(bad: TournamentSpec, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        check_spec(bad)


def test_a_ladder_with_a_time_limit_needs_no_number_of_games() -> None:
    check_spec(spec("ladder"), time_limit=5.0)


def test_a_ladder_that_would_never_end_is_refused_before_storing_anything(tmp_path: Path) -> None:
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            LivingLadder(store, spec("ladder"), tmp_path).play()
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome.append(exc)

    with Store(tmp_path / "arena.sqlite") as store:
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(60)
        assert outcome, "the ladder without an end ran on"
        assert isinstance(outcome[0], ConfigError) and "--games or --time-limit" in str(outcome[0])
        assert store.tournaments() == []


@pytest.mark.slow
def test_a_ladder_run_looks_up_only_each_waves_own_positions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[int, int | None]] = []
    done_seqs = Store.done_seqs

    def watched(self: Store, tid: int, first: int = 0, below: int | None = None) -> set[int]:
        asked.append((first, below))
        return done_seqs(self, tid, first, below)

    monkeypatch.setattr(Store, "done_seqs", watched)
    with Store(tmp_path / "arena.sqlite") as store:
        ladder = LivingLadder(store, spec("ladder", wave=2, max_games=24, seed=0), tmp_path)
        try:
            ladder.play()
        finally:
            ladder.close()
        assert len(store.done_seqs(store.tournament().id)) == 24
    # A wave of 2 one-game tables asks for its 2 positions, not for every game stored: the run's memory and time
    # per wave stay flat however long the ladder plays; only the run's start and end count them all.
    assert [a for a in asked if a[1] is not None] == [(first, first + 2) for first in range(0, 24, 2)]
    assert len([a for a in asked if a[1] is None]) <= 3


def test_a_newcomer_anchors_every_table_until_its_sigma_comes_down() -> None:
    played = [GameOutcome(i, ("a", "b", "c"), ((i % 3) + 1, ((i + 1) % 3) + 1, ((i + 2) % 3) + 1))
              for i in range(60)]
    ratings = rate_all(RatingConfig(), played)
    counts = {"a": 60, "b": 60, "c": 60}
    wave = ladder_wave(ratings, counts, ["a", "b", "c", "new"], 3, tables=4, first_seq=180, first_table=60, seed=1)
    assert all(t.bots[0] == "new" for t in wave)
    settled = rate_all(RatingConfig(), [*played, *(GameOutcome(60 + i, ("new", "a", "b"), (2, 1, 3))
                                                   for i in range(60))])
    wave = ladder_wave(settled, {**counts, "new": 60}, ["a", "b", "c", "new"], 3, tables=4, first_seq=300,
                       first_table=100, seed=1)
    assert len({t.bots[0] for t in wave}) == 4  # settled: the anchors go round every bot again
