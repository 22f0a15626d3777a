"""The ladder's matchmaking: no bot at two tables of a wave, every entrant's exposure within its bound, anchors where
a game most improves the board, one game a table with each bot's seats evened out, the earlier rule kept as it was,
and the batch match quality equal to the library's."""

from __future__ import annotations

import random
from collections import Counter, defaultdict

import numpy as np
import pytest
import trueskill

from arena.bench.ranking import random_wave, simulate
from arena.bots.entrants import Entrant
from arena.ratings.trueskill import GameOutcome, Rating, RatingConfig, Ratings, match_quality, rate_all
from arena.tournament.formats import get_format
from arena.tournament.formats.base import Play, TournamentSpec
from arena.tournament.formats.ladder import EXPOSURE, TOP_EVERY, ladder_wave, quality_wave


def _field(bots: int, played_games: int, seed: int) -> tuple[Ratings, dict[str, int], list[str]]:
    """A field of `bots` bots after `played_games` random 3-seat games (some bots unrated when few were played)."""
    rng = np.random.default_rng(seed)
    names = [f"b{i}" for i in range(bots)]
    outcomes = [GameOutcome(i, tuple(names[j] for j in rng.choice(bots, 3, replace=False)), (1, 2, 3))
                for i in range(played_games)]
    counts = Counter(b for o in outcomes for b in o.bots)
    return rate_all(RatingConfig(), outcomes), {n: counts[n] for n in names}, names


@pytest.mark.parametrize("bots, seats, tables, played", [
    (8, 4, 2, 0), (9, 4, 2, 30), (40, 4, 4, 0), (40, 4, 10, 100), (41, 3, 13, 60), (12, 2, 6, 20), (200, 4, 4, 400),
])
@pytest.mark.parametrize("rule", [ladder_wave, random_wave])
def test_no_bot_sits_at_two_tables_of_a_wave(rule, bots: int, seats: int, tables: int, played: int) -> None:
    ratings, counts, names = _field(bots, played, seed=bots + played)
    for first_table in (0, 7, 100):
        wave = rule(ratings, counts, names, seats, tables, 10 * first_table, first_table, 5)
        seated = [b for t in wave for b in t.bots]
        assert len(wave) == tables and all(len(t.bots) == seats for t in wave)
        assert len(seated) == len(set(seated)), f"a bot at two tables: {Counter(seated).most_common(1)}"
        assert [t.first_seq for t in wave] == [10 * first_table + sum(u.games for u in wave[:i])
                                               for i in range(tables)]


@pytest.mark.parametrize("bots, seats, tables", [(4, 3, 4), (5, 4, 3), (6, 2, 5)])
def test_a_wave_with_more_seats_than_bots_seats_everyone_before_anyone_twice(bots: int, seats: int,
                                                                              tables: int) -> None:
    ratings, counts, names = _field(bots, 10, seed=1)
    seated = Counter(b for t in ladder_wave(ratings, counts, names, seats, tables, 0, 0, 3) for b in t.bots)
    assert set(seated) == set(names) and max(seated.values()) - min(seated.values()) <= 1 + tables * seats // bots


@pytest.mark.parametrize("bots, seats, spread, games", [
    (30, 4, 2.0, 320), (30, 4, 0.5, 320), (50, 2, 2.0, 300), (24, 3, 3.0, 240),
])
def test_every_entrants_exposure_stays_within_its_bound(bots: int, seats: int, spread: float, games: int) -> None:
    run = simulate(ladder_wave, bots, seats, spread, games, seed=2)
    mean = run.games[-1] * seats / bots
    assert run.busiest <= EXPOSURE * mean + 1 + seats, (run.busiest, mean)


def _settled_field() -> tuple[Ratings, dict[str, int], list[str]]:
    """40 settled bots (sigma 1, 20 games each): a thin top of 10 spaced 2 apart (40 down to 22), then 20 at 20,
    a crowd of 20 within 1 around 15, and a thin tail of 9 spaced 2 apart."""
    mus = [40 - 2 * i for i in range(10)] + [20] + [14.5 + 0.05 * i for i in range(20)] + [4 - 2 * i for i in range(9)]
    names = [f"b{i:02d}" for i in range(len(mus))]
    return Ratings(RatingConfig(), {n: Rating(m, 1.0) for n, m in zip(names, mus)}), dict.fromkeys(names, 20), names


def test_a_wave_anchors_the_top_boundary_then_the_crowded_middle() -> None:
    ratings, counts, names = _settled_field()
    for seed in range(5):
        wave = ladder_wave(ratings, counts, names, 4, min(4, TOP_EVERY), 0, 0, seed)
        assert wave[0].bots[0] in {"b09", "b10"}  # the bots either side of the top 10's boundary
        crowd = {f"b{i:02d}" for i in range(11, 31)}
        assert all(t.bots[0] in crowd for t in wave[1:])  # then those misordered with the most neighbours
        assert all(set(t.bots) <= crowd for t in wave[1:])  # filled from their neighbours


def test_the_earlier_rule_is_kept_as_it_chose() -> None:
    ratings, counts, names = _field(6, 40, seed=3)
    wave = quality_wave(ratings, counts, names, 3, 2, 0, 0, 1)
    env = ratings.config.environment()
    for table in wave:  # each seat after the anchor is the best match quality for the seats before it
        for k in range(1, 3):
            best = max(env.quality([(env.create_rating(ratings.get(b).mu, ratings.get(b).sigma),)
                                    for b in (*table.bots[:k], c)]) for c in names if c not in table.bots[:k])
            assert ratings.quality(table.bots[:k + 1], env) == pytest.approx(best)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_batch_match_quality_is_the_librarys(seats: int) -> None:
    rng = np.random.default_rng(seats)
    mu, sigma = rng.normal(25, 8, (20, seats)), rng.uniform(0.5, 8, (20, seats))
    env = trueskill.TrueSkill(beta=4.0)
    expected = [env.quality([(env.create_rating(m, s),) for m, s in zip(ms, ss)]) for ms, ss in zip(mu, sigma)]
    assert match_quality(mu, sigma, 4.0) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("game, bots, seats, wave, games", [
    pytest.param("bali-2001", 40, 4, 4, 4000, marks=pytest.mark.slow),  # 4,000 games drawn: slow
    ("bali-2001", 9, 3, 2, 900), ("bali-2017", 12, 2, 6, 600), ("bali-2001", 5, 4, 3, 400),
])
def test_a_ladder_table_is_one_game_and_every_bots_seats_stay_within_two_games_of_each_other(
        game: str, bots: int, seats: int, wave: int, games: int) -> None:
    names = [f"b{i:02d}" for i in range(bots)]
    spec = TournamentSpec(Play(game=game), get_format("ladder"), tuple(Entrant(n, ("bot",)) for n in names), seats,
                          max_games=games, wave=wave, seed=3)
    stored: dict[int, GameOutcome] = {}
    sat: dict[str, Counter[int]] = defaultdict(Counter)
    rng = random.Random(1)
    for tables in spec.fmt.waves(spec, lambda first, below: [stored[s] for s in range(max(first, 0), below)]):
        for table in tables:
            assert table.games == 1
            seated = table.seated(0)
            ranks = tuple(rng.sample(range(1, seats + 1), seats))
            stored[table.first_seq] = GameOutcome(table.first_seq, seated, ranks)
            for seat, bot in enumerate(seated):
                sat[bot][seat] += 1
    assert sorted(stored) == list(range(games))
    for bot in names:
        counts = [sat[bot][seat] for seat in range(seats)]
        assert max(counts) - min(counts) <= 2, f"{bot} sat {counts} times in each seat"
