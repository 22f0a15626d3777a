"""Tournaments: a schedule of tables played as matches (in parallel), stored game by game, rated in order."""

from __future__ import annotations

import os
import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol

import zmq

from arena.bots import leftovers
from arena.bots.entrants import Entrant, Refusal
from arena.bots.process import BotCommand
from arena.bots.sandbox import Sandbox, cpu_sets
from arena.errors import ArenaError, ConfigError
from arena.games import get_game
from arena.match.play import MatchConfig, MatchResult, check_folders, run_match
from arena.match.record import GameRecord
from arena.match.seeds import SecretSeed, derive_seed, public_seed
from arena.ratings.trueskill import GameOutcome, Ratings, rate_all
from arena.storage import Store, StoredGame, Tournament
from arena.storage.records import GameStatus
from arena.tournament.formats import Table
from arena.tournament.formats.base import TournamentSpec, check_spec
from arena.tournament.worker import Failure, WorkerPool
from protocol import TimeControl

MATCH_FORMAT = "match"  # the format of a match's entry in the results store
MAX_TRIES = 3  # times a table is tried on a fresh worker before it is stored as failed
# How far a game moves its bots' pace (a running mean of the seconds each took over its decisions of a game, which
# orders a wave's tables).
PACE_WEIGHT = 0.2


@dataclass(frozen=True)
class TableJob:
    """One table to play, as a worker process needs it (plain, picklable values only)."""

    spec_game: str
    options: dict[str, Any] | None
    table: Table
    bots: tuple[tuple[tuple[str, ...], str | None], ...]  # argv and working directory per participant
    time: TimeControl
    fresh_processes: bool
    results_dir: Path
    sandbox: Sandbox = field(default_factory=Sandbox)  # with the CPUs of the worker's slot, if pinned
    store: Path | None = None  # the results store, which the sandbox covers wherever it is

    def stored_game(self, record: GameRecord, directory: Path, seconds: float) -> StoredGame:
        """One played game of the table as the store keeps it, numbered in the tournament's schedule."""
        return StoredGame.from_record(record, self.table.bots, directory, self.results_dir, self.table.first_seq,
                                      self.table.table, seconds)


@dataclass(frozen=True)
class TableResult:
    """A played table: its stored games (failed ones say why)."""

    table: Table
    games: tuple[StoredGame, ...]


def play_table(job: TableJob) -> TableResult:
    """Play one table as a match; an infrastructure failure is recorded as failed games, not raised."""
    start = time.perf_counter()
    config = MatchConfig(
        game=get_game(job.spec_game), bots=tuple(BotCommand(argv, cwd) for argv, cwd in job.bots),
        games=job.table.games, seed=job.table.seed, options=job.options, time=job.time,
        fresh_processes=job.fresh_processes, results_dir=job.results_dir, duplicate=job.table.duplicate,
        sandbox=job.sandbox, mark_folder=True, seatings=job.table.plan, names=tuple(job.table.bots), store=job.store)
    if job.sandbox.cpus:
        os.sched_setaffinity(0, job.sandbox.cpus)  # the worker shares its match's CPUs, not its neighbours'
    try:
        result = run_match(config)
    except (ArenaError, OSError, zmq.ZMQError) as exc:
        return failed_table(job.table, f"the match could not be played: {type(exc).__name__}: {exc}",
                       time.perf_counter() - start)
    per_game = (time.perf_counter() - start) / max(1, len(result.records))
    games = tuple(job.stored_game(record, result.directory, per_game) for record in result.records)
    return TableResult(job.table, games)


def failed_table(table: Table, reason: str, seconds: float = 0.0) -> TableResult:
    """Every game of a table stored as failed, with the reason."""
    return TableResult(table, tuple(StoredGame(seq, table.table, _failed_seed(table, i), table.seated(i),
                                               GameStatus.FAILED, reason, seconds=seconds)
                                    for i, seq in enumerate(table.seqs)))


def _failed_seed(table: Table, game: int) -> int:
    """The seed a failed game is stored with: its table's public seed (which replays the table), or the deal it
    was dealt under a secret one."""
    public = public_seed(table.seed)
    return derive_seed(table.seed, "deal", table.deal(game)) if public is None else public


