"""The competition `arena serve` plays while it serves: uploads admitted two at once, an author's one at a time
(built in the sandbox, then a first game against the sample bots), and the ladder of the admitted bots' latest
versions played wave after wave, its public pages published after each wave."""

from __future__ import annotations

import contextlib
import datetime
import logging
import sqlite3
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from arena.bots.entrants import Entrant, from_folder, survey
from arena.bots.shown import shown, shown_to_author
from arena.competition import ending, names, webhooks
from arena.competition.addresses import AllowedHosts
from arena.competition.uploads import UploadLimits
from arena.errors import ArenaError, ConfigError
from arena.games import get_game
from arena.storage import Store
from arena.storage.authors import Status, Submission
from arena.storage.keys import upload_version
from arena.tournament.admission import BUILD_TIMEOUT, FirstGame, admit_submission, build_log_of
from arena.tournament.admission.workers import AdmissionWorker, Admitter
from arena.tournament.assembly import lineup
from arena.tournament.cluster import ClusterLost, ClusterPlayer
from arena.tournament.cluster_tls import ClusterAccess
from arena.tournament.formats.base import Play, check_spec
from arena.tournament.formats.ladder import DEFAULT_WAVE
from arena.tournament.formats.ladder import Ladder as LadderFormat
from arena.tournament.ladder import Ladder
from arena.tournament.opponents import DEFAULT_LEVEL, sample_opponents
from arena.tournament.run import Runner

