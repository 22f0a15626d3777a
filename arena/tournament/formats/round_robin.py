"""Round-robin: every table of SEATS entrants, each played in every seat rotation, ROUNDS times over."""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Sequence

from arena.errors import ConfigError
from arena.tournament.formats.base import FixedFormat, Table, TournamentSpec, rounds_of

# The most games a round-robin's schedule may hold: it is built whole before the first game, and far fewer
# games than a full round-robin of a large field rank it (the ladder).
MAX_GAMES = 1_000_000


class RoundRobin(FixedFormat):
    """Every table of `seats` entrants."""

    name = "round-robin"
    summary = "every table of SEATS entrants"

    def tables(self, names: Sequence[str], seats: int) -> list[tuple[str, ...]]:
        return [tuple(c) for c in combinations(names, seats)]

    def check(self, spec: TournamentSpec, time_limit: float | None) -> None:
        super().check(spec, time_limit)
        tables = comb(len(spec.entrants), spec.seats)
        games = tables * spec.seats * spec.rounds
        if games > MAX_GAMES:
            raise ConfigError(f"a round-robin of {len(spec.entrants):,} entrants at {spec.seats} seats is "
                              f"{tables:,} tables, {games:,} games: more than the {MAX_GAMES:,} it may play; "
                              f"rank a field this large with --format ladder --games N (about 30 games a bot)")


def round_robin(names: Sequence[str], seats: int, rounds: int, duplicate: bool, seed: int) -> list[Table]:
    """Every table of `seats` entrants, each in all seat rotations, `rounds` times over."""
    return rounds_of(RoundRobin().tables(names, seats), rounds, duplicate, seed)
