"""The board's claims measured: how often each bot's 90% interval of ranks holds its true rank, and how often finals
call a step of their table in the wrong order, against the confidence asked for.

Intervals: a field of bots of known skill (normal, sd `spread` beta) plays tables chosen by the arena's matchmaking;
each game's ranks are drawn from the rating model itself (each seat performs its skill plus a normal noise of sd
beta), rated by the arena's own `Ratings`, and the board is built by the arena's own `rank`. At each of a few
horizons (games a bot), every bot's interval is checked against its true rank.

Finals: K bots of known Elo (a field per row) play the finals format's own waves (`Finals.waves`, the tables it
gives the open pairs), each game between two bots drawn with the logistic chance of the first finishing ahead; the
final standing is the format's own. A run is wrong if any step of its table is decided with the lower (or an equal)
bot above; the rate of wrong runs is set beside 1 - C.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from arena.bench.ranking import CONFIG, play_wave
from arena.bots.entrants import Entrant
from arena.ratings.order import finals_settings
from arena.ratings.sprt import elo_to_score
from arena.ratings.trueskill import GameOutcome, RatingConfig, Ratings
from arena.tournament.formats.base import DEFAULT_WAVE, Play, TournamentSpec
from arena.tournament.formats.finals import Finals, standing
from arena.tournament.formats.ladder import ladder_wave
from arena.tournament.leaderboard import rank

INTERVAL_FIELDS = ((20, 4, 1.0), (50, 4, 1.0), (20, 2, 0.5), (50, 2, 2.0))  # bots, seats, skill spread in beta
HORIZONS = (5, 20, 60)  # games a bot at which the intervals are checked
FINALS_FIELDS = {  # the finalists' Elo, best first as seeded (the seeding is the true order but for ties)
    "well spread": (300.0, 200.0, 100.0, 0.0),
    "close": (60.0, 30.0, 0.0, 0.0),
    "all equal": (0.0, 0.0, 0.0, 0.0),
    "seeded wrong": (0.0, 100.0, 200.0, 300.0),
}
CONFIDENCES = (0.9, 0.95)
FINALS_BUDGET = 1200
SEEDS = {"intervals": 30, "finals": 100}
QUICK_SEEDS = {"intervals": 2, "finals": 4}


@dataclass(frozen=True)
class IntervalRow:
    """A field at a horizon: the share of bots whose interval held their true rank, and the interval's mean width."""

    bots: int
    seats: int
    spread: float
    games_a_bot: int
    seeds: int
    coverage: float
    width: float

    def to_dict(self) -> dict[str, object]:
        return {"bots": self.bots, "seats": self.seats, "spread": self.spread, "games_a_bot": self.games_a_bot,
                "seeds": self.seeds, "coverage": self.coverage, "mean_width": self.width}


@dataclass(frozen=True)
class FinalsRow:
    """A field of finalists at a confidence: the share of runs with a step in the wrong order, against 1 - C."""

    field: str
    elo: tuple[float, ...]
    confidence: float
    seeds: int
    wrong_runs: float
    decided_steps: float  # mean share of the K - 1 steps decided
    games: float  # mean games played
    budget_spent: float  # share of runs that spent the whole budget

    def to_dict(self) -> dict[str, object]:
        return {"field": self.field, "elo": list(self.elo), "confidence": self.confidence, "seeds": self.seeds,
                "wrong_order_rate": self.wrong_runs, "allowed": round(1 - self.confidence, 6),
                "decided_steps": self.decided_steps, "mean_games": self.games, "budget_spent": self.budget_spent}


def interval_run(bots: int, seats: int, spread: float, seed: int) -> list[tuple[int, float, float]]:
    """One field played to the last horizon: (games a bot, share of intervals holding the true rank, mean width) at
    each horizon."""
    rng = np.random.default_rng([seed, bots, seats, int(spread * 100), 56])
    names = [f"bot{i:04d}" for i in range(bots)]
    skill = rng.normal(CONFIG.mu, spread * CONFIG.beta, bots)
    true_rank = {names[i]: r + 1 for r, i in enumerate(np.argsort(-skill))}
    index = {name: i for i, name in enumerate(names)}
    env = CONFIG.environment()
    ratings, counts = Ratings(CONFIG), dict.fromkeys(names, 0)
    out = []
    seq = table_no = 0
    for horizon in HORIZONS:
        while seq < horizon * bots // seats:
            wave = ladder_wave(ratings, counts, names, seats, DEFAULT_WAVE, seq, table_no, seed)
            ratings, seq = play_wave(wave, ratings, counts, skill, index, rng, seq, env)
            table_no += len(wave)
        stats = {n: {"games": counts[n], "wins": 0, "mean_score": None, "mean_rank": None, "fault_rate": 0.0}
                 for n in names}
        board = rank("bench", ratings, stats)
        held = [r.rank_low <= true_rank[r.bot] <= r.rank_high for r in board.rows]
        width = [r.rank_high - r.rank_low + 1 for r in board.rows]
        out.append((horizon, float(np.mean(held)), float(np.mean(width))))
    return out


