"""The ranks a bot holds given the ratings: each bot's skill drawn from its rating's normal posterior N(mu, sigma^2),
every draw ranked, and each bot's central interval of ranks read off the draws.

The draws come from a numpy generator with a fixed seed, so that one table of ratings always gives the same
intervals (a board read twice reads the same), and are made in blocks so that memory stays bounded whatever the
size of the field.
"""

from __future__ import annotations

import math
from typing import Sequence

LEVEL = 0.90  # the share of the posterior a rank interval holds
# How much wider than its rating's sigma a bot's skill is drawn for the board's intervals. TrueSkill rates each game
# once, as it comes (no information flows back to earlier games), and its sigma then understates how far mu is from
# the true skill: in fields simulated as `arena bench --claims` simulates them (the rating model's own games; 8
# fields of 20 bots at 2 seats and of 50 at 4), mu was up to 3 sigma from the skill (one standard deviation) after
# 5 to 60 games a bot, and intervals drawn with sigma itself held the true rank only 70-82% of the time. Drawn with
# twice sigma they hold it at least 88% of the time in every field the benchmark plays (docs/tournaments.md).
SIGMA_CALIBRATION = 2.0
SAMPLES = 4000  # draws of the whole field: a tail share of 5% is read to within about 0.35% (one standard error)
SEED = 20_260_905  # any fixed number: the same ratings give the same intervals
_BLOCK_CELLS = 2_000_000  # draws x bots ranked at once: about 50 MB of work arrays at most


def rank_intervals(mu: Sequence[float], sigma: Sequence[float], level: float = LEVEL, samples: int = SAMPLES,
                   seed: int = SEED) -> list[tuple[int, int]]:
    """Each bot's (low, high) interval of ranks (1 = best) held with probability `level`: the largest low with at
    most (1 - level) / 2 of the draws ranking the bot better than low, and the smallest high with at most that share
    ranking it worse than high."""
    import numpy as np

    if not 0 < level < 1:
        raise ValueError(f"an interval's level is between 0 and 1, got {level}")
    n = len(mu)
    if n != len(sigma):
        raise ValueError(f"{n} means but {len(sigma)} deviations")
    if n == 0:
        return []
    if n == 1:
        return [(1, 1)]
    centre = np.asarray(mu, dtype=float)
    spread = np.asarray(sigma, dtype=float)
    rng = np.random.default_rng(seed)
    ranks = np.empty((samples, n), dtype=np.int32)
    block = max(1, _BLOCK_CELLS // n)
    places = np.arange(1, n + 1, dtype=np.int32)
    for start in range(0, samples, block):
        stop = min(samples, start + block)
        skills = centre + spread * rng.standard_normal((stop - start, n))
        order = np.argsort(-skills, axis=1, kind="stable")
        # Scatter the places back to the bots: rank[s, order[s, k]] = k + 1.
        np.put_along_axis(ranks[start:stop], order, np.broadcast_to(places, order.shape), axis=1)
    ranks.sort(axis=0)
    tail = round((1 - level) / 2 * samples, 6)  # rounded: 0.05 x 4000 is 200 draws, not 199.99999999999997
    low = ranks[math.floor(tail)]
    high = ranks[max(0, math.ceil(samples - tail) - 1)]
    return [(int(a), int(b)) for a, b in zip(low, high)]
