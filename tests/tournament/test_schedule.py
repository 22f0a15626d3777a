"""Schedules: every table in every rotation, reproducible seeds, ladder waves chosen from ratings alone."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from arena.ratings import GameOutcome, RatingConfig, rate_all
from arena.schedule import derive_seed, gauntlet, ladder_wave, round_robin

BOTS = ["a", "b", "c", "d", "e"]


def test_round_robin_plays_every_table_in_every_rotation() -> None:
    games = round_robin(BOTS, 4, rounds=2, duplicate=False, seed=7)
    assert len(games) == 5 * 4 * 2
    assert [g.seq for g in games] == list(range(len(games)))
    tables = Counter(frozenset(g.bots) for g in games)
    assert set(tables) == {frozenset(c) for c in combinations(BOTS, 4)} and set(tables.values()) == {8}
    seats = Counter((g.bots[s], s) for g in games for s in range(4))
    assert set(seats.values()) == {8}  # every bot sits in every seat equally often
    for table in range(10):
        rotations = [g.bots for g in games if g.table == table]
        assert len(rotations) == 4 and len({r[0] for r in rotations}) == 4
    assert len({g.seed for g in games}) == len(games)


def test_duplicate_deals_the_same_seed_to_every_rotation_of_a_table() -> None:
    games = round_robin(BOTS, 3, rounds=1, duplicate=True, seed=7)
    for table in {g.table for g in games}:
        assert len({g.seed for g in games if g.table == table}) == 1
    assert len({g.seed for g in games}) == 10


def test_seeds_are_stable_across_runs_and_machines() -> None:
    assert derive_seed(1, 2, 3) == derive_seed(1, 2, 3) == 733464669408481064
    assert round_robin(BOTS, 4, 1, False, 5) == round_robin(BOTS, 4, 1, False, 5)
    assert round_robin(BOTS, 4, 1, False, 5) != round_robin(BOTS, 4, 1, False, 6)


def test_gauntlet_puts_the_challenger_at_every_table() -> None:
    games = gauntlet("me", ["r1", "r2", "r3", "h"], 4, rounds=1, duplicate=False, seed=1)
    assert len(games) == 4 * 4
    assert all("me" in g.bots for g in games)
    assert Counter(g.bots.index("me") for g in games) == {0: 4, 1: 4, 2: 4, 3: 4}


def test_ladder_waves_anchor_on_uncertainty_and_are_reproducible() -> None:
    config = RatingConfig()
    played = [GameOutcome(i, ("a", "b", "c"), (1, 2, 3)) for i in range(10)]
    ratings = rate_all(config, played)
    counts = {"a": 10, "b": 10, "c": 10}
    wave = ladder_wave(ratings, counts, BOTS, 3, tables=2, first_seq=30, first_table=10, seed=4)
    assert wave == ladder_wave(ratings, counts, BOTS, 3, tables=2, first_seq=30, first_table=10, seed=4)
    assert [g.seq for g in wave] == list(range(30, 36)) and {g.table for g in wave} == {10, 11}
    anchors = {wave[0].bots[0], wave[3].bots[0]}
    assert anchors == {"d", "e"}  # the unrated bots are the most uncertain
    assert all(len(set(g.bots)) == 3 for g in wave)
