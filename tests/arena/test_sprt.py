"""The statistics of paired comparisons: the test's errors and the interval's coverage, by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.sprt import (
    PairCounts,
    SprtSettings,
    Verdict,
    decide,
    elo_to_score,
    estimate,
    llr,
    report,
    score_interval,
    score_to_elo,
)


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
    assert decide(counts, SprtSettings()) is verdict


def test_llr_grows_with_evidence_for_the_better_side() -> None:
    settings = SprtSettings()
    assert llr(PairCounts(60, 20, 40), settings) < llr(PairCounts(120, 40, 80), settings)
    assert llr(PairCounts(40, 20, 60), settings) > llr(PairCounts(80, 40, 120), settings)


def test_interval_holds_the_estimate_and_stays_inside_zero_and_one() -> None:
    for counts in (PairCounts(10, 0, 0), PairCounts(0, 0, 7), PairCounts(0, 5, 0), PairCounts(40, 30, 30)):
        low, high = score_interval(counts)
        assert 0.0 <= low <= counts.score <= high <= 1.0
    assert score_interval(PairCounts(10, 0, 0))[1] == 1.0
    assert estimate(PairCounts(10, 0, 0)).elo_interval[1] == math.inf


def test_report_is_plain_json_data() -> None:
    out = report(PairCounts(10, 0, 0), SprtSettings(), Verdict.UNDECIDED)
    assert out["verdict"] == "undecided" and out["interval"][1] is None and out["estimate"] is None
    assert {"pairs", "wins", "draws", "losses", "estimate", "interval", "llr", "bounds", "los"} <= set(out)
    assert all(isinstance(v, float) for v in out["bounds"])


def _run_sprt(rng: np.random.Generator, probs: tuple[float, float, float], settings: SprtSettings,
              cap: int) -> Verdict:
    """One sequential test on simulated pairs, checked after every pair, as arena compare checks it."""
    outcomes = rng.choice(3, size=cap, p=probs)
    counts = [0, 0, 0]
    for outcome in outcomes:
        counts[outcome] += 1
        verdict = decide(PairCounts(*counts), settings)
        if verdict is not Verdict.UNDECIDED:
            return verdict
    return Verdict.UNDECIDED


def _probs(elo: float, draws: float) -> tuple[float, float, float]:
    score = elo_to_score(elo)
    return (score - draws / 2, draws, 1 - score - draws / 2)


@pytest.mark.slow
def test_a_bot_against_itself_is_declared_better_no_more_often_than_alpha() -> None:
    # H0 holds exactly (no difference); a wide elo1 keeps each simulated test short.
    settings = SprtSettings(elo0=0, elo1=60, alpha=0.05, beta=0.05)
    rng = np.random.default_rng(20261122)
    runs = 300
    better = sum(_run_sprt(rng, _probs(0, 0.1), settings, 2000) is Verdict.BETTER for _ in range(runs))
    # alpha bounds the false-positive rate; allow three standard errors of the simulation itself.
    assert better / runs <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)


@pytest.mark.slow
def test_a_real_gain_of_elo1_is_found_with_power_one_minus_beta() -> None:
    settings = SprtSettings(elo0=0, elo1=60, alpha=0.05, beta=0.05)
    rng = np.random.default_rng(7)
    runs = 300
    better = sum(_run_sprt(rng, _probs(60, 0.1), settings, 2000) is Verdict.BETTER for _ in range(runs))
    assert better / runs >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / runs)


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
