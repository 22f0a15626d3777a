"""Finals: the top K of a tournament against each other until every adjacent pair's order is decided at a stated
confidence (arena/ratings/order.py) or the game budget is spent.

The entrants are the K finalists in their seeded order, then the sample opponents that fill a table of more than two
seats. Each wave gives every open adjacent pair one table: a few deals, each played in every seat rotation of the
pair and the opponents with the same cards, so that deal luck and seat cancel out. The games of deal d are numbered
seats x d to seats x d + seats - 1; over a deal, the pair's first bot (in seeded order) scores 1 if it finished ahead
of the other in more of the games than behind, 0.5 if as often, 0 if less.
"""

from __future__ import annotations

from typing import Any, Iterator

from arena.errors import ConfigError
from arena.match.play import Seating
from arena.match.seeds import table_seed
from arena.ratings.order import FINALS_FORMAT, Standing, pair_winner, settle
from arena.ratings.pairing import pair_outcome
from arena.ratings.sprt import SprtSettings, TestKind
from arena.ratings.trueskill import GameOutcome
from arena.tournament.formats.base import Outcomes, Table, TournamentFormat, TournamentSpec

DEALS_PER_TABLE = 4  # deals a pair's table plays with the same bot processes before the pair is looked at again
DEFAULT_MAX_GAMES = 2000


class Finals(TournamentFormat):
    """The finalists' open adjacent pairs played deal by deal until decided or the budget is spent."""

    name = FINALS_FORMAT
    summary = "the top K of a tournament until each adjacent pair is decided (arena finals)"
    open_ended = True

    def min_entrants(self, seats: int) -> int:
        return max(2, seats)

    def check(self, spec: TournamentSpec, time_limit: float | None) -> None:
        super().check(spec, time_limit)
        if spec.sprt is None:
            raise ConfigError("finals need their sequential test")
        if spec.max_games is not None and spec.max_games < spec.seats:
            raise ConfigError(f"finals play a deal in every seat rotation: give at least {spec.seats} games, not "
                              f"{spec.max_games}")

    def total_games(self, spec: TournamentSpec) -> int | None:
        return spec.max_games

    def waves(self, spec: TournamentSpec, outcomes: Outcomes) -> Iterator[list[Table]]:
        """A table a wave for each open pair, until none is open or the budget has no deal left."""
        seq, number = 0, 0
        while True:
            open_pairs = standing(spec, outcomes(0, seq)).open_pairs
            tables = []
            for pair in open_pairs:
                left = None if spec.max_games is None else (spec.max_games - seq) // spec.seats
                deals = DEALS_PER_TABLE if left is None else min(DEALS_PER_TABLE, left)
                if deals <= 0:
                    break
                tables.append(_table(spec, number, seq, pair, deals))
                seq += deals * spec.seats
                number += 1
            if not tables:
                return
            yield tables


def finalists(spec: TournamentSpec) -> list[str]:
    """The finalists' names in seeded order (the entrants but the opponents that fill the table)."""
    names = spec.names()
    return names[:len(names) - max(0, spec.seats - 2)]


def _table(spec: TournamentSpec, number: int, first_seq: int, pair: tuple[str, str], deals: int) -> Table:
    names = spec.names()
    bots = (*pair, *names[len(finalists(spec)):])
    seats = spec.seats
    plan = tuple(Seating(tuple((seat - turn) % seats for seat in range(seats)), deal)
                 for deal in range(deals) for turn in range(seats))
    return Table(number, first_seq, bots, table_seed(spec.seed, "finals", number), duplicate=False, plan=plan)


def standing(spec: TournamentSpec, outcomes: list[GameOutcome]) -> Standing:
    """The finals' table from the games stored so far."""
    return standing_of(finalists(spec), spec.seats, spec.sprt, outcomes)


def standing_of(seeded: list[str], seats: int, settings: SprtSettings | None,
                outcomes: list[GameOutcome]) -> Standing:
    """The table of finalists `seeded` (best first) after these games: each pair's deals in order, a deal with a
    failed game left out."""
    if settings is None:
        raise ConfigError("finals need their sequential test")
    place = {name: i for i, name in enumerate(seeded)}
    results = deal_results(seeded, seats, outcomes)
    decided: dict[tuple[str, str], str | None] = {}

    def winner(a: str, b: str) -> str | None:
        key = (a, b) if place[a] < place[b] else (b, a)
        if key not in decided:
            found = pair_winner(results.get(key, []), settings)
            decided[key] = None if found is None else key[found]
        return decided[key]

    return settle(seeded, winner)


def deal_results(seeded: list[str], seats: int, outcomes: list[GameOutcome]) -> dict[tuple[str, str], list[float]]:
    """Each pair's deals in order, keyed by the pair in seeded order: the first bot's result over the deal (1 ahead
    in more of its games than behind, 0.5 as often, 0 less); a deal with a failed game left out."""
    place = {name: i for i, name in enumerate(seeded)}
    deals: dict[int, list[GameOutcome]] = {}
    for o in outcomes:
        deals.setdefault(o.seq // seats, []).append(o)
    results: dict[tuple[str, str], list[float]] = {}
    for deal in sorted(deals):
        games = deals[deal]
        pair = sorted((b for b in games[0].bots if b in place), key=place.__getitem__)
        if len(games) != seats or len(pair) != 2:
            continue
        first, second = pair
        points = sum(pair_outcome(g.ranks[g.bots.index(first)], g.ranks[g.bots.index(second)]) for g in games)
        results.setdefault((first, second), []).append(1.0 if points > seats / 2 else 0.5 if points == seats / 2
                                                       else 0.0)
    return results


def settings_of(config: dict[str, Any]) -> SprtSettings:
    """A stored finals' test, from its tournament's settings."""
    sprt = dict(config["sprt"])
    sprt["test"] = TestKind(sprt.get("test", TestKind.CLASSIC.value))
    return SprtSettings(**sprt)
