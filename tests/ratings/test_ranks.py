"""The rank intervals against an exact computation: each bot's distribution of ranks, integrated numerically from
the normal posteriors (a bot is ranked k when exactly k - 1 others draw a higher skill than it)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from arena.ratings import ranks
from arena.ratings.ranks import rank_intervals

TAIL = 0.05
MARGIN = 0.015  # a cumulative chance this close to a tail's bound could fall either side of it in 4,000 draws


def exact_rank_chances(mu: list[float], sigma: list[float], bot: int) -> list[float]:
    """P(rank = k) for k = 1..n: the integral over the bot's skill x of the chance that exactly k - 1 of the others
    are above x (a Poisson-binomial count, by the usual recurrence)."""
    others = [j for j in range(len(mu)) if j != bot]

    def chance(x: float, k: int) -> float:
        count = [1.0] + [0.0] * len(others)  # count[m]: the chance that m of those seen so far are above x
        for j in others:
            above = stats.norm.sf(x, mu[j], sigma[j])
            count = [count[m] * (1 - above) + (count[m - 1] * above if m else 0.0) for m in range(len(count))]
        return count[k] * stats.norm.pdf(x, mu[bot], sigma[bot])

    low, high = mu[bot] - 9 * sigma[bot], mu[bot] + 9 * sigma[bot]
    return [integrate.quad(chance, low, high, args=(k,), epsabs=1e-9, limit=200)[0] for k in range(len(mu))]


def exact_interval(chances: list[float]) -> tuple[int, int] | None:
    """The central 90% interval of ranks, or None where a cumulative chance lies too near a bound to be read from
    draws."""
    cumulative = np.cumsum(chances)
    if np.any(np.abs(cumulative[:-1] - TAIL) < MARGIN) or np.any(np.abs(cumulative[:-1] - (1 - TAIL)) < MARGIN):
        return None
    low = 1 + int(np.sum(cumulative[:-1] <= TAIL))  # the ranks below `low` hold at most 5%
    high = 1 + int(np.sum(cumulative[:-1] < 1 - TAIL))  # the ranks up to `high` hold at least 95%
    return low, high


def test_two_bots_interval_is_read_from_the_normal_difference() -> None:
    # P(A above B) = Phi((mu_a - mu_b) / sqrt(sa^2 + sb^2)): 0.99 apart, 0.7 overlapping, 0.5 level.
    for gap, a_first in ((2.326 * math.sqrt(2), [(1, 1), (2, 2)]), (0.5244 * math.sqrt(2), [(1, 2), (1, 2)]),
                         (0.0, [(1, 2), (1, 2)])):
        assert rank_intervals([25 + gap, 25], [1.0, 1.0]) == a_first


@pytest.mark.parametrize("seed", range(6))
def test_intervals_match_the_exact_rank_distribution(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    n = 3 + seed % 4
    mu = list(rng.uniform(15, 35, n))
    sigma = list(rng.uniform(0.5, 4, n))
    found = rank_intervals(mu, sigma)
    checked = 0
    for bot in range(n):
        chances = exact_rank_chances(mu, sigma, bot)
        assert sum(chances) == pytest.approx(1, abs=1e-6)
        expected = exact_interval(chances)
        if expected is not None:
            assert found[bot] == expected, (bot, mu, sigma, chances)
            checked += 1
    assert checked >= n // 2


def test_the_intervals_are_reproducible_and_bounded() -> None:
    mu, sigma = [30.0, 28.0, 27.5, 20.0, 19.0], [1.0, 3.0, 0.5, 6.0, 0.2]
    first = rank_intervals(mu, sigma)
    assert first == rank_intervals(mu, sigma)
    assert all(1 <= low <= high <= len(mu) for low, high in first)
    assert rank_intervals([], []) == [] and rank_intervals([25.0], [8.0]) == [(1, 1)]
    with pytest.raises(ValueError, match="level"):
        rank_intervals(mu, sigma, level=1.5)


def test_a_large_field_is_ranked_in_blocks_as_in_one(monkeypatch: pytest.MonkeyPatch) -> None:
    # 300 bots drawn a few dozen draws at a time give the intervals one block of every draw gives.
    rng = np.random.default_rng(7)
    mu, sigma = list(rng.uniform(0, 50, 300)), list(rng.uniform(0.5, 1.5, 300))
    monkeypatch.setattr(ranks, "_BLOCK_CELLS", 10**9)
    whole = rank_intervals(mu, sigma)
    monkeypatch.setattr(ranks, "_BLOCK_CELLS", 300 * 37)
    assert rank_intervals(mu, sigma) == whole
    assert all(1 <= low <= high <= 300 for low, high in whole) and len({h - low for low, h in whole}) > 1