log = logging.getLogger("arena.serve")
IDLE = 0.5  # seconds between two looks for work when there is none
PAUSE_AFTER = 5  # games in a row with a fault of its own after which a bot sits out until its next version
ADMISSIONS = 2  # uploads admitted at once, each of another author's
BUILD_CLOCK = 2.0  # seconds between two records of a running build's time: a stop or SIGKILL loses no more
CUT_AFTER = 20.0  # seconds a wave plays before an admission may end it
WAVE_SECONDS = 60.0  # no new table of a wave starts after this long, so that a stop is quick
TABLES_A_WORKER = 4  # a ladder wave's tables for each worker at the least, with more than one worker
RECONNECT = 5.0  # seconds between two tries to reach a lost Dask scheduler
CHALLENGES_PER_DAY = 10  # challenges an author may ask for in 24 hours ([serve] challenges_per_day)
CHALLENGE_GAMES = 200  # games a challenge may ask for ([serve] challenge_games): a version test's cap too


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
    ends: datetime.datetime | None = None  # when the season ends (UTC): uploads close, its finals are played
    finals_top: int = ending.FINALS_TOP
    finals_confidence: float = ending.FINALS_CONFIDENCE
    finals_games: int = ending.FINALS_GAMES
    challenges_per_day: int = CHALLENGES_PER_DAY
    challenge_games: int = CHALLENGE_GAMES
    webhook_hosts: tuple[str, ...] = ()  # hosts webhooks may reach though their addresses are refused (no SSRF)

    def check(self) -> None:
        """ConfigError naming the first setting the game or the season would refuse at its first wave (seats, game
        options, clocks, sandbox, ratings), so that a server that could never play is not started."""
        if self.challenges_per_day < 1 or self.challenge_games < 2:
            raise ConfigError(f"challenges_per_day must be at least 1 and challenge_games at least 2 (a version test "
                              f"plays pairs), got {self.challenges_per_day} and {self.challenge_games}")
        play, seats = self.play, self.table_seats
        samples = sample_opponents(play.game, seats, set(), self.samples)
        spec = replace(lineup(replace(play, sandbox=play.sandbox.resolved()), LadderFormat(), samples, seats,
                              samples=self.samples), wave=self.wave, max_games=1, seed=self.seed, title=self.name)
        check_spec(spec, WAVE_SECONDS)
        ending.check_finals(self.finals_top, self.finals_confidence, self.finals_games, seats)
        AllowedHosts(self.webhook_hosts)  # ConfigError for a host that is none
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
        self._aside: Runner | None = None  # a run besides the ladder's under way: a challenge's slot, the finals
        self.between: Callable[[Store], None] = lambda store: None  # played between two waves (challenges.py)
        self.playing: tuple[str, ...] = ()  # the entrants of the wave under way (none between waves)
        self.games = 0  # stored in the ladder by this server
        self.wave_began = 0.0  # when the wave under way began (time.monotonic())
        self._claims = threading.Lock()
        self._admitting: set[str] = set()  # the authors one of whose uploads is being admitted now
        self._paused: set[int] = set()  # the submissions sitting out at the last wave (each said once in the log)
        # One ladder for the whole season, opened at its first wave: its ratings, field, workers, paces and counts
        # kept as games are stored, the history read once.
        self.ladder: Ladder | None = None
        self.ending = ending.Ending(settings)  # once the season has ended, its finals instead of the ladder
        self._ladder_store: Store | None = None  # the ladder thread's connection, kept from wave to wave
        self._entrants: dict[int, Entrant] = {}  # each admitted submission's entrant, built once and kept
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
        if self.ladder is not None:
            self.ladder.stop()  # no new table; the ones under way finish
        aside = self._aside
        if aside is not None:
            aside.start_no_new_table()
        deadline = time.monotonic() + wait
        for thread in self.threads:
            if thread.ident is not None:  # started
                thread.join(max(0.0, deadline - time.monotonic()))
        ladder = self.threads[-1]
        if not ladder.is_alive():  # else its workers and connection end with this process, as a stop intends
            if self.ladder is not None:
                self.ladder.close()
            if self._ladder_store is not None:
                with contextlib.suppress(sqlite3.ProgrammingError):  # opened by the ladder's thread: it goes too
                    self._ladder_store.close()
                self._ladder_store = None
        if self._player is not None:
            self._player.close()
            self._player = None

    def run_aside(self, runner: Runner) -> None:
        """Play a run besides the ladder's (a challenge's slot between two waves, the finals) on the ladder's
        thread, held so that stop() ends it as it ends a wave; nothing once the season is stopping."""
        self._aside = runner
        try:
            if not self.stopping.is_set():
                runner.run()
        finally:
            self._aside = None

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
            for submission in () if self.ending.due() else store.submissions(status=Status.QUEUED):
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
        """The one admission pipeline, each status recorded in the store as it comes."""
        s, folder = self.settings, Path(submission.folder)

        clock = _BuildClock(store, submission.id)

        def told(status: Status, reason: str, build_log: str | None) -> None:
            if status != Status.BUILDING:
                clock.stop()  # the build is over: the first game's time is not the build's
            store.set_status(submission.id, status, reason, build_log)
            if status == Status.ADMITTED:
                log.info("admitted %s %s", submission.bot, submission.version)
                webhooks.announce_decision(store, submission, Status.ADMITTED)
                self.cut_wave()
            elif status == Status.REFUSED:
                log.info("refused %s %s: %s", submission.bot, submission.version, reason)
                webhooks.announce_decision(store, submission, Status.REFUSED, reason)

        play = FirstGame(s.play.game, s.play.options, s.play.time, s.play.sandbox.resolved())
        try:
            admit_submission(folder, lambda: entrant_of(submission), play, worker, told,
                             build_log=build_log_of(folder), record_to=first_game_record(submission),
                             time_left=clock.time_left, meanwhile=clock.tick, max_size=s.max_built)
        finally:
            clock.stop()

    # --- the ladder ---------------------------------------------------------------------------------------------
    def cut_wave(self) -> None:
        """The wave under way starts no new table, so that the next one seats a newcomer; unless it began only just
        now, so that a burst of admissions does not cut every wave down to a few games (the newcomer then waits
        for this wave's end, at most WAVE_SECONDS). Between waves it changes nothing: the next starts afresh."""
        ladder = self.ladder
        if ladder is not None and time.monotonic() - self.wave_began >= CUT_AFTER:
            ladder.end_play()

    def _ladder(self) -> None:
        if self.ending.due():
            return self.ending.play(self)
        store = self._store()
        entrants, sitting = [], {}
        current = self._store().current_versions()
        # A replaced version's entrant goes: the kept ones are the field's own, however long the season.
        self._entrants = {s.id: e for s in current for e in [self._entrants.get(s.id)] if e is not None}
        for submission in current:
            reason = self._sits_out(submission)
            if reason is None:
                entrant = self._entrant(submission)
                if isinstance(entrant, str):  # its folder was damaged since: it sits out, the organiser is told
                    reason = entrant
                else:
                    entrants.append(entrant)
            if reason is not None:
                sitting[submission.id] = reason
                if submission.id not in self._paused:  # said once, not at every wave
                    log.warning("paused %s %s (upload %d): %s", submission.bot, submission.version, submission.id,
                                reason)
                    webhooks.announce_pause(store, submission, reason)
        self._paused = set(sitting)
        self.play_wave(entrants)  # with none admitted yet, the sample bots play each other: a field to join
        if not self.stopping.is_set():
            self.between(self._store())

    def _sits_out(self, submission: Submission) -> str | None:
        """Why an admitted submission sits out of the next wave, or None: its fault streak as the ladder counts
        it while storing games, never a look through the store."""
        if not Path(submission.folder).is_dir():
            return MISSING
        s, ladder = self.settings, self.ladder
        version = upload_version(submission.version, submission.id)
        streak = 0 if ladder is None else ladder.fault_streak(submission.bot, version, s.pause_after)
        return faulty_reason(s) if streak >= s.pause_after else None

    def _entrant(self, submission: Submission) -> Entrant | str:
        """The submission's ladder entrant, built once (its manifest read, its folder walked) and then kept; or
        why it cannot be built."""
        entrant = self._entrants.get(submission.id)
        if entrant is None:
            try:
                entrant = self._entrants[submission.id] = entrant_of(submission)
            except ArenaError as exc:
                return shown_to_author(str(exc), Path(submission.folder))
        return entrant

    def play_wave(self, entrants: list[Entrant]) -> None:
        """One wave of ladder tables among these entrants (the latest version of each bot) and the sample bots."""
        s = self.settings
        seats = s.table_seats
        player = self._player_for(entrants)
        # With several workers, each gets several tables of a ladder's wave, so that the wave's last table (its
        # games' lengths differ) holds the others up for a small part of it.
        workers = s.jobs if player is None else player.capacity()
        wave = s.wave if workers == 1 else max(s.wave, TABLES_A_WORKER * workers)
        # A full table of sample bots always plays: a bar every bot is measured against, rated before the first
        # admission, so that a newcomer is ranked against a settled field from its first games.
        field = [*entrants, *sample_opponents(s.play.game, seats, {e.name for e in entrants}, s.samples)]
        ladder = self.ladder or self._open(field, wave)
        ladder.use(player)
        ladder.enter(field)
        self.wave_began = time.monotonic()
        self.playing = tuple(e.name for e in entrants)
        ratings = None
        try:
            if not self.stopping.is_set():
                # A season's wave is a play of its own (the pages published after it): `seats` of the ladder's
                # waves of one-game tables, as many games as one wave of every seat rotation.
                ratings = ladder.play(games=wave * seats, seconds=ending.seconds_left(s, WAVE_SECONDS), wave=wave)
        finally:
            self.playing = ()
            self.games = ladder.recorded
        if ratings is not None:  # each bot whose place on the board moved is told
            webhooks.announce_ranks(ladder.store, {k: r.conservative for k, r in ratings.table.items()},
                                    ladder.retired())
        self.on_wave()

    def _open(self, field: list[Entrant], wave: int) -> Ladder:
        """The season's ladder, opened once on the ladder thread's connection."""
        s, play = self.settings, self.settings.play
        spec = replace(lineup(replace(play, sandbox=play.sandbox.resolved()), LadderFormat(), field, s.table_seats,
                              samples=s.samples), wave=wave, seed=s.seed, title=s.name)
        self.ladder = Ladder(self._store(), spec, s.results_dir, name=s.name, jobs=s.jobs, time_limit=WAVE_SECONDS)
        return self.ladder

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


