"""Round-robin: every table of SEATS entrants, each played in every seat rotation, ROUNDS times over."""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from arena.tournament.formats.base import FixedFormat, Table, rounds_of


class RoundRobin(FixedFormat):
    """Every table of `seats` entrants."""

    name = "round-robin"
    summary = "every table of SEATS entrants"

    def tables(self, names: Sequence[str], seats: int) -> list[tuple[str, ...]]:
        return [tuple(c) for c in combinations(names, seats)]


def round_robin(names: Sequence[str], seats: int, rounds: int, duplicate: bool, seed: int) -> list[Table]:
    """Every table of `seats` entrants, each in all seat rotations, `rounds` times over."""
    return rounds_of(RoundRobin().tables(names, seats), rounds, duplicate, seed)
