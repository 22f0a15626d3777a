"""Statistics of paired games: the estimate of NEW against BASE and the sequential tests that decide.

Each pair of games (the same deal, the same opponents, NEW in the tested seat once and BASE once) ends in a
win, a draw or a loss for NEW. The pairs are taken as independent draws from one trinomial distribution, and
its expected score s = P(win) + P(draw) / 2 is read on the logistic Elo scale, as chess testing tools do:
elo = -400 log10(1 / s - 1).

Both tests are built from the generalised log-likelihood ratio on that trinomial, LLR(a -> b): n times the
divergence of the observed frequencies from the closest distribution of score s_a, minus that from the closest of
score s_b (fishtest's GSPRT). The classic test is one such ratio, elo0 against
elo1, with Wald's bounds. The mixture test (the default) averages the ratios of a ladder of gains, elo0 against
elo0 + g, g = (elo1 - elo0) x 1, 6 and 24, weighted 0.25, 0.3 and 0.45: a large difference crosses the bound on
its own rung of the ladder in few pairs, a small one is still found by the first rung, and the weights sum to one,
so the chance of a false "better" stays alpha (the average of likelihood ratios is itself a likelihood ratio,
against the mixture). "Not better" mirrors it: the ladder of losses elo1 against
elo1 - g, weighted alike, against the bound for beta.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import numpy as np

# fastchess's and cutechess-cli's usual settings: H0 "no gain", H1 "a gain of 5 Elo", 5% errors either way.
DEFAULT_ELO0 = 0.0
DEFAULT_ELO1 = 5.0
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
CONFIDENCE = 0.95
OUTCOME_SCORES = (1.0, 0.5, 0.0)  # a pair won, drawn, lost by NEW
# The mixture's gains as multiples of elo1 - elo0, with their weights: a tweak (5 Elo at the defaults), a real
# improvement (30) and a new idea (120). Three rungs, so that each keeps a large weight: a rung of weight w decides
# once its ratio reaches the bound plus -log w, and a difference between two rungs is still seen by both. Chosen by
# simulation (docs/compare.md): +100 Elo decided in about a quarter fewer pairs (median) than a ladder of
# doublings, at the price of a tenth more pairs at +5.
LADDER = ((1.0, 0.25), (6.0, 0.30), (24.0, 0.45))
LADDER_REACH = 800.0  # no rung beyond this many Elo from elo0 (or elo1): a score that close to 0 or 1 says nothing
# A count of zero is replaced by this much when fitting, so that a distribution seen only on one side of a
# hypothesis (all pairs won, say) still has a finite likelihood under it.
_REGULARISE = 1e-3
_SCORE_EDGE = 1e-6  # the most extreme expected score an interval reaches


class Verdict(StrEnum):
    """What a comparison concluded; the value is what reports and JSON show."""

    BETTER = "better"
    NOT_BETTER = "not better"
    UNDECIDED = "undecided"


class TestKind(StrEnum):
    """The sequential test: the value is its name on the command line and in reports."""

    __test__ = False  # not a pytest test class
    MIXTURE = "mixture"
    CLASSIC = "classic"


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
class Rung:
    """One likelihood ratio of a test: Elo `against` over Elo `towards`, with its weight in the mixture."""

    against: float
    towards: float
    weight: float


@dataclass(frozen=True)
class SprtSettings:
    """The test (mixture or classic), its hypotheses (Elo differences) and its error rates."""

    elo0: float = DEFAULT_ELO0
    elo1: float = DEFAULT_ELO1
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    test: TestKind = TestKind.MIXTURE

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
        """Wald's lower bound, log(beta / (1 - alpha)): "not better" once the evidence against is past -lower."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound, log((1 - beta) / alpha): "better" once the evidence for reaches it."""
        return math.log((1 - self.beta) / self.alpha)

    def rungs(self, side: Verdict) -> tuple[Rung, ...]:
        """The likelihood ratios whose weighted mean is the evidence for BETTER or for NOT_BETTER."""
        if self.test is TestKind.CLASSIC:
            one = Rung(self.elo0, self.elo1, 1.0) if side is Verdict.BETTER else Rung(self.elo1, self.elo0, 1.0)
            return (one,)
        gap = self.elo1 - self.elo0
        ladder = [(gap * times, w) for times, w in LADDER if gap * times <= LADDER_REACH] or [(gap, 1.0)]
        # A rung beyond the reach gives its weight to the largest one kept, so that the weights still sum to one.
        steps = [step for step, _ in ladder]
        weights = [w for _, w in ladder]
        weights[-1] += 1.0 - sum(weights)
        if side is Verdict.BETTER:
            return tuple(Rung(self.elo0, self.elo0 + step, w) for step, w in zip(steps, weights))
        return tuple(Rung(self.elo1, self.elo1 - step, w) for step, w in zip(steps, weights))

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain data (a classic test as before the mixture existed, so old runs resume)."""
        out: dict[str, Any] = {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}
        return out if self.test is TestKind.CLASSIC else {**out, "test": self.test.value}

    def describe(self) -> dict[str, Any]:
        """The settings with the ladders they make: what the JSON report shows."""
        return {**self.to_dict(), "test": self.test.value,
                "gains": [[r.towards, r.weight] for r in self.rungs(Verdict.BETTER)],
                "losses": [[r.towards, r.weight] for r in self.rungs(Verdict.NOT_BETTER)]}


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


def _frequencies(counts: "np.ndarray") -> "np.ndarray":
    """Observed frequencies (..., 3) of counts (..., 3), a zero count replaced by a small one."""
    import numpy as np
    regularised = np.where(counts > 0, counts, _REGULARISE).astype(float)
    return regularised / regularised.sum(axis=-1, keepdims=True)


def divergence(freqs: "np.ndarray", score: float) -> "np.ndarray":
    """The divergence KL(f || p) of frequencies f (..., 3) from the closest trinomial p with expected score s."""
    import numpy as np
    flat = freqs.reshape(-1, 3)
    return divergences(flat, np.array([score]))[:, 0].reshape(freqs.shape[:-1])


def divergences(freqs: "np.ndarray", scores: "np.ndarray") -> "np.ndarray":
    """KL(f || p_s) for frequencies f (n, 3), summing to one, and scores s (m,): an (n, m) array.

    The closest p (maximum likelihood under the constraint) is p_i = f_i / (1 + x g_i), g_i = a_i - s, with x the
    root of sum f_i g_i / (1 + x g_i) = 0 where every 1 + x g_i > 0. With three outcomes, clearing the
    denominators leaves a quadratic, A + B x + C x^2 = 0; exactly one of its roots lies in that interval, where
    the sum falls strictly. Solved in closed form, so that thousands of tests are evaluated at once.
    """
    import numpy as np
    gaps = [a - scores for a in OUTCOME_SCORES]  # each (m,)
    total = sum(gaps)
    columns = [freqs[:, i, None] for i in range(3)]  # each (n, 1)
    a = sum(f * g for f, g in zip(columns, gaps))
    b = sum(f * g * (total - g) for f, g in zip(columns, gaps))
    c = gaps[0] * gaps[1] * gaps[2]
    low, high = -1 / gaps[0], -1 / gaps[2]
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.sqrt(np.maximum(b * b - 4 * a * c, 0.0))
        q = -0.5 * (b + np.where(b >= 0, root, -root))  # the two roots without cancellation: q / c and a / q
        first, second = q / c, a / q
        x = np.where((first > low) & (first < high), first, second)
        x = np.where(a == 0, 0.0, x)
    return sum(np.where(f > 0, f * np.log1p(x * g), 0.0) for f, g in zip(columns, gaps))


def _ratios(freqs: "np.ndarray", pairs: "np.ndarray", rungs: tuple[Rung, ...]) -> "np.ndarray":
    """Each rung's generalised log-likelihood ratio at frequencies (n, 3) after `pairs` (n,): an (n, rungs) array."""
    import numpy as np
    elos = sorted({e for r in rungs for e in (r.against, r.towards)})
    fits = divergences(freqs, np.array([elo_to_score(e) for e in elos]))
    column = {e: i for i, e in enumerate(elos)}
    return np.stack([pairs * (fits[:, column[r.against]] - fits[:, column[r.towards]]) for r in rungs], axis=-1)


