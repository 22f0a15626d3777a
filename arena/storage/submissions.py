"""A hosted competition's season: the bot names each author owns, every uploaded version on its way into the
ladder, and what the season asks of the games (an author's games, a bot's streak of faults)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from arena.storage.authors import (
    Author,
    Status,
    Submission,
)

if TYPE_CHECKING:  # not imported at run time: the bots' processes and the protocol cost the leaderboard's start
    pass
from arena.storage.connection import Connection, _guarded
from arena.storage.keys import VERSION_MARK
from arena.storage.records import StoredGameRow
from arena.storage.schema import RETIRE_REPLACED, folder_from_store, stored_folder


class Submissions(Connection):
    """A hosted competition's season: bot names and their owners, uploads on their way into the ladder."""

    @_guarded
    def bot_owner(self, bot: str) -> str | None:
        """The name of the author who owns a bot name, or None if nobody does yet."""
        row = self.db.execute("SELECT a.name FROM owners o JOIN authors a ON a.id = o.author_id WHERE o.bot = ?",
                              (bot,)).fetchone()
        return None if row is None else row[0]

    @_guarded
    def add_submission(self, author: Author, bot: str, version: str, folder: str) -> Submission:
        """A new queued submission of `bot` by `author`, who owns the name from then on (checked by the caller);
        its folder is kept relative to the store's folder where it lies under it (schema.stored_folder)."""
        now = time.time()
        with self._transaction():
            self.db.execute("INSERT OR IGNORE INTO owners VALUES (?, ?)", (bot, author.id))
            sid = self.db.execute("INSERT INTO submissions (author_id, bot, version, folder, status, reason, created, "
                                  "updated) VALUES (?,?,?,?,?,?,?,?)",
                                  (author.id, bot, version, stored_folder(folder, self.home), Status.QUEUED.value, "",
                                   now, now)).lastrowid
        return self.submission(sid)  # type: ignore[return-value]

    @_guarded
    def set_status(self, sid: int, status: Status, reason: str = "", build_log: str | None = None) -> None:
        """Move a submission on (with the reason of a refusal, and the build's log once there is one); a refusal
        gives the bot's name back when no version of it is left that is not refused; an admission retires the
        versions of the bot admitted before it (it replaces them in the ladder)."""
        with self._transaction():
            self.db.execute("UPDATE submissions SET status = ?, reason = ?, updated = ?, build_log = COALESCE(?, "
                            "build_log) WHERE id = ?", (status.value, reason, time.time(), build_log, sid))
            if status == Status.ADMITTED:
                self.db.execute(RETIRE_REPLACED + "AND s.status = ? AND latest.id = ?",
                                (Status.RETIRED.value, Status.ADMITTED.value, Status.ADMITTED.value, sid))
            if status == Status.REFUSED:
                self.db.execute("DELETE FROM owners WHERE bot = (SELECT bot FROM submissions WHERE id = ?) AND NOT "
                                "EXISTS (SELECT 1 FROM submissions WHERE bot = owners.bot AND status != ?)",
                                (sid, Status.REFUSED.value))

    @_guarded
    def version_in(self, bot: str, version: str) -> Submission | None:
        """The latest submission of this bot at this version that was not refused, or None."""
        row = self.db.execute(self._SUBMISSION + "WHERE s.bot = ? AND s.version = ? AND s.status != ? ORDER BY s.id "
                              "DESC LIMIT 1", (bot, version, Status.REFUSED.value)).fetchone()
        return None if row is None else self._submission(row)

    @_guarded
    def retire_bot(self, bot: str) -> int:
        """Take a bot out of the ladder: its admitted versions become retired (their games stay); how many."""
        return self.db.execute("UPDATE submissions SET status = ?, updated = ? WHERE bot = ? AND status = ?",
                               (Status.RETIRED.value, time.time(), bot, Status.ADMITTED.value)).rowcount

    _SUBMISSION = ("SELECT s.id, a.name, s.bot, s.version, s.folder, s.status, s.reason, s.created, s.updated, "
                   "s.build_log FROM submissions s JOIN authors a ON a.id = s.author_id ")

    @_guarded
    def submission(self, sid: int) -> Submission | None:
        """One submission by id, or None."""
        row = self.db.execute(self._SUBMISSION + "WHERE s.id = ?", (sid,)).fetchone()
        return None if row is None else self._submission(row)

    @_guarded
    def submissions(self, author: str | None = None, status: Status | None = None) -> list[Submission]:
        """Submissions, oldest first: an author's (None: everyone's), in one status (None: any)."""
        rows = self.db.execute(self._SUBMISSION + "WHERE (? IS NULL OR a.name = ?) AND (? IS NULL OR s.status = ?) "
                               "ORDER BY s.id", (author, author, status, status))
        return [self._submission(row) for row in rows]

    @_guarded
    def uploads_since(self, author: Author, since: float) -> int:
        """How many uploads an author made since a time: queued ones and those refused before queueing."""
        return self.db.execute("SELECT (SELECT COUNT(*) FROM submissions WHERE author_id = ? AND created >= ?) + "
                               "(SELECT COUNT(*) FROM refused_uploads WHERE author_id = ? AND created >= ?)",
                               (author.id, since, author.id, since)).fetchone()[0]

    @_guarded
    def refuse_upload(self, author: Author, reason: str) -> None:
        """Keep an upload refused before it was queued: it counts toward the author's daily limit."""
        self.db.execute("INSERT INTO refused_uploads (author_id, reason, created) VALUES (?,?,?)",
                        (author.id, reason, time.time()))

    @_guarded
    def add_house_submission(self, author: Author, bot: str, version: str, folder: str) -> Submission | None:
        """Queue an organiser's folder (entered in place), unless the bot's latest submission is this folder at this
        version already (a restart enters nothing twice)."""
        row = self.db.execute("SELECT folder, version FROM submissions WHERE id = (SELECT MAX(id) FROM submissions "
                              "WHERE bot = ?)", (bot,)).fetchone()
        if row is not None and tuple(row) == (stored_folder(folder, self.home), version):
            return None
        return self.add_submission(author, bot, version, folder)

    @_guarded
    def owned_bots(self, author: Author) -> list[str]:
        """The bot names an author owns."""
        return [r[0] for r in self.db.execute("SELECT bot FROM owners WHERE author_id = ? ORDER BY bot",
                                              (author.id,))]

    @_guarded
    def active_bots(self, author: Author) -> list[str]:
        """The bot names an author owns that take one of their places: each with a version on its way in or in the
        ladder (a retired bot keeps its name, but its place is free)."""
        return [r[0] for r in self.db.execute(
            "SELECT o.bot FROM owners o WHERE o.author_id = ? AND EXISTS (SELECT 1 FROM submissions s WHERE s.bot = "
            "o.bot AND s.status NOT IN (?, ?)) ORDER BY o.bot", (author.id, Status.RETIRED.value,
                                                                 Status.REFUSED.value))]

    @_guarded
    def games_of(self, tid: int, bot: str, limit: int) -> list[StoredGameRow]:
        """A bot's latest `limit` games in a tournament (any of its versions, whose keys are NAME@VERSION), newest
        first."""
        rows = self.db.execute(
            "SELECT id, seq, table_no, seed, status, reason, cut_short, replay, seconds FROM games WHERE id IN "
            "(SELECT s.game_id FROM seats s JOIN games g ON g.id = s.game_id WHERE g.tournament_id = ? AND "
            "(s.name = ? OR substr(s.name, 1, ?) = ?)) ORDER BY seq DESC LIMIT ?",
            (tid, bot, len(bot) + 1, bot + VERSION_MARK, limit)).fetchall()
        return [self._game_row(row) for row in rows]

    @_guarded
    def latest_game(self, tid: int) -> int:
        """The id of a tournament's latest stored game (0 before any): whether anything changed since a look."""
        return self.db.execute("SELECT COALESCE(MAX(id), 0) FROM games WHERE tournament_id = ?", (tid,)).fetchone()[0]

    @_guarded
    def faulty_streak(self, tid: int, key: str, games: int) -> int:
        """How many of an entrant's last `games` games in a row, the latest first, had a fault of its seat."""
        rows = self.db.execute("SELECT s.faults > 0 OR s.disqualified FROM seats s JOIN games g ON g.id = s.game_id "
                               "WHERE g.tournament_id = ? AND s.name = ? AND g.status = 'done' ORDER BY g.seq DESC "
                               "LIMIT ?", (tid, key, games)).fetchall()
        streak = 0
        while streak < len(rows) and rows[streak][0]:
            streak += 1
        return streak

    @_guarded
    def requeue_unfinished(self) -> int:
        """Submissions a stopped server left building or validating are queued again; returns how many."""
        return self.db.execute("UPDATE submissions SET status = 'queued', updated = ? WHERE status IN ('building', "
                               "'validating')", (time.time(),)).rowcount

    @_guarded
    def build_seconds(self, sid: int) -> float:
        """Seconds the submission's build has run so far, over every try (0 for none)."""
        row = self.db.execute("SELECT seconds FROM build_times WHERE submission_id = ?", (sid,)).fetchone()
        return float(row[0]) if row else 0.0

    @_guarded
    def set_build_seconds(self, sid: int, seconds: float) -> None:
        """Record how long the submission's build has run, over every try so far."""
        self.db.execute("INSERT INTO build_times VALUES (?, ?) ON CONFLICT (submission_id) DO UPDATE SET seconds = "
                        "excluded.seconds", (sid, seconds))

    @_guarded
    def admitted_count(self) -> int:
        """How many submissions are admitted (each bot's versions counted apart)."""
        return self.db.execute("SELECT COUNT(*) FROM submissions WHERE status = 'admitted'").fetchone()[0]

    @_guarded
    def current_versions(self) -> list[Submission]:
        """Per bot name, its latest admitted submission: what plays in the ladder."""
        rows = self.db.execute(self._SUBMISSION + "WHERE s.id IN (SELECT MAX(id) FROM submissions WHERE status = "
                               "'admitted' GROUP BY bot) ORDER BY s.bot")
        return [self._submission(row) for row in rows]

    def _submission(self, row: tuple[Any, ...]) -> Submission:
        """A submission as a row holds it, its folder a path to open whatever folder the arena runs in."""
        sid, author, bot, version, folder, status, reason, created, updated, log = row
        return Submission(sid, author, bot, version, folder_from_store(folder, self.home), Status(status), reason,
                          created, updated, log)


