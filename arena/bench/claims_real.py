"""The board's claims on real games: the mixed sample bot (the heuristic's move with probability P, else a random
one) at several P is a field whose true order is known, played as a user plays it (`arena tournament` and
`arena finals` in subprocesses, bali-2017 at two seats, sandbox none, public seeds).

Intervals: a ladder of the 11 levels of `arena bench --known-field`, its stored games rated in schedule order up to
each horizon (games a bot) and ranked by the arena's own `rank`: the share of bots whose 90% interval holds its true
rank.

Finals: a round robin of FINALS_LEVELS seeds `arena finals` (its top K, all of them, at the confidence asked for): a
run is wrong if a step decided puts a weaker bot above a stronger one. Set beside it, a fixed-games rerun (as
CodinGame reruns its finals: the same number of deals for every pair, the order from the results): the fewest deals a
pair at which every true step comes out right with probability C, read by resampling the finals' own real deals of
each adjacent pair (the rerun's order by each pair's deals won, ties half right), and the games that rerun costs.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from arena.bench.claims import HORIZONS
from arena.bench.season import KNOWN_BOT, KNOWN_LEVELS
from arena.games import get_game
from arena.ratings.trueskill import RatingConfig, rate_all
from arena.storage import Store
from arena.tournament.formats.finals import deal_results
from arena.tournament.leaderboard import rank, tournament_board

GAME = "bali-2017"  # the shorter game
SEATS = 2
FINALS_LEVELS = (1.0, 0.6, 0.3, 0.0)  # the finalists' P, strongest first
CONFIDENCE = 0.9
BUDGET = 1200
RUNS = {"intervals": 2, "finals": 4}
QUICK_RUNS = {"intervals": 1, "finals": 1}
QUICK_HORIZON = 5  # games a bot of a quick ladder
RESAMPLES = 4000  # draws of a rerun at each number of deals a pair
MOST_DEALS = 400  # the largest rerun looked at, in deals a pair


@dataclass(frozen=True)
class RealIntervals:
    """The ladder's intervals on real games at a horizon: the share holding the true rank, and the mean width."""

    games_a_bot: int
    runs: int
    coverage: float
    width: float

    def to_dict(self) -> dict[str, object]:
        return {"games_a_bot": self.games_a_bot, "runs": self.runs, "coverage": self.coverage,
                "mean_width": self.width}


@dataclass(frozen=True)
class RealFinals:
    """One `arena finals` of the graded field: whether a decided step was in the wrong order, the steps decided,
    the games it took, and the fixed rerun reaching C (deals a pair, and its games over every pair; None where a
    true step had no deals to resample)."""

    seed: int
    wrong: bool
    decided: int
    games: int
    rerun_deals: int | None
    rerun_games: int | None

    def to_dict(self) -> dict[str, object]:
        return {"seed": self.seed, "wrong_order": self.wrong, "steps_decided": self.decided, "games": self.games,
                "rerun_deals_a_pair": self.rerun_deals, "rerun_games": self.rerun_games}


def _names(levels: tuple[float, ...]) -> list[str]:
    return [f"p{round(100 * p):03d}" for p in levels]


