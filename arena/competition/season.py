"""The competition `arena serve` plays while it serves: uploads admitted two at once, an author's one at a time
(built in the sandbox, then a first game against the sample bots), and the ladder of the admitted bots' latest
versions played wave after wave, its public pages published after each wave."""

from __future__ import annotations

import contextlib
import logging
import re
import sqlite3
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Protocol

from arena.bots import folders
from arena.bots.channel import expect_progress_within
from arena.bots.entrants import Entrant, from_folder, shown, survey
from arena.bots.entrants import shown_to_author as without_host_paths
from arena.bots.sandbox import Sandbox
from arena.bots.submission import BUILD_TIMEOUT, ensure_built
from arena.competition import names
from arena.competition.uploads import UploadLimits
from arena.errors import ArenaError, BuildFailed, ConfigError
from arena.games import get_game
from arena.match.record import CLOCK_OPTION, LIMIT_OPTIONS
from arena.storage import Store
from arena.storage.authors import Status, Submission
from arena.storage.keys import upload_version
from arena.tournament.admission import first_game
from arena.tournament.assembly import lineup
from arena.tournament.cluster import ClusterLost, ClusterPlayer
from arena.tournament.cluster_tls import ClusterAccess
from arena.tournament.formats.base import Play, check_spec
from arena.tournament.formats.ladder import DEFAULT_WAVE, Ladder, LadderState
from arena.tournament.opponents import DEFAULT_LEVEL, sample_opponents
from arena.tournament.run import Runner, TableJob, TableResult, play_table
from arena.tournament.worker import Failure, WorkerPool
from protocol import TimeControl

log = logging.getLogger("arena.serve")
IDLE = 0.5  # seconds between two looks for work when there is none
BUILD_LOG = 20_000  # characters of a build's log kept with its submission
PAUSE_AFTER = 5  # games in a row with a fault of its own after which a bot sits out until its next version
BUILD_WALKS = 4  # walks of a submission's folder around its build (digests and checks), each within its time limit
BUILDING = "building this submission"  # an admission's steps, as a failure of the worker names them
FIRST_GAME = "playing this submission's first game"
ADMISSIONS = 2  # uploads admitted at once, each of another author's
BUILD_CLOCK = 2.0  # seconds between two records of a running build's time: a stop or SIGKILL loses no more
CUT_AFTER = 20.0  # seconds a wave plays before an admission may end it
WAVE_SECONDS = 60.0  # no new table of a wave starts after this long, so that a stop is quick
TABLES_A_WORKER = 4  # a ladder wave's tables for each worker at the least, with more than one worker
RECONNECT = 5.0  # seconds between two tries to reach a lost Dask scheduler


@dataclass(frozen=True, kw_only=True)
class SeasonSettings:
    """What the hosted ladder plays: the game, its table, clocks, sandbox and ratings, and how many at once."""

    play: Play
    name: str
    results_dir: Path
    db: Path
    seats: int | None = None
    wave: int = DEFAULT_WAVE
    jobs: int = 1
    samples: str = DEFAULT_LEVEL
    seed: int | None = None
    pause_after: int = PAUSE_AFTER
    cluster: str | None = None  # a Dask scheduler's address, or "local": where the bots run (none here then)
    cluster_access: ClusterAccess = ClusterAccess()  # the credentials to reach a scheduler not started here
    max_built: int = UploadLimits().max_unpacked  # bytes a built folder may hold, as an upload unpacked may

    def check(self) -> None:
        """ConfigError naming the first setting the game or the season would refuse at its first wave (seats, game
        options, clocks, sandbox, ratings), so that a server that could never play is not started."""
        play, seats = self.play, self.table_seats
        samples = sample_opponents(play.game, seats, set(), self.samples)
        spec = replace(lineup(replace(play, sandbox=play.sandbox.resolved()), Ladder(), samples, seats,
                              samples=self.samples), wave=self.wave, max_games=1, seed=self.seed, title=self.name)
        check_spec(spec, WAVE_SECONDS)
        if self.db.is_file():  # a season stored already goes on only with its settings: said now, not every wave
            with Store(self.db, readonly=True) as store:
                fmt, living = spec.fmt.name, spec.fmt.living
                problems = [store.resume_problem(self.name, fmt, s.identity(), living)
                            for s in (spec, *((replace(spec, seed=0),) if spec.seed is None else ()))]
            if all(problems):  # the seed 0 of a store from before secret seeds, as the ladder resumes it too
                raise ConfigError(str(problems[0]))

    @property
    def table_seats(self) -> int:
        """The seats of every table: given, else the game's fewest (a fixed number: the ladder's tables never
        change size as bots join)."""
        return self.seats or get_game(self.play.game).min_players

    @property
    def site(self) -> Path:
        """Where the public pages are published."""
        return self.results_dir / "site"

    @property
    def built(self) -> Path:
        """Where the built copies of submissions admitted on a cluster are kept, by their digest."""
        return self.results_dir / "built"

    @property
    def uploads(self) -> Path:
        """Where uploaded submissions are unpacked, one folder each."""
        return self.results_dir / "uploads"