def finals_run(elo: Sequence[float], confidence: float, seed: int, budget: int = FINALS_BUDGET) -> tuple[bool, int,
                                                                                                         int]:
    """One finals of bots of these Elo, seeded in the order given: (a step decided in the wrong order, steps
    decided, games played)."""
    rng = np.random.default_rng([seed, int(confidence * 1000), *(int(e) for e in elo)])
    names = [f"f{i}" for i in range(len(elo))]
    strength = dict(zip(names, elo))
    spec = TournamentSpec(play=Play(game="bali-2017", rating=RatingConfig()), fmt=Finals(),
                          entrants=tuple(Entrant(n, ("bot",)) for n in names),
                          seats=2, max_games=budget, sprt=finals_settings(confidence, len(elo)), seed=seed)
    played: list[GameOutcome] = []

    def outcomes(first: int, below: int) -> list[GameOutcome]:
        return [o for o in played if first <= o.seq < below]

    for wave in spec.fmt.waves(spec, outcomes):
        for table in wave:
            for game, seq in enumerate(table.seqs):
                bots = table.seated(game)
                first_ahead = rng.random() < elo_to_score(strength[bots[0]] - strength[bots[1]])
                played.append(GameOutcome(seq, bots, (1, 2) if first_ahead else (2, 1)))
    final = standing(spec, played)
    wrong = any(done and strength[a] <= strength[b] for a, b, done in zip(final.order, final.order[1:], final.decided))
    return wrong, sum(final.decided), len(played)


def _interval_task(task: tuple[int, int, float, int]) -> list[tuple[int, float, float]]:
    return interval_run(*task)


def _finals_task(task: tuple[tuple[float, ...], float, int]) -> tuple[bool, int, int]:
    return finals_run(*task)


def bench_claims(quick: bool = False, jobs: int = 1, progress: Callable[[str], None] = lambda line: None
                 ) -> tuple[list[IntervalRow], list[FinalsRow]]:
    """Every field of INTERVAL_FIELDS and of FINALS_FIELDS (at each of CONFIDENCES), over SEEDS seeds in `jobs`
    processes; `quick` cuts the seeds (a check of the benchmark, not figures)."""
    seeds = QUICK_SEEDS if quick else SEEDS
    intervals: list[IntervalRow] = []
    finals: list[FinalsRow] = []
    with ProcessPoolExecutor(jobs) if jobs > 1 else nullcontext() as pool:
        run = pool.map if pool else map
        for bots, seats, spread in INTERVAL_FIELDS:
            progress(f"rank intervals: {bots} bots, {seats} seats, spread {spread:g} beta ...")
            runs = list(run(_interval_task, [(bots, seats, spread, s) for s in range(seeds["intervals"])]))
            for i, horizon in enumerate(HORIZONS):
                intervals.append(IntervalRow(bots, seats, spread, horizon, len(runs),
                                             float(np.mean([r[i][1] for r in runs])),
                                             float(np.mean([r[i][2] for r in runs]))))
        for name, elo in FINALS_FIELDS.items():
            for confidence in CONFIDENCES:
                progress(f"finals: {name}, confidence {confidence:g} ...")
                runs = list(run(_finals_task, [(elo, confidence, s) for s in range(seeds["finals"])]))
                finals.append(FinalsRow(name, elo, confidence, len(runs), float(np.mean([r[0] for r in runs])),
                                        float(np.mean([r[1] for r in runs])) / (len(elo) - 1),
                                        float(np.mean([r[2] for r in runs])),
                                        float(np.mean([r[2] >= FINALS_BUDGET for r in runs]))))
    return intervals, finals
