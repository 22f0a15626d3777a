"""How many pairs `arena compare`'s tests take, by simulation: `python -m arena.ratings.sprt_sim` prints the table.

A pair is scored as compare scores it (arena/ratings/pairing.py): NEW's rank on the deal against BASE's rank on the same
deal. The simulated pairs follow a model of two seats: in each game the bot under test wins when its
performance, its strength plus the deal's luck plus the game's own noise, is above the opponent's. The deal's luck
is shared by both games of a pair (the same cards, the same opponents, the same seeds); `deal_share` is its share
of the variance. NEW is half the strength gap above the opponents, BASE half below. A pair is won when NEW wins and
BASE loses, lost the other way round, drawn when both win or both lose; the true Elo difference is that trinomial's
score on the logistic scale (as arena/ratings/sprt.py reads it). Fitted to runs of the heuristic against the random
bot at each game's default table (400 pairs at bali-2017: 49.5/49.3/1.2% won/drawn/lost; 200 at bali-2001, three seats:
66/27.5/6.5%), the deal's share is about 0.5 at bali-2017 and about 0 at bali-2001.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from arena.ratings.sprt import SprtSettings, TestKind, Verdict, elo_to_score, verdicts

TABLE_ELOS = (0.0, 5.0, 20.0, 50.0, 100.0, 200.0, -100.0)
DEAL_SHARES = {"bali-2017": 0.5, "bali-2001": 0.0}
DEFAULT_RUNS = 2000
DEFAULT_CAP = 200_000  # simulated pairs before a run counts as undecided: far past compare's cap, to see the test
_BLOCK = 1_000_000  # pairs evaluated at once (runs x steps), to bound the memory a step takes
_FIRST_STEPS = 16
_NODES = 64  # Gauss-Hermite nodes over the deal's luck


@dataclass(frozen=True)
class PairModel:
    """The chances of a pair won, drawn and lost by NEW, given the true Elo difference and the deal's share of luck."""

    deal_share: float = 0.5

    def _shares(self, gap: float) -> tuple[float, float, float]:
        from numpy.polynomial.hermite_e import hermegauss
        from scipy import stats
        luck, weight = hermegauss(_NODES)
        weight = weight / weight.sum()
        luck = luck * math.sqrt(self.deal_share)
        noise = math.sqrt(1 - self.deal_share)
        new_wins = stats.norm.cdf((gap / 2 + luck) / noise)
        base_wins = stats.norm.cdf((-gap / 2 + luck) / noise)
        won = float(weight @ (new_wins * (1 - base_wins)))
        lost = float(weight @ (base_wins * (1 - new_wins)))
        return won, 1 - won - lost, lost

    def shares(self, elo: float) -> tuple[float, float, float]:
        """Win, draw and loss chances of a pair when NEW is `elo` better (logistic Elo of the pair's score)."""
        from scipy import optimize
        target = elo_to_score(elo)

        def miss(gap: float) -> float:
            won, drawn, _ = self._shares(gap)
            return won + drawn / 2 - target

        gap = 0.0 if elo == 0 else optimize.brentq(miss, -40.0, 40.0, xtol=1e-12)
        return self._shares(gap)


@dataclass(frozen=True)
class Runs:
    """Simulated runs of one test: the pairs each took and its verdict (1 better, -1 not better, 0 undecided)."""

    pairs: np.ndarray
    verdicts: np.ndarray

    def share(self, verdict: Verdict) -> float:
        """The share of runs that ended in this verdict."""
        code = {Verdict.BETTER: 1, Verdict.NOT_BETTER: -1, Verdict.UNDECIDED: 0}[verdict]
        return float(np.mean(self.verdicts == code))

    def mean(self) -> float:
        """Mean pairs to a verdict (an undecided run counts its cap)."""
        return float(self.pairs.mean())

    def quantile(self, q: float) -> float:
        """That quantile of the pairs to a verdict."""
        return float(np.quantile(self.pairs, q))


def simulate(settings: SprtSettings, shares: Sequence[float], runs: int, rng: np.random.Generator,
             cap: int = DEFAULT_CAP) -> Runs:
    """`runs` sequential tests on pairs drawn from `shares` (win, draw, loss), each checked after every pair as
    compare checks it, until it decides or reaches `cap` pairs; all runs advance together, a block at a time."""
    pairs = np.full(runs, cap)
    found = np.zeros(runs, dtype=int)
    totals = np.zeros((runs, 3))
    active = np.arange(runs)
    edges = np.cumsum(shares)[:-1]
    eye = np.eye(3)
    played, steps = 0, _FIRST_STEPS
    while active.size and played < cap:
        # Short steps first, where most large differences end; longer ones as the runs that go on thin out.
        steps = min(cap - played, max(steps, played), max(_FIRST_STEPS, _BLOCK // active.size))
        outcomes = eye[np.searchsorted(edges, rng.random((active.size, steps)), side="right")]
        path = totals[active, None, :] + np.cumsum(outcomes, axis=1)
        decided = verdicts(path, settings)
        hit = decided != 0
        ended = hit.any(axis=1)
        first = hit.argmax(axis=1)
        pairs[active[ended]] = played + first[ended] + 1
        found[active[ended]] = decided[ended, first[ended]]
        totals[active] = path[:, -1, :]
        active = active[~ended]
        played += steps
    return Runs(pairs, found)


def table(deal_share: float, runs: int, seed: int, cap: int = DEFAULT_CAP,
          elos: Sequence[float] = TABLE_ELOS) -> list[dict[str, float | str]]:
    """One row per true difference and test: the verdicts' shares and the mean, median and 90th percentile pairs."""
    model = PairModel(deal_share)
    rows: list[dict[str, float | str]] = []
    for elo in elos:
        shares = model.shares(elo)
        for test in (TestKind.CLASSIC, TestKind.MIXTURE):
            result = simulate(replace(SprtSettings(), test=test), shares, runs, np.random.default_rng(seed), cap)
            rows.append({"elo": elo, "test": test.value, "draws": shares[1], "better": result.share(Verdict.BETTER),
                         "not_better": result.share(Verdict.NOT_BETTER), "mean": result.mean(),
                         "median": result.quantile(0.5), "p90": result.quantile(0.9)})
    return rows


def markdown(rows: list[dict[str, float | str]]) -> str:
    """The rows as a Markdown table."""
    lines = ["| true Elo | draws | test | better | not better | mean pairs | median | 90th percentile |",
             "|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['elo']:+.0f} | {100 * float(r['draws']):.0f}% | {r['test']} | "
                     f"{100 * float(r['better']):.1f}% | {100 * float(r['not_better']):.1f}% | {float(r['mean']):,.0f} "
                     f"| {float(r['median']):,.0f} | {float(r['p90']):,.0f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the table of pairs to a verdict, the classic test against the mixture, for each game's model."""
    parser = argparse.ArgumentParser(prog="python -m arena.ratings.sprt_sim", description=main.__doc__)
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, help="simulated runs per row")
    parser.add_argument("--seed", type=int, default=1, help="the simulation's seed")
    parser.add_argument("--game", choices=sorted(DEAL_SHARES), action="append",
                        help="the game whose fitted model to use (repeatable; default both)")
    args = parser.parse_args(argv)
    for game in args.game or sorted(DEAL_SHARES):
        print(f"{game}: the deal's share of luck {DEAL_SHARES[game]}, {args.runs} runs a row, "
              f"seed {args.seed}, alpha 0.05, beta 0.05\n")
        print(markdown(table(DEAL_SHARES[game], args.runs, args.seed)) + "\n")


if __name__ == "__main__":
    main()