def store_match(config: MatchConfig, result: MatchResult, db: Path) -> list[int]:
    """Keep the match's games in the results store as an entry of format 'match', named by the match id, so that
    `arena matches` and `arena show` browse them; returns the stored games' ids, in game order."""
    names = config.entrant_names()
    entrants = [Entrant(names[p], b.argv, b.cwd, version=s.version) for p, (b, s) in
                enumerate(zip(config.bots, result.standings))]
    settings = {"match": result.match_id, "seed": public_seed(config.seed), "games": config.games,
                "options": config.options, "time": config.time.to_wire(), "bots": [str(b) for b in config.bots],
                "names": list(names), "sandbox": config.sandbox.resolved().to_dict()}
    with Store(db) as store:
        t = store.open_tournament(result.match_id, config.game.name, MATCH_FORMAT, settings, entrants)
        if isinstance(config.seed, SecretSeed):
            store.secret(t.id, config.seed.key)  # kept where no bot reads it, as a tournament's is
        ids = store.record_games(t.id, [StoredGame.from_record(record, names, result.directory, config.results_dir)
                                        for record in result.records])
        store.finish_tournament(t.id)
    return ids


@dataclass(frozen=True)
class Progress:
    """What a progress display is told: games stored of the total (None: open-ended), how many of them this
    run played since `started` (a monotonic time), failures, and the current ratings."""

    done: int
    total: int | None
    done_now: int
    started: float
    ratings: Ratings
    failed: int = 0


class TablePlayer(Protocol):
    """Somewhere else to play tables (a Dask cluster, arena/tournament/cluster.py) instead of the local process pool."""

    def results(self, jobs: list[TableJob], out_of_time: Callable[[], bool]) -> Iterator[TableResult]: ...


class Tables:
    """Plays tables into results as they finish: in worker processes of its own (kept, with their checked and
    digested folders, until `close`), or on a TablePlayer; each entrant's pace, which orders the tables, kept too."""

    def __init__(self, spec: TournamentSpec, results_dir: Path, store: Path | None, jobs: int = 1,
                 player: TablePlayer | None = None) -> None:
        self.spec = spec  # the entrants and play settings the tables' jobs are made from (a ladder's change)
        self.results_dir, self.store, self.jobs, self.player = results_dir, store, jobs, player
        # Each entrant's pace (seconds a game over its decisions, a running mean), which orders the tables.
        self.pace: dict[str, float] = {}
        self._workers: WorkerPool[TableJob, TableResult] | None = None

    def results(self, tables: list[Table], no_new_table: Callable[[], bool]) -> Iterator[TableResult]:
        """The tables' results as they finish, the likeliest longest started first; no table starts once
        no_new_table() says so (asked before each)."""
        tables = longest_first(tables, self.pace)
        by_name = {e.name: e for e in self.spec.entrants}
        if self.player is not None:
            yield from self.player.results([self.job(t, by_name) for t in tables], no_new_table)
            return
        if self._workers is None:
            # Even one job runs in a worker: bots then see the worker as their parent and ARENA_PID, and whatever
            # they do to it costs only its table, never the tournament.
            self._workers = WorkerPool(self.jobs, play_table)
        yield from self._pooled(self._workers, tables, by_name, no_new_table)

    def job(self, table: Table, by_name: dict[str, Entrant], cpus: tuple[int, ...] = ()) -> TableJob:
        """What a worker needs to play the table."""
        spec = self.spec
        bots = tuple((by_name[b].command, by_name[b].cwd) for b in table.bots)
        return TableJob(spec.game, spec.options, table, bots, spec.time, spec.fresh_processes, self.results_dir,
                        replace(spec.sandbox, cpus=cpus), self.store)

    def _pooled(self, pool: WorkerPool[TableJob, TableResult], tables: list[Table], by_name: dict[str, Entrant],
                no_new_table: Callable[[], bool]) -> Iterator[TableResult]:
        """Play the tables in the pool's workers; a table whose worker failed is played again on a fresh one, and
        after MAX_TRIES failed tries it is stored as failed, with the reason."""
        queue = deque((table, 1) for table in tables)
        tries: dict[int, int] = {}  # slot -> the try its table is on
        cpus = cpu_sets(self.jobs)  # a slot per running table, with its own CPUs
        while queue or pool.busy():
            for slot in range(self.jobs):
                if queue and slot not in pool.busy() and not no_new_table():
                    table, tries[slot] = queue.popleft()
                    pool.submit(slot, self.job(table, by_name, cpus[slot] if cpus else ()))
            if not pool.busy():
                return
            for slot, job, outcome in pool.finished():
                if not isinstance(outcome, Failure):
                    yield outcome
                elif tries[slot] < MAX_TRIES:
                    queue.appendleft((job.table, tries[slot] + 1))
                else:
                    yield failed_table(job.table, f"{outcome.reason} (try {tries[slot]} of {MAX_TRIES})")

    def timed(self, games: tuple[StoredGame, ...]) -> None:
        """Move the pace of each bot of these games."""
        for game in games:
            for bot, seconds in zip(game.bots, game.thought):
                known = self.pace.get(bot)
                self.pace[bot] = seconds if known is None else known + PACE_WEIGHT * (seconds - known)

    def pids(self) -> list[int]:
        """The process ids of the worker processes running now (none on a TablePlayer)."""
        return self._workers.pids() if self._workers is not None else []

    def close(self) -> None:
        """Stop the workers (and their bots); the next tables start new ones."""
        if self._workers is not None:
            workers, self._workers = self._workers, None
            workers.close()