def evidence(counts: "np.ndarray", settings: SprtSettings, side: Verdict) -> "np.ndarray":
    """The log of the weighted mean likelihood ratio for BETTER or NOT_BETTER, at counts (..., 3) of pairs."""
    import numpy as np
    from scipy.special import logsumexp
    counts = np.asarray(counts, dtype=float)
    flat = counts.reshape(-1, 3)
    rungs = settings.rungs(side)
    ratios = _ratios(_frequencies(flat), flat.sum(axis=-1), rungs)
    return logsumexp(ratios, axis=-1, b=np.array([r.weight for r in rungs])).reshape(counts.shape[:-1])


def _as_array(counts: PairCounts) -> "np.ndarray":
    import numpy as np
    return np.array([counts.wins, counts.draws, counts.losses], dtype=float)


def llr(counts: PairCounts, settings: SprtSettings) -> float:
    """The log-evidence for BETTER after these pairs: the classic test's generalised log-likelihood ratio."""
    return float(evidence(_as_array(counts), settings, Verdict.BETTER))


def llr_not_better(counts: PairCounts, settings: SprtSettings) -> float:
    """The log-evidence for NOT_BETTER after these pairs (the classic test: minus its ratio)."""
    return float(evidence(_as_array(counts), settings, Verdict.NOT_BETTER))


