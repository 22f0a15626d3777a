"""Tournament schedules: which bots sit at which table in which seat, with which seed, in what order."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Sequence

from arena.ratings import Ratings


class Format(StrEnum):
    """The tournament formats."""

    ROUND_ROBIN = "round-robin"
    GAUNTLET = "gauntlet"
    LADDER = "ladder"


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule. seq is its place in schedule order; games of one table share bot processes."""

    seq: int
    table: int
    bots: tuple[str, ...]
    seed: int


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the given parts, the same on every machine and Python version."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def _table_games(seq: int, table: int, bots: Sequence[str], seed: int, round_no: int,
                 duplicate: bool) -> list[ScheduledGame]:
    """A table played in every seat rotation; with duplicate every rotation gets the same deal."""
    k = len(bots)
    games = []
    for rotation in range(k):
        seated = tuple(bots[(seat + rotation) % k] for seat in range(k))
        game_seed = derive_seed(seed, table, round_no) if duplicate else derive_seed(seed, table, round_no, rotation)
        games.append(ScheduledGame(seq + rotation, table, seated, game_seed))
    return games


def round_robin(names: Sequence[str], seats: int, rounds: int, duplicate: bool, seed: int) -> list[ScheduledGame]:
    """Every table of `seats` entrants, each in all seat rotations, `rounds` times over."""
    return _tables([tuple(c) for c in combinations(names, seats)], rounds, duplicate, seed)


def gauntlet(challenger: str, others: Sequence[str], seats: int, rounds: int, duplicate: bool,
             seed: int) -> list[ScheduledGame]:
    """The challenger at every table of `seats` with the others, each in all seat rotations."""
    return _tables([(challenger, *c) for c in combinations(others, seats - 1)], rounds, duplicate, seed)


def _tables(tables: list[tuple[str, ...]], rounds: int, duplicate: bool, seed: int) -> list[ScheduledGame]:
    games: list[ScheduledGame] = []
    for round_no in range(rounds):
        for bots in tables:
            games += _table_games(len(games), len(games) // len(bots), bots, seed, round_no, duplicate)
    return games


def ladder_wave(ratings: Ratings, games_played: dict[str, int], names: Sequence[str], seats: int, tables: int,
                first_seq: int, first_table: int, seed: int) -> list[ScheduledGame]:
    """The next `tables` ladder tables: each anchored on the most uncertain bot, filled by match quality.

    The wave depends only on the ratings so far and the seed, so a resumed or parallel run chooses the same.
    """
    rng = random.Random(derive_seed(seed, "ladder", first_table))
    env = ratings.config.environment()
    order = sorted(names, key=lambda b: (-ratings.get(b).sigma, games_played.get(b, 0), rng.random()))
    games: list[ScheduledGame] = []
    for t in range(tables):
        anchor = order[t % len(order)]
        table = [anchor]
        while len(table) < seats:
            candidates = [b for b in names if b not in table]
            rng.shuffle(candidates)  # equal qualities are broken at random, not by name
            table.append(max(candidates, key=lambda b: ratings.quality([*table, b], env)))
        games += _table_games(first_seq + len(games), first_table + t, table, seed, 0, duplicate=False)
    return games
