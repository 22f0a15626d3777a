"""A season at scale: the ladder's matchmaking time per wave at many entrants, `arena rerate` and `arena
leaderboard` on a store of many games (filled through the store's own API, outcomes drawn from the rating model),
and a ladder of real games with the arena's memory sampled as it plays."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from arena.bench.ranking import CONFIG, random_wave
from arena.bots.entrants import Entrant
from arena.ratings.trueskill import Rating, Ratings, rate_all
from arena.storage import Store, StoredGame, StoreError
from arena.storage.records import GameStatus
from arena.tournament.formats.base import DEFAULT_WAVE
from arena.tournament.formats.ladder import ladder_wave, seat_balanced

SEASON_SEATS = 4
NAME = "season"


@dataclass(frozen=True)
class Season:
    """The figures of one season: entrants, stored games, and what each step took."""

    entrants: int
    games: int
    wave_ms: tuple[float, float]  # median milliseconds and CPU milliseconds to choose a wave of DEFAULT_WAVE tables
    fill_seconds: float
    store_mb: float
    rerate: tuple[float, float]  # seconds and CPU seconds of `arena rerate`
    leaderboard: tuple[float, float]  # seconds and CPU seconds of `arena leaderboard` (its table, as a user asks)
    startup: tuple[float, float]  # seconds and CPU seconds of `arena leaderboard --help`: what it costs to start


def wave_time(entrants: int, waves: int = 30) -> tuple[float, float]:
    """The median milliseconds and CPU milliseconds the ladder takes to choose a wave from a settled field of
    `entrants` bots: its tables, and each table's seats, as `Ladder.waves` does."""
    rng = np.random.default_rng(entrants)
    names = [f"bot{i:05d}" for i in range(entrants)]
    ratings = Ratings(CONFIG, {n: Rating(float(m), float(s)) for n, m, s in
                               zip(names, rng.normal(25, 8, entrants), rng.uniform(0.7, 3, entrants))})
    sat = {n: [int(c) for c in row] for n, row in zip(names, rng.integers(12, 38, (entrants, SEASON_SEATS)))}
    counts = {n: sum(row) for n, row in sat.items()}
    times, cpu = [], []
    for w in range(waves):
        start, start_cpu = time.perf_counter(), time.thread_time()
        for table in ladder_wave(ratings, counts, names, SEASON_SEATS, DEFAULT_WAVE, w * DEFAULT_WAVE,
                                 w * DEFAULT_WAVE, 1):
            seat_balanced(table, sat, 1)
        times.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - start_cpu)
    return 1000 * float(np.median(times)), 1000 * float(np.median(cpu))


def fill(db: Path, entrants: int, games: int) -> None:
    """A ladder of `entrants` bots and `games` games in the store at `db`, written table by table as a run
    writes them (random tables, outcomes drawn from the rating model)."""
    rng = np.random.default_rng(games)
    names = [f"bot{i:05d}" for i in range(entrants)]
    skill = dict(zip(names, rng.normal(CONFIG.mu, 2 * CONFIG.beta, entrants)))
    config = {"rating": CONFIG.to_dict(), "sandbox": {"level": "none"}, "seats": SEASON_SEATS}
    with Store(db) as store:
        t = store.open_tournament(NAME, "bali-2017", "ladder", config,
                                  [Entrant(n, ("python3", "-m", "sample_bots.random_bot")) for n in names])
        seq = table = 0
        while seq < games:
            for tab in random_wave(Ratings(CONFIG), {}, names, SEASON_SEATS, DEFAULT_WAVE, seq, table, table):
                perf = [skill[b] + rng.normal(0, CONFIG.beta) for b in tab.bots]
                ranks = tuple(int(r) + 1 for r in np.argsort(np.argsort(-np.array(perf))))
                store.record_games(t.id, [StoredGame(seq + g, tab.table, 0, tab.seated(g), GameStatus.DONE, "finished",
                                                     scores=tuple(10 - r for r in ranks), ranks=ranks)
                                          for g in range(tab.games)])
                seq += tab.games
            table += DEFAULT_WAVE
        store.finish_tournament(t.id, complete=False)