def verdicts(counts: "np.ndarray", settings: SprtSettings) -> "np.ndarray":
    """The verdict at each of many counts (..., 3) of pairs: 1 better, -1 not better, 0 undecided."""
    import numpy as np
    from scipy.special import logsumexp
    counts = np.asarray(counts, dtype=float)
    flat = counts.reshape(-1, 3)
    freqs, pairs = _frequencies(flat), flat.sum(axis=-1)
    found = np.zeros(len(flat), dtype=int)
    for side, bound, code in ((Verdict.BETTER, settings.upper, 1), (Verdict.NOT_BETTER, -settings.lower, -1)):
        rungs = settings.rungs(side)
        # No ratio exceeds n D(f, s_against), nor their weighted mean: counts short of the bound on it cannot
        # decide this side, and only the others need every rung fitted.
        against = np.array(sorted({elo_to_score(r.against) for r in rungs}))
        reach = pairs * divergences(freqs, against).max(axis=-1)
        maybe = np.flatnonzero((reach >= bound) & (found == 0))
        if maybe.size:
            ratios = _ratios(freqs[maybe], pairs[maybe], rungs)
            mean = logsumexp(ratios, axis=-1, b=np.array([r.weight for r in rungs]))
            found[maybe[mean >= bound]] = code
    return found.reshape(counts.shape[:-1])


def first_verdict(steps: "np.ndarray", settings: SprtSettings) -> tuple[int, Verdict]:
    """The first of successive counts (n, 3) where the test decides: its index and verdict; (n, UNDECIDED) if none."""
    import numpy as np
    decided = verdicts(steps, settings)
    hits = np.flatnonzero(decided)
    if not hits.size:
        return len(steps), Verdict.UNDECIDED
    return int(hits[0]), Verdict.BETTER if decided[hits[0]] > 0 else Verdict.NOT_BETTER


def decide(counts: PairCounts, settings: SprtSettings) -> Verdict:
    """BETTER once the evidence for it reaches the upper bound, NOT_BETTER once that against it does, else UNDECIDED."""
    if counts.pairs == 0:
        return Verdict.UNDECIDED
    return first_verdict(_as_array(counts)[None], settings)[1]


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
    freqs = _frequencies(_as_array(counts))
    centre = float(freqs @ OUTCOME_SCORES)
    limit = float(stats.chi2.ppf(confidence, 1)) / 2 / counts.pairs

    def excess(score: float) -> float:
        return float(divergence(freqs, score)) - limit

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


EXPECTED_PAIRS_MODEL = ("wald: pairs drawn from the observed win/draw/loss shares; each likelihood ratio of the "
                        "test grows by its mean step under them, and the first to reach its bound (less the log of "
                        "its weight) decides")


def pairs_to_verdict(shares: Sequence[float], settings: SprtSettings, played: int = 0) -> float | None:
    """Wald's approximation of the pairs still needed, `played` pairs in, if pairs come at these win/draw/loss
    shares: None if no ratio of the test moves towards its bound.

    Under shares p, the ratio LLR(a -> b) grows by D(p, s_a) - D(p, s_b) a pair (D the divergence from the
    closest distribution of that score); a rung of weight w decides once it has grown to the bound less log w.
    The soonest rung gives the figure.
    """
    import numpy as np
    freqs = np.asarray(shares, dtype=float)[None]
    best: float | None = None
    for side, bound in ((Verdict.BETTER, settings.upper), (Verdict.NOT_BETTER, -settings.lower)):
        for rung in settings.rungs(side):
            fits = divergences(freqs, np.array([elo_to_score(rung.against), elo_to_score(rung.towards)]))[0]
            step = float(fits[0] - fits[1])
            if step > 0:
                more = max(0.0, (bound - math.log(rung.weight)) / step - played)
                best = more if best is None else min(best, more)
    return best


def expected_pairs(counts: PairCounts, settings: SprtSettings) -> dict[str, Any]:
    """The pairs the test is expected to need still, if the pairs go on as they went, with the model that says so."""
    shares = [float(v) for v in _frequencies(_as_array(counts))] if counts.pairs else None
    remaining = None if shares is None else pairs_to_verdict(shares, settings, counts.pairs)
    return {"model": EXPECTED_PAIRS_MODEL, "shares": shares,
            "remaining": None if remaining is None else math.ceil(remaining)}


def report(counts: PairCounts, settings: SprtSettings | None, verdict: Verdict) -> dict[str, Any]:
    """The comparison as plain data: counts, estimate, interval, LOS, the test's evidence and bounds, the verdict."""
    est = estimate(counts)
    out: dict[str, Any] = {
        "verdict": verdict.value, "pairs": counts.pairs, "wins": counts.wins, "draws": counts.draws,
        "losses": counts.losses, "estimate": _finite(est.elo), "interval": [_finite(v) for v in est.elo_interval],
        "score": est.score, "score_interval": list(est.score_interval), "los": est.los,
        "test": None, "llr": None, "llr_not_better": None, "bounds": None, "sprt": None, "expected_pairs": None,
    }
    if settings is not None:
        out.update(test=settings.test.value, llr=llr(counts, settings),
                   llr_not_better=llr_not_better(counts, settings), bounds=[settings.lower, settings.upper],
                   sprt=settings.describe(),
                   expected_pairs=expected_pairs(counts, settings) if verdict is Verdict.UNDECIDED else
                   {"model": EXPECTED_PAIRS_MODEL, "shares": None, "remaining": 0})
    return out


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unbounded end of an interval is null."""
    return value if math.isfinite(value) else None
