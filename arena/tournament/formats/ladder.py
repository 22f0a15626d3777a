"""Ladder: continuous matchmaking, wave after wave of tables chosen from the ratings so far."""

from __future__ import annotations

import random
from itertools import count
from typing import Iterator, Sequence

from arena.errors import ConfigError
from arena.match.seeds import Seed, derive_seed, table_seed
from arena.ratings.trueskill import Ratings
from arena.tournament.formats.base import DEFAULT_WAVE, Outcomes, Table, TournamentFormat, TournamentSpec

__all__ = ["DEFAULT_WAVE", "Ladder", "ladder_wave"]
UNSETTLED = 1.5  # a sigma this many times the median marks a bot to be matched more often


class Ladder(TournamentFormat):
    """`wave` tables at a time, each anchored on the most uncertain bot and filled by match quality, until
    `max_games` or the time limit."""

    name = "ladder"
    summary = "tables chosen by rating until --games or --time-limit"
    open_ended = True
    living = ("entrants", "max_games")  # bots join and retire, and more games may be asked for, run after run

    def check(self, spec: TournamentSpec, time_limit: float | None) -> None:
        super().check(spec, time_limit)
        if spec.wave < 1:
            raise ConfigError(f"the ladder wave must be at least 1 table, got {spec.wave}")

    def total_games(self, spec: TournamentSpec) -> int | None:
        return spec.max_games

    def waves(self, spec: TournamentSpec, outcomes: Outcomes) -> Iterator[list[Table]]:
        """Each wave from the ratings of every game before it (kept up incrementally)."""
        per_wave = spec.wave * spec.seats
        env = spec.rating.environment()
        ratings, counts = Ratings(spec.rating), dict.fromkeys(spec.names(), 0)
        for wave_no in count():
            first_seq = wave_no * per_wave
            if spec.max_games is not None and first_seq >= spec.max_games:
                return
            for outcome in outcomes(first_seq - per_wave, first_seq):
                ratings = ratings.after(outcome, env)
                for bot in outcome.bots:  # a retired bot's games count too: they rated its opponents
                    counts[bot] = counts.get(bot, 0) + 1
            wave = ladder_wave(ratings, counts, spec.names(), spec.seats, spec.wave, first_seq,
                               wave_no * spec.wave, spec.seed)
            yield [t for t in wave if spec.max_games is None or t.first_seq < spec.max_games]


def ladder_wave(ratings: Ratings, games_played: dict[str, int], names: Sequence[str], seats: int, tables: int,
                first_seq: int, first_table: int, seed: Seed) -> list[Table]:
    """The next `tables` ladder tables: each anchored on the most uncertain bot, filled by match quality.

    The wave depends only on the ratings so far and the seed, so a resumed or parallel run chooses the same.
    """
    rng = random.Random(derive_seed(seed, "ladder", first_table))
    env = ratings.config.environment()
    order = sorted(names, key=lambda b: (-ratings.get(b).sigma, games_played.get(b, 0), rng.random()))
    anchors = unsettled(ratings, order) or order
    wave: list[Table] = []
    seq = first_seq
    for t in range(tables):
        anchor = anchors[t % len(anchors)]
        table = [anchor]
        while len(table) < seats:
            candidates = [b for b in names if b not in table]
            rng.shuffle(candidates)  # equal qualities are broken at random, not by name
            table.append(max(candidates, key=lambda b: ratings.quality([*table, b], env)))
        wave.append(Table(first_table + t, seq, tuple(table), table_seed(seed, first_table + t),
                           duplicate=False))
        seq += seats
    return wave


def unsettled(ratings: Ratings, order: Sequence[str]) -> list[str]:
    """The bots (in `order`) whose sigma is over UNSETTLED times the median: newcomers, and bots too seldom
    matched; they anchor every table until their uncertainty comes down to the others' level."""
    sigmas = sorted(ratings.get(b).sigma for b in order)
    median = sigmas[len(sigmas) // 2]
    return [b for b in order if ratings.get(b).sigma > UNSETTLED * median]
