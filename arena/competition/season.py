"""The competition `arena serve` plays while it serves: its settings, and the season that runs its admission
threads (admissions.py) and the ladder of the admitted bots' latest versions, played wave after wave, its public
pages published after each wave."""

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

from arena.bots.entrants import Entrant, survey
from arena.bots.shown import shown, shown_to_author
from arena.competition import ending, names, webhooks
from arena.competition.addresses import AllowedHosts
from arena.competition.admissions import ADMISSIONS, IDLE, Admissions, entrant_of
from arena.competition.cluster_link import ClusterLink
from arena.competition.uploads import UploadLimits
from arena.errors import ArenaError, ConfigError
from arena.games import get_game
from arena.storage import Store
from arena.storage.authors import Status, Submission
from arena.storage.keys import upload_version
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
PAUSE_AFTER = 5  # games in a row with a fault of its own after which a bot sits out until its next version
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


class Season:
    """The admission and ladder threads of a server; `stop()` ends them (a game cut off is played again on the
    next start, as the store holds only finished games)."""

    def __init__(self, settings: SeasonSettings, on_wave: Callable[[], None] = lambda: None,
                 between: Callable[[Season, Store], None] = lambda season, store: None) -> None:
        self.settings = settings
        self.on_wave = on_wave
        self.between = between  # played between two waves (a challenge's slot: challenges.py)
        self.stopping = threading.Event()
        self._aside: Runner | None = None  # a run besides the ladder's under way: a challenge's slot, the finals
        self.playing: tuple[str, ...] = ()  # the entrants of the wave under way (none between waves)
        self.games = 0  # stored in the ladder by this server
        self.wave_began = 0.0  # when the wave under way began (time.monotonic())
        self._paused: set[int] = set()  # the submissions sitting out at the last wave (each said once in the log)
        # One ladder for the whole season, opened at its first wave: its ratings, field, workers, paces and counts
        # kept as games are stored, the history read once.
        self.ladder: Ladder | None = None
        self.ending = ending.Ending(settings)  # once the season has ended, its finals instead of the ladder
        self._ladder_store: Store | None = None  # the ladder thread's connection, kept from wave to wave
        self._entrants: dict[int, Entrant] = {}  # each admitted submission's entrant, built once and kept
        self.link = ClusterLink(settings.cluster, settings.jobs, settings.results_dir, settings.built,
                                settings.cluster_access)
        self.admissions = Admissions(settings, self.link, self.stopping, closed=self.ending.due,
                                     admitted=self.cut_wave)
        self.threads = [*(threading.Thread(target=self._guard, args=(self.admissions.run,), name=f"admissions-{n}",
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
        self.link.close()

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
        """The Dask cluster the season plays on (None without --cluster); ClusterLost while it cannot be reached."""
        return self.link.player()

    def _guard(self, loop: Callable[[], None]) -> None:
        while not self.stopping.is_set():
            try:
                loop()
            except ClusterLost as exc:
                self.link.lost(exc)
                self.stopping.wait(RECONNECT)
            except ArenaError as exc:
                log.error("%s", exc)
                self.stopping.wait(5 * IDLE)

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
        store = self.store()
        entrants, sitting = [], {}
        current = store.current_versions()
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
            self.between(self, self.store())

    def _sits_out(self, submission: Submission) -> str | None:
        """Why an admitted submission sits out of the next wave, or None: its fault streak as the ladder counts
        it while storing games; before the ladder is open (the first wave after a start), as the store holds it,
        so that a bot paused before a restart stays paused."""
        if not Path(submission.folder).is_dir():
            return MISSING
        s, ladder = self.settings, self.ladder
        if ladder is None:
            return faulty_reason(s) if paused(s, submission, self.store()) else None
        streak = ladder.fault_streak(submission.bot, upload_version(submission.version, submission.id), s.pause_after)
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
        self.ladder = Ladder(self.store(), spec, s.results_dir, name=s.name, jobs=s.jobs, time_limit=WAVE_SECONDS)
        return self.ladder

    def store(self) -> Store:
        """The ladder's connection to the store, opened once (its check of the whole file too) and kept."""
        if self._ladder_store is None:
            self._ladder_store = Store(self.settings.db)
        return self._ladder_store

    def _player_for(self, entrants: list[Entrant]) -> ClusterPlayer | None:
        """The cluster a wave plays on (None: the local workers), told which folders are still in play: the
        versions retired since the last wave leave its workers' caches."""
        player = self.cluster()
        if player is not None:
            store = self.store()  # and the uploads being admitted now, sent for their first game
            admitting = {s.folder for status in (Status.BUILDING, Status.VALIDATING)
                         for s in store.submissions(status=status)}
            player.retire({e.cwd for e in entrants if e.cwd is not None} | admitting)
        return player


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
