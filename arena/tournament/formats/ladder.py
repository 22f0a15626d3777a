"""Ladder: continuous matchmaking, wave after wave of tables chosen from the ratings so far."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import count, permutations
from typing import Iterator, Sequence

import numpy as np

from arena.errors import ConfigError
from arena.match.play import Seating
from arena.match.seeds import Seed, derive_seed, table_seed
from arena.ratings.trueskill import Ratings, match_quality
from arena.tournament.formats.base import DEFAULT_WAVE, Outcomes, Table, TournamentFormat, TournamentSpec

__all__ = ["DEFAULT_WAVE", "EXPOSURE", "Ladder", "LadderState", "ladder_wave", "quality_wave", "seat_balanced"]
UNSETTLED = 1.5  # a sigma this many times the median marks a bot to be matched more often
NEIGHBOURS = 20  # the places on either side (by mu) over which a bot's chance of being misordered is summed
FILL_POOL = 4  # a table's other seats go to the most worthwhile of this many nearest neighbours in sampled skill
TOP = 10  # the board's top places, whose boundary the competitors watch most
TOP_EVERY = 6  # every this-many-th table is anchored on the bots likeliest to be on the wrong side of the top TOP
TOP_WEIGHT = 10.0  # how far that chance outweighs the sigma in choosing those anchors
# A bot that has played more than EXPOSURE times the mean number of games, plus one, neither anchors nor fills a
# table while enough others can: no entrant plays more than that plus one table (the bound on its exposure).
EXPOSURE = 1.5


# A ladder table plays one game, so a wave of `wave` tables is `wave` games: every game then meets a new line-up,
# which orders the field in far fewer games than the same bots playing every seat rotation (docs/tournaments.md,
# "How the ladder matches bots"); seat_balanced evens out each bot's seats instead.
class Ladder(TournamentFormat):
    """`wave` tables of one game at a time, each anchored on the bot whose next game would most improve the board's
    order and filled from its neighbours in a sampled skill, each bot seated where it has sat least, until
    `max_games` or the time limit."""

    name = "ladder"
    summary = "tables chosen by rating until --games or --time-limit"
    open_ended = True
    # Bots join and retire, more games may be asked for, and the tables chosen at a time from the ratings (which a
    # server sizes by its workers) may change, run after run: the games stored stand whatever they are.
    living = ("entrants", "max_games", "wave")

    def check(self, spec: TournamentSpec, time_limit: float | None) -> None:
        super().check(spec, time_limit)
        if spec.wave < 1:
            raise ConfigError(f"the ladder wave must be at least 1 table, got {spec.wave}")

    def total_games(self, spec: TournamentSpec) -> int | None:
        return spec.max_games

    def waves(self, spec: TournamentSpec, outcomes: Outcomes) -> Iterator[list[Table]]:
        """Each wave from the ratings of every game before it (kept up incrementally)."""
        return LadderState().waves(spec, outcomes)


@dataclass
class LadderState:
    """What a ladder knows between its waves: each bot's rating, games and games at each seat, from every finished
    game below `rated_below`, and the wave it asks for next. The format's waves keep one for a run; a long-lived
    ladder (arena/tournament/ladder.py) keeps one for as long as it lives, so that a wave costs the same at its
    100,000th game as at its 1,000th: the history is read once, at `resume`."""

    ratings: Ratings | None = None
    counts: dict[str, int] = field(default_factory=dict)
    sat: dict[str, list[int]] = field(default_factory=dict)
    wave_no: int = 0
    rated_below: int = 0

    def resume(self, spec: TournamentSpec, outcomes: Outcomes, first_gap: int) -> None:
        """Start at the first wave not wholly stored (every game below first_gap is), its history rated: once."""
        self.wave_no = first_gap // spec.wave
        self.catch_up(spec, outcomes, self.wave_no * spec.wave)

    def catch_up(self, spec: TournamentSpec, outcomes: Outcomes, below: int) -> None:
        """Take in the finished games from rated_below up to below (all stored by now), in schedule order."""
        if self.ratings is None:
            self.ratings = Ratings(spec.rating)
        if below <= self.rated_below:
            return
        new = outcomes(self.rated_below, below)
        self.ratings = self.ratings.extended(new)
        for outcome in new:
            for seat, bot in enumerate(outcome.bots):  # a retired bot's games count too: they rated others
                self.counts[bot] = self.counts.get(bot, 0) + 1
                self.sat.setdefault(bot, [0] * spec.seats)[seat] += 1
        self.rated_below = below

    def final(self, spec: TournamentSpec, outcomes: Outcomes) -> Ratings:
        """The ratings after every finished game stored (those of the wave under way too), this state unchanged."""
        if self.ratings is None:
            self.ratings = Ratings(spec.rating)
        return self.ratings.extended(outcomes(self.rated_below, 1 << 62))

    def waves(self, spec: TournamentSpec, outcomes: Outcomes) -> Iterator[list[Table]]:
        """The ladder's waves from wave_no on, each chosen from the games before it; a wave counts as played (the
        state moves past it) once the next is asked for, so a run cut short asks for it again next time."""
        per_wave = spec.wave  # one game a table
        for name in spec.names():
            self.counts.setdefault(name, 0)
        for wave_no in count(self.wave_no):
            self.wave_no = wave_no
            first_seq = wave_no * per_wave
            if spec.max_games is not None and first_seq >= spec.max_games:
                return
            self.catch_up(spec, outcomes, first_seq)
            assert self.ratings is not None
            wave = ladder_wave(self.ratings, self.counts, spec.names(), spec.seats, spec.wave, first_seq,
                               wave_no * spec.wave, spec.seed)
            yield [seat_balanced(t, self.sat, spec.seed) for t in wave
                   if spec.max_games is None or t.first_seq < spec.max_games]


def ladder_wave(ratings: Ratings, games_played: dict[str, int], names: Sequence[str], seats: int, tables: int,
                first_seq: int, first_table: int, seed: Seed) -> list[Table]:
    """The next `tables` ladder tables of one game each: each anchored on a free bot whose next game would most
    improve the board's order, and filled from its nearest neighbours in one draw of every bot's skill from its
    rating (Thompson sampling) by the same measure; no bot at two tables. Seats are given in the order chosen
    (`seat_balanced` evens them out).

    Newcomers (a sigma over UNSETTLED times the median) anchor first. Then a bot's worth is its sigma times how
    many bots it may be misordered with (the chance, from the two ratings, summed over its nearest NEIGHBOURS on
    each side by mu), and every TOP_EVERYth table is anchored instead on the bots likeliest to be on the wrong side
    of the board's top TOP. A bot sits at a second table of a wave only when the wave has more seats than there are
    bots. The wave depends only on the ratings so far and the seed, so a resumed or parallel run chooses the same.
    """
    rng = np.random.default_rng(derive_seed(seed, "ladder", first_table))
    mu = np.array([ratings.get(b).mu for b in names])
    sigma = np.array([ratings.get(b).sigma for b in names])
    played = np.array([games_played.get(b, 0) for b in names], dtype=float)
    tie = rng.random(len(names))
    over = played > EXPOSURE * played.mean() + 1
    unsure = np.flatnonzero((sigma > UNSETTLED * np.median(sigma)) & ~over)
    unsure = unsure[np.lexsort((tie[unsure], played[unsure], -sigma[unsure]))]  # most uncertain, least played first
    worth = sigma * _misordered(mu, sigma)
    order = np.lexsort((tie, played, -worth))
    at_top = np.lexsort((tie, played, -sigma * (1 + TOP_WEIGHT * _across_top(mu, sigma))))
    skill = rng.normal(mu, sigma)
    free = np.ones(len(names), dtype=bool)
    anchored = np.zeros(len(names), dtype=bool)
    wave: list[Table] = []
    for t in range(tables):
        if free.sum() < seats:  # more seats in the wave than bots: a second table each, in the same order
            free[:] = True
        # A bot that anchored a table of this wave anchors no other while another can (a wave with more seats than
        # bots seats everyone again, and the anchors then go round the field).
        anchor = _anchor(unsure, t, at_top if (first_table + t) % TOP_EVERY == 0 else order, free, ~over & ~anchored)
        anchored[anchor] = True
        free[anchor] = False
        pool = free & ~over if (free & ~over).sum() >= seats - 1 else free
        near = _neighbours(skill, skill[anchor], pool, pool, FILL_POOL)
        fill = near[np.argsort(-worth[near], kind="stable")[:seats - 1]]
        free[fill] = False
        bots = (names[anchor], *(names[i] for i in fill))
        wave.append(Table(first_table + t, first_seq + t, bots, table_seed(seed, first_table + t),
                          duplicate=False, plan=(Seating(tuple(range(seats)), 0),)))
    return wave


def seat_balanced(table: Table, sat: dict[str, list[int]], seed: Seed) -> Table:
    """The one-game table with its bots in the seats where they have sat least (`sat`: each bot's games at each
    seat), the fewest such games in all; ties broken by a draw from the table's seed."""
    seats = len(table.bots)
    rng = np.random.default_rng(derive_seed(seed, "ladder seats", table.table))
    # The draw adds less than 1 to any seating's cost, so it only orders seatings of equal counts.
    cost = np.array([sat.get(bot, [0] * seats)[:seats] for bot in table.bots], dtype=float)
    cost += rng.random((seats, seats)) / (seats + 1)
    seatings = _seatings(seats)  # every one is tried: a table has a game's few seats (24 seatings at 4)
    best = seatings[np.argmin(cost[np.arange(seats), seatings].sum(axis=1))]
    order = [""] * seats
    for bot, place in enumerate(best):
        order[place] = table.bots[bot]
    return replace(table, bots=tuple(order))


