"""The rating history a server keeps for its live bot pages: always the one a publish rates from scratch, whether
games come in schedule order, out of it, or after a season's end re-rating, and rating only the new games when
they come in order."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

import pytest

from arena.games import get_game
from arena.ratings.trueskill import GameOutcome, RatingConfig
from arena.site import data
from arena.site.data import LiveHistory, rating_history
from arena.storage import Tournament

GAME = "bali-2017"
TOURNAMENT = Tournament(1, "ladder", GAME, "ladder", {})


@dataclass
class _Store:
    """What LiveHistory reads of a store: the stored games (each stored with the next id) and the final flag."""

    games: list[GameOutcome] = field(default_factory=list)
    final: bool = False

    def latest_game(self, tid: int) -> int:
        return len(self.games)

    def final_ratings(self, tid: int) -> bool:
        return self.final

    def outcomes(self, tid: int) -> list[GameOutcome]:
        return sorted(self.games, key=lambda o: o.seq)


def _games(count: int, seed: int = 7) -> list[GameOutcome]:
    rng = random.Random(seed)
    bots = ["a", "b", "c", "d", "e"]
    return [GameOutcome(seq, tuple(rng.sample(bots, 3)), tuple(rng.sample([1, 2, 3], 3))) for seq in range(count)]


def _from_scratch(store: _Store) -> dict[str, tuple[data.Point, ...]]:
    config = RatingConfig.stored(get_game(GAME), TOURNAMENT.config)
    _, history = rating_history(replace(config, tau=0.0) if store.final else config, store.games)
    return {bot: tuple(points) for bot, points in history.items()}


def test_games_stored_in_order_are_rated_once_each_and_give_the_publishers_history(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rated: list[int] = []
    rate_on = data._rate_on

    def counted(config, ordered, start, table, history):  # type: ignore[no-untyped-def]
        rated.append(len(ordered) - start)
        return rate_on(config, ordered, start, table, history)

    monkeypatch.setattr(data, "_rate_on", counted)
    store, live, games, live_rated = _Store(), LiveHistory(), _games(60), 0
    for end in (10, 11, 30, 30, 60):
        store.games = games[:end]
        expected = {**{b: () for b in "abcdef"}, **_from_scratch(store)}
        before = len(rated)
        assert live.points(store, TOURNAMENT, "abcdef") == expected
        live_rated += sum(rated[before:])
    assert live_rated == 60  # each game rated once


def test_a_game_stored_out_of_schedule_order_or_a_final_re_rating_rates_every_game_again() -> None:
    store, live, games = _Store(), LiveHistory(), _games(40, seed=3)
    store.games = games[:20] + games[21:]  # game 20 still under way while later ones were stored
    assert live.points(store, TOURNAMENT, "abcde") == _from_scratch(store)
    store.games = store.games + [games[20]]
    assert live.points(store, TOURNAMENT, "abcde") == _from_scratch(store)
    store.final = True
    assert live.points(store, TOURNAMENT, "abcde") == _from_scratch(store)
    store.final = False
    assert live.points(store, TOURNAMENT, "abcde") == _from_scratch(store)
