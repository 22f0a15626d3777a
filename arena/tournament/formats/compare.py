"""Compare: NEW against BASE in paired duplicate games, until a sequential test decides or the cap is reached.

The entrants are NEW, BASE and then the opponents. Each table is a block of deals, each deal played twice
(see arena/ratings/pairing.py); the games of deal d are numbered 2d (NEW seated) and 2d + 1 (BASE seated).
"""

from __future__ import annotations

from itertools import count
from typing import Iterator

from arena.errors import ConfigError
from arena.match.play import Seating
from arena.match.seeds import table_seed
from arena.ratings.pairing import BASE, GAMES_PER_PAIR, NEW, PairResult, pair_outcome, pair_seatings, sequential
from arena.ratings.sprt import PairCounts, Verdict, expected_pairs
from arena.ratings.trueskill import GameOutcome
from arena.tournament.formats.base import Outcomes, Table, TournamentFormat, TournamentSpec

DEALS_PER_TABLE = 8  # pairs a table plays with the same bot processes
DEFAULT_WAVE = 2  # tables played before the test looks again
# A comparison whose pairs are nearly all drawn (both versions lose, or both win, on most deals) stops after this
# many pairs when the test is not expected to decide within the cap: hundreds more pairs would say nothing new.
FUTILE_PAIRS = 200
FUTILE_DRAWS = 0.85


class Compare(TournamentFormat):
    """Paired duplicate games of NEW and BASE against the same opponents, until the test decides or the cap."""

    name = "compare"
    summary = "NEW against BASE in paired duplicate games (arena compare)"
    open_ended = True

    def min_entrants(self, seats: int) -> int:
        return 2 + seats - 1  # NEW, BASE and the opponents of one table

    def missing_opponents(self, given: int, seats: int) -> int:
        return max(0, self.min_entrants(seats) - given)

    def check(self, spec: TournamentSpec, time_limit: float | None) -> None:
        super().check(spec, time_limit)
        if spec.max_games is not None and spec.max_games < GAMES_PER_PAIR:
            raise ConfigError(f"a comparison plays games in pairs: give at least 2 games, not {spec.max_games}")
        if spec.wave < 1:
            raise ConfigError(f"the comparison wave must be at least 1 table, got {spec.wave}")
        if spec.sprt is not None:
            try:
                spec.sprt.validate()
            except ValueError as exc:
                raise ConfigError(str(exc)) from None

    def total_games(self, spec: TournamentSpec) -> int | None:
        return None if spec.max_games is None else _pairs_cap(spec) * GAMES_PER_PAIR

    def waves(self, spec: TournamentSpec, outcomes: Outcomes) -> Iterator[list[Table]]:
        """Blocks of deals, `wave` tables at a time, until the pairs so far decide the test or reach the cap."""
        cap = _pairs_cap(spec)
        per_wave = spec.wave * DEALS_PER_TABLE
        for wave_no in count():
            first_deal = wave_no * per_wave
            if first_deal and decided(spec, outcomes(0, first_deal * GAMES_PER_PAIR), first_deal):
                return
            deals = [d for d in range(first_deal, first_deal + per_wave) if cap is None or d < cap]
            if not deals:
                return
            yield [block(spec, t, deals[i:i + DEALS_PER_TABLE])
                   for t, i in enumerate(range(0, len(deals), DEALS_PER_TABLE), start=wave_no * spec.wave)]


def _pairs_cap(spec: TournamentSpec) -> int | None:
    return None if spec.max_games is None else -(-spec.max_games // GAMES_PER_PAIR)


def block(spec: TournamentSpec, number: int, deals: list[int]) -> Table:
    """One table: the given deals, each as its two games, with the same processes throughout."""
    opponents = len(spec.entrants) - 2
    plan: list[Seating] = []
    for local, deal in enumerate(deals):
        new_game, base_game = pair_seatings(deal, spec.seats, opponents)
        # The match numbers its own deals: the same local deal key gives both games of a pair the same cards.
        plan += [Seating(new_game.participants, local), Seating(base_game.participants, local)]
    return Table(number, deals[0] * GAMES_PER_PAIR, tuple(spec.names()), table_seed(spec.seed, "compare", number),
                 duplicate=False, plan=tuple(plan))


def pair_results(spec: TournamentSpec, outcomes: list[GameOutcome], deals: int) -> list[PairResult]:
    """The first `deals` pairs as played (a pair with a failed game has no outcome)."""
    by_seq = {o.seq: o for o in outcomes}
    new, base = spec.names()[NEW], spec.names()[BASE]
    results = []
    for deal in range(deals):
        with_new, with_base = by_seq.get(GAMES_PER_PAIR * deal), by_seq.get(GAMES_PER_PAIR * deal + 1)
        if with_new is None or with_base is None:
            results.append(PairResult(deal, None))
            continue
        results.append(PairResult(deal, pair_outcome(with_new.ranks[with_new.bots.index(new)],
                                                     with_base.ranks[with_base.bots.index(base)])))
    return results


def verdict(spec: TournamentSpec, outcomes: list[GameOutcome], deals: int) -> tuple[PairCounts, Verdict, int]:
    """The counts, the verdict and the pairs it rests on, from the first `deals` pairs in deal order."""
    return sequential(pair_results(spec, outcomes, deals), spec.sprt, _pairs_cap(spec))


def decided(spec: TournamentSpec, outcomes: list[GameOutcome], deals: int) -> bool:
    """True once the test has decided on the pairs so far, or drawn pairs leave it no hope within the cap."""
    counts, result, _ = verdict(spec, outcomes, deals)
    return result is not Verdict.UNDECIDED or futile(spec, counts)


def futile(spec: TournamentSpec, counts: PairCounts) -> bool:
    """True if, FUTILE_PAIRS pairs in, draws dominate and at their pace the test is not expected to decide within
    the pairs the cap leaves. Stopping then can only leave the test undecided: no verdict it gives is wrong more
    often (its error rates stand), and the report says why and what to try instead."""
    cap = _pairs_cap(spec)
    if spec.sprt is None or counts.pairs < FUTILE_PAIRS or counts.draws < FUTILE_DRAWS * counts.pairs:
        return False
    remaining = expected_pairs(counts, spec.sprt)["remaining"]
    return remaining is None or (cap is not None and remaining > cap - counts.pairs)
