"""Paired duplicate games for `arena compare`: which seats a pair uses, and what a played pair says.

Participants are numbered NEW = 0, BASE = 1, then the opponents. Deal d is played twice with the same seed and
the same opponents in the same seats: once with NEW in the tested seat, once with BASE there. The tested seat
moves round the table from deal to deal (d mod seats), and the opponents' order turns with it, so that over a
run every seat and every neighbourhood is tested alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from arena.ratings.sprt import PairCounts, SprtSettings, Verdict, first_verdict

NEW, BASE = 0, 1
GAMES_PER_PAIR = 2


@dataclass(frozen=True)
class Seating:
    """One game of a pair: the participant at each seat, and the deal (the seed key) it is played with."""

    participants: tuple[int, ...]
    deal: int


def seat_under_test(deal: int, seats: int) -> int:
    """The seat NEW and BASE take in this deal."""
    return deal % seats


def pair_seatings(deal: int, seats: int, opponents: int) -> tuple[Seating, Seating]:
    """The two games of a deal: NEW in the tested seat, then BASE there; the opponents identical in both."""
    if opponents < seats - 1:
        raise ValueError(f"a table of {seats} needs {seats - 1} opponents, got {opponents}")
    seat = seat_under_test(deal, seats)
    turn = (deal // seats) % opponents
    others = [2 + (turn + i) % opponents for i in range(seats - 1)]
    games = []
    for tested in (NEW, BASE):
        row = list(others)
        row.insert(seat, tested)
        games.append(Seating(tuple(row), deal))
    return games[0], games[1]


def pair_outcome(new_rank: int, base_rank: int) -> float:
    """1 if NEW finished ahead of where BASE finished on the same deal, 0.5 if level, 0 if behind."""
    if new_rank < base_rank:
        return 1.0
    return 0.5 if new_rank == base_rank else 0.0


@dataclass(frozen=True)
class PairResult:
    """A played pair: its deal and NEW's outcome (None: one of its games failed, so the pair does not count)."""

    deal: int
    outcome: float | None


def sequential(pairs: Iterable[PairResult], settings: SprtSettings | None,
               cap: int | None) -> tuple[PairCounts, Verdict, int]:
    """Counts and verdict over the pairs in deal order, stopping at the first pair where the test decides.

    Pairs are taken in deal order up to the first one not yet played, so the verdict depends only on the
    schedule, never on which pair finished first; returns the counts, the verdict and the deals consumed.
    """
    played: list[PairResult] = []
    for expected, pair in enumerate(sorted(pairs, key=lambda p: p.deal)):
        if pair.deal != expected or (cap is not None and expected >= cap):
            break
        played.append(pair)
    steps = [PairCounts()]
    for pair in played:
        steps.append(steps[-1] if pair.outcome is None else steps[-1].add(pair.outcome))
    if settings is None or not played:
        return steps[-1], Verdict.UNDECIDED, len(played)
    # The test is read after every pair at once, and the first pair where it decides ends the comparison.
    import numpy as np
    counts = np.array([[c.wins, c.draws, c.losses] for c in steps[1:]], dtype=float)
    index, verdict = first_verdict(counts, settings)
    if verdict is Verdict.UNDECIDED:
        return steps[-1], verdict, len(played)
    return steps[index + 1], verdict, index + 1


def outcome_of(seatings: Sequence[Seating], ranks: Sequence[Sequence[int]]) -> float:
    """The outcome of a pair from its two games' ranks by seat."""
    new_game, base_game = seatings
    seat = new_game.participants.index(NEW)
    return pair_outcome(ranks[0][seat], ranks[1][base_game.participants.index(BASE)])