def _timed(*args: str) -> tuple[float, float]:
    """Seconds and CPU seconds of `arena ARGS` in a subprocess (CPU time tells on a busy machine)."""
    def cpu() -> float:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime
    start, start_cpu = time.perf_counter(), cpu()
    subprocess.run([sys.executable, "-m", "arena", *args], check=True, capture_output=True)
    return time.perf_counter() - start, cpu() - start_cpu


def bench_season(entrants: int, games: int) -> Season:
    """Fill a store, then time `arena rerate` and `arena leaderboard` on it as a user runs them."""
    with tempfile.TemporaryDirectory(prefix="arena-season-") as tmp:
        db = Path(tmp) / "arena.sqlite"
        start = time.perf_counter()
        fill(db, entrants, games)
        filled = time.perf_counter() - start
        rerate = _timed("rerate", "--db", str(db))
        board = _timed("leaderboard", "--db", str(db))
        size = sum(p.stat().st_size for p in Path(tmp).glob("arena.sqlite*")) / 1e6
    return Season(entrants, games, wave_time(entrants), filled, size, rerate, board,
                  _timed("leaderboard", "--help"))


@dataclass(frozen=True)
class Sample:
    """One look at a real season under way: when, how many games stored, and the arena's memory."""

    seconds: float
    games: int
    arena_mib: float  # the arena process's resident memory
    workers_mib: float  # its worker processes' together (not the bots')


@dataclass(frozen=True)
class Kill:
    """A worker killed during a real season: its pid and the games stored when it was killed."""

    pid: int
    games: int


@dataclass(frozen=True)
class RealSeason:
    """A ladder of real games: entrants, games asked and stored, and the samples taken while it played."""

    entrants: int
    games: int
    stored: int
    seconds: float
    store_mb: float
    samples: tuple[Sample, ...]
    peak_mib: float  # the arena process's largest resident memory over the whole run, its start and end included
    killed: Kill | None = None  # the worker killed during the run, if one was asked for and it was


REAL_BOT = "sample_bots.random_bot"  # the cheapest sample bot: the season measures the arena, not the bots
REAL_GAME = "bali-2017"  # the shorter game
KILL_LOOK = 0.2  # seconds between two looks at the games stored, until the worker asked for is killed
WORKER_MARK = b"spawn_main"  # in a pool worker's command line (multiprocessing's spawn), not in its resource tracker's


def bench_season_real(entrants: int, games: int, jobs: int, every: float = 30.0,
                      progress: Callable[[Sample], None] = lambda sample: None, cluster: bool = False,
                      kill_at: int | None = None) -> RealSeason:
    """Play a ladder of `entrants` random bots for `games` real games with `jobs` workers (`arena tournament`
    as a user runs it, sandbox none; `cluster`: on a local Dask cluster of `jobs` workers), sampling the games
    stored and the arena's memory every `every` seconds; once `kill_at` games are stored, one of its workers is
    killed (SIGKILL), as a crash would end it."""
    bots = [f"r{i:05d}={sys.executable} -m {REAL_BOT}" for i in range(entrants)]
    where = ["--cluster", "local"] if cluster else []
    with tempfile.TemporaryDirectory(prefix="arena-season-real-") as tmp:
        db = Path(tmp) / "arena.sqlite"
        log = Path(tmp) / "season.log"  # its progress lines: a file, never a pipe it could fill and block on
        with log.open("w") as out:
            run = subprocess.Popen([sys.executable, "-m", "arena", "tournament", REAL_GAME, *bots, "--format",
                                    "ladder", "--seats", str(SEASON_SEATS), "--games", str(games), "--jobs",
                                    str(jobs), "--sandbox", "none", "--seed", "0", "--name", NAME, "--results", tmp,
                                    "--db", str(db), *where], stdout=subprocess.DEVNULL, stderr=out)
        start, samples, killed = time.perf_counter(), [], None
        while True:
            due = every * (len(samples) + 1) - (time.perf_counter() - start)
            try:
                run.wait(max(0.0, due if kill_at is None or killed else min(due, KILL_LOOK)))
                break
            except subprocess.TimeoutExpired:
                pass
            if kill_at is not None and killed is None:
                killed = _kill_worker(run.pid, db, kill_at)
            if time.perf_counter() - start >= every * (len(samples) + 1):
                samples.append(Sample(time.perf_counter() - start, _stored_games(db), *_memory(run.pid)))
                progress(samples[-1])
        if run.returncode:
            raise RuntimeError(f"the season stopped with exit code {run.returncode}: "
                               f"{log.read_text(errors='replace')[-2000:]}")
        size = sum(p.stat().st_size for p in Path(tmp).glob("arena.sqlite*")) / 1e6
        # The arena is this process's only child, and the largest process it waited for in turn: the peak is its.
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        return RealSeason(entrants, games, _stored_games(db), time.perf_counter() - start, size, tuple(samples),
                          peak, killed)