def entrant_of(submission: Submission) -> Entrant:
    """The ladder entrant of an admitted submission: its bot's name, its folder, and a version that tells two
    uploads apart even when their manifests say the same."""
    entrant = from_folder(Path(submission.folder))
    return replace(entrant, name=submission.bot, version=upload_version(submission.version, submission.id),
                   author=submission.author)


def first_game_record(submission: Submission) -> Path:
    """Where the first game of a submission refused for a fault in it is kept, beside its folder: its author's
    replay of that fault."""
    folder = Path(submission.folder)
    return folder.parent / f"{folder.name}-first-game.json"


class Season:
    """The admission and ladder threads of a server; `stop()` ends them (a game cut off is played again on the
    next start, as the store holds only finished games)."""

    def __init__(self, settings: SeasonSettings, on_wave: Callable[[], None] = lambda: None) -> None:
        self.settings = settings
        self.on_wave = on_wave
        self.stopping = threading.Event()
        self.runner: Runner | None = None
        self.playing: tuple[str, ...] = ()
        self.games = 0  # stored in the ladder by this server
        self.wave_began = 0.0  # when the wave under way began (time.monotonic())
        self._claims = threading.Lock()
        self._admitting: set[str] = set()  # the authors one of whose uploads is being admitted now
        self._paused: set[int] = set()  # the submissions sitting out at the last wave (each said once in the log)
        # One ladder for the whole season: its ratings and counts kept as games are stored, the history read once.
        self.ladder = LadderState()
        self.pool: WorkerPool[TableJob, TableResult] | None = None  # the ladder's workers, kept from wave to wave
        self._ladder_store: Store | None = None  # the ladder thread's connection, kept from wave to wave
        self.recorded: int | None = None  # the season's games recorded, counted once and then kept
        self.pace: dict[str, float] = {}  # each entrant's pace, which orders a wave's tables: kept from wave to wave
        self._player: ClusterPlayer | None = None  # with --cluster, once the scheduler has been reached
        self._connecting = threading.Lock()
        self._lost: str | None = None  # what was said of the cluster's loss, until it is reached again
        self._said = threading.Lock()  # apart from _connecting, which cluster() holds while it says the loss
        self.threads = [*(threading.Thread(target=self._guard, args=(self._admissions,), name=f"admissions-{n}",
                                           daemon=True) for n in range(ADMISSIONS)),
                        threading.Thread(target=self._guard, args=(self._ladder,), name="ladder", daemon=True)]

    def start(self) -> None:
        with Store(self.settings.db) as store:
            requeued = store.requeue_unfinished()
        if requeued:
            log.info("%d submission(s) cut off by the last stop are queued again", requeued)
        for thread in self.threads:
            thread.start()

    def stop(self, wait: float = 10.0) -> None:
        """Start no new game or admission, and wait a while for those under way."""
        self.stopping.set()
        runner = self.runner
        if runner is not None:
            runner._deadline = time.monotonic()  # no new table; the ones under way finish
        deadline = time.monotonic() + wait
        for thread in self.threads:
            if thread.ident is not None:  # started
                thread.join(max(0.0, deadline - time.monotonic()))
        ladder = self.threads[-1]
        if not ladder.is_alive():  # else its workers and connection end with this process, as a stop intends
            if self.pool is not None:
                self.pool.close()
                self.pool = None
            if self._ladder_store is not None:
                with contextlib.suppress(sqlite3.ProgrammingError):  # opened by the ladder's thread: it goes too
                    self._ladder_store.close()
                self._ladder_store = None
        if self._player is not None:
            self._player.close()
            self._player = None

    def cluster(self) -> ClusterPlayer | None:
        """The Dask cluster the season plays on (None without --cluster): reached at its first use, and again
        after it was lost (ClusterLost, an ArenaError, while it cannot be reached: the caller tries later)."""
        address = self.settings.cluster
        if address is None:
            return None
        with self._connecting:
            if self._player is not None and self._player.connected():
                if self._lost is not None:  # the client reached it again by itself
                    log.info("the Dask scheduler at %s is reached again", address)
                    self._lost = None
                return self._player
            if self._player is not None:
                self._said_lost(f"the Dask scheduler at {address} was lost; reaching it again")
                self._player.close()
                self._player = None
            try:
                self._player = ClusterPlayer(address, self.settings.jobs, self.settings.results_dir,
                                             built_dir=self.settings.built, access=self.settings.cluster_access)
            except ConfigError as exc:
                raise ClusterLost(f"{exc}; tried again in a while (the pages are served meanwhile)") from None
            log.info("playing on the Dask cluster at %s", address)
            self._lost = None
            return self._player

    def _said_lost(self, message: str) -> None:
        """Log the cluster's loss once per outage, however many threads find it and in whatever words: a
        scheduler may be away for hours, and each try fails again."""
        with self._said:
            said, self._lost = self._lost, self._lost or message
        if said is None:
            log.error("%s", message)

    def _guard(self, loop: Callable[[], None]) -> None:
        while not self.stopping.is_set():
            try:
                loop()
            except ClusterLost as exc:
                player = self._player
                if player is None or not player.connected():  # else a thread of before found the old client gone
                    self._said_lost(str(exc))
                self.stopping.wait(RECONNECT)
            except ArenaError as exc:
                log.error("%s", exc)
                self.stopping.wait(5 * IDLE)

    # --- admissions ---------------------------------------------------------------------------------------------
    def _admissions(self) -> None:
        # Each of ADMISSIONS threads has a worker that admits one upload after another (a worker is started again
        # only if one fails): a burst of uploads does not start an interpreter for each, and no author's build,
        # however long, holds up the others', since an author has one upload admitted at a time.
        with Store(self.settings.db) as store, self._admitter() as worker:
            while not self.stopping.is_set():
                claimed = self._claim(store)
                if claimed is None:
                    self.stopping.wait(IDLE)
                    continue
                try:
                    self.admit(store, claimed, worker)
                finally:
                    with self._claims:
                        self._admitting.discard(claimed.author)

    def _claim(self, store: Store) -> Submission | None:
        """The oldest queued upload of an author none of whose uploads is being admitted now, taken for this
        thread (it is building from then on), or None."""
        with self._claims:
            for submission in store.submissions(status=Status.QUEUED):
                if submission.author not in self._admitting:
                    self._admitting.add(submission.author)
                    store.set_status(submission.id, Status.BUILDING)
                    return submission
        return None

    def _admitter(self) -> contextlib.AbstractContextManager[Admitter]:
        """Where admissions run: on the cluster with --cluster (the same player for every thread), else in a
        worker process of this thread's own."""
        player = self.cluster()
        return contextlib.nullcontext(player) if player is not None else AdmissionWorker()

    def admit(self, store: Store, submission: Submission, worker: Admitter | None = None) -> None:
        """Build a submission in the sandbox and play its first game against the sample bots (in `worker`, else
        in one of its own, or on the cluster): admitted, or refused with the reason. If the cluster is lost
        meanwhile, it is queued again (ClusterLost raised)."""
        if worker is None:
            with self._admitter() as own:
                return self.admit(store, submission, own)
        try:
            self._admit(store, submission, worker)
        except ClusterLost:
            store.set_status(submission.id, Status.QUEUED)
            raise

    def _admit(self, store: Store, submission: Submission, worker: Admitter) -> None:
        s = self.settings
        folder = Path(submission.folder)
        build_log = folder.parent / f"{folder.name}-build.log"
        store.set_status(submission.id, Status.BUILDING)
        failed = self._build(store, submission, build_log, worker)
        if failed is not None:
            store.set_status(submission.id, Status.REFUSED, shown_to_author(f"the build failed: {failed}", folder),
                             shown_to_author(_tail(build_log), folder))
            log.info("refused %s %s: its build failed", submission.bot, submission.version)
            return
        store.set_status(submission.id, Status.VALIDATING, build_log=shown_to_author(_tail(build_log), folder))
        try:
            play = s.play
            reason = worker.first_game(entrant_of(submission), play.game, play.options, play.time,
                                       play.sandbox.resolved(), first_game_record(submission))
        except ClusterLost:
            raise
        except ArenaError as exc:
            reason = str(exc)
        if reason is None:
            store.set_status(submission.id, Status.ADMITTED)
            log.info("admitted %s %s", submission.bot, submission.version)
            runner = self.runner
            # The wave under way starts no new table, so that the next one seats the newcomer; unless it began
            # only just now, so that a burst of admissions does not cut every wave down to a few games (the
            # newcomer then waits for this wave's end, at most WAVE_SECONDS).
            if runner is not None and time.monotonic() - self.wave_began >= CUT_AFTER:
                runner.start_no_new_table()
        else:
            store.set_status(submission.id, Status.REFUSED, shown_to_author(reason, folder))
            log.info("refused %s %s: its first game", submission.bot, submission.version)

    def _build(self, store: Store, submission: Submission, build_log: Path, worker: Admitter) -> str | None:
        """Build the submission in the worker within what is left of its BUILD_TIMEOUT (each try's time counted
        in the store as it runs, so that a stop and a start give it no more): why it failed, or None."""
        spent = store.build_seconds(submission.id)
        if spent >= BUILD_TIMEOUT:
            return f"the build went over its {BUILD_TIMEOUT:g} s (counted across stops of the arena)"
        began, recorded = time.monotonic(), spent

        def count() -> None:
            nonlocal recorded
            now = spent + time.monotonic() - began
            if now - recorded >= BUILD_CLOCK:
                store.set_build_seconds(submission.id, now)
                recorded = now

        try:
            return worker.build(submission.folder, build_log, self.settings.play.sandbox.resolved(),
                                BUILD_TIMEOUT - spent, count, self.settings.max_built)
        finally:
            store.set_build_seconds(submission.id, spent + time.monotonic() - began)

    # --- the ladder ---------------------------------------------------------------------------------------------
    def _ladder(self) -> None:
        store = self._store()
        entrants, sitting = [], {}
        for submission in store.current_versions():
            reason = pause_reason(self.settings, submission, store)
            if reason is None:
                try:
                    entrants.append(entrant_of(submission))
                except ArenaError as exc:  # its folder was damaged since: it sits out, and the organiser is told
                    reason = shown_to_author(str(exc), Path(submission.folder))
            if reason is not None:
                sitting[submission.id] = reason
                if submission.id not in self._paused:  # said once, not at every wave
                    log.warning("paused %s %s (upload %d): %s", submission.bot, submission.version, submission.id,
                                reason)
        self._paused = set(sitting)
        self.play_wave(entrants)  # with none admitted yet, the sample bots play each other: a field to join

    def play_wave(self, entrants: list[Entrant]) -> None:
        """One wave of ladder tables among these entrants (the latest version of each bot) and the sample bots."""
        s = self.settings
        seats = s.table_seats
        # A season's wave is a run of its own (its workers started, the pages published after it), so it plays
        # `seats` of the ladder's waves of one-game tables: as many games as one wave of every seat rotation.
        player = self._player_for(entrants)
        # With several workers, each gets several tables of a ladder's wave, so that the wave's last table (its
        # games' lengths differ) holds the others up for a small part of it.
        workers = s.jobs if player is None else player.capacity()
        wave = s.wave if workers == 1 else max(s.wave, TABLES_A_WORKER * workers)
        per_wave = wave * seats
        store = self._store()
        if self.recorded is None:
            self.recorded = _stored_games(store, s.name)  # once: a count of every stored game grows with the season
        # A full table of sample bots always plays: a bar every bot is measured against, rated before the first
        # admission, so that a newcomer is ranked against a settled field from its first games.
        play = s.play
        samples = sample_opponents(play.game, seats, {e.name for e in entrants}, s.samples)
        spec = replace(lineup(replace(play, sandbox=play.sandbox.resolved()), Ladder(), [*entrants, *samples], seats,
                              samples=s.samples), wave=wave, max_games=self.recorded + per_wave, seed=s.seed,
                       title=s.name)
        if player is None:
            self.pool = self.pool or WorkerPool(s.jobs, play_table)
        self.runner = runner = Runner(spec, store, s.results_dir, jobs=s.jobs, name=s.name, time_limit=WAVE_SECONDS,
                                      ladder=self.ladder, sweep=self.ladder.ratings is None, pool=self.pool,
                                      recorded=self.recorded, player=player, pace=self.pace)
        self.wave_began = time.monotonic()
        self.playing = tuple(e.name for e in entrants)
        try:
            if not self.stopping.is_set():
                runner.run()
        finally:
            self.runner = None
            self.recorded += runner.played
        self.games = self.recorded
        self.on_wave()

    def _store(self) -> Store:
        """The ladder's connection to the store, opened once (its check of the whole file too) and kept."""
        if self._ladder_store is None:
            self._ladder_store = Store(self.settings.db)
        return self._ladder_store

    def _player_for(self, entrants: list[Entrant]) -> ClusterPlayer | None:
        """The cluster a wave plays on (None: the local workers), told which folders are still in play: the
        versions retired since the last wave leave its workers' caches."""
        player = self.cluster()
        if player is not None:
            store = self._store()  # and the uploads being admitted now, sent for their first game
            admitting = {s.folder for status in (Status.BUILDING, Status.VALIDATING)
                         for s in store.submissions(status=status)}
            player.retire({e.cwd for e in entrants if e.cwd is not None} | admitting)
        return player


