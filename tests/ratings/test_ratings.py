"""Ratings: TrueSkill environments as values, free-for-all updates, rebuilds in schedule order."""

from __future__ import annotations

import random

import pytest
import trueskill

from arena.errors import ConfigError
from arena.games import get_game
from arena.ratings.trueskill import GameOutcome, Rating, RatingConfig, Ratings, rate_all


def outcomes(n: int, seed: int) -> list[GameOutcome]:
    rng = random.Random(seed)
    bots = ["a", "b", "c", "d", "e"]
    games = []
    for seq in range(n):
        table = tuple(rng.sample(bots, 4))
        ranks = tuple(rng.choice([(1, 2, 3, 4), (1, 2, 2, 4), (2, 1, 4, 3)]))
        games.append(GameOutcome(seq, table, ranks))
    return games


def test_ratings_depend_on_schedule_order_not_on_finishing_order() -> None:
    config = RatingConfig.for_game(get_game("bali-2001"))
    games = outcomes(60, 1)
    shuffled = games[:]
    random.Random(2).shuffle(shuffled)
    assert rate_all(config, games).table == rate_all(config, shuffled).table
    assert rate_all(config, iter(games), in_order=True).table == rate_all(config, shuffled).table  # as they come


def test_an_update_returns_new_ratings_and_changes_nothing() -> None:
    before = Ratings(RatingConfig())
    after = before.after(GameOutcome(0, ("a", "b", "c"), (1, 2, 3)))
    assert before.table == {}
    assert after.get("a").mu > 25 > after.get("c").mu
    assert after.get("a").sigma < RatingConfig().sigma


def test_tied_seats_share_a_rank() -> None:
    after = Ratings(RatingConfig()).after(GameOutcome(0, ("a", "b", "c", "d"), (1, 2, 2, 4)))
    assert after.get("b").mu == pytest.approx(after.get("c").mu, abs=0.01)


def test_the_global_trueskill_setup_is_never_touched() -> None:
    before = trueskill.global_env()
    env = RatingConfig(mu=100, sigma=10, beta=5, tau=0.1, draw_probability=0.2).environment()
    assert env.mu == 100 and trueskill.global_env() is before and before.mu == 25


def test_conservative_estimate_is_mu_minus_three_sigma() -> None:
    assert Rating(30.0, 2.5).conservative == 22.5


def test_game_specific_draw_probability_and_overrides() -> None:
    assert RatingConfig.for_game(get_game("bali-2001")).draw_probability == 0.03
    assert RatingConfig.for_game(get_game("bali-2017")).draw_probability == 0.01
    assert RatingConfig().draw_probability == 0.05
    config = RatingConfig.for_game(get_game("bali-2001"), mu=10, sigma=None)
    assert config.mu == 10 and config.sigma == RatingConfig().sigma


@pytest.mark.parametrize("overrides, field", [({"sigma": 0}, "sigma"), ({"beta": -1}, "beta"), ({"tau": -1}, "tau"),
                                              ({"draw_probability": 1.0}, "draw_probability")])
def test_bad_parameters_are_named(overrides: dict, field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        RatingConfig.for_game(get_game("bali-2001"), **overrides)


def test_match_quality_is_highest_for_equal_ratings() -> None:
    ratings = Ratings(RatingConfig(), {"strong": Rating(40, 1), "weak": Rating(10, 1)})
    assert ratings.quality(["x", "y"]) > ratings.quality(["strong", "weak"])


def test_the_free_for_all_update_equals_the_librarys_on_many_random_games() -> None:
    """2 to 6 seats, ties, any dynamics and draw probability (0 too): the arena's update is env.rate's to 1e-9."""
    from arena.ratings.trueskill import rate_free_for_all
    checked = 0
    for trial in range(800):
        rng = random.Random(trial)
        env = trueskill.TrueSkill(mu=25, sigma=25 / 3, beta=rng.uniform(1, 6),
                                  tau=rng.choice([0.0, 25 / 300, rng.uniform(0, 1)]),
                                  draw_probability=rng.choice([0.0, 0.01, 0.05, rng.uniform(0, 0.5)]))
        seats = rng.randint(2, 6)
        mu = [rng.gauss(25, 8) for _ in range(seats)]
        sigma = [rng.uniform(0.3, 8.4) for _ in range(seats)]
        ranks = [rng.randint(1, seats) for _ in range(seats)]
        try:
            expected = env.rate([(env.create_rating(m, s),) for m, s in zip(mu, sigma)], ranks=ranks)
        except FloatingPointError:  # an outcome the model holds impossible: the arena's update says so too
            with pytest.raises(FloatingPointError):
                rate_free_for_all(env, mu, sigma, ranks)
            continue
        for (want,), (got_mu, got_sigma) in zip(expected, rate_free_for_all(env, mu, sigma, ranks)):
            assert got_mu == pytest.approx(want.mu, rel=0, abs=1e-9)
            assert got_sigma == pytest.approx(want.sigma, rel=0, abs=1e-9)
        checked += 1
    assert checked > 600
