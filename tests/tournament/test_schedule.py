"""Schedules: every table, reproducible seeds, games numbered in schedule order, ladder waves from ratings alone."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from arena.ratings import GameOutcome, RatingConfig, rate_all
from arena.formats import gauntlet, ladder_wave, round_robin
from arena.wire import derive_seed

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
    assert [t.table for t in wave] == [10, 11] and [t.first_seq for t in wave] == [30, 33]
    assert {t.bots[0] for t in wave} == {"d", "e"}  # the unrated bots are the most uncertain
    assert all(len(set(t.bots)) == 3 for t in wave)