Step = Callable[[Any], str]  # one step of an admission, run in a worker: why it failed, or ""


class Admitter(Protocol):
    """Where an admission's steps run: an AdmissionWorker, or a Dask cluster (arena/tournament/cluster.py)."""

    def build(self, folder: str, log: Path, sandbox: Sandbox, time_left: float,
              meanwhile: Callable[[], None], max_size: int | None = None) -> str | None: ...

    def first_game(self, entrant: Entrant, game: str, options: dict[str, Any] | None, clock: TimeControl,
                   sandbox: Sandbox, record_to: Path | None = None) -> str | None: ...


class AdmissionWorker:
    """One worker process that runs an admission's steps one after the other, as the ladder's tables are run: the
    server itself then starts no bot and never becomes the subreaper that a bot's sandbox processes would be
    handed to, which it would keep as zombies."""

    def __init__(self) -> None:
        self.pool: WorkerPool[tuple[Step, tuple[Any, ...]], str] = WorkerPool(1, _run_step)

    def __enter__(self) -> AdmissionWorker:
        return self

    def __exit__(self, *_: object) -> None:
        self.pool.close()

    def build(self, folder: str, log: Path, sandbox: Sandbox, time_left: float = BUILD_TIMEOUT,
              meanwhile: Callable[[], None] = lambda: None, max_size: int | None = None) -> str | None:
        """Build the submission's folder in the sandbox within time_left seconds, to at most max_size bytes; why
        it failed, or None."""
        return self.run(_build_step, (folder, log, sandbox, None, time_left, max_size), BUILDING, meanwhile)

    def first_game(self, entrant: Entrant, game: str, options: dict[str, Any] | None, clock: TimeControl,
                   sandbox: Sandbox, record_to: Path | None = None) -> str | None:
        """The entrant's first game against the sample bots; why it failed, or None (the record of a failed game
        kept at `record_to`)."""
        return self.run(_game_step, (entrant, game, options, clock, sandbox, None, None, record_to), FIRST_GAME)

    def run(self, step: Step, job: tuple[Any, ...], doing: str, meanwhile: Callable[[], None] = lambda: None) -> \
            str | None:
        """Run step on job in the worker (calling meanwhile() at every look until it ends): what it says went wrong
        (or what became of the worker, which is said to be `doing` the step), or None."""
        self.pool.doing = doing
        self.pool.submit(0, (step, job))
        while True:
            meanwhile()
            for _, _, outcome in self.pool.finished():
                why = outcome.reason if isinstance(outcome, Failure) else outcome
                return why or None


