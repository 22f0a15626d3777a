"""Tournament schedules: which bots sit at which table in which seat, with which seed, in what order."""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Sequence

from arena.ratings import Ratings
from arena.wire import derive_seed


class Format(StrEnum):
    """The tournament formats."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    LADDER = "ladder"


@dataclass(frozen=True)
class Table:
    """One table of the schedule: bots played in every seat rotation, its games numbered from first_seq.

    The games of a table run as one match, sharing bot processes; seq numbers fix the order ratings use.
    """

    table: int
    first_seq: int
    bots: tuple[str, ...]
    seed: int
    duplicate: bool

    @property
    def games(self) -> int:
        return len(self.bots)

    @property
    def seqs(self) -> range:
        return range(self.first_seq, self.first_seq + self.games)


def round_robin(names: Sequence[str], seats: int, rounds: int, duplicate: bool, seed: int) -> list[Table]:
    """Every table of `seats` entrants, each in all seat rotations, `rounds` times over."""
    return _tables([tuple(c) for c in combinations(names, seats)], rounds, duplicate, seed)


def gauntlet(challenger: str, others: Sequence[str], seats: int, rounds: int, duplicate: bool,
             seed: int) -> list[Table]:
    """The challenger at every table of `seats` with the others, each in all seat rotations."""
    return _tables([(challenger, *c) for c in combinations(others, seats - 1)], rounds, duplicate, seed)


def _tables(tables: list[tuple[str, ...]], rounds: int, duplicate: bool, seed: int) -> list[Table]:
    schedule: list[Table] = []
    seq = 0
    for round_no in range(rounds):
        for bots in tables:
            number = len(schedule)
            schedule.append(Table(number, seq, bots, derive_seed(seed, number, round_no), duplicate))
            seq += len(bots)
    return schedule


def ladder_wave(ratings: Ratings, games_played: dict[str, int], names: Sequence[str], seats: int, tables: int,
                first_seq: int, first_table: int, seed: int) -> list[Table]:
    """The next `tables` ladder tables: each anchored on the most uncertain bot, filled by match quality.

    The wave depends only on the ratings so far and the seed, so a resumed or parallel run chooses the same.
    """
    rng = random.Random(derive_seed(seed, "ladder", first_table))
    env = ratings.config.environment()
    order = sorted(names, key=lambda b: (-ratings.get(b).sigma, games_played.get(b, 0), rng.random()))
    wave: list[Table] = []
    seq = first_seq
    for t in range(tables):
        anchor = order[t % len(order)]
        table = [anchor]
        while len(table) < seats:
            candidates = [b for b in names if b not in table]
            rng.shuffle(candidates)  # equal qualities are broken at random, not by name
            table.append(max(candidates, key=lambda b: ratings.quality([*table, b], env)))
        wave.append(Table(first_table + t, seq, tuple(table), derive_seed(seed, first_table + t), duplicate=False))
        seq += seats
    return wave
