"""The statistics of paired comparisons: the test's errors and the interval's coverage, by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.ratings.sprt import (
    LADDER,
    OUTCOME_SCORES,
    PairCounts,
    SprtSettings,
    TestKind,
    Verdict,
    decide,
    divergences,
    elo_to_score,
    estimate,
    first_verdict,
    llr,
    llr_not_better,
    pairs_to_verdict,
    report,
    score_interval,
    score_to_elo,
)
from arena.ratings.sprt_sim import PairModel, simulate

CLASSIC = SprtSettings(test=TestKind.CLASSIC)
MIXTURE = SprtSettings()


@pytest.mark.parametrize("elo", [-400.0, -35.0, 0.0, 5.0, 120.0])
def test_elo_and_score_are_inverse(elo: float) -> None:
    assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo, abs=1e-9)


@pytest.mark.parametrize("score, elo", [(0.0, -math.inf), (1.0, math.inf), (0.5, 0.0)])
def test_score_to_elo_at_the_ends(score: float, elo: float) -> None:
    assert score_to_elo(score) == elo


def test_counts_add_each_outcome() -> None:
    counts = PairCounts().add(1).add(0.5).add(0).add(1)
    assert (counts.wins, counts.draws, counts.losses, counts.pairs, counts.score) == (2, 1, 1, 4, 0.625)
    with pytest.raises(ValueError, match="1, 0.5 or 0"):
        counts.add(0.25)


@pytest.mark.parametrize("settings, problem", [
    (SprtSettings(alpha=0), "--alpha"), (SprtSettings(beta=0.7), "--beta"),
    (SprtSettings(elo0=5, elo1=5), "--elo1 must be greater"), (SprtSettings(elo0=-2000), "--elo0"),
])
def test_settings_that_cannot_work(settings: SprtSettings, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        settings.validate()


def test_bounds_follow_the_error_rates() -> None:
    settings = SprtSettings(alpha=0.05, beta=0.1)
    assert settings.upper == pytest.approx(math.log(0.9 / 0.05))
    assert settings.lower == pytest.approx(math.log(0.1 / 0.95))


@pytest.mark.parametrize("counts, verdict", [
    (PairCounts(0, 0, 0), Verdict.UNDECIDED),
    (PairCounts(600, 100, 300), Verdict.BETTER),
    (PairCounts(300, 100, 600), Verdict.NOT_BETTER),
    (PairCounts(30, 10, 28), Verdict.UNDECIDED),
])
def test_verdicts(counts: PairCounts, verdict: Verdict) -> None:
    assert decide(counts, CLASSIC) is verdict
    assert decide(counts, MIXTURE) is verdict


def test_llr_grows_with_evidence_for_the_better_side() -> None:
    settings = CLASSIC
    assert llr(PairCounts(60, 20, 40), settings) < llr(PairCounts(120, 40, 80), settings)
    assert llr(PairCounts(40, 20, 60), settings) > llr(PairCounts(80, 40, 120), settings)


def test_interval_holds_the_estimate_and_stays_inside_zero_and_one() -> None:
    for counts in (PairCounts(10, 0, 0), PairCounts(0, 0, 7), PairCounts(0, 5, 0), PairCounts(40, 30, 30)):
        low, high = score_interval(counts)
        assert 0.0 <= low <= counts.score <= high <= 1.0
    assert score_interval(PairCounts(10, 0, 0))[1] == 1.0
    assert estimate(PairCounts(10, 0, 0)).elo_interval[1] == math.inf


def test_report_is_plain_json_data() -> None:
    out = report(PairCounts(10, 0, 0), CLASSIC, Verdict.UNDECIDED)
    assert out["verdict"] == "undecided" and out["interval"][1] is None and out["estimate"] is None
    assert {"pairs", "wins", "draws", "losses", "estimate", "interval", "llr", "bounds", "los"} <= set(out)
    assert all(isinstance(v, float) for v in out["bounds"])


def _probs(elo: float, draws: float) -> tuple[float, float, float]:
    score = elo_to_score(elo)
    return (score - draws / 2, draws, 1 - score - draws / 2)


@pytest.mark.slow
def test_the_95_percent_interval_covers_the_true_difference_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(11)
    probs = _probs(40, 0.2)
    true_score = probs[0] + probs[1] / 2
    runs, pairs = 1000, 150
    covered = 0
    for _ in range(runs):
        wins, draws, losses = rng.multinomial(pairs, probs)
        low, high = score_interval(PairCounts(int(wins), int(draws), int(losses)))
        covered += low <= true_score <= high
    assert 0.93 <= covered / runs <= 0.97


def test_the_closed_form_fit_is_the_closest_distribution_of_that_score() -> None:
    from scipy import optimize
    rng = np.random.default_rng(5)
    outcomes = np.array(OUTCOME_SCORES)
    for f in rng.dirichlet([1, 1, 1], size=30):
        score = float(rng.uniform(0.05, 0.95))
        closest = optimize.minimize(
            lambda p: float(f @ np.log(f / p)), np.full(3, 1 / 3), method="SLSQP", bounds=[(1e-9, 1)] * 3,
            constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1},
                         {"type": "eq", "fun": lambda p: p @ outcomes - score}], options={"ftol": 1e-14})
        assert float(divergences(f[None], np.array([score]))[0, 0]) == pytest.approx(closest.fun, abs=1e-7)


def test_the_mixture_ladder_weighs_one_in_all_on_each_side() -> None:
    for side in (Verdict.BETTER, Verdict.NOT_BETTER):
        rungs = MIXTURE.rungs(side)
        assert sum(r.weight for r in rungs) == pytest.approx(1.0)
        assert [r.weight for r in rungs] == [w for _, w in LADDER]
    assert [r.towards for r in MIXTURE.rungs(Verdict.BETTER)] == [5, 30, 120]
    assert [r.towards for r in MIXTURE.rungs(Verdict.NOT_BETTER)] == [0, -25, -115]
    assert {r.against for r in MIXTURE.rungs(Verdict.NOT_BETTER)} == {5.0}
    far = SprtSettings(elo1=100).rungs(Verdict.BETTER)  # 2,400 Elo is past the reach: its weight goes to 600
    assert [(r.towards, r.weight) for r in far] == [(100, 0.25), (600, pytest.approx(0.75))]
    assert len(CLASSIC.rungs(Verdict.BETTER)) == 1


def test_the_classic_test_is_one_ratio_read_both_ways() -> None:
    counts = PairCounts(60, 20, 40)
    assert llr_not_better(counts, CLASSIC) == pytest.approx(-llr(counts, CLASSIC))


def test_a_classic_test_keeps_its_stored_identity_and_a_mixture_names_itself() -> None:
    assert CLASSIC.to_dict() == {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05}
    assert MIXTURE.to_dict()["test"] == "mixture"


def test_a_large_difference_decides_the_mixture_long_before_the_classic_test() -> None:
    steps = np.cumsum(np.tile([[1, 0, 0], [0, 1, 0], [1, 0, 0]], (100, 1)), axis=0)  # 2 wins, 1 draw in 3
    mixture_at, mixture = first_verdict(steps, MIXTURE)
    classic_at, classic = first_verdict(steps, CLASSIC)
    assert mixture is classic is Verdict.BETTER and mixture_at < 20 < 3 * mixture_at < classic_at


def test_a_report_carries_the_test_and_its_expected_pairs_model() -> None:
    out = report(PairCounts(9, 7, 1), MIXTURE, Verdict.UNDECIDED)
    assert out["test"] == "mixture" and out["sprt"]["gains"][0] == [5.0, LADDER[0][1]]
    assert out["expected_pairs"]["model"].startswith("wald") and out["expected_pairs"]["remaining"] > 0
    assert out["expected_pairs"]["shares"] == pytest.approx([9 / 17, 7 / 17, 1 / 17], abs=1e-3)


# The simulations read the tests exactly as compare does, after every pair (arena.ratings.sprt_sim.simulate), on
# pairs drawn from the model of two games on one deal (arena.ratings.sprt_sim.PairModel), fitted to bali-2017 (the
# deal's share of luck 0.5) and bali-2001 (0). `python -m arena.ratings.sprt_sim` prints the table of docs/compare.md.
RUNS = 2000
CAP = 2000  # compare's own cap: 4,000 games


def _sem(p: float, runs: int) -> float:
    return math.sqrt(p * (1 - p) / runs)


@pytest.mark.slow
@pytest.mark.parametrize("deal_share", [0.0, 0.5, 0.9])
@pytest.mark.parametrize("settings", [MIXTURE, CLASSIC], ids=["mixture", "classic"])
def test_a_bot_against_itself_is_declared_better_no_more_often_than_alpha(settings: SprtSettings,
                                                                           deal_share: float) -> None:
    runs = simulate(settings, PairModel(deal_share).shares(0), RUNS, np.random.default_rng(20261125), CAP)
    # alpha bounds the false-positive rate; allow three standard errors of the simulation itself.
    assert runs.share(Verdict.BETTER) <= settings.alpha + 3 * _sem(settings.alpha, RUNS)


@pytest.mark.soak
@pytest.mark.parametrize("deal_share", [0.0, 0.5])
def test_without_a_cap_a_bot_against_itself_is_still_declared_better_no_more_often_than_alpha(
        deal_share: float) -> None:
    runs = simulate(MIXTURE, PairModel(deal_share).shares(0), RUNS, np.random.default_rng(7))
    assert runs.share(Verdict.BETTER) <= MIXTURE.alpha + 3 * _sem(MIXTURE.alpha, RUNS)
    assert runs.share(Verdict.UNDECIDED) == 0


@pytest.mark.slow
@pytest.mark.parametrize("deal_share", [0.0, 0.5])
def test_a_real_gain_of_elo1_is_found_by_the_classic_test_with_power_one_minus_beta(deal_share: float) -> None:
    settings = SprtSettings(elo0=0, elo1=60, test=TestKind.CLASSIC)
    runs = simulate(settings, PairModel(deal_share).shares(60), RUNS, np.random.default_rng(7))
    assert runs.share(Verdict.BETTER) >= 1 - settings.beta - 3 * _sem(settings.beta, RUNS)


@pytest.mark.slow
@pytest.mark.parametrize("deal_share", [0.0, 0.5])  # bali-2001's model (the fewest draws) and bali-2017's
def test_a_gain_of_100_elo_is_declared_better_within_40_pairs_in_the_median(deal_share: float) -> None:
    runs = simulate(MIXTURE, PairModel(deal_share).shares(100), RUNS, np.random.default_rng(3), CAP)
    assert runs.share(Verdict.BETTER) >= 0.99
    assert runs.quantile(0.5) <= 40


@pytest.mark.slow
@pytest.mark.parametrize("deal_share", [0.0, 0.5])
@pytest.mark.parametrize("elo", [pytest.param(20.0, marks=pytest.mark.soak), 50.0, 100.0, 200.0, -100.0])
def test_the_mixture_decides_a_large_difference_in_a_fraction_of_the_classic_pairs(elo: float,
                                                                                   deal_share: float) -> None:
    shares = PairModel(deal_share).shares(elo)
    mixture = simulate(MIXTURE, shares, RUNS, np.random.default_rng(4))
    classic = simulate(CLASSIC, shares, RUNS, np.random.default_rng(4))
    right = Verdict.BETTER if elo > 0 else Verdict.NOT_BETTER
    assert mixture.share(right) >= classic.share(right) - 3 * _sem(0.05, RUNS)
    limit = 0.7 if elo == 20 else 0.4  # the larger the difference, the larger the saving
    assert mixture.mean() <= limit * classic.mean()
    # At +20 the slowest tenth of runs waits for the smallest rung, past the classic test's 90th percentile.
    assert elo == 20 or mixture.quantile(0.9) <= classic.quantile(0.9)
    # Wald's approximation, the model the live line and --json use, is within reach of the simulated mean.
    assert 0.7 * mixture.mean() <= pairs_to_verdict(shares, MIXTURE) <= 1.5 * mixture.mean()
    assert 0.8 * classic.mean() <= pairs_to_verdict(shares, CLASSIC) <= 1.2 * classic.mean()


@pytest.mark.soak
@pytest.mark.parametrize("deal_share", [0.0, 0.5])
def test_a_gain_of_5_elo_is_found_with_at_most_1_6_times_the_classic_pairs(deal_share: float) -> None:
    shares = PairModel(deal_share).shares(5)
    mixture = simulate(MIXTURE, shares, RUNS, np.random.default_rng(5))
    classic = simulate(CLASSIC, shares, RUNS, np.random.default_rng(5))
    assert mixture.share(Verdict.BETTER) >= classic.share(Verdict.BETTER) - 3 * _sem(0.05, RUNS)
    assert mixture.mean() <= 1.6 * classic.mean()


def test_the_pair_model_gives_the_difference_asked_for_and_scores_pairs_as_compare_does() -> None:
    for deal_share in (0.0, 0.5, 0.9):
        model = PairModel(deal_share)
        for elo in (-100.0, 0.0, 5.0, 200.0):
            won, drawn, lost = model.shares(elo)
            assert won + drawn + lost == pytest.approx(1.0)
            assert score_to_elo(won + drawn / 2) == pytest.approx(elo, abs=1e-6)
        # equal bots draw more pairs the more the deal decides: both games of a pair are won or lost together
    assert PairModel(0.0).shares(0)[1] == pytest.approx(0.5)
    assert PairModel(0.0).shares(0)[1] < PairModel(0.5).shares(0)[1] < PairModel(0.9).shares(0)[1]