def _arena(*args: str, folder: Path) -> None:
    subprocess.run([sys.executable, "-m", "arena", *args, "--results", str(folder), "--db",
                    str(folder / "arena.sqlite")], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def intervals_run(seed: int, horizons: tuple[int, ...], jobs: int) -> list[tuple[int, float, float]]:
    """One ladder of the known levels played to the last horizon: (games a bot, share of intervals holding the true
    rank, mean width) at each horizon."""
    names = _names(KNOWN_LEVELS)
    true_rank = {n: len(names) - i for i, n in enumerate(names)}  # KNOWN_LEVELS rise: the last is the strongest
    games = horizons[-1] * len(names) // SEATS
    with tempfile.TemporaryDirectory(prefix="arena-claims-", ignore_cleanup_errors=True) as tmp:
        folder = Path(tmp)
        _arena("tournament", GAME, *(f"{n}={sys.executable} -m {KNOWN_BOT} {p}" for n, p in zip(names, KNOWN_LEVELS)),
               "--format", "ladder", "--seats", str(SEATS), "--games", str(games), "--jobs", str(jobs), "--sandbox",
               "none", "--seed", str(seed), "--name", "field", folder=folder)
        with Store(folder / "arena.sqlite") as store:
            t = store.tournament("field")
            outcomes = store.outcomes(t.id)
            config = RatingConfig.stored(get_game(GAME), t.config)
    out = []
    for horizon in horizons:
        played = outcomes[:horizon * len(names) // SEATS]
        counts = dict.fromkeys(names, 0)
        for o in played:
            for bot in o.bots:
                counts[bot] += 1
        stats = {n: {"games": counts[n], "wins": 0, "mean_score": None, "mean_rank": None, "fault_rate": 0.0}
                 for n in names}
        board = rank("field", rate_all(config, played), stats)
        held = [r.rank_low <= true_rank[r.bot] <= r.rank_high for r in board.rows]
        out.append((horizon, float(np.mean(held)), float(np.mean([r.rank_high - r.rank_low + 1 for r in board.rows]))))
    return out


def finals_run(seed: int, confidence: float, budget: int, jobs: int) -> RealFinals:
    """A round robin of FINALS_LEVELS, then `arena finals` of all of them: the run's figures."""
    names = _names(FINALS_LEVELS)
    strength = dict(zip(names, FINALS_LEVELS))
    with tempfile.TemporaryDirectory(prefix="arena-claims-", ignore_cleanup_errors=True) as tmp:
        folder = Path(tmp)
        _arena("tournament", GAME, *(f"{n}={sys.executable} -m {KNOWN_BOT} {p}" for n, p in zip(names, FINALS_LEVELS)),
               "--seats", str(SEATS), "--jobs", str(jobs), "--sandbox", "none", "--seed", str(seed), "--name", "cup",
               folder=folder)
        _arena("finals", "-t", "cup", "--top", str(len(names)), "--confidence", f"{confidence:g}", "--max-games",
               str(budget), "--jobs", str(jobs), folder=folder)
        with Store(folder / "arena.sqlite") as store:
            t = store.tournament("cup-finals")
            board = tournament_board(store, t)
            games = store.recorded_count(t.id)
            seeded = [e["name"] for e in t.config["entrants"]][:len(names)]
            deals = deal_results(seeded, SEATS, store.outcomes(t.id))
    rows = board.rows
    wrong = any(a.decided and strength[a.bot] <= strength[b.bot] for a, b in zip(rows, rows[1:]))
    steps = []  # each true step's deals, from the stronger bot's side
    for strong, weak in zip(names, names[1:]):
        found = deals.get((strong, weak)) or [1.0 - d for d in deals.get((weak, strong), [])]
        steps.append(found)
    rerun = rerun_deals(steps, confidence, np.random.default_rng([seed, 56])) if all(steps) else None
    pairs = len(names) * (len(names) - 1) // 2
    return RealFinals(seed, wrong, sum(bool(r.decided) for r in rows), games, rerun,
                      None if rerun is None else rerun * SEATS * pairs)


def rerun_deals(steps: list[list[float]], confidence: float, rng: np.random.Generator) -> int | None:
    """The fewest deals a pair at which a fixed rerun gets every step right with probability `confidence`, each
    step's deals drawn from its real ones (a step right when the stronger bot won more of them; a tie half right);
    None if not within MOST_DEALS."""
    def right(n: int) -> float:
        chance = 1.0
        for deals in steps:
            draws = rng.choice(np.asarray(deals), size=(RESAMPLES, n)).sum(axis=1)
            chance *= float(np.mean((draws > n / 2) + 0.5 * (draws == n / 2)))
        return chance

    low, high = 1, MOST_DEALS
    if right(high) < confidence:
        return None
    while low < high:  # the chance rises with n (but for the noise of the draws): the fewest that reaches it
        mid = (low + high) // 2
        if right(mid) >= confidence:
            high = mid
        else:
            low = mid + 1
    return low


def bench_claims_real(quick: bool = False, jobs: int = 1, progress: Callable[[str], None] = lambda line: None
                      ) -> tuple[list[RealIntervals], list[RealFinals]]:
    """The real-games part of `arena bench --claims`: RUNS ladders and finals (QUICK_RUNS, a short ladder and a
    small budget with `quick`: a check of the benchmark, not figures)."""
    runs = QUICK_RUNS if quick else RUNS
    horizons = (QUICK_HORIZON,) if quick else HORIZONS
    ladders = []
    for seed in range(runs["intervals"]):
        progress(f"real games: a ladder of {len(KNOWN_LEVELS)} mixed bots to {horizons[-1]} games a bot (seed "
                 f"{seed}) ...")
        ladders.append(intervals_run(seed, horizons, jobs))
    intervals = [RealIntervals(h, len(ladders), float(np.mean([r[i][1] for r in ladders])),
                               float(np.mean([r[i][2] for r in ladders]))) for i, h in enumerate(horizons)]
    finals = []
    for seed in range(runs["finals"]):
        progress(f"real games: finals of P = {', '.join(f'{p:g}' for p in FINALS_LEVELS)} (seed {seed}) ...")
        finals.append(finals_run(seed, CONFIDENCE, 200 if quick else BUDGET, jobs))
    return intervals, finals