@cache
def _seatings(seats: int) -> np.ndarray:
    """Every seating of a table: row k gives each bot's seat. (Not scipy.optimize's assignment solver: importing it
    costs the arena's process about 24 MiB.)"""
    return np.array(list(permutations(range(seats))))


def _anchor(unsure: np.ndarray, t: int, order: np.ndarray, free: np.ndarray, preferred: np.ndarray) -> int:
    """Table t's anchor: the newcomers in turn while there are any free, else the first free bot of `order` that is
    `preferred` (within its exposure, not yet an anchor in this wave), else the first free one."""
    if len(unsure):
        anchor = next((a for a in np.roll(unsure, -t) if free[a]), None)
        if anchor is not None:
            return int(anchor)
    candidates = order[free[order]]
    return int(next((a for a in candidates if preferred[a]), candidates[0]))


def _misordered(mu: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """For each bot, how many of its NEIGHBOURS nearest on either side by mu it is likely misordered with: the sum
    of the chances, from the two ratings, that their true order is the other way."""
    from scipy.special import ndtr  # here, not at the top: every command imports the formats, few play a ladder

    by_mu = np.argsort(-mu, kind="stable")
    m, s = mu[by_mu], sigma[by_mu]
    count = np.zeros(len(mu))
    for step in range(1, min(NEIGHBOURS, len(mu) - 1) + 1):
        wrong = ndtr(-(m[:-step] - m[step:]) / np.sqrt(s[:-step] ** 2 + s[step:] ** 2))
        count[by_mu[:-step]] += wrong
        count[by_mu[step:]] += wrong
    return count


def _across_top(mu: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """For each bot, the chance that it is on the other side of the board's top TOP than its mu puts it."""
    if len(mu) <= TOP:
        return np.zeros(len(mu))
    ranked = np.sort(mu)[::-1]
    boundary = (ranked[TOP - 1] + ranked[TOP]) / 2
    from scipy.special import ndtr  # imported when a ladder plays, as in _misordered

    return ndtr(-np.abs(mu - boundary) / sigma)


def _neighbours(skill: np.ndarray, centre: float, preferred: np.ndarray, allowed: np.ndarray, k: int) -> np.ndarray:
    """The `k` bots nearest `centre` in `skill`, from `preferred` when it holds enough, else from `allowed`."""
    pool = np.flatnonzero(preferred if preferred.sum() >= k else allowed)
    distance = np.abs(skill[pool] - centre)
    nearest = np.argpartition(distance, k - 1)[:k] if k < len(pool) else np.arange(len(pool))
    return pool[nearest[np.argsort(distance[nearest], kind="stable")]]


def quality_wave(ratings: Ratings, games_played: dict[str, int], names: Sequence[str], seats: int, tables: int,
                 first_seq: int, first_table: int, seed: Seed) -> list[Table]:
    """The ladder's earlier rule, kept for the ranking benchmark to measure against: each table anchored on the
    most uncertain bot (in turn), the other seats filled one by one by TrueSkill match quality."""
    rng = random.Random(derive_seed(seed, "ladder", first_table))
    beta, rating = ratings.config.beta, {b: ratings.get(b) for b in names}
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
            seated = [rating[b] for b in table]
            quality = match_quality(np.array([[*(r.mu for r in seated), rating[c].mu] for c in candidates]),
                                    np.array([[*(r.sigma for r in seated), rating[c].sigma] for c in candidates]),
                                    beta)
            table.append(candidates[int(np.argmax(quality))])
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
