"""Finals decided at a stated confidence: the order of a few bots, each adjacent pair settled by sequential tests on
their duplicate deals.

A pair (A, B) is decided when one of two one-sided mixture tests (arena/ratings/sprt.py, elo0 0: "A is better than
B", and the same for B) reaches its bound; a test that stays valid under repeated looks lets the pair be looked at
after every deal. A pair decided against the current order swaps the two, and the new neighbours are then tested
in turn, so any of the K (K - 1) / 2 pairs may be tested: each test is run at alpha = (1 - C) / (K (K - 1)), two
directions for each pair that may be tested (Bonferroni), so that the chance that any step of the final table is
called in the wrong order, or that two equal bots are called apart, is at most 1 - C. Pairs not decided share a
rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from arena.ratings.sprt import SprtSettings, TestKind, Verdict, evidence

FINALS_FORMAT = "finals"  # the finals' tournament format, as the store names it
FINALS_ELO1 = 5.0  # the mixture's smallest gain: the ladder of gains is 5, 30 and 120 Elo


def finals_settings(confidence: float, finalists: int) -> SprtSettings:
    """The one-sided test each direction of each pair runs, its errors shared out over every pair that may be
    tested."""
    if not 0 < confidence < 1:
        raise ValueError(f"the confidence is between 0 and 1 (0.95, say), got {confidence}")
    if finalists < 2:
        raise ValueError(f"finals need at least 2 bots, got {finalists}")
    alpha = (1 - confidence) / (finalists * (finalists - 1))
    return SprtSettings(0.0, FINALS_ELO1, alpha, alpha, TestKind.MIXTURE)


def pair_winner(outcomes: Sequence[float], settings: SprtSettings) -> int | None:
    """0 if the first bot of a pair is decided better, 1 if the second is, None if neither yet: the first deal
    (in order) after which either direction's evidence reaches the bound decides. `outcomes` are the first bot's
    results, deal by deal: 1 ahead over the deal, 0.5 level, 0 behind."""
    import numpy as np

    if not outcomes:
        return None
    steps = np.array([[o == 1.0, o == 0.5, o == 0.0] for o in outcomes], dtype=float).cumsum(axis=0)
    first = evidence(steps, settings, Verdict.BETTER) >= settings.upper
    second = evidence(steps[:, ::-1], settings, Verdict.BETTER) >= settings.upper
    either = np.flatnonzero(first | second)
    if not either.size:
        return None
    return 0 if first[either[0]] else 1


@dataclass(frozen=True)
class Standing:
    """The finals' table: the bots in order, whether each is decided above the next (False on the last), the shared
    ranks, and the adjacent pairs still open."""

    order: tuple[str, ...]
    decided: tuple[bool, ...]

    @property
    def ranks(self) -> tuple[int, ...]:
        """1 for the first; a bot not decided apart from the one above shares its rank, else its place."""
        ranks = [1]
        for place in range(1, len(self.order)):
            ranks.append(place + 1 if self.decided[place - 1] else ranks[-1])
        return tuple(ranks)

    @property
    def open_pairs(self) -> list[tuple[str, str]]:
        """The adjacent pairs whose order is not decided."""
        return [(a, b) for a, b, done in zip(self.order, self.order[1:], self.decided) if not done]


def settle(seeded: Sequence[str], winner: Callable[[str, str], str | None]) -> Standing:
    """The table from the seeded order (best first) and each pair's decided winner (None: undecided): a pair decided
    against the order swaps its two bots, until every adjacent pair agrees with the order or is open (at most
    K^2 swaps: decisions that go round in a circle stop there)."""
    order = list(seeded)
    for _ in range(len(order) ** 2):
        swap = next((i for i in range(len(order) - 1) if winner(order[i], order[i + 1]) == order[i + 1]), None)
        if swap is None:
            break
        order[swap], order[swap + 1] = order[swap + 1], order[swap]
    decided = [winner(a, b) == a for a, b in zip(order, order[1:])] + [False]
    return Standing(tuple(order), tuple(decided))
