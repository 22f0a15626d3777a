"""Publishing speed: a results store of many real games, built quickly in-process, then published and republished."""

from __future__ import annotations

import random
import resource
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from arena.bots.entrants import Entrant
from arena.bots.process import BotCommand
from arena.errors import FaultKind
from arena.games import Game, get_game
from arena.match.play import MatchConfig, match_directory
from arena.match.record import DecisionRecord, FaultRecord, GameRecord, Phase, SeatRecord, record_file, save_record
from arena.match.seeds import derive_seed
from arena.match.wire import outcome
from arena.storage import DEFAULT_DB_NAME, Store
from arena.tournament.formats import Ladder as LadderFormat
from arena.tournament.formats.base import Play, TournamentSpec
from arena.tournament.ladder import Ladder
from arena.tournament.run import TableJob, TableResult

BENCH_BOTS = 6
BENCH_SEATS = 4
FLAKY_RATE = 0.002  # the last bot's share of decisions that time out: bot pages and game pages show faults
ADDED = 0.01  # the share of games added before the last republish


class InProcessPlayer:
    """Plays a tournament's tables in this process with random players instead of bot processes, and writes each
    game's record where a match would: the store and replay files are those a real tournament leaves."""

    def __init__(self, flaky: str | None = None) -> None:
        self.flaky = flaky

    def results(self, jobs: list[TableJob], out_of_time: Callable[[], bool]) -> Iterator[TableResult]:
        """Each table played in turn, as a match of random players."""
        for job in jobs:
            if out_of_time():
                return
            yield self._table(job)

    def _table(self, job: TableJob) -> TableResult:
        start = time.perf_counter()
        config = MatchConfig(game=get_game(job.spec_game), bots=tuple(BotCommand(a, c) for a, c in job.bots),
                             games=job.table.games, seed=job.table.seed, options=job.options, time=job.time,
                             results_dir=job.results_dir, duplicate=job.table.duplicate, seatings=job.table.plan,
                             names=job.table.bots)
        match_id, directory = match_directory(config)
        records = []
        for g in range(config.games):
            record = self._game(config, match_id, g)
            save_record(record, directory / record_file(g))
            records.append(record)
        per_game = (time.perf_counter() - start) / len(records)
        return TableResult(job.table, tuple(job.stored_game(r, directory, per_game) for r in records))

    def _game(self, config: MatchConfig, match_id: str, g: int) -> GameRecord:
        seating = config.seating(g)
        names = config.entrant_names()
        n = len(seating.participants)
        seed = derive_seed(config.seed, "deal", seating.deal)
        state = config.game.new_state(n, seed, config.options)
        rng = random.Random(f"bench-publish:{match_id}:{g}")
        decisions: list[DecisionRecord] = []
        faults: list[FaultRecord] = []
        asked, counts, out = [0] * n, [0] * n, set()
        timeout = config.time.timeout
        while (seat := state.current_player()) is not None:
            number = len(decisions)
            who = names[seating.participants[seat]]
            if seat in out:
                decisions.append(DecisionRecord(seat, 0, None))
            elif who == self.flaky and rng.random() < FLAKY_RATE:
                asked[seat] += 1
                counts[seat] += 1
                out |= {seat} if counts[seat] >= config.max_faults else set()
                decisions.append(DecisionRecord(seat, 0, timeout, FaultKind.TIMEOUT))
                faults.append(FaultRecord(g, seat, seating.participants[seat], who, number, Phase.DECIDE,
                                          FaultKind.TIMEOUT, f"no answer within {timeout:g} s",
                                          "thinking...\n" * 3, asked[seat], None, timeout))
            else:
                asked[seat] += 1
                decisions.append(DecisionRecord(seat, rng.randrange(len(state.options())),
                                                round(rng.uniform(0.0002, 0.02), 6)))
            state.apply(decisions[-1].index)
        result = state.result()
        seats = tuple(SeatRecord(s, p, names[p], "1.0", str(config.bots[p]), derive_seed(config.seed, "bot", g, s),
                                 1, True, entrant=names[p]) for s, p in enumerate(seating.participants))
        return GameRecord(match_id, g, config.game.name, config.options, n, seed, config.time, seats,
                          tuple(decisions), tuple(faults), tuple(sorted(out)), result,
                          outcome(result, frozenset(out)).ranks, config.max_faults)


def bench_store(game: str, games: int, results_dir: Path, seed: int = 0) -> int:
    """Play a ladder of BENCH_BOTS random bots at tables of BENCH_SEATS until `games` games are stored under
    results_dir (more of the same ladder if it is there already); returns how many games it holds."""
    bot = (sys.executable, "-m", "sample_bots.random_bot")
    entrants = tuple(Entrant(f"random-{i + 1}", bot, author="bench") for i in range(BENCH_BOTS))
    seats = min(BENCH_SEATS, get_game(game).max_players)
    spec = TournamentSpec(Play(game=game), LadderFormat(), entrants, seats, max_games=games, seed=seed,
                          title=f"{game} publishing benchmark")
    with Store(results_dir / DEFAULT_DB_NAME) as store:
        ladder = Ladder(store, spec, results_dir, player=InProcessPlayer(flaky=entrants[-1].name))
        ladder.play()
        return store.recorded_count(store.tournament().id)  # the bench's store holds this ladder alone


@dataclass(frozen=True)
class PublishBench:
    """Seconds to publish a store of `games` games: cold with and without game pages, again with nothing changed,
    and again after `added` more games."""

    game: str
    games: int
    added: int
    build: float  # seconds to play and store the games (not publishing)
    cold: float
    cold_no_games: float
    unchanged: float
    after_added: float
    site_bytes: int
    cpu: tuple[float, float, float, float]  # CPU seconds of each publish (this process and its workers)


def bench_publish(game: Game, games: int, jobs: int | None = None,
                  progress: Callable[[str], None] = lambda _: None) -> PublishBench:
    """Time `arena publish` of a fresh store of `games` games of a ladder of random bots (see bench_store)."""
    from arena.site import publish

    added = max(1, round(games * ADDED))
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        results = Path(tmp) / "results"
        progress(f"playing {games:,} games of {game.name} into a store ...")
        start = time.perf_counter()
        stored = bench_store(game.name, games, results)
        build = time.perf_counter() - start

        cpu: list[float] = []

        def timed(out: str, with_games: bool = True) -> float:
            progress(f"publishing to {out}{'' if with_games else ' without game pages'} ...")
            begin, begin_cpu = time.perf_counter(), _cpu_seconds()
            with Store.existing(results / DEFAULT_DB_NAME) as store:
                publish(store, results, Path(tmp) / out, game_pages=with_games, jobs=jobs)
            cpu.append(_cpu_seconds() - begin_cpu)
            return time.perf_counter() - begin

        cold = timed("site")
        cold_no_games = timed("site-no-games", with_games=False)
        unchanged = timed("site")
        progress(f"playing {added:,} more games ...")
        added = bench_store(game.name, stored + added, results) - stored
        after = timed("site")
        size = sum(p.stat().st_size for p in (Path(tmp) / "site").rglob("*") if p.is_file())
    return PublishBench(game.name, stored, added, build, cold, cold_no_games, unchanged, after, size,
                        (cpu[0], cpu[1], cpu[2], cpu[3]))


def _cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (the page workers, once a publish is done):
    on a shared machine it says what a publish costs better than the clock does."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