def _kill_worker(pid: int, db: Path, at: int) -> Kill | None:
    """Once `at` games are stored, SIGKILL one worker of the arena process `pid` (None: not yet, or no worker
    running to kill at this look)."""
    stored = _stored_games(db)
    if stored < at:
        return None
    for child in _children(pid):
        try:
            if WORKER_MARK in Path(f"/proc/{child}/cmdline").read_bytes():
                os.kill(child, signal.SIGKILL)
                return Kill(child, stored)
        except OSError:
            continue  # gone meanwhile: the next one, or the next look
    return None


def counted(db: Path, count: Callable[[Store], int]) -> int:
    """A count read from the store at db while another process writes it: 0 before its file and tables exist."""
    if not db.exists():
        return 0
    try:
        with Store(db, readonly=True) as store:
            return count(store)
    except StoreError:  # the tables not made yet
        return 0


def _stored_games(db: Path) -> int:
    """Games stored so far (read while the season writes)."""
    return counted(db, lambda store: store.finished_count())


def _children(pid: int) -> list[int]:
    """The child processes of `pid`."""
    children = []
    for task in Path(f"/proc/{pid}/task").glob("*"):  # every thread's: a Dask cluster's workers are started by one
        try:
            children += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass  # gone meanwhile
    return children