def _run_step(order: tuple[Step, tuple[Any, ...]]) -> str:
    step, job = order
    return step(job)


def _build_step(job: tuple[str, Path, Sandbox, None, float, int | None]) -> str:
    """In a worker: build a submission's folder; why the build failed, or "" (a worker's result is never None)."""
    # A build asks no bot anything: without word, the pool would take its worker for stuck after STALL_SLACK.
    expect_progress_within(BUILD_TIMEOUT + BUILD_WALKS * folders.TIME_LIMIT)
    try:
        ensure_built(*job)
    except BuildFailed as exc:
        return str(exc) or "no reason given"
    return ""


def _game_step(job: tuple[Entrant, str, dict[str, Any] | None, TimeControl, Sandbox, None, None, Path | None]) -> str:
    """In a worker: a submission's first game against the sample bots; why it failed, or ""."""
    try:
        failed = first_game(*job)
    except ArenaError as exc:
        return str(exc) or "no reason given"
    return "" if failed is None else failed[0]


def enter_folders(settings: SeasonSettings, directory: Path, reserved: set[str]) -> tuple[int, list[str]]:
    """Queue the organiser's own submission folders under directory for admission, in place, as the house author's
    (the first organiser): (how many were queued, a line for each folder not entered and why). A folder whose bot
    is queued or admitted at its version already is left as it is, so a restart enters nothing twice."""
    entrants, refused = survey(directory)
    problems = [r.reason for r in refused]
    queued = 0
    with Store(settings.db) as store:
        house = store.house_author()
        for entrant in entrants:
            holder = names.taken_by(entrant.name, house.name, store.bot_owners(), reserved)
            if holder is not None:
                like = "" if holder[0] == entrant.name else f" looks like {holder[0]!r}, which"
                problems.append(f"{shown(entrant.cwd or '')}: the bot name {entrant.name!r}{like} belongs to "
                                f"{holder[1]}: give this bot a name of its own")
                continue
            folder = str(Path(entrant.cwd or "").resolve())
            queued += store.add_house_submission(house, entrant.name, entrant.version, folder) is not None
    return queued, problems


