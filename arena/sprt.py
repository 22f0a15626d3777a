"""Statistics of paired games: the estimate of NEW against BASE and a sequential probability ratio test.

Each pair of games (the same deal, the same opponents, NEW in the tested seat once and BASE once) ends in a
win, a draw or a loss for NEW. The pairs are taken as independent draws from one trinomial distribution, and
its expected score s = P(win) + P(draw) / 2 is read on the logistic Elo scale, as chess testing tools do:
elo = -400 log10(1 / s - 1). The test is the generalised SPRT on that trinomial: the log-likelihood ratio of
the most likely distribution with score s1 against the most likely one with score s0.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

# fastchess's and cutechess-cli's usual settings: H0 "no gain", H1 "a gain of 5 Elo", 5% errors either way.
DEFAULT_ELO0 = 0.0
DEFAULT_ELO1 = 5.0
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
CONFIDENCE = 0.95
OUTCOME_SCORES = (1.0, 0.5, 0.0)  # a pair won, drawn, lost by NEW
# A count of zero is replaced by this much when fitting, so that a distribution seen only on one side of a
# hypothesis (all pairs won, say) still has a finite likelihood under it.
_REGULARISE = 1e-3
_EDGE = 1e-9
_SCORE_EDGE = 1e-6  # the most extreme expected score an interval reaches


class Verdict(StrEnum):
    """What a comparison concluded; the value is what reports and JSON show."""

    BETTER = "better"
    NOT_BETTER = "not better"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class PairCounts:
    """How many pairs NEW won, drew and lost against BASE."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def pairs(self) -> int:
        """The number of pairs played."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """NEW's mean score per pair, a draw counting half; 0.5 before any pair."""
        return (self.wins + self.draws / 2) / self.pairs if self.pairs else 0.5

    def add(self, outcome: float) -> "PairCounts":
        """These counts with one more pair of the given score (1, 0.5 or 0)."""
        if outcome not in OUTCOME_SCORES:
            raise ValueError(f"a pair's outcome is 1, 0.5 or 0, not {outcome!r}")
        return PairCounts(self.wins + (outcome == 1.0), self.draws + (outcome == 0.5), self.losses + (outcome == 0.0))


@dataclass(frozen=True)
class SprtSettings:
    """The hypotheses (Elo differences) and the error rates of a sequential test."""

    elo0: float = DEFAULT_ELO0
    elo1: float = DEFAULT_ELO1
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA

    def validate(self) -> None:
        """ValueError naming the setting that cannot work."""
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise ValueError(f"--{name} must be between 0 and 0.5, got {getattr(self, name)}")
        if not self.elo1 > self.elo0:
            raise ValueError(f"--elo1 must be greater than --elo0, got elo0 {self.elo0} and elo1 {self.elo1}")
        for name in ("elo0", "elo1"):
            if not -1000 < getattr(self, name) < 1000:
                raise ValueError(f"--{name} must be between -1000 and 1000, got {getattr(self, name)}")

    @property
    def lower(self) -> float:
        """The log-likelihood ratio at or below which H0 (no better than elo0) is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The log-likelihood ratio at or above which H1 (at least elo1 better) is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def to_dict(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}


def elo_to_score(elo: float) -> float:
    """The expected score of a side that many logistic Elo points stronger."""
    return 1 / (1 + 10 ** (-elo / 400))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected score; infinite at 0 and 1."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def _frequencies(counts: PairCounts) -> list[float]:
    raw = [float(counts.wins), float(counts.draws), float(counts.losses)]
    regularised = [c if c > 0 else _REGULARISE for c in raw]
    total = sum(regularised)
    return [c / total for c in regularised]


def _log_likelihood_at(freqs: list[float], score: float) -> float:
    """Mean log-likelihood ratio of the observed frequencies against the closest distribution with that score.

    The closest distribution (maximum likelihood under the constraint) is p_i = f_i / (1 + x (a_i - s)), with x
    the root of sum f_i (a_i - s) / (1 + x (a_i - s)) = 0 on the interval where every p_i stays positive.
    """
    from scipy import optimize  # scipy is imported when a comparison needs it: it costs a second at start-up
    gaps = [a - score for a in OUTCOME_SCORES]
    # Just inside the interval where every 1 + x (a_i - s) stays positive.
    low = (_EDGE - 1) / max(gaps)
    high = (1 - _EDGE) / -min(gaps)

    def secular(x: float) -> float:
        return sum(f * g / (1 + x * g) for f, g in zip(freqs, gaps))

    x = optimize.brentq(secular, low, high, xtol=1e-12)
    return sum(f * math.log(1 + x * g) for f, g in zip(freqs, gaps))


@functools.lru_cache(maxsize=1 << 16)
def llr(counts: PairCounts, settings: SprtSettings) -> float:
    """The generalised log-likelihood ratio of H1 (elo1) against H0 (elo0) after these pairs."""
    if counts.pairs == 0:
        return 0.0
    freqs = _frequencies(counts)
    s0, s1 = elo_to_score(settings.elo0), elo_to_score(settings.elo1)
    return counts.pairs * (_log_likelihood_at(freqs, s0) - _log_likelihood_at(freqs, s1))


def decide(counts: PairCounts, settings: SprtSettings) -> Verdict:
    """BETTER once the ratio reaches the upper bound, NOT_BETTER once it reaches the lower, else UNDECIDED."""
    ratio = llr(counts, settings)
    if ratio >= settings.upper:
        return Verdict.BETTER
    if ratio <= settings.lower:
        return Verdict.NOT_BETTER
    return Verdict.UNDECIDED


@dataclass(frozen=True)
class Estimate:
    """NEW's score per pair and its Elo difference, each with a confidence interval, and the LOS."""

    score: float
    score_interval: tuple[float, float]
    elo: float
    elo_interval: tuple[float, float]
    los: float


