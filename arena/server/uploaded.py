"""What was uploaded, as a library: an archive checked, unpacked and queued for admission (one upload of an
author's at a time, names taken one upload at a time, none once the server stops), the daily limit, an upload as
its author and the organiser may see it, and a refused upload's first game with its bot's own stderr."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Callable

from arena.competition import ending, names, queries
from arena.competition.access import Viewer
from arena.competition.admissions import as_its_author_sees, first_game_record
from arena.competition.season import SeasonSettings
from arena.competition.uploads import UploadLimits, UploadRefused, check_rate, discard, kept, receive
from arena.errors import ArenaError
from arena.match.record import GameRecord, load_record
from arena.storage import Store
from arena.storage.authors import Author, Status, Submission

log = logging.getLogger("arena.serve")

TEMP_PREFIX = "arena-upload-"  # an upload's raw archive waits in a temp folder named so, then the store's digest
STOPPING = "the server is stopping, and your upload was not queued: send it again once the server is back"
MAX_NUMBER = 2**62  # no number beyond this is looked up (SQLite's integers end at 2**63)


class Submissions:
    """A served competition's uploads, over a store connection per serving thread."""

    def __init__(self, store: Callable[[], Store], settings: SeasonSettings, limits: UploadLimits,
                 reserved: set[str]) -> None:
        self.store, self.settings, self.limits, self.reserved = store, settings, limits, reserved
        self._naming = threading.Lock()  # one upload's name checked and taken at a time
        self._stopping = threading.Event()  # the server is stopping: no upload is queued
        self._uploading: dict[int, threading.Lock] = {}  # per author: one upload of theirs at a time
        self._first_links: dict[int, str | None] = {}  # a refused submission's link to its fault, once worked out
        self._links_lock = threading.Lock()

    def submit(self, author: Author, archive: Path, filename: str,
               queued: Callable[[Submission], None] = lambda _: None) -> Submission:
        """Check and unpack an uploaded archive and queue it for admission (then queued(it) is called, before any
        stop_uploads can return): UploadRefused (one line, with its HTTP status) for anything the competition does
        not take, 503 once the server is stopping."""
        if ending.over(self.settings):
            raise UploadRefused(ending.CLOSED, 403)
        store = self.store()
        # One upload of an author's at a time (so that their daily limit holds), and the names checked and taken
        # one upload at a time; the archive itself is checked and unpacked holding neither, so that no upload
        # waits on another author's.
        with self._author_lock(author):
            self.check_rate(author)
            try:
                manifest, unpacked, folder = receive(archive, filename, self.settings.uploads, self.limits,
                                                     self._going)
                try:
                    with self._naming:
                        if self._stopping.is_set():
                            raise UploadRefused(STOPPING, 503)
                        names.check_upload(store, author, manifest.name, manifest.version, self.reserved,
                                           self.limits.active_bots)
                        submission = store.add_submission(author, manifest.name, manifest.version, str(folder))
                        queued(submission)
                    kept(unpacked)
                    return submission
                except BaseException:
                    discard(unpacked)
                    raise
            except UploadRefused as exc:
                if exc.status != 503:  # the server's stop is not the author's refusal
                    self.refused(author, str(exc))
                raise

    def _going(self) -> None:
        """UploadRefused (503) once the server is stopping: an upload being unpacked then stops at its next file."""
        if self._stopping.is_set():
            raise UploadRefused(STOPPING, 503)

    def stop_uploads(self) -> None:
        """Queue no upload from now on (the server is stopping): one being queued now is queued before this returns,
        any later one is refused 503."""
        with self._naming:
            self._stopping.set()

    def temp_prefix(self) -> str:
        """The name every temporary folder of this store's uploads begins with, in the system's temp folder: it
        names the store (a digest of its path), so that a start sweeps only its own server's leftovers."""
        return f"{TEMP_PREFIX}{hashlib.sha256(str(self.settings.db.resolve()).encode()).hexdigest()[:16]}-"

    def sweep_temp(self) -> None:
        """Remove what uploads of this store cut off by a SIGKILL left in the temp folder (the raw archives):
        only folders named by temp_prefix, so another store's server, or anything else, is left alone."""
        prefix = self.temp_prefix()
        for leftover in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
            if leftover.is_dir() and not leftover.is_symlink() and leftover.lstat().st_uid == os.getuid():
                shutil.rmtree(leftover, ignore_errors=True)
                log.info("removed %s, left in the temp folder by an upload cut off", leftover.name)

    def _author_lock(self, author: Author) -> threading.Lock:
        with self._naming:
            return self._uploading.setdefault(author.id, threading.Lock())

    def check_rate(self, author: Author) -> None:
        """UploadRefused (429) if the author may upload no more today (uploads.check_rate)."""
        check_rate(self.store(), author, self.limits)

    def refused(self, author: Author, reason: str) -> None:
        """Count an upload refused before it was queued toward the author's daily limit."""
        self.store().refuse_upload(author, reason)

    def submission(self, author: Author, sid: int) -> Submission | None:
        """A submission its author (or the organiser) may see, else None (as if there were none)."""
        return queries.visible_submission(self.store(), author, sid) if 0 < sid <= MAX_NUMBER else None

    def listed(self, author: Author) -> list[Submission]:
        """An author's submissions, newest first (the organiser's: everyone's)."""
        return queries.submissions_of(self.store(), author)

    def bots_listed(self, author: Author) -> list[str]:
        """The bots an author's own page lists (access.bots_listed)."""
        return queries.bots_listed(self.store(), author)

    def first_game_link(self, submission: Submission) -> str | None:
        """Where the author of a submission refused for a fault in its first game reads it: that decision in the
        game's private replay; None where no such game is kept."""
        if submission.status != Status.REFUSED:
            return None
        with self._links_lock:  # a refusal is final: its game's link is worked out once, not at every poll
            if submission.id in self._first_links:
                return self._first_links[submission.id]
        found = self._first_game(submission)
        fault = None if found is None else next((f for f in found.faults if f.participant == 0), None)
        at = "" if fault is None or fault.decision is None else f"#step={fault.decision}&seat={fault.seat}"
        link = None if found is None else f"/me/submissions/{submission.id}/game{at}"
        with self._links_lock:
            self._first_links[submission.id] = link
        return link

    def first_game_replay(self, submission: Submission) -> str | None:
        """The replay page of a refused submission's first game (for those who may see the submission), with its
        bot's own stderr beside its decisions; None (a 404) where no such game is kept."""
        record = self._first_game(submission)
        if record is None:
            return None
        viewer = Viewer(submission.bot, frozenset(seat.seat for seat in record.seats if seat.participant == 0))
        from arena.viewer import render_page, replay_data  # the viewer is only needed for a game page

        data = as_its_author_sees(replay_data(record, None, check=False, bot_output=True), submission)
        return render_page(viewer.shown(data), back=(f"/me/submissions/{submission.id}", f"upload {submission.id}"),
                           heading=f"the first game of {submission.bot} {submission.version} (upload {submission.id})")

    def _first_game(self, submission: Submission) -> GameRecord | None:
        if submission.status != Status.REFUSED:
            return None
        path = first_game_record(submission)
        try:
            return load_record(path) if path.is_file() else None
        except ArenaError:  # damaged: as if it were not kept
            return None