def _memory(pid: int) -> tuple[float, float]:
    """Resident MiB of the process `pid` and of its children that are Python workers (not bots)."""
    def rss(p: int) -> float:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass  # gone meanwhile
        return 0.0
    workers = 0.0
    for child in _children(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if REAL_BOT.encode() not in command:
            workers += rss(int(child))
    return rss(pid), workers


KNOWN_BOT = "sample_bots.mixed_bot"  # the heuristic's move with probability P, else a random one
KNOWN_LEVELS = tuple(i / 10 for i in range(11))  # the field's P: a larger P plays better


@dataclass(frozen=True)
class KnownField:
    """A ladder of bots of known order in real games: the board's Kendall tau with that order as games were added."""

    games: int
    seconds: float
    taus: tuple[tuple[int, float, float], ...]  # (games rated, Kendall tau of the board with the known order, and
    # of the final ranking's board: the same games rated with the dynamics factor off, as `arena rerate --final`)
    board: tuple[tuple[str, float, float], ...]  # the final board: name, mu, sigma, as ranked


def bench_known_field(games: int, jobs: int, points: int = 10) -> KnownField:
    """Play a ladder of KNOWN_LEVELS mixed bots for `games` real bali-2017 games (`arena tournament` as a user runs
    it, sandbox none), then rate its stored games in schedule order up to `points` cut-offs and compare each board
    (ranked as displayed, by mu - 3 sigma), as played and as `arena rerate --final` re-rates it, with the known
    order."""
    from scipy.stats import kendalltau

    names = [f"p{round(100 * p):03d}" for p in KNOWN_LEVELS]
    bots = [f"{n}={sys.executable} -m {KNOWN_BOT} {p}" for n, p in zip(names, KNOWN_LEVELS)]
    with tempfile.TemporaryDirectory(prefix="arena-known-", ignore_cleanup_errors=True) as tmp:  # a reader may linger
        db = Path(tmp) / "arena.sqlite"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "arena", "tournament", REAL_GAME, *bots, "--format", "ladder",
                        "--seats", str(SEASON_SEATS), "--games", str(games), "--jobs", str(jobs), "--sandbox", "none",
                        "--seed", "0", "--name", NAME, "--results", tmp, "--db", str(db)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - start
        with Store(db) as store:
            outcomes = store.outcomes(store.tournament(NAME).id)
    def tau(ratings: Ratings) -> float:
        return float(kendalltau(KNOWN_LEVELS, [ratings.get(n).conservative for n in names]).statistic)

    taus = []
    for cut in sorted({max(1, len(outcomes) * (k + 1) // points) for k in range(points)}):
        ratings = rate_all(CONFIG, outcomes[:cut])
        taus.append((cut, tau(ratings), tau(rate_all(replace(CONFIG, tau=0.0), outcomes[:cut]))))
    ranked = sorted(names, key=lambda n: (-ratings.get(n).conservative, n))
    return KnownField(len(outcomes), seconds, tuple(taus),
                      tuple((n, ratings.get(n).mu, ratings.get(n).sigma) for n in ranked))


@dataclass(frozen=True)
class ClusterSeason:
    """`arena serve`'s season on a local Dask cluster: games stored over a timed window once every entrant was
    admitted, and the machine's load then."""

    workers: int
    entrants: int
    games: int
    seconds: float
    load: tuple[float, float, float]  # the 1, 5 and 15 minute load averages at the window's end
    page_p95: float  # ms: the 95th percentile of the public leaderboard's answers (its page and API) meanwhile

    @property
    def per_minute(self) -> float:
        """Ladder games stored a minute."""
        return 60 * self.games / self.seconds


# The same waves for 1 and 2 workers (16 tables, more than either chooses by itself), so that only the workers differ.
CLUSTER_WAVE = 16
BOARD_PAUSE = 0.5  # seconds between two readings of the public leaderboard while the season plays
BOARD_PATIENCE = 60.0  # seconds an answer may take on a loaded machine before the benchmark gives up
SERVE_LADDER = f"{REAL_GAME}-ladder"  # the ladder's name in the store: arena serve's default


THINKER = (  # a house bot's program: the random sample bot, asleep THINK seconds before each answer
    "import time\n"
    "from protocol import run_bot\n"
    "from sample_bots.random_bot import RandomBot\n\n\n"
    "class Thinker(RandomBot):\n"
    "    def decide(self, view, options, decision):\n"
    "        time.sleep(THINK)\n"
    "        return super().decide(view, options, decision)\n\n\n"
    "run_bot(Thinker())\n")


def bench_season_cluster(workers: int, entrants: int, seconds: float, think: float = 0.0,
                         progress: Callable[[str], None] = lambda line: None) -> ClusterSeason:
    """Run `arena serve REAL_GAME --cluster local --jobs workers` (sandbox none, 4 seats, waves of CLUSTER_WAVE
    tables, the random sample bots)
    with `entrants` house folders of the random bot (asleep `think` seconds before each answer, if given: a bot
    that thinks on a machine of its own, costing this one nothing meanwhile), wait until each is admitted (built
    and first-played on the cluster), then count the ladder games stored in `seconds`."""
    with tempfile.TemporaryDirectory(prefix="arena-season-cluster-") as tmp:
        entries = Path(tmp) / "entries"
        houses = {f"r{i:03d}" for i in range(entrants)}
        for house in houses:
            _house_folder(entries / house, think)
        results = Path(tmp) / "results"
        log = Path(tmp) / "serve.log"
        with log.open("w") as err:
            run = subprocess.Popen([sys.executable, "-m", "arena", "serve", REAL_GAME, "--port", "0", "--jobs",
                                    str(workers), "--cluster", "local", "--sandbox", "none", "--samples", "random",
                                    "--seats", str(SEASON_SEATS), "--wave", str(CLUSTER_WAVE), "--results",
                                    str(results), "--submissions", str(entries)], stdout=subprocess.PIPE, stderr=err,
                                   text=True)
        try:
            started = run.stdout.readline() if run.stdout else ""
            if not started.startswith("serving on"):
                raise RuntimeError(f"arena serve did not start: {log.read_text(errors='replace')[-2000:]}")
            db = results / "arena.sqlite"
            # Counted from the first wave that seats every entrant: the wave under way at the last admission was
            # drawn without some of them (the sample bots alone, at first), and its games are not the season's.
            while counted(db, _on_the_ladder(houses)) < entrants:
                _still_serving(run, log)
                time.sleep(0.2)
            progress(f"{workers} worker(s): {entrants} entrants admitted and on the ladder; counting games for "
                     f"{seconds:g} s")
            games, took, answers = _count_games(run, db, log, started.split()[-1], seconds)
            return ClusterSeason(workers, entrants, games, took, os.getloadavg(),
                                 float(np.percentile(answers, 95)) if answers else 0.0)
        finally:
            run.send_signal(signal.SIGINT)
            try:
                run.wait(30)
            except subprocess.TimeoutExpired:
                run.kill()
                run.wait()


def _count_games(run: subprocess.Popen[str], db: Path, log: Path, url: str,
                 seconds: float) -> tuple[int, float, list[float]]:
    """The ladder games stored over `seconds` (and until one is) while the board is read, the seconds that took, and
    the board's answers in milliseconds."""
    start, before = time.perf_counter(), counted(db, _ladder_games)

    def stored() -> bool:
        _still_serving(run, log)
        return counted(db, _ladder_games) > before

    answers = _read_the_board(url, seconds, stored)
    return counted(db, _ladder_games) - before, time.perf_counter() - start, answers


def _still_serving(run: subprocess.Popen[str], log: Path) -> None:
    """RuntimeError with the end of its log if `arena serve` has stopped."""
    if run.poll() is not None:
        raise RuntimeError(f"arena serve stopped: {log.read_text(errors='replace')[-2000:]}")


def _read_the_board(url: str, seconds: float, stored: Callable[[], bool]) -> list[float]:
    """Read the public leaderboard, its page and its API, every BOARD_PAUSE for `seconds` and until `stored()` says
    a game was stored meanwhile (a short window on a loaded machine may close before any game ends, which would
    make a rate of nothing), as a visitor does while the season plays: each answer's milliseconds."""
    import httpx

    answers: list[float] = []
    deadline = time.monotonic() + seconds
    with httpx.Client(base_url=url, timeout=BOARD_PATIENCE) as client:
        while time.monotonic() < deadline or not stored():
            for path in ("/", "/api/leaderboard"):
                start = time.perf_counter()
                client.get(path).raise_for_status()
                answers.append(1000 * (time.perf_counter() - start))
            time.sleep(max(0.0, min(BOARD_PAUSE, deadline - time.monotonic())) if time.monotonic() < deadline
                       else BOARD_PAUSE)  # a visitor's pace, not a flood
    return answers


def _house_folder(folder: Path, think: float) -> None:
    """A house folder of the random sample bot, or of one asleep `think` seconds before each answer."""
    folder.mkdir(parents=True)
    command = [sys.executable, "-m", REAL_BOT]
    if think:
        (folder / "bot.py").write_text(THINKER.replace("THINK", repr(think)), encoding="utf-8")
        command = [sys.executable, "bot.py"]
    (folder / "manifest.toml").write_text(f'name = "{folder.name}"\nversion = "1"\ncommand = {json.dumps(command)}\n',
                                          encoding="utf-8")


def _on_the_ladder(houses: set[str]) -> Callable[[Store], int]:
    """A count of these house bots playing on the served ladder now: its roster is written as a wave starts."""
    def count(store: Store) -> int:
        found = [t.id for t in store.tournaments() if t.name == SERVE_LADDER]
        roster = store.roster(found[0]) if found else []
        return sum(1 for _, name, _, retired in roster if not retired and name in houses)
    return count


def _ladder_games(store: Store) -> int:
    """The served ladder's finished games."""
    found = [t.id for t in store.tournaments() if t.name == SERVE_LADDER]
    return store.finished_count(found[0]) if found else 0