def score_interval(counts: PairCounts, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The likelihood-ratio confidence interval of NEW's expected score per pair.

    It holds every score s whose best-fitting distribution is not rejected against the best fit overall at
    that confidence (Wilks: twice the log-likelihood ratio is chi-squared with one degree of freedom); unlike
    the normal approximation it stays sensible when every pair went the same way.
    """
    from scipy import optimize, stats
    if counts.pairs == 0:
        return (0.0, 1.0)
    freqs = _frequencies(counts)
    centre = sum(f * a for f, a in zip(freqs, OUTCOME_SCORES))
    limit = float(stats.chi2.ppf(confidence, 1)) / 2 / counts.pairs

    def excess(score: float) -> float:
        return _log_likelihood_at(freqs, score) - limit

    ends = []
    for edge in (_SCORE_EDGE, 1 - _SCORE_EDGE):
        ends.append(round(edge) if excess(edge) <= 0 else float(optimize.brentq(excess, edge, centre, xtol=1e-10)))
    return (ends[0], ends[1])


def estimate(counts: PairCounts, confidence: float = CONFIDENCE) -> Estimate:
    """NEW's score and Elo difference from the pairs played, with their confidence intervals and the LOS."""
    from scipy import stats
    low, high = score_interval(counts, confidence)
    decisive = counts.wins + counts.losses
    # The likelihood of superiority leaves draws out, as chess tools compute it.
    los = 0.5 if decisive == 0 else float(stats.norm.cdf((counts.wins - counts.losses) / math.sqrt(decisive)))
    return Estimate(counts.score, (low, high), score_to_elo(counts.score), (score_to_elo(low), score_to_elo(high)),
                    los)


def report(counts: PairCounts, settings: SprtSettings | None, verdict: Verdict) -> dict[str, Any]:
    """The comparison as plain data: counts, estimate, interval, LOS, the test's ratio and bounds, the verdict."""
    est = estimate(counts)
    out: dict[str, Any] = {
        "verdict": verdict.value, "pairs": counts.pairs, "wins": counts.wins, "draws": counts.draws,
        "losses": counts.losses, "estimate": _finite(est.elo), "interval": [_finite(v) for v in est.elo_interval],
        "score": est.score, "score_interval": list(est.score_interval), "los": est.los,
        "llr": None, "bounds": None, "sprt": None,
    }
    if settings is not None:
        out.update(llr=llr(counts, settings), bounds=[settings.lower, settings.upper], sprt=settings.to_dict())
    return out


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unbounded end of an interval is null."""
    return value if math.isfinite(value) else None
