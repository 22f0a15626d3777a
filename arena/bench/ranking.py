"""The ranking benchmark: how many games each matchmaking rule needs before the board shows a field's true order.

A field of bots of known skill plays wave after wave of tables chosen by a matchmaking rule; each game's outcome is
drawn from the rating model itself (every seat performs its skill plus a normal noise of sd beta, ranked by
performance), rated by the arena's own `Ratings`. After every wave the board (ranked as displayed, by mu - 3 sigma,
ties by name) is compared with the true order.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np

from arena.games import get_game
from arena.match.seeds import Seed
from arena.ratings.trueskill import GameOutcome, RatingConfig, Ratings
from arena.tournament.formats.base import DEFAULT_WAVE, Table
from arena.tournament.formats.ladder import ladder_wave, quality_wave

# A matchmaking rule: ladder_wave's signature (ratings, games played, names, seats, tables, first seq, first table,
# seed) -> the wave's tables.
Rule = Callable[[Ratings, dict[str, int], Sequence[str], int, int, int, int, Seed], list[Table]]
TAUS = (0.8, 0.9, 0.95)  # the Kendall tau levels a row reports the games to
TOP = 10  # the board's top places whose precision is reported
TOP_LEVEL = 0.9  # the top-10 precision a row reports the games to
FIELDS = ((50, 4, 1.0), (50, 4, 2.0), (200, 4, 1.0), (200, 4, 2.0),
          (50, 2, 1.0), (50, 2, 2.0), (200, 2, 1.0), (200, 2, 2.0))  # bots, seats, skill spread in beta
HORIZON = {4: 60, 2: 40}  # games a bot (an even share) played per field, by seats
QUICK_HORIZON = 2
SEEDS, QUICK_SEEDS = 20, 2
CONFIG = RatingConfig.for_game(get_game("bali-2017"))
PRECISION_AT = (10, 20, 40, 60)  # games a bot at which the top-10 precision is shown


def random_wave(ratings: Ratings, games_played: dict[str, int], names: Sequence[str], seats: int, tables: int,
                first_seq: int, first_table: int, seed: Seed) -> list[Table]:
    """Random tables, no bot twice in a wave while the field has bots enough: the baseline."""
    rng = np.random.default_rng([int(seed), first_table])
    order = rng.permutation(len(names))
    if tables * seats > len(names):
        order = np.concatenate([order] * -(-tables * seats // len(names)))
    return [Table(first_table + t, first_seq + t * seats, tuple(names[i] for i in order[t * seats:(t + 1) * seats]),
                  0, duplicate=False) for t in range(tables)]


def rotations_wave(ratings: Ratings, games_played: dict[str, int], names: Sequence[str], seats: int, tables: int,
                   first_seq: int, first_table: int, seed: Seed) -> list[Table]:
    """The shipped matchmaking with each table played in every seat rotation, as ladder tables were before they
    played one game each: what the one-game table is worth."""
    return [replace(t, first_seq=first_seq + i * seats, plan=None)
            for i, t in enumerate(ladder_wave(ratings, games_played, names, seats, tables, first_seq, first_table,
                                              seed))]


STRATEGIES: dict[str, Rule] = {"arena": ladder_wave, "random": random_wave, "rotations": rotations_wave,
                               "previous": quality_wave}


@dataclass(frozen=True)
class Run:
    """One field played by one rule with one seed: the board's quality after each wave."""

    games: np.ndarray  # games played after each wave
    tau: np.ndarray  # Kendall tau of the board with the true order after each wave
    precision: np.ndarray  # the share of the true top 10 in the board's top 10 after each wave
    busiest: int  # games of the bot that played most


@dataclass(frozen=True)
class RankingRow:
    """A field and a rule, over every seed: the games until the board reaches each quality (None: never)."""

    bots: int
    seats: int
    spread: float
    strategy: str
    seeds: int
    games: int
    games_to_tau: dict[str, int | None]
    games_to_top10: int | None
    top10_precision: dict[str, float]  # keyed by games a bot
    busiest: float  # the busiest bot's games, mean over seeds
    even_share: float  # games a bot would play if every bot played alike

    def to_dict(self) -> dict[str, object]:
        return {"bots": self.bots, "seats": self.seats, "spread": self.spread, "strategy": self.strategy,
                "seeds": self.seeds, "games": self.games, "games_to_tau": self.games_to_tau,
                "games_to_top10": self.games_to_top10, "top10_precision": self.top10_precision,
                "busiest": self.busiest, "even_share": self.even_share}


