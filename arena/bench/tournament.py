"""Tournament throughput: games per minute through the whole stack (workers, bots, store), by jobs and reuse."""

from __future__ import annotations

import sys
import tempfile
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.bots.entrants import Entrant
from arena.storage import DEFAULT_DB_NAME, Store
from arena.tournament.formats import RoundRobin
from arena.tournament.formats.base import Play, TournamentSpec
from arena.tournament.run import Runner

if TYPE_CHECKING:
    from arena.tournament.cluster import ClusterPlayer

BENCH_ENTRANTS = 5


@dataclass(frozen=True)
class TournamentBench:
    """Games per minute of one round-robin of random bots, with `jobs` workers (processes of the local pool, or of
    a local Dask cluster), bots reused or fresh."""

    game: str
    seats: int
    jobs: int
    fresh: bool
    games: int
    seconds: float
    cluster: bool = False

    @property
    def games_per_minute(self) -> float:
        return 60 * self.games / self.seconds


def bench_tournament(game: str, seats: int, rounds: int, jobs: int, fresh: bool,
                     cluster: bool = False) -> TournamentBench:
    """Time a round-robin of BENCH_ENTRANTS random bots into a fresh store (with cluster, through a local Dask
    cluster of `jobs` workers, whose start-up is not timed)."""
    bot = (sys.executable, "-m", "sample_bots.random_bot")
    entrants = tuple(Entrant(f"random-{i}", bot) for i in range(BENCH_ENTRANTS))
    # A public seed: every run of the benchmark plays the same deals.
    spec = TournamentSpec(Play(game=game), RoundRobin(), entrants, seats, rounds=rounds, fresh_processes=fresh, seed=0)
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        with Store(Path(tmp) / DEFAULT_DB_NAME) as store, _player(cluster, jobs, Path(tmp)) as player:
            start = time.perf_counter()
            Runner(spec, store, Path(tmp), jobs=jobs, player=player).run()
            seconds = time.perf_counter() - start
            games = store.recorded_count(store.tournament().id)
    return TournamentBench(game, seats, jobs, fresh, games, seconds, cluster)


def _player(cluster: bool, jobs: int, results_dir: Path) -> AbstractContextManager[ClusterPlayer | None]:
    if not cluster:
        return nullcontext()
    from arena.tournament.cluster import LOCAL, ClusterPlayer
    return ClusterPlayer(LOCAL, jobs, results_dir)


@dataclass(frozen=True)
class CompareBench:
    """Pairs per minute of a fixed-length comparison of two random bots against random opponents."""

    game: str
    seats: int
    jobs: int
    pairs: int
    seconds: float

    @property
    def pairs_per_minute(self) -> float:
        return 60 * self.pairs / self.seconds


def bench_compare(game: str, seats: int, pairs: int, jobs: int) -> CompareBench:
    """Time `arena compare` of two random bots (no sequential test, `pairs` pairs) into a fresh store."""
    from arena.tournament.compare import deals_played, entrants, spec

    bot = (sys.executable, "-m", "sample_bots.random_bot")
    players = entrants(Entrant("new", bot), Entrant("base", bot),
                       [Entrant(f"random-{i}", bot) for i in range(seats - 1)])
    comparison = spec(Play(game=game), players, seats, max_games=2 * pairs)
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        with Store(Path(tmp) / DEFAULT_DB_NAME) as store:
            start = time.perf_counter()
            Runner(comparison, store, Path(tmp), jobs=jobs).run()
            seconds = time.perf_counter() - start
            played = deals_played(store, store.tournament().id)
    return CompareBench(game, seats, jobs, played, seconds)
