"""The season's admissions: uploads admitted ADMISSIONS at once, an author's one at a time, each built in the
sandbox and then played a first game against the sample bots (the tournament layer's one admission pipeline), its
statuses recorded in the store as they come."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Protocol

from arena.bots.entrants import Entrant, from_folder
from arena.bots.shown import shown_to_author
from arena.competition import webhooks
from arena.competition.cluster_link import ClusterLink
from arena.storage import Store
from arena.storage.authors import Status, Submission
from arena.storage.keys import upload_version
from arena.tournament.admission import BUILD_TIMEOUT, FirstGame, admit_submission, build_log_of
from arena.tournament.admission.workers import AdmissionWorker, Admitter
from arena.tournament.cluster import ClusterLost
from arena.tournament.formats.base import Play

log = logging.getLogger("arena.serve")
IDLE = 0.5  # seconds between two looks for work when there is none
ADMISSIONS = 2  # uploads admitted at once, each of another author's
BUILD_CLOCK = 2.0  # seconds between two records of a running build's time: a stop or SIGKILL loses no more


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


def as_its_author_sees(data: Any, submission: Submission) -> Any:
    """A text or JSON value of an upload's admission (its first game's replay, a crash's traceback) with the paths
    of the upload's folder shown as its author knows them, from '.'."""
    return shown_to_author(data, Path(submission.folder))


class AdmissionSettings(Protocol):
    """What admissions read of a season's settings (arena/competition/season.py, which imports this module)."""

    @property
    def db(self) -> Path: ...
    @property
    def play(self) -> Play: ...
    @property
    def max_built(self) -> int: ...


class Admissions:
    """The admission threads' shared state for the season: which authors have an upload being admitted now, and
    where an admission runs (the season's cluster, else a worker process of each thread's own)."""

    def __init__(self, settings: AdmissionSettings, cluster: ClusterLink, stopping: threading.Event,
                 closed: Callable[[], bool], admitted: Callable[[], None]) -> None:
        self.settings, self.cluster, self.stopping = settings, cluster, stopping
        self.closed = closed  # True once the season has ended: nothing more is admitted
        self.admitted = admitted  # told of each admission (the ladder's wave under way may end for the newcomer)
        self._claims = threading.Lock()
        self._admitting: set[str] = set()  # the authors one of whose uploads is being admitted now

    def run(self) -> None:
        """One admission thread's loop until the season stops: its worker admits one upload after another (a
        worker is started again only if one fails), so that a burst of uploads does not start an interpreter for
        each, and no author's build, however long, holds up the others'."""
        with Store(self.settings.db) as store, self.worker() as worker:
            while not self.stopping.is_set():
                claimed = self.claim(store)
                if claimed is None:
                    self.stopping.wait(IDLE)
                    continue
                try:
                    self.admit(store, claimed, worker)
                finally:
                    with self._claims:
                        self._admitting.discard(claimed.author)

    def claim(self, store: Store) -> Submission | None:
        """The oldest queued upload of an author none of whose uploads is being admitted now, taken for this
        thread (it is building from then on), or None."""
        with self._claims:
            for submission in () if self.closed() else store.submissions(status=Status.QUEUED):
                if submission.author not in self._admitting:
                    self._admitting.add(submission.author)
                    store.set_status(submission.id, Status.BUILDING)
                    return submission
        return None

    def worker(self) -> contextlib.AbstractContextManager[Admitter]:
        """Where admissions run: on the cluster with --cluster (the same player for every thread), else in a
        worker process of this thread's own."""
        player = self.cluster.player()
        return contextlib.nullcontext(player) if player is not None else AdmissionWorker()

    def admit(self, store: Store, submission: Submission, worker: Admitter | None = None) -> None:
        """Build a submission in the sandbox and play its first game against the sample bots (in `worker`, else
        in one of its own, or on the cluster): admitted, or refused with the reason. If the cluster is lost
        meanwhile, it is queued again (ClusterLost raised)."""
        if worker is None:
            with self.worker() as own:
                return self.admit(store, submission, own)
        try:
            self._admit(store, submission, worker)
        except ClusterLost:
            store.set_status(submission.id, Status.QUEUED)
            raise

    def _admit(self, store: Store, submission: Submission, worker: Admitter) -> None:
        s, folder = self.settings, Path(submission.folder)
        clock = _BuildClock(store, submission.id)

        def told(status: Status, reason: str, build_log: str | None) -> None:
            if status != Status.BUILDING:
                clock.stop()  # the build is over: the first game's time is not the build's
            store.set_status(submission.id, status, reason, build_log)
            if status == Status.ADMITTED:
                log.info("admitted %s %s", submission.bot, submission.version)
                webhooks.announce_decision(store, submission, Status.ADMITTED)
                self.admitted()
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