class _BuildClock:
    """A submission's build time, counted in the store as the build runs (every BUILD_CLOCK seconds, and once more
    when it ends), so that a stop and a start give it no more than its BUILD_TIMEOUT."""

    def __init__(self, store: Store, sid: int) -> None:
        self.store, self.sid = store, sid
        self.spent = self.recorded = store.build_seconds(sid)
        self.began = time.monotonic()
        self.running = True

    @property
    def time_left(self) -> float:
        return BUILD_TIMEOUT - self.spent

    def tick(self) -> None:
        now = self.spent + time.monotonic() - self.began
        if self.running and now - self.recorded >= BUILD_CLOCK:
            self.store.set_build_seconds(self.sid, now)
            self.recorded = now

    def stop(self) -> None:
        """The build is over (or cut off): its time recorded once more, and no more."""
        if self.running:
            self.running = False
            self.store.set_build_seconds(self.sid, self.spent + time.monotonic() - self.began)


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


MISSING = ("its files are missing on the server (the organiser is told): it plays again once they are back, or once "
           "a new version is admitted")


def faulty_reason(settings: SeasonSettings) -> str:
    """Why a bot whose last games each had a fault of its own sits out, as its author is told it."""
    return (f"each of its last {settings.pause_after} games had a fault of its own: it plays again once a new "
            "version is admitted")


def paused(settings: SeasonSettings, submission: Submission, store: Store | None = None) -> bool:
    """True if the submission's last `pause_after` ladder games each had a fault of its own: it sits out (its
    author's page says so) until a new version is admitted. Looked up in `store` if given, else in a connection
    of its own (a page's question; the ladder counts its own streaks as it stores games)."""
    if store is None:
        with Store(settings.db) as own:
            return paused(settings, submission, own)
    found = store.named_tournament(settings.name)
    if found is None:
        return False
    version = upload_version(submission.version, submission.id)
    key = next((k for k, name, v, _ in store.roster(found.id) if name == submission.bot and v == version), None)
    return key is not None and store.faulty_streak(found.id, key, settings.pause_after) >= settings.pause_after


def pause_reason(settings: SeasonSettings, submission: Submission, store: Store | None = None) -> str | None:
    """Why an admitted submission sits out of the ladder (as its author and the organiser are told it), or None
    if it plays: its folder is missing on the server, or its last games each had a fault of its own."""
    if not Path(submission.folder).is_dir():
        return MISSING
    return faulty_reason(settings) if paused(settings, submission, store) else None