def unstored(store: Store, tid: int, wave: list[Table]) -> list[Table]:
    """The tables of a wave with a game not yet stored (a resumed run skips the others)."""
    # Only the wave's own positions: a set of every stored game would cost memory and time with each wave.
    done = store.done_seqs(tid, min((t.first_seq for t in wave), default=0),
                           max((t.first_seq + t.games for t in wave), default=0))
    return [t for t in wave if not set(t.seqs) <= done]


def open_tournament(store: Store, spec: TournamentSpec, name: str | None,
                    refused: tuple[Refusal, ...] = ()) -> tuple[Tournament, TournamentSpec]:
    """The spec's tournament opened (or resumed) in the store and held, and the spec with its seed: the name
    given, else that of the tournament this spec already started, else a new readable one; the submissions not
    admitted stored with it."""
    living = spec.fmt.living
    with store.naming():  # the same command started twice at once: one tournament, the other refused
        spec = _seed_of_old(store, spec, name, living)
        found = name or store.find_tournament(spec.game, spec.fmt.name, spec.identity(), living)
        tournament = store.open_tournament(found or store.unused_name(spec.default_name()), spec.game,
                                           spec.fmt.name, spec.identity(), list(spec.entrants), living)
    if public_seed(spec.seed) is None:  # its root: the secret kept with the tournament (drawn if it is new)
        fresh = spec.seed if isinstance(spec.seed, SecretSeed) else SecretSeed.draw()
        spec = replace(spec, seed=SecretSeed(store.secret(tournament.id, fresh.key) or fresh.key))
    store.record_refusals(tournament.id, list(refused))
    return tournament, spec


def _seed_of_old(store: Store, spec: TournamentSpec, name: str | None, living: tuple[str, ...]) -> TournamentSpec:
    """A spec without a seed, as the same command gave before secret seeds, resumes the tournament an older
    arena started with the same settings, with the seed 0 it had then: it stays public-seeded."""
    if spec.seed is not None:
        return spec
    public = replace(spec, seed=0)
    if name is None and store.find_tournament(spec.game, spec.fmt.name, spec.identity(), living) is None:
        name = store.find_tournament(spec.game, spec.fmt.name, public.identity(), living)
    old = store.older_tournament(name) if name else None
    return public if old is not None and old.config.get("seed") == 0 else spec