def simulate(rule: Rule, bots: int, seats: int, spread: float, games: int, seed: int) -> Run:
    """Play `games` games of a field of `bots` bots (skills normal, sd `spread` beta) chosen by `rule`."""
    from scipy.stats import kendalltau  # here, not at the top: `arena bench` imports this module for every figure

    rng = np.random.default_rng([seed, bots, seats, int(spread * 100)])
    names = [f"bot{i:04d}" for i in range(bots)]
    skill = rng.normal(CONFIG.mu, spread * CONFIG.beta, bots)
    true_top = set(np.argsort(-skill)[:TOP])
    index = {name: i for i, name in enumerate(names)}
    env = CONFIG.environment()
    ratings, counts = Ratings(CONFIG), dict.fromkeys(names, 0)
    played, taus, precisions = [], [], []
    seq = table_no = 0
    while seq < games:
        wave = rule(ratings, counts, names, seats, DEFAULT_WAVE, seq, table_no, seed)
        ratings, seq = play_wave(wave, ratings, counts, skill, index, rng, seq, env)
        table_no += len(wave)
        board = _board(ratings, names)
        played.append(seq)
        taus.append(kendalltau(skill, -board).statistic)
        precisions.append(len(true_top & set(np.argsort(board)[:TOP])) / TOP)
    return Run(np.array(played), np.array(taus), np.array(precisions), max(counts.values()))


def play_wave(wave: Sequence[Table], ratings: Ratings, counts: dict[str, int], skill: np.ndarray,
              index: dict[str, int], rng: np.random.Generator, seq: int, env: Any) -> tuple[Ratings, int]:
    """A wave's tables played in the model (each game's ranks by the seats' skills plus beta's noise) and rated; each
    bot's count of games raised (env: the ratings' TrueSkill environment): the ratings after, and the next game's
    number."""
    for table in wave:
        at = np.array([index[b] for b in table.bots])
        for _ in range(table.games):  # every seat rotation; the model's outcome does not depend on the seat
            perf = skill[at] + rng.normal(0.0, CONFIG.beta, len(at))
            ranks = tuple(int(r) + 1 for r in np.argsort(np.argsort(-perf)))
            ratings = ratings.after(GameOutcome(seq, table.bots, ranks), env)
            seq += 1
        for bot in table.bots:
            counts[bot] += table.games
    return ratings, seq


def _board(ratings: Ratings, names: Sequence[str]) -> np.ndarray:
    """Each bot's place on the board as displayed (0 = top): by mu - 3 sigma, ties by name."""
    conservative = np.array([ratings.get(n).conservative for n in names])
    order = np.lexsort((np.arange(len(names)), -conservative))  # names are numbered in name order
    place = np.empty(len(names), dtype=int)
    place[order] = np.arange(len(names))
    return place


def row(strategy: str, bots: int, seats: int, spread: float, runs: Sequence[Run]) -> RankingRow:
    """The row of one field and one rule over its runs (one a seed)."""
    waves = min(len(r.games) for r in runs)
    played = runs[0].games[:waves]  # every rule plays whole waves of the same size
    tau = np.mean([r.tau[:waves] for r in runs], axis=0)
    precision = np.mean([r.precision[:waves] for r in runs], axis=0)

    def first(curve: np.ndarray, level: float) -> int | None:
        reached = np.flatnonzero(curve >= level)
        return int(played[reached[0]]) if len(reached) else None

    at = {str(k): float(precision[min(np.searchsorted(played, k * bots // seats), waves - 1)])
          for k in PRECISION_AT if k * bots // seats <= played[-1]}
    return RankingRow(bots, seats, spread, strategy, len(runs), int(played[-1]),
                      {str(level): first(tau, level) for level in TAUS}, first(precision, TOP_LEVEL), at,
                      float(np.mean([r.busiest for r in runs])), float(played[-1] * seats / bots))


def _simulate(task: tuple[str, int, int, float, int, int]) -> Run:
    strategy, bots, seats, spread, games, seed = task
    return simulate(STRATEGIES[strategy], bots, seats, spread, games, seed)


def bench_ranking(quick: bool = False, jobs: int = 1,
                  progress: Callable[[str], None] = lambda line: None) -> list[RankingRow]:
    """Every field of FIELDS played by every rule of STRATEGIES, over SEEDS seeds in `jobs` processes; `quick`
    cuts the seeds and the games."""
    seeds, per_bot = (QUICK_SEEDS, QUICK_HORIZON) if quick else (SEEDS, None)
    keys = [(strategy, bots, seats, spread) for bots, seats, spread in FIELDS for strategy in STRATEGIES]
    tasks = [(*key, (per_bot or HORIZON[key[2]]) * key[1] // key[2], seed) for key in keys for seed in range(seeds)]
    with ProcessPoolExecutor(jobs) if jobs > 1 else nullcontext() as pool:
        results = iter((pool.map if pool else map)(_simulate, tasks))
        rows = []
        for strategy, bots, seats, spread in keys:
            progress(f"ranking {bots} bots, {seats} seats, spread {spread:g} beta, {strategy} ...")
            rows.append(row(strategy, bots, seats, spread, [next(results) for _ in range(seeds)]))
    return rows
