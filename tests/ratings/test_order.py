"""The finals' order: each pair decided by two one-sided tests, the table settled by swaps, undecided pairs sharing a
rank."""

from __future__ import annotations

import pytest

from arena.ratings.order import Standing, finals_settings, pair_winner, settle
from arena.ratings.sprt import PairCounts, SprtSettings, Verdict, decide


def test_the_errors_are_shared_out_over_both_directions_of_every_pair() -> None:
    settings = finals_settings(0.9, 5)
    assert settings.alpha == pytest.approx(0.1 / 20) and settings.elo0 == 0
    for bad in ((1.0, 3), (0.0, 3), (0.9, 1)):
        with pytest.raises(ValueError):
            finals_settings(*bad)


def test_a_pair_is_decided_at_the_first_deal_either_test_reaches_its_bound() -> None:
    settings = finals_settings(0.9, 3)
    won = [1.0] * 40
    first = pair_winner(won, settings)
    assert first == 0 and pair_winner([0.0] * 40, settings) == 1
    assert pair_winner([1.0, 0.0] * 200, settings) is None and pair_winner([], settings) is None
    # The deal where it is decided is where `arena compare`'s test (the same statistics) first says better.
    deals = next(n for n in range(1, 41) if pair_winner(won[:n], settings) is not None)
    one_sided = SprtSettings(settings.elo0, settings.elo1, settings.alpha, settings.beta, settings.test)
    assert decide(PairCounts(wins=deals), one_sided) is Verdict.BETTER
    assert decide(PairCounts(wins=deals - 1), one_sided) is not Verdict.BETTER
    # Decided once, it stays decided whatever comes after.
    assert pair_winner(won[:deals] + [0.0] * 10, settings) == 0


def test_settling_swaps_a_pair_decided_against_the_seeding_and_shares_open_ranks() -> None:
    decided = {("b", "a"): "b", ("c", "d"): None, ("a", "c"): "a"}

    def winner(x: str, y: str) -> str | None:
        return decided.get((x, y), decided.get((y, x)))

    table = settle(["a", "b", "c", "d"], winner)
    assert table.order == ("b", "a", "c", "d")
    assert table.decided == (True, True, False, False)
    assert table.ranks == (1, 2, 3, 3)
    assert table.open_pairs == [("c", "d")]
    assert Standing(("x", "y", "z"), (False, False, False)).ranks == (1, 1, 1)
