"""A served season at scale: its store seeded with many games, then its next waves played as `arena serve`'s
season plays them, each timed by the CPU of the season's own process (its bookkeeping: rating, choosing tables,
storing; the bots and the workers that run them are processes of their own), with its memory, so that a wave can
be seen to cost the same whatever the history behind it."""

from __future__ import annotations

import resource
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from arena.bench.ranking import CONFIG, random_wave
from arena.bots.entrants import Entrant
from arena.bots.sandbox import Isolation, Sandbox
from arena.competition.season import Season, SeasonSettings
from arena.ratings.trueskill import Ratings
from arena.storage import Store, StoredGame
from arena.storage.records import GameStatus
from arena.tournament.formats.base import Play

GAME = "bali-2017"  # the shorter game: the figure is the arena's, not the bots'
SEATS, WAVE = 2, 8  # a season's wave: WAVE tables, SEATS ladder waves, 16 games of the sample bots
ENTRANTS = 200  # the bots of the seeded history (retired by then: the field plays on over their games)
BLOCK = 2_000  # games stored per transaction while seeding


@dataclass(frozen=True)
class ServedSeason:
    """The figures of one seeded season: its games before, and what its waves took after a start."""

    stored: int
    seed_seconds: float
    start_cpu: float  # CPU seconds of the first wave after a start: the history is read then, once
    wave_cpu: tuple[float, ...]  # CPU seconds of each wave after it
    wave_games: tuple[int, ...]  # the games each of them stored (a wave ends early on a busy machine)
    rss_mib: float  # the season process's resident memory after the waves
    peak_mib: float  # its largest resident memory, seeding included

    @property
    def median_cpu(self) -> float:
        """The median CPU seconds of a wave after the first."""
        return statistics.median(self.wave_cpu)

    @property
    def cpu_per_game(self) -> float:
        """CPU milliseconds of the season's process per game stored, over the waves after the first."""
        return 1000 * sum(self.wave_cpu) / max(1, sum(self.wave_games))


def _settings(folder: Path) -> SeasonSettings:
    results = folder / "results"
    play = Play(game=GAME, sandbox=Sandbox(Isolation.NONE), rating=CONFIG)
    return SeasonSettings(play=play, name="season", results_dir=results, db=results / "arena.sqlite", seats=SEATS,
                          wave=WAVE, seed=1)


def seed_history(settings: SeasonSettings, games: int) -> None:
    """The season's tournament opened by a wave of its own, then `games` more games of ENTRANTS other bots stored
    after it (random tables, outcomes drawn from the rating model), as waves of a long season would have."""
    opening = Season(settings)
    try:
        opening.play_wave([])
    finally:
        opening.stop()
    rng = np.random.default_rng(games)
    names = [f"bot{i:05d}" for i in range(ENTRANTS)]
    skill = dict(zip(names, rng.normal(CONFIG.mu, 2 * CONFIG.beta, ENTRANTS)))
    with Store(settings.db) as store:
        tid = next(t.id for t in store.tournaments() if t.name == settings.name)
        # Entered, so that their games can be stored; the season's next wave retires them (it enters no one).
        store.update_roster(tid, {n: Entrant(n, ("python3", "-m", "sample_bots.random_bot")) for n in names}, [], [])
        seq = store.first_gap(tid)
        end = seq + games
        while seq < end:
            block: list[StoredGame] = []
            while len(block) < BLOCK and seq < end:
                for table in random_wave(Ratings(CONFIG), {}, names, SEATS, WAVE, seq, seq, seq):
                    if seq >= end:
                        break
                    performance = [skill[b] + rng.normal(0, CONFIG.beta) for b in table.bots]
                    ranks = tuple(int(r) + 1 for r in np.argsort(np.argsort(-np.array(performance))))
                    block.append(StoredGame(seq, seq, 0, table.seated(0), GameStatus.DONE, "finished",
                                            scores=tuple(10 - r for r in ranks), ranks=ranks))
                    seq += 1
            store.record_games(tid, block)


def bench_serve_season(games: int, waves: int = 4) -> ServedSeason:
    """Seed a season with `games` games, start it afresh (as a server start does), and time its next waves."""
    with tempfile.TemporaryDirectory(prefix="arena-serve-season-") as tmp:
        settings = _settings(Path(tmp))
        began = time.perf_counter()
        seed_history(settings, games)
        seeded = time.perf_counter() - began
        season = Season(settings)  # a new server process: its ladder knows nothing yet
        try:
            timed = [_wave(season) for _ in range(waves + 1)]
        finally:
            season.stop()
    return ServedSeason(games, seeded, timed[0][0], tuple(c for c, _ in timed[1:]), tuple(g for _, g in timed[1:]),
                        _rss_mib(), _peak_mib())


def _wave(season: Season) -> tuple[float, int]:
    """One wave: the CPU seconds of this process it took, and the games it stored."""
    start, before = time.process_time(), season.games
    season.play_wave([])
    return time.process_time() - start, season.games - before


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
