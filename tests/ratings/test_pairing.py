"""Paired duplicate games: seatings, outcomes and the sequential verdict."""

from __future__ import annotations

import pytest

from arena.ratings.pairing import (
    BASE,
    NEW,
    PairResult,
    outcome_of,
    pair_outcome,
    pair_seatings,
    seat_under_test,
    sequential,
)
from arena.ratings.sprt import SprtSettings, Verdict


@pytest.mark.parametrize("seats, opponents", [(2, 1), (3, 2), (4, 3), (4, 5)])
def test_a_pair_differs_only_in_the_seat_under_test(seats: int, opponents: int) -> None:
    for deal in range(3 * seats * opponents):
        new_game, base_game = pair_seatings(deal, seats, opponents)
        seat = seat_under_test(deal, seats)
        assert new_game.participants[seat] == NEW and base_game.participants[seat] == BASE
        assert new_game.deal == base_game.deal == deal
        others = [p for i, p in enumerate(new_game.participants) if i != seat]
        assert others == [p for i, p in enumerate(base_game.participants) if i != seat]
        assert len(set(others)) == seats - 1 and all(p >= 2 for p in others)


def test_the_seat_under_test_visits_every_seat() -> None:
    assert {seat_under_test(d, 4) for d in range(4)} == {0, 1, 2, 3}


def test_too_few_opponents_for_the_table() -> None:
    with pytest.raises(ValueError, match="needs 3 opponents"):
        pair_seatings(0, 4, 2)


@pytest.mark.parametrize("new, base, outcome", [(1, 2, 1.0), (2, 2, 0.5), (3, 1, 0.0)])
def test_pair_outcome(new: int, base: int, outcome: float) -> None:
    assert pair_outcome(new, base) == outcome


def test_outcome_of_reads_each_games_seat_under_test() -> None:
    seatings = pair_seatings(1, 3, 2)  # tested seat 1
    assert outcome_of(seatings, [(2, 1, 3), (1, 3, 2)]) == 1.0
    assert outcome_of(seatings, [(1, 3, 2), (2, 1, 3)]) == 0.0


def test_sequential_takes_pairs_in_deal_order_up_to_the_first_gap() -> None:
    pairs = [PairResult(0, 1.0), PairResult(1, 0.5), PairResult(3, 1.0)]
    counts, verdict, consumed = sequential(pairs, None, None)
    assert (counts.wins, counts.draws, counts.losses, consumed, verdict) == (1, 1, 0, 2, Verdict.UNDECIDED)


def test_sequential_stops_at_the_first_decisive_pair_whatever_the_finishing_order() -> None:
    settings = SprtSettings(elo0=0, elo1=200)
    pairs = [PairResult(d, 1.0) for d in range(40)]
    forward = sequential(pairs, settings, None)
    backward = sequential(list(reversed(pairs)), settings, None)
    assert forward == backward and forward[1] is Verdict.BETTER and forward[2] < 40


def test_a_failed_pair_is_consumed_but_not_counted_and_the_cap_holds() -> None:
    pairs = [PairResult(0, None), PairResult(1, 0.0), PairResult(2, 1.0)]
    counts, verdict, consumed = sequential(pairs, SprtSettings(), 2)
    assert (counts.pairs, consumed, verdict) == (1, 2, Verdict.UNDECIDED)