@dataclass
class Runner:
    """Plays one fixed schedule into a store, resuming whatever the store already holds (a format whose entrants
    change plays through arena/tournament/ladder.py)."""

    spec: TournamentSpec
    store: Store
    results_dir: Path
    jobs: int = 1
    name: str | None = None
    time_limit: float | None = None
    on_progress: Callable[[Progress], None] | None = None
    on_start: Callable[[Tournament], None] | None = None  # told once the tournament is open and held by this run
    tournament: Tournament | None = None
    player: TablePlayer | None = None  # None: the local worker processes
    refused: tuple[Refusal, ...] = ()  # the submissions not admitted this run, stored with the tournament
    _tables: Tables | None = field(default=None, init=False, repr=False)
    _begun: bool = field(default=False, init=False, repr=False)  # a table was started this run
    played: int = field(default=0, init=False)  # games (finished or failed) this run recorded

    def run(self) -> Ratings:
        """Play every game not yet stored; returns the final ratings (also saved in the store).

        ConfigError, before anything is stored, if the spec cannot be played or would never end.
        """
        try:
            return self._run()
        finally:
            self.close()

    def _run(self) -> Ratings:
        spec = self.spec
        if spec.fmt.entrants_change:
            raise ConfigError(f"a {spec.fmt.name} plays through arena.tournament.ladder.Ladder, not a Runner")
        check_spec(spec, self.time_limit)
        check_folders(tuple(BotCommand(e.command, e.cwd) for e in spec.entrants), self.results_dir, spec.sandbox)
        self.tournament, self.spec = open_tournament(self.store, spec, self.name, self.refused)
        self._tables = Tables(self.spec, self.results_dir, self.store.path, self.jobs, self.player)
        leftovers.sweep(self.results_dir, self.store.replays())  # what killed arenas left behind
        if self.on_start is not None:
            self.on_start(self.tournament)
        self._deadline = None if self.time_limit is None else time.monotonic() + self.time_limit
        self._started = time.monotonic()
        self.played = 0
        tid = self.tournament.id
        self._total = self.spec.fmt.total_games(self.spec)
        self._done_before = self.store.recorded_count(tid)
        self._failed = self.store.failed_count(tid) if self.on_progress else 0
        # Live ratings for the progress display follow finishing order; the final ones are rebuilt in schedule order.
        self._live = (rate_all(self.spec.rating, self.store.each_outcome(tid), in_order=True) if self.on_progress
                      else Ratings(self.spec.rating))
        self._play_waves()
        ratings = rate_all(self.spec.rating, self.store.each_outcome(tid), in_order=True)
        self.store.save_ratings(tid, ratings)
        self.store.finish_tournament(tid, self.complete())
        return ratings

    def complete(self) -> bool:
        """True once every scheduled game is stored (an open-ended format: its number of games reached)."""
        return self._total is not None and self.store.recorded_count(self.tournament.id) >= self._total

    def start_no_new_table(self) -> None:
        """End the run once its tables under way are stored (from another thread)."""
        self._deadline = time.monotonic()

    def _out_of_time(self) -> bool:
        # Never before the run's first table: each run of a time-limited command then moves the tournament on,
        # however late its first table could start on a busy machine.
        return self._begun and self._deadline is not None and time.monotonic() >= self._deadline

    def _no_new_table(self) -> bool:
        """Asked before each table starts: True once out of time; else the table starts, and the run has begun."""
        if self._out_of_time():
            return True
        self._begun = True
        return False

    def _play_waves(self) -> None:
        """The format's schedule wave by wave, each asked for once the one before it is stored, until the time
        limit; tables already stored are skipped."""
        tid = self.tournament.id
        waves = self.spec.fmt.waves(self.spec, self._outcomes)
        while not self._out_of_time():
            wave = next(waves, None)
            if wave is None:
                return
            self._play(unstored(self.store, tid, wave))

    def _outcomes(self, first: int, below: int) -> list[GameOutcome]:
        return self.store.outcomes(self.tournament.id, first, below)

    def _play(self, tables: list[Table]) -> None:
        assert self._tables is not None
        for result in self._tables.results(tables, self._no_new_table):
            self.store.record_games(self.tournament.id, list(result.games))
            leftovers.release_replays(self.results_dir, (game.replay for game in result.games))
            self.played += len(result.games)
            self._tables.timed(result.games)
            self._report(result)

    def close(self) -> None:
        """Stop the workers (and their bots); the next run starts new ones."""
        if self._tables is not None:
            self._tables.close()

    def _report(self, result: TableResult) -> None:
        """Tell the progress display, at a cost that does not grow with the games already stored."""
        if self.on_progress is None:
            return
        for game in result.games:
            if game.status == GameStatus.DONE and game.ranks is not None:
                self._live = self._live.after(GameOutcome(game.seq, game.bots, game.ranks))
        # Not a count over every game stored.
        self._failed += sum(game.status == GameStatus.FAILED for game in result.games)
        self.on_progress(Progress(self._done_before + self.played, self._total, self.played, self._started,
                                  self._live, self._failed))


def longest_first(tables: list[Table], pace: dict[str, float]) -> list[Table]:
    """The tables in the order to start them: the likeliest longest first (by the sum of their bots' paces; a bot
    not yet timed as the slowest), so that a long table started last does not hold the wave up while the other
    workers wait for the next one."""
    slowest = max(pace.values(), default=0.0)
    return sorted(tables, key=lambda t: -sum(pace.get(bot, slowest) for bot in t.bots))
