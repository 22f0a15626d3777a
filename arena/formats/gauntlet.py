"""Gauntlet: the first entrant (the challenger) against the others, at every table of SEATS."""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from arena.formats.base import FixedFormat, Table, rounds_of


class Gauntlet(FixedFormat):
    """The challenger at every table of `seats` with the others; alone, it wants opponents to play against."""

    name = "gauntlet"
    summary = "the first entrant against the others (or the sample bots)"

    def missing_opponents(self, given: int, seats: int) -> int:
        return max(0, seats - given)

    def tables(self, names: Sequence[str], seats: int) -> list[tuple[str, ...]]:
        challenger, others = names[0], names[1:]
        return [(challenger, *c) for c in combinations(others, seats - 1)]


def gauntlet(challenger: str, others: Sequence[str], seats: int, rounds: int, duplicate: bool,
             seed: int) -> list[Table]:
    """The challenger at every table of `seats` with the others, each in all seat rotations."""
    return rounds_of(Gauntlet().tables([challenger, *others], seats), rounds, duplicate, seed)
