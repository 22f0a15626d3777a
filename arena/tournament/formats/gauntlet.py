"""Gauntlet: the first entrant (the challenger) against the others, at every table of SEATS."""

from __future__ import annotations

from itertools import combinations
from math import ceil, comb
from typing import Sequence

from arena.games import Game
from arena.tournament.formats.base import FixedFormat, Table, rounds_of

# Games the challenger plays by default. Against the sample bots, a challenger's TrueSkill sigma (8.33 at the
# start) falls below SIGMA_TARGET within this many games: at a table of 4 (a bot that always plays option 0
# against the heuristic and two random bots, seed 0), 1.37 after 32 games of bali-2001 (1.82 after 20) and 1.15
# after 32 of bali-2017; its conservative rating mu - 3 sigma is then within 4.5 points of its mean.
CHALLENGER_GAMES = 32
SIGMA_TARGET = 1.5


class Gauntlet(FixedFormat):
    """The challenger at every table of `seats` with the others; alone, it wants opponents to play against."""

    name = "gauntlet"
    summary = "the first entrant against the others (or the sample bots)"

    def missing_opponents(self, given: int, seats: int) -> int:
        return max(0, seats - given)

    def default_seats(self, game: Game, entrants: int) -> int:
        """The game's largest table: the challenger meets as many opponents at once as the game allows."""
        return game.max_players

    def default_rounds(self, entrants: int, seats: int) -> int:
        """Rounds enough for the challenger to play at least CHALLENGER_GAMES games (each table plays every seat
        rotation once per round)."""
        per_round = comb(entrants - 1, seats - 1) * seats
        return max(1, ceil(CHALLENGER_GAMES / per_round)) if per_round else 1

    def tables(self, names: Sequence[str], seats: int) -> list[tuple[str, ...]]:
        challenger, others = names[0], names[1:]
        return [(challenger, *c) for c in combinations(others, seats - 1)]


def gauntlet(challenger: str, others: Sequence[str], seats: int, rounds: int, duplicate: bool,
             seed: int) -> list[Table]:
    """The challenger at every table of `seats` with the others, each in all seat rotations."""
    return rounds_of(Gauntlet().tables([challenger, *others], seats), rounds, duplicate, seed)