def paused(settings: SeasonSettings, submission: Submission, store: Store | None = None) -> bool:
    """True if the submission's last `pause_after` ladder games each had a fault of its own: it sits out (its
    author's page says so) until a new version is admitted. Looked up in `store` if given (one connection for a
    whole field), else in a connection of its own."""
    if store is None:
        with Store(settings.db) as own:
            return paused(settings, submission, own)
    found = [t for t in store.tournaments() if t.name == settings.name]
    if not found:
        return False
    version = upload_version(submission.version, submission.id)
    key = next((k for k, name, v, _ in store.roster(found[0].id) if name == submission.bot and v == version), None)
    return key is not None and store.faulty_streak(found[0].id, key, settings.pause_after) >= settings.pause_after


def pause_reason(settings: SeasonSettings, submission: Submission, store: Store | None = None) -> str | None:
    """Why an admitted submission sits out of the ladder (as its author and the organiser are told it), or None
    if it plays: its folder is missing on the server, or its last games each had a fault of its own."""
    if not Path(submission.folder).is_dir():
        return ("its files are missing on the server (the organiser is told): it plays again once they are back, or "
                "once a new version is admitted")
    if paused(settings, submission, store):
        return (f"each of its last {settings.pause_after} games had a fault of its own: it plays again once a new "
                "version is admitted")
    return None


def _stored_games(store: Store, name: str) -> int:
    """How many games the named tournament has stored (0 before it exists)."""
    found = [t for t in store.tournaments() if t.name == name]
    return store.recorded_count(found[0].id) if found else 0


# A limit's option as the arena's own commands name it, which a competitor of a server cannot give.
_RAISE_IT = re.compile(r"\(raise it with (?:%s)\)" % "|".join(
    re.escape(option) for option in sorted({*LIMIT_OPTIONS.values(), CLOCK_OPTION})))
COMPETITION_LIMIT = "(set by the competition: make the bot answer sooner)"


def shown_to_author(text: str, *folders: Path | str) -> str:
    """A refusal or build log as its author is shown it: no path of the server's machine (see
    entrants.shown_to_author), and a limit is the competition's, not an option to raise."""
    return _RAISE_IT.sub(COMPETITION_LIMIT, without_host_paths(text, *folders))


def _tail(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-BUILD_LOG:]
    except OSError:
        return ""

