"""Tournament throughput: games per minute through the whole stack (workers, bots, store), by jobs and reuse."""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.entrants import Entrant
from arena.ratings import RatingConfig
from arena.schedule import Format
from arena.store import DEFAULT_DB_NAME, Store
from arena.tournament import Runner, TournamentSpec

BENCH_ENTRANTS = 5


@dataclass(frozen=True)
class TournamentBench:
    """Games per minute of one round-robin of random bots, with `jobs` workers, bots reused or fresh."""

    game: str
    seats: int
    jobs: int
    fresh: bool
    games: int
    seconds: float

    @property
    def games_per_minute(self) -> float:
        return 60 * self.games / self.seconds


def bench_tournament(game: str, seats: int, rounds: int, jobs: int, fresh: bool) -> TournamentBench:
    """Time a round-robin of BENCH_ENTRANTS random bots into a fresh store."""
    bot = (sys.executable, "-m", "sample_bots.random_bot")
    entrants = tuple(Entrant(f"random-{i}", bot) for i in range(BENCH_ENTRANTS))
    spec = TournamentSpec(game, Format.ROUND_ROBIN, entrants, seats, rounds=rounds, fresh_processes=fresh,
                          rating=RatingConfig.for_game(game))
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        with Store(Path(tmp) / DEFAULT_DB_NAME) as store:
            start = time.perf_counter()
            Runner(spec, store, Path(tmp), jobs=jobs).run()
            seconds = time.perf_counter() - start
            games = len(store.done_seqs(store.tournament().id))
    return TournamentBench(game, seats, jobs, fresh, games, seconds)
