"""The results store: one SQLite file in WAL mode; every finished game is committed atomically.

Every SQLite or file-system failure leaves this module as a StoreError whose one-line message names the file and
what to do; one arena at a time plays a tournament (a lock file per tournament beside the database)."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import os
import re
import shlex
import sqlite3
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, TypeVar

from arena.errors import ArenaError, ConfigError
from arena.match.seeds import seeding
from arena.ratings.trueskill import GameOutcome, Ratings
from arena.tournament.accounts import (
    HOUSE_AUTHOR,
    SIGN_IN_SECONDS,
    Author,
    Invite,
    Status,
    Submission,
    author_id_of,
    check_author_name,
    matches,
    new_secret,
    new_session,
    salted_hash,
    session_hash,
)

if TYPE_CHECKING:  # not imported at run time: the bots' processes and the protocol cost the leaderboard's start
    from arena.bots.entrants import Entrant, Refusal
    from arena.match.record import GameRecord

DEFAULT_DB_NAME = "arena.sqlite"
SCHEMA_VERSION = 9
_LOCK_WAIT = 2.0  # seconds to wait for a new lock holder to write who it is
SERVER_LOCK = "(server)"  # the lock `arena serve` holds, beside the tournaments' (no tournament name is a file name)
_MAX_COMMAND = 200  # characters of a lock holder's command line shown in a message
BACKUP_STEP = 1024  # pages a backup copies at a time (4 MiB at SQLite's default page size), its progress between

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL, version TEXT NOT NULL, author TEXT NOT NULL, command TEXT NOT NULL, cwd TEXT,
    UNIQUE (name, version, command, cwd));
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE, game TEXT NOT NULL, format TEXT NOT NULL, config TEXT NOT NULL,
    created REAL NOT NULL, finished REAL);
CREATE TABLE entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id), bot_id INTEGER NOT NULL REFERENCES bots(id),
    name TEXT NOT NULL, retired REAL, PRIMARY KEY (tournament_id, name));
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    seq INTEGER NOT NULL, table_no INTEGER NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')), reason TEXT NOT NULL,
    cut_short INTEGER NOT NULL, replay TEXT, seconds REAL NOT NULL, finished REAL NOT NULL,
    UNIQUE (tournament_id, seq));
CREATE TABLE seats (
    game_id INTEGER NOT NULL REFERENCES games(id), seat INTEGER NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id), name TEXT NOT NULL,
    score INTEGER, rank INTEGER, disqualified INTEGER NOT NULL, faults INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat));
CREATE TABLE faults (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id), seat INTEGER NOT NULL,
    decision INTEGER, kind TEXT NOT NULL, detail TEXT NOT NULL, stderr_tail TEXT NOT NULL);
CREATE TABLE ratings (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id), name TEXT NOT NULL,
    mu REAL NOT NULL, sigma REAL NOT NULL, PRIMARY KEY (tournament_id, name));
CREATE TABLE refusals (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id), folder TEXT NOT NULL, name TEXT NOT NULL,
    reason TEXT NOT NULL, checked REAL NOT NULL, PRIMARY KEY (tournament_id, folder));
CREATE TABLE secrets (tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id), secret TEXT NOT NULL);
"""


def _submissions_table(name: str) -> str:
    """The statement that creates the table of submissions under `name`, its statuses those of Status."""
    statuses = ", ".join(f"'{status.value}'" for status in Status)
    return (f"CREATE TABLE {name} (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id), "
            "bot TEXT NOT NULL, version TEXT NOT NULL, folder TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN "
            f"({statuses})), reason TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL, build_log TEXT NOT "
            "NULL DEFAULT '')")


# A hosted competition's authors (their token and sign-in link only as salted scrypt hashes), the bot names each
# owns, and every uploaded version of a bot with where it is on its way into the ladder.
_ACCOUNTS = (
    "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, organiser INTEGER NOT NULL, "
    "token_salt BLOB, token_hash BLOB, link_salt BLOB, link_hash BLOB, link_expires REAL, created REAL NOT NULL, "
    "revoked REAL)",
    "CREATE TABLE owners (bot TEXT PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id))",
    _submissions_table("submissions"),
    "CREATE INDEX submissions_by_author ON submissions (author_id, created)",
)
# A submission's statuses grew one (retired): SQLite changes a CHECK only by copying the table into a new one.
_RETIRING = (
    _submissions_table("submissions_new"),
    "INSERT INTO submissions_new SELECT * FROM submissions",
    "DROP TABLE submissions",
    "ALTER TABLE submissions_new RENAME TO submissions",
    "CREATE INDEX submissions_by_author ON submissions (author_id, created)",
)
# Uploads refused before they were queued (they count toward the daily limit), and invite codes for self sign-up
# (only as salted scrypt hashes, each good for `uses` sign-ups until it expires).
_SERVING = (
    "CREATE TABLE refused_uploads (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id), "
    "reason TEXT NOT NULL, created REAL NOT NULL)",
    "CREATE INDEX refused_uploads_by_author ON refused_uploads (author_id, created)",
    "CREATE TABLE invites (id INTEGER PRIMARY KEY, salt BLOB, hash BLOB, uses INTEGER NOT NULL, used INTEGER NOT "
    "NULL DEFAULT 0, expires REAL NOT NULL, created REAL NOT NULL, revoked REAL)",
)
_SESSIONS = (
    # IF NOT EXISTS: a store that an older arena only marked older (its schema number) may hold the table already.
    "CREATE TABLE IF NOT EXISTS sessions (hash BLOB PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES authors(id), "
    "created REAL NOT NULL, expires REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS sessions_by_author ON sessions (author_id)",
    "DELETE FROM meta WHERE key = 'session_key'",
)
# The build time each admission has used, across stops of the server: a restart does not give a build a fresh limit.
# IF NOT EXISTS: a store an older arena only marked older may hold the table already.
_BUILD_TIME = ("CREATE TABLE IF NOT EXISTS build_times (submission_id INTEGER PRIMARY KEY REFERENCES "
               "submissions(id), seconds REAL NOT NULL)",)

# MIGRATIONS[v] takes a store of schema v to v + 1; they run in one transaction, so a failure changes nothing.
MIGRATIONS: dict[int, tuple[str, ...]] = {
    # 0.1.0 called its table of single games `matches`, while a match is a series of games everywhere else.
    1: ("ALTER TABLE matches RENAME TO games",
        "ALTER TABLE seats RENAME COLUMN match_id TO game_id",
        "ALTER TABLE faults RENAME COLUMN match_id TO game_id"),
    # Submissions that fail their check are kept out of a tournament, and listed with the reason.
    # A ladder's entrants come and go (a new version retires the old one, whose games stay).
    2: ("CREATE TABLE refusals (tournament_id INTEGER NOT NULL REFERENCES tournaments(id), folder TEXT NOT NULL, "
        "name TEXT NOT NULL, reason TEXT NOT NULL, checked REAL NOT NULL, PRIMARY KEY (tournament_id, folder))",
        "ALTER TABLE entrants ADD COLUMN retired REAL"),
    # A run's secret seed is kept here and nowhere else; the tournaments stored before were seeded by a public
    # number (0 unless one was given), and `secrets_from` tells them from the public-seeded ones started since.
    3: ("CREATE TABLE secrets (tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id), secret TEXT NOT NULL)",
        "INSERT INTO meta VALUES ('secrets_from', (SELECT COALESCE(MAX(id), 0) + 1 FROM tournaments))"),
    # `arena serve` hosts a competition: its authors and their uploaded submissions.
    4: _ACCOUNTS,
    # Refused uploads count toward an author's daily limit; invite codes let competitors sign themselves up.
    5: _SERVING,
    # An author may retire a bot: its admitted versions leave the ladder, their games stay.
    6: _RETIRING,
    # Sessions are kept server-side (ended by signing out), as hashes: no key to sign cookies with is kept.
    7: _SESSIONS,
    8: _BUILD_TIME,
}


def _keep_private(path: Path) -> None:
    """The store file, created for its user alone (SQLite gives its journals the same mode), and a store that an
    older release left readable to others made so: it holds authors' hashes and secret seeds."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(OSError):  # not ours, or gone: left as it is
            if file.stat().st_mode & 0o077 and file.stat().st_uid == os.geteuid():
                file.chmod(file.stat().st_mode & 0o700)


class StoreError(ArenaError):
    """The results store cannot be opened, read or written; the message says which file and what to do."""


class StoreBusy(StoreError):
    """Another arena process is playing the same tournament from the same store."""


@dataclass(frozen=True)
class StoredFault:
    """One fault of one seat in one game."""

    seat: int
    kind: str
    detail: str
    decision: int | None = None
    stderr_tail: str = ""


@dataclass(frozen=True)
class StoredGame:
    """A finished (or failed) scheduled game, as the store keeps it."""

    seq: int
    table: int
    seed: int
    bots: tuple[str, ...]
    status: str  # "done" or "failed"
    reason: str
    scores: tuple[int, ...] | None = None
    ranks: tuple[int, ...] | None = None
    disqualified: tuple[int, ...] = ()  # seats
    faults: tuple[StoredFault, ...] = ()
    cut_short: bool = False
    replay: str | None = None
    seconds: float = 0.0

    @classmethod
    def from_record(cls, record: GameRecord, names: tuple[str, ...], directory: Path, results_dir: Path,
                    first_seq: int = 0, table: int = 0, seconds: float = 0.0) -> StoredGame:
        """A played game as the store keeps it: the seats' entrants (`names` by participant), ranks, faults, and its
        replay's path in the match's `directory`, relative to the results folder where it lies under it (the
        folder may move)."""
        replay = directory / f"game-{record.game_index + 1:04d}.json"
        try:
            path = str(replay.relative_to(results_dir))
        except ValueError:
            path = str(replay)
        faults = tuple(StoredFault(f.seat, f.kind.value, f"{f.phase.value}: {f.detail}", f.decision, f.stderr)
                       for f in record.faults)
        return cls(first_seq + record.game_index, table, record.seed, tuple(names[s.participant] for s in record.seats),
                   "done", record.result.reason, tuple(record.result.scores), tuple(record.ranks),
                   tuple(record.disqualified), faults, record.result.cut_short, path, seconds)


@dataclass(frozen=True)
class Summary:
    """A tournament at a glance: its entrants and games, the finishing times of its first and last game (None
    before any), whether it is complete, and its seeding ('secret' or 'public (seed N)')."""

    name: str
    title: str
    game: str
    format: str
    complete: bool
    entrants: int
    games: int
    first: float | None
    last: float | None
    seeding: str


@dataclass(frozen=True)
class StoredSeat:
    """One seat of a stored game as read back: its entrant, score and rank (None in a failed game), faults."""

    seat: int
    bot: str
    score: int | None
    rank: int | None
    disqualified: bool
    faults: int


@dataclass(frozen=True)
class StoredGameRow:
    """A stored game as read back, with its seats; `game()` adds its faults and its tournament's name."""

    id: int
    seq: int
    table: int
    seed: int
    status: str
    reason: str
    cut_short: bool
    replay: str | None
    seconds: float
    seats: tuple[StoredSeat, ...]
    faults: tuple[StoredFault, ...] = ()
    tournament: str = ""


@dataclass(frozen=True)
class Tournament:
    """A tournament row: its id, name and the configuration it was started with."""

    id: int
    name: str
    game: str
    format: str
    config: dict[str, Any] = field(hash=False)
    finished: float | None = None


def replay_path(stored: str | None, results_dir: Path) -> Path | None:
    """A stored replay path as a path from here (the store keeps it relative to the results folder)."""
    if not stored:
        return None
    path = Path(stored)
    return path if path.is_absolute() else results_dir / path


def explain(path: Path, exc: BaseException) -> str:
    """One line for a failure of the store at path: what happened and what to do about it."""
    where = shlex.quote(str(path))
    name = getattr(exc, "sqlite_errorname", "") or ""
    number = getattr(exc, "errno", None)
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return _damaged(path, str(exc))
    if name.startswith(("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH")) or number in (errno.EROFS, errno.EACCES,
                                                                                        errno.EPERM):
        return (f"the results store {where} is read-only ({exc}): leaderboard, matches and show can read it; to "
                "write to it, make the file and its directory writable, or copy it somewhere writable and give --db")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return (f"the results store {where} is locked by another process ({exc}): wait for it to finish, or stop "
                "it, and run the command again")
    if name.startswith("SQLITE_FULL") or number in (errno.ENOSPC, errno.EDQUOT):
        return (f"no space left for the results store {where} ({exc}): free some space and run the same command "
                "again; what was stored is kept")
    if name.startswith("SQLITE_CANTOPEN"):
        return (f"cannot open the results store {where} ({exc}): check that it exists and that its directory can "
                "be read (and written, to write to it)")
    if name.startswith("SQLITE_IOERR") or number is not None:
        return f"cannot read or write the results store {where} ({exc}): check the disk and run the command again"
    return f"the results store {where} failed: {exc}"


_F = TypeVar("_F", bound=Callable[..., Any])
OUTCOME_BLOCK = 2000  # games read at once when every stored game of a tournament is rated


def _guarded(method: _F) -> _F:
    """A Store method whose SQLite and file-system failures come out as one-line StoreErrors."""

    @functools.wraps(method)
    def guarded(self: "Store", *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(explain(self.path, exc)) from None

    return guarded  # type: ignore[return-value]


def name_holders(path: Path) -> dict[str, str]:
    """The folder each submission's name was first stored with in the store at path ({} where there is no store,
    or it cannot be read: opening it for the tournament then says why)."""
    if not Path(path).is_file():
        return {}
    try:
        with Store(path, readonly=True) as store:
            return store.name_holders()
    except StoreError:
        return {}


class Store:
    """An open results database; `readonly` opens it for browsing only (it may then be on a read-only disk)."""

    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._locks: dict[str, _TournamentLock] = {}  # by tournament: one held per name, however often opened
        self._open()

    @classmethod
    def existing(cls, path: Path, readonly: bool = True) -> "Store":
        """The store at path for browsing (or, readonly False, for writing); StoreError if there is none yet."""
        if Path(path).is_dir():
            raise StoreError(f"{str(path)!r} is a folder, not a results store: give --db the store's file")
        if not Path(path).is_file():
            raise StoreError(f"no results store at {str(path)!r}: run a tournament first, or give --db")
        return cls(path, readonly=readonly)

    @_guarded
    def _open(self) -> None:
        if self.readonly:
            self.db = _connect_readonly(self.path)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _check_writable(self.path)
            _keep_private(self.path)
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            self._check_intact()
            self._refuse_unknown()
            if not self.readonly:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self._check_version()
        except BaseException:
            self.db.close()
            raise

    def close(self) -> None:
        for lock in self._locks.values():
            lock.release()
        self._locks.clear()
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_intact(self) -> None:
        """Before anything is written: refuse a damaged file rather than write into it."""
        if self.readonly:
            return  # reading a damaged page fails by itself; nothing is written
        problems = [row[0] for row in self.db.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            raise StoreError(_damaged(self.path, "; ".join(str(p) for p in problems)[:200]))

    def _version(self) -> int | None:
        """The schema version, or None for an empty database."""
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            return None
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() if "meta" in tables else None
        if row is None or not str(row[0]).isdigit():
            raise StoreError(f"{shlex.quote(str(self.path))} is not an arena results store (it has no schema "
                             "version): give --db the right file")
        return int(row[0])

    def _refuse_unknown(self) -> None:
        """StoreError, before anything is written, for a store this arena cannot read or bring up to date."""
        version = self._version()
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(f"the results store {shlex.quote(str(self.path))} has schema {version}, newer than "
                             f"this arena's {SCHEMA_VERSION}: upgrade the arena to read it")
        if version is not None and version < min(MIGRATIONS):
            raise StoreError(f"the results store {shlex.quote(str(self.path))} has schema {version}, which no "
                             "release of the arena wrote: give --db an arena results store")

    def _check_version(self) -> None:
        """Create the schema in a new store, or bring an older store up to date."""
        version = self._version()
        if version == SCHEMA_VERSION:
            return
        if self.readonly:
            if version is None:
                raise StoreError(f"the results store {shlex.quote(str(self.path))} is empty: run a tournament "
                                 "first, or give --db")
            self._upgrade_in_memory()
            return
        try:
            with self._transaction():
                self._upgrade(self._version())  # again, inside the write lock: another arena may have done it
        except sqlite3.OperationalError as exc:
            if version is None or getattr(exc, "sqlite_errorname", "") != "SQLITE_ERROR":
                raise  # busy, read-only, full: said as such
            raise StoreError(f"cannot bring the results store {shlex.quote(str(self.path))} from schema {version} "
                             f"to {SCHEMA_VERSION} ({exc}); it is left as it was: an arena of its schema reads "
                             "it") from None

    def _upgrade(self, version: int | None) -> None:
        if version == SCHEMA_VERSION:
            return
        if version is None:
            for statement in [*filter(str.strip, _SCHEMA.split(";")), *_ACCOUNTS, *_SERVING, *_SESSIONS, *_BUILD_TIME]:
                self.db.execute(statement)
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            return
        for step in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[step]:
                self.db.execute(statement)
        self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))

    def _upgrade_in_memory(self) -> None:
        """A read-only store of an older schema: read a migrated copy in memory, leaving the file as it is."""
        copy = sqlite3.connect(":memory:", isolation_level=None)
        self.db.backup(copy)
        self.db.close()
        self.db = copy
        with self._transaction():
            self._upgrade(self._version())

    def _transaction(self) -> "_Transaction":
        return _Transaction(self.db)

    def backup(self, dest: Path, progress: Callable[[int, int], None] | None = None,
               overwrite: bool = False) -> tuple[int, int]:
        """Copy the store, as it stood when the copy began, to dest, readable by its user alone, while other
        processes go on writing it; returns the pages and bytes copied."""
        dest = Path(dest)
        where, there = shlex.quote(str(self.path)), shlex.quote(str(dest))
        _check_backup_dest(self.path, dest, overwrite)
        partial: Path | None = None
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            # A file of its own beside dest (mode 0600 whatever the umask), given dest's name only once it is whole
            # and checked: a backup cut off or failed leaves dest as it was.
            fd, name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".partial", dir=dest.parent)
            os.close(fd)
            partial = Path(name)
            pages, size = _snapshot(self.path, partial, progress)
            fd = os.open(partial, os.O_RDONLY)
            try:
                os.fsync(fd)  # on disk before it takes dest's name: a crash leaves a whole copy there, or none
            finally:
                os.close(fd)
            if overwrite:
                os.replace(partial, dest)
            elif _linked(partial, dest):  # never over a file that appeared meanwhile
                raise ConfigError(f"{there} exists: give --force to replace it, or another file")
            return pages, pages * size
        except (sqlite3.Error, OSError) as exc:
            name = getattr(exc, "sqlite_errorname", "") or ""
            if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):  # the copy is new: only the store is damaged
                raise StoreError(_damaged(self.path, str(exc))) from None
            raise StoreError(f"cannot back up the results store {where} to {there} ({exc}): check that both can be "
                             f"reached and that there is room for the copy; nothing was written to {there}") from None
        finally:
            if partial is not None:
                for end in ("", "-wal", "-shm", "-journal"):
                    partial.with_name(partial.name + end).unlink(missing_ok=True)

    # --- tournaments ------------------------------------------------------------------------------------------------
    @contextmanager
    def naming(self) -> Iterator[None]:
        """Held (for a moment) while a run finds or names its tournament and opens it: two runs of the same command
        started at once then agree on one tournament, and the second finds it locked by the first."""
        lock = self._naming_lock()
        try:
            yield
        finally:
            lock.release()

    @_guarded
    def _naming_lock(self) -> "_TournamentLock":
        return _TournamentLock.wait_for(self.path.with_name(f"{self.path.name}.lock"))

    @_guarded
    def open_tournament(self, name: str, game: str, fmt: str, config: dict[str, Any],
                        entrants: list[Entrant], living: tuple[str, ...] = ()) -> Tournament:
        """The tournament of that name, created or resumed if its configuration is the same (but for the `living`
        keys, which may change from run to run), and locked for this process until the store is closed; StoreBusy
        if another arena plays it."""
        if self.readonly:
            raise StoreError(f"the results store {shlex.quote(str(self.path))} was opened read-only")
        if name not in self._locks:  # a long-lived caller (a season) opens its tournament at every run
            self._locks[name] = _TournamentLock.acquire(self.path, name)
        row = self.db.execute("SELECT id, config, finished FROM tournaments WHERE name = ?", (name,)).fetchone()
        text = json.dumps(config, sort_keys=True)
        if row is not None:
            stored = json.loads(row[1])
            if _comparable(stored, living) != _comparable(config, living):
                raise ConfigError(_changed(name, self.path, fmt, stored, config))
            if row[1] != text:  # only the title or a living key changed
                self.db.execute("UPDATE tournaments SET config = ? WHERE id = ?", (text, row[0]))
            return Tournament(row[0], name, game, fmt, config, row[2])
        with self._transaction():
            cur = self.db.execute("INSERT INTO tournaments (name, game, format, config, created) VALUES (?,?,?,?,?)",
                                  (name, game, fmt, text, time.time()))
            tid = cur.lastrowid
            for entrant in entrants:
                self.db.execute("INSERT INTO entrants (tournament_id, bot_id, name) VALUES (?,?,?)",
                                (tid, self._bot_id(entrant), entrant.name))
        return Tournament(tid, name, game, fmt, config)

    def _bot_id(self, e: Entrant) -> int:
        key = (e.name, e.version, json.dumps(list(e.command)), e.cwd)
        self.db.execute("INSERT OR IGNORE INTO bots (name, version, author, command, cwd) VALUES (?,?,?,?,?)",
                        (e.name, e.version, e.author, key[2], e.cwd))
        return self.db.execute("SELECT id FROM bots WHERE name = ? AND version = ? AND command = ? AND cwd IS ?",
                               key).fetchone()[0]

    @_guarded
    def tournament(self, name: str | None = None) -> Tournament:
        """The named tournament, or the latest one; StoreError if there is none."""
        query = "SELECT id, name, game, format, config, finished FROM tournaments "
        row = (self.db.execute(query + "WHERE name = ?", (name,)).fetchone() if name
               else self.db.execute(query + "ORDER BY id DESC LIMIT 1").fetchone())
        if row is None and name:
            known = [r[0] for r in self.db.execute("SELECT name FROM tournaments ORDER BY id")]
            raise ConfigError(f"no tournament {name!r} in {str(self.path)!r}; the tournaments there: "
                              f"{', '.join(known) or 'none'}")
        if row is None:
            raise StoreError(f"no tournament in {str(self.path)!r} yet")
        return Tournament(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5])

    @_guarded
    def find_tournament(self, game: str, fmt: str, config: dict[str, Any], living: tuple[str, ...] = ()) -> str | None:
        """The name of the latest tournament started with this configuration (its title included, the `living`
        keys aside), or None."""
        rows = self.db.execute("SELECT name, config FROM tournaments WHERE game = ? AND format = ? ORDER BY id DESC",
                               (game, fmt))
        wanted = _comparable(config, living, title=True)
        return next((name for name, text in rows if _comparable(json.loads(text), living, title=True) == wanted),
                    None)

    @_guarded
    def secret(self, tid: int, fresh: str | None = None) -> str | None:
        """The secret seed kept with a tournament (None: it has none); one without it yet keeps `fresh`, if given.
        No command prints it: it would tell every deal."""
        if fresh is not None:
            self.db.execute("INSERT OR IGNORE INTO secrets VALUES (?, ?)", (tid, fresh))
        row = self.db.execute("SELECT secret FROM secrets WHERE tournament_id = ?", (tid,)).fetchone()
        return None if row is None else str(row[0])

    @_guarded
    def older_tournament(self, name: str) -> Tournament | None:
        """The named tournament if an arena before secret seeds started it, else None."""
        row = self.db.execute("SELECT t.id, t.name, t.game, t.format, t.config, t.finished FROM tournaments t "
                              "JOIN meta m ON m.key = 'secrets_from' WHERE t.name = ? AND t.id < CAST(m.value AS "
                              "INTEGER)", (name,)).fetchone()
        return None if row is None else Tournament(row[0], row[1], row[2], row[3], json.loads(row[4]), row[5])

    @_guarded
    def roster(self, tid: int) -> list[tuple[str, str, str, bool]]:
        """A tournament's entrants, oldest first: key (its name in the tournament), bot name, version, retired."""
        rows = self.db.execute("SELECT e.name, b.name, b.version, e.retired IS NOT NULL FROM entrants e "
                               "JOIN bots b ON b.id = e.bot_id WHERE e.tournament_id = ? ORDER BY e.rowid", (tid,))
        return [(key, name, version, bool(retired)) for key, name, version, retired in rows]

    @_guarded
    def update_roster(self, tid: int, joined: dict[str, Entrant], retired: list[str], back: list[str]) -> None:
        """New entrants by key, keys retired (their games and ratings kept), keys back from retirement."""
        with self._transaction():
            for key, entrant in joined.items():
                self.db.execute("INSERT INTO entrants (tournament_id, bot_id, name) VALUES (?,?,?)",
                                (tid, self._bot_id(entrant), key))
            self.db.executemany("UPDATE entrants SET retired = ? WHERE tournament_id = ? AND name = ?",
                                [(time.time(), tid, key) for key in retired])
            self.db.executemany("UPDATE entrants SET retired = NULL WHERE tournament_id = ? AND name = ?",
                                [(tid, key) for key in back])

    @_guarded
    def retired(self, tid: int) -> set[str]:
        """The keys of a tournament's retired entrants."""
        return {r[0] for r in self.db.execute("SELECT name FROM entrants WHERE tournament_id = ? AND retired "
                                              "IS NOT NULL", (tid,))}

    @_guarded
    def unused_name(self, base: str) -> str:
        """base, or base-2, base-3...: the first that names no tournament yet."""
        taken = {r[0] for r in self.db.execute("SELECT name FROM tournaments WHERE name = ? OR name LIKE ?",
                                               (base, base.replace("%", "_") + "-%"))}
        name, number = base, 1
        while name in taken:
            number += 1
            name = f"{base}-{number}"
        return name

    @_guarded
    def summaries(self) -> list[Summary]:
        """Every tournament, oldest first, at a glance."""
        rows = self.db.execute(
            "SELECT t.name, t.config, t.game, t.format, t.finished, "
            "(SELECT COUNT(*) FROM entrants e WHERE e.tournament_id = t.id), "
            "COUNT(g.id), MIN(g.finished), MAX(g.finished) "
            "FROM tournaments t LEFT JOIN games g ON g.tournament_id = t.id GROUP BY t.id ORDER BY t.id")
        return [Summary(name, settings.get("title") or "", game, fmt, finished is not None, *rest, seeding(settings))
                for name, config, game, fmt, finished, *rest in rows for settings in [json.loads(config)]]

    @_guarded
    def tournaments(self) -> list[Tournament]:
        """Every tournament, oldest first."""
        rows = self.db.execute("SELECT id, name, game, format, config, finished FROM tournaments ORDER BY id")
        return [Tournament(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    @_guarded
    def finish_tournament(self, tid: int, complete: bool = True) -> None:
        """Mark a tournament as complete (once), or as not complete (a ladder given more games)."""
        if complete:
            self.db.execute("UPDATE tournaments SET finished = ? WHERE id = ? AND finished IS NULL", (time.time(), tid))
        else:
            self.db.execute("UPDATE tournaments SET finished = NULL WHERE id = ?", (tid,))

    @_guarded
    def entrant_ids(self, tid: int) -> dict[str, int]:
        """Bot ids of a tournament's entrants, by name."""
        return dict(self.db.execute("SELECT name, bot_id FROM entrants WHERE tournament_id = ?", (tid,)))

    # --- games ------------------------------------------------------------------------------------------------------
    @_guarded
    def done_seqs(self, tid: int, first: int = 0, below: int | None = None) -> set[int]:
        """The schedule positions already recorded (finished or failed), those from `first` below `below` if given."""
        return {r[0] for r in self.db.execute("SELECT seq FROM games WHERE tournament_id = ? AND seq >= ? AND seq < ?",
                                              (tid, first, 2 ** 63 - 1 if below is None else below))}

    @_guarded
    def first_gap(self, tid: int) -> int:
        """The first schedule position not recorded: every game below it is (finished or failed)."""
        return self.db.execute(
            "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM games WHERE tournament_id = ?1 AND seq = 0) THEN 0 ELSE "
            "(SELECT MIN(g.seq) + 1 FROM games g WHERE g.tournament_id = ?1 AND NOT EXISTS (SELECT 1 FROM games h "
            "WHERE h.tournament_id = ?1 AND h.seq = g.seq + 1)) END", (tid,)).fetchone()[0]

    @_guarded
    def recorded_count(self, tid: int) -> int:
        """How many schedule positions are recorded (finished or failed): done_seqs's size, without the set."""
        return self.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ?", (tid,)).fetchone()[0]

    @_guarded
    def replays(self) -> set[str]:
        """The replay path of every stored game of every tournament, as stored (relative to the results folder)."""
        return {r[0] for r in self.db.execute("SELECT DISTINCT replay FROM games WHERE replay IS NOT NULL")}

    @_guarded
    def game_replays(self, tid: int) -> list[tuple[int, str]]:
        """(game number, replay file as stored) of every game of the tournament that has a replay, in schedule
        order."""
        return list(self.db.execute("SELECT seq + 1, replay FROM games WHERE tournament_id = ? AND replay IS NOT NULL "
                                    "AND replay != '' ORDER BY seq", (tid,)))

    @_guarded
    def record_games(self, tid: int, games: list[StoredGame]) -> list[int]:
        """Commit the games of one table, with their seats and faults, in a single transaction."""
        ids = self.entrant_ids(tid)
        with self._transaction():
            return [self._insert_game(tid, ids, game) for game in games]

    def _insert_game(self, tid: int, ids: dict[str, int], rec: StoredGame) -> int:
        cur = self.db.execute(
            "INSERT INTO games (tournament_id, seq, table_no, seed, status, reason, cut_short, replay, seconds,"
            " finished) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (tid, rec.seq, rec.table, rec.seed, rec.status, rec.reason, int(rec.cut_short), rec.replay,
             rec.seconds, time.time()))
        gid = cur.lastrowid
        for seat, name in enumerate(rec.bots):
            self.db.execute(
                "INSERT INTO seats VALUES (?,?,?,?,?,?,?,?)",
                (gid, seat, ids[name], name, rec.scores[seat] if rec.scores else None,
                 rec.ranks[seat] if rec.ranks else None, int(seat in rec.disqualified),
                 sum(1 for f in rec.faults if f.seat == seat)))
        self.db.executemany(
            "INSERT INTO faults (game_id, seat, decision, kind, detail, stderr_tail) VALUES (?,?,?,?,?,?)",
            [(gid, f.seat, f.decision, f.kind, f.detail, f.stderr_tail) for f in rec.faults])
        return gid

    @_guarded
    def outcomes(self, tid: int, first: int = 0, below: int | None = None) -> list[GameOutcome]:
        """The finished games of a tournament with first <= seq < below, as rating input, in schedule order."""
        rows = self.db.execute(
            "SELECT g.seq, s.seat, s.name, s.rank FROM games g JOIN seats s ON s.game_id = g.id "
            "WHERE g.tournament_id = ? AND g.status = 'done' AND g.seq >= ? AND g.seq < ? ORDER BY g.seq, s.seat",
            (tid, first, (1 << 62) if below is None else below))
        games: dict[int, list[tuple[str, int]]] = {}
        for seq, _, name, rank in rows:
            games.setdefault(seq, []).append((name, rank))
        return [GameOutcome(seq, tuple(n for n, _ in s), tuple(r for _, r in s)) for seq, s in games.items()]

    def each_outcome(self, tid: int, block: int = OUTCOME_BLOCK) -> Iterator[GameOutcome]:
        """The finished games of a tournament as rating input, in schedule order, read `block` games at a time:
        never all held at once, however many are stored."""
        last = self._last_seq(tid)
        for first in range(0, -1 if last is None else last + 1, block):
            yield from self.outcomes(tid, first, first + block)

    @_guarded
    def _last_seq(self, tid: int) -> int | None:
        return self.db.execute("SELECT MAX(seq) FROM games WHERE tournament_id = ?", (tid,)).fetchone()[0]

    @_guarded
    def failed_count(self, tid: int) -> int:
        """How many games of a tournament are recorded as failed."""
        return self.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id = ? AND status = 'failed'",
                               (tid,)).fetchone()[0]

    @_guarded
    def record_refusals(self, tid: int, refused: list[Refusal]) -> None:
        """The submissions not admitted by this run's check (each run checks them again, so this replaces the
        last run's list)."""
        with self._transaction():
            self.db.execute("DELETE FROM refusals WHERE tournament_id = ?", (tid,))
            self.db.executemany("INSERT OR REPLACE INTO refusals VALUES (?,?,?,?,?)",
                                [(tid, r.folder, r.name, r.reason, time.time()) for r in refused])

    @_guarded
    def name_holders(self) -> dict[str, str]:
        """The folder each submission's name was first stored with (name -> folder)."""
        holders: dict[str, str] = {}
        for name, cwd in self.db.execute("SELECT name, cwd FROM bots WHERE cwd IS NOT NULL ORDER BY id"):
            holders.setdefault(name, cwd)
        return holders

    @_guarded
    def refusals(self, tid: int) -> list[Refusal]:
        """The submissions the last run did not admit: folder, name and reason."""
        if not self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'refusals'").fetchone():
            return []  # an older store read as it is
        rows = self.db.execute("SELECT folder, name, reason FROM refusals WHERE tournament_id = ? ORDER BY folder",
                               (tid,)).fetchall()
        if not rows:
            return []
        from arena.bots.entrants import Refusal  # only when there are any: a leaderboard need not load the bots' side
        return [Refusal(f, n, r) for f, n, r in rows]

    @_guarded
    def save_ratings(self, tid: int, ratings: Ratings, final: bool = False) -> None:
        """Replace the stored ratings of a tournament (a cache: `arena rerate` rebuilds it); `final`: they are the
        season's end re-rating, with the dynamics factor off, until the next run or rerate replaces them."""
        with self._transaction():
            self.db.execute("DELETE FROM ratings WHERE tournament_id = ?", (tid,))
            self.db.executemany("INSERT INTO ratings VALUES (?,?,?,?)",
                                [(tid, name, r.mu, r.sigma) for name, r in ratings.table.items()])
            self.db.execute("DELETE FROM meta WHERE key = ?", (_final_key(tid),))
            if final:
                self.db.execute("INSERT INTO meta VALUES (?, '1')", (_final_key(tid),))

    @_guarded
    def final_ratings(self, tid: int) -> bool:
        """Whether the stored ratings of a tournament are a final re-rating (`arena rerate --final`)."""
        return self.db.execute("SELECT 1 FROM meta WHERE key = ?", (_final_key(tid),)).fetchone() is not None

    @_guarded
    def stored_ratings(self, tid: int) -> dict[str, tuple[float, float]]:
        """The stored ratings of a tournament by bot name: (mu, sigma)."""
        rows = self.db.execute("SELECT name, mu, sigma FROM ratings WHERE tournament_id = ?", (tid,))
        return {name: (mu, sigma) for name, mu, sigma in rows}

    @_guarded
    def bot_stats(self, tid: int) -> dict[str, dict[str, float]]:
        """Per entrant: games, wins, mean score, mean rank and the share of games with a fault."""
        # The seats summed by name first, then joined to the entrants: joining every seat to its entrant first
        # made SQLite copy them all and index the copy (three times the time at 100,000 games).
        rows = self.db.execute(
            "SELECT e.name, COALESCE(a.games, 0), COALESCE(a.wins, 0), a.score, a.rank, COALESCE(a.faulty, 0) "
            "FROM entrants e LEFT JOIN (SELECT s.name AS name, COUNT(*) AS games, SUM(s.rank = 1) AS wins, "
            "AVG(s.score) AS score, AVG(s.rank) AS rank, SUM(s.faults > 0) AS faulty FROM games g "
            "JOIN seats s ON s.game_id = g.id WHERE g.tournament_id = ? AND g.status = 'done' GROUP BY s.name) a "
            "ON a.name = e.name WHERE e.tournament_id = ? ORDER BY e.name", (tid, tid))
        return {name: {"games": games, "wins": wins, "mean_score": score, "mean_rank": rank,
                       "fault_rate": (faulty / games) if games else 0.0}
                for name, games, wins, score, rank, faulty in rows}

    @_guarded
    def games(self, tid: int) -> list[StoredGameRow]:
        """Every recorded game of a tournament, in schedule order, with its seats."""
        rows = self.db.execute("SELECT id, seq, table_no, seed, status, reason, cut_short, replay, seconds "
                               "FROM games WHERE tournament_id = ? ORDER BY seq", (tid,)).fetchall()
        return [self._game_row(row) for row in rows]

    @_guarded
    def game(self, gid: int) -> StoredGameRow:
        """One recorded game by its id, with seats and faults; StoreError if there is none."""
        row = self.db.execute("SELECT id, seq, table_no, seed, status, reason, cut_short, replay, seconds "
                              "FROM games WHERE id = ?", (gid,)).fetchone()
        if row is None:
            raise StoreError(f"no game {gid} in {str(self.path)!r}")
        faults = tuple(StoredFault(seat, kind, detail, decision, tail) for seat, decision, kind, detail, tail in
                       self.db.execute("SELECT seat, decision, kind, detail, stderr_tail FROM faults WHERE game_id = ? "
                                       "ORDER BY id", (gid,)))
        tournament = self.db.execute("SELECT t.name FROM tournaments t JOIN games g ON g.tournament_id = t.id "
                                     "WHERE g.id = ?", (gid,)).fetchone()[0]
        return replace(self._game_row(row), faults=faults, tournament=tournament)

    @_guarded
    def game_numbered(self, t: Tournament, number: int) -> StoredGameRow:
        """Game `number` of a tournament (its place in the schedule, from 1), as game() gives it; ConfigError
        naming the tournament's games if there is none."""
        row = self.db.execute("SELECT id FROM games WHERE tournament_id = ? AND seq = ?", (t.id, number - 1)).fetchone()
        if row is None:
            count = self.db.execute("SELECT COUNT(*), MAX(seq) FROM games WHERE tournament_id = ?", (t.id,)).fetchone()
            held = f"its games are numbered 1 to {count[1] + 1}" if count[0] else "it has no game yet"
            raise ConfigError(f"no game {number} in {t.name!r} ({held}); arena matches -t {shlex.quote(t.name)} "
                              "lists them")
        return self.game(row[0])

    def _game_row(self, row: tuple[Any, ...]) -> StoredGameRow:
        gid, seq, table, seed, status, reason, cut_short, replay, seconds = row
        rows = self.db.execute("SELECT seat, name, score, rank, disqualified, faults FROM seats WHERE game_id = ? "
                               "ORDER BY seat", (gid,))
        seats = tuple(StoredSeat(seat, name, score, rank, bool(dq), faults) for seat, name, score, rank, dq, faults
                      in rows)
        return StoredGameRow(gid, seq, table, seed, status, reason, bool(cut_short), replay, seconds, seats)

    # --- a hosted competition: authors and submissions --------------------------------------------------------------
    @_guarded
    def hold_server(self) -> None:
        """Hold this store's server lock until the store is closed: StoreBusy if another `arena serve` holds it."""
        try:
            self._locks[SERVER_LOCK] = _TournamentLock.acquire(self.path, SERVER_LOCK)
        except StoreBusy:
            raise StoreBusy(f"the results store {shlex.quote(str(self.path))} is already served by another arena "
                            "serve: stop it first, or give this one another --results or --db") from None

    @_guarded
    def open_session(self, author: Author, seconds: float) -> str:
        """A new session of the author's, good for `seconds` or until it is ended: its id, which the store keeps only
        as a hash (sessions that have expired are dropped on the way)."""
        session, now = new_session(), time.time()
        with self._transaction():
            self.db.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            self.db.execute("INSERT INTO sessions (hash, author_id, created, expires) VALUES (?,?,?,?)",
                            (session_hash(session), author.id, now, now + seconds))
        return session

    @_guarded
    def note_served_at(self, address: str) -> None:
        """Keep the address a server of this store answers at, for the links `arena authors` prints."""
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('served_at', ?)", (address,))

    @_guarded
    def served_at(self) -> str | None:
        """The address a server of this store last answered at, if one has."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'served_at'").fetchone()
        return None if row is None else row[0]

    @_guarded
    def session_author(self, session: str) -> Author | None:
        """The (not revoked) author of a session that has neither expired nor been ended, else None."""
        row = self.db.execute("SELECT author_id FROM sessions WHERE hash = ? AND expires > ?",
                              (session_hash(session), time.time())).fetchone()
        return None if row is None else self.author(row[0])

    @_guarded
    def end_session(self, session: str) -> None:
        """End a session (a sign-out): its id opens nothing from now on."""
        self.db.execute("DELETE FROM sessions WHERE hash = ?", (session_hash(session),))

    @_guarded
    def add_author(self, name: str, organiser: bool = False) -> tuple[Author, str, str]:
        """A new author: (the author, their API token, their sign-in code), the secrets shown only this once;
        ConfigError if the name is taken or not a name."""
        check_author_name(name)
        with self._transaction():
            return self._insert_author(name, organiser)

    def _insert_author(self, name: str, organiser: bool, secrets: bool = True) -> tuple[Author, str, str]:
        """Inside a transaction: a new author, with a token and sign-in code unless not `secrets` (then "", "")."""
        if self.db.execute("SELECT 1 FROM authors WHERE name = ?", (name,)).fetchone():
            raise ConfigError(f"there is already an author {name!r}: choose another name, or revoke that one")
        now = time.time()
        aid = self.db.execute("INSERT INTO authors (name, organiser, created) VALUES (?,?,?)",
                              (name, int(organiser), now)).lastrowid
        token, code = (new_secret(aid), new_secret(aid)) if secrets else ("", "")
        if secrets:
            self.db.execute("UPDATE authors SET token_salt = ?, token_hash = ?, link_salt = ?, link_hash = ?, "
                            "link_expires = ? WHERE id = ?",
                            (*salted_hash(token), *salted_hash(code), now + SIGN_IN_SECONDS, aid))
        return Author(aid, name, organiser, now), token, code

    @_guarded
    def house_author(self) -> Author:
        """The author the organiser's own submission folders are entered as: the first organiser, else a new
        organiser HOUSE_AUTHOR who cannot sign in (no token or link)."""
        with self._transaction():
            row = self.db.execute("SELECT id FROM authors WHERE organiser = 1 AND revoked IS NULL ORDER BY id "
                                  "LIMIT 1").fetchone()
            if row is not None:
                return self.author(row[0])  # type: ignore[return-value]
            return self._insert_author(HOUSE_AUTHOR, True, secrets=False)[0]

    # --- invite codes: self sign-up -----------------------------------------------------------------------------
    @_guarded
    def add_invite(self, uses: int, seconds: float) -> tuple[int, str]:
        """A new invite code good for `uses` sign-ups within `seconds`: (its id, the code, shown only this once)."""
        now = time.time()
        with self._transaction():
            iid = self.db.execute("INSERT INTO invites (uses, expires, created) VALUES (?,?,?)",
                                  (uses, now + seconds, now)).lastrowid
            code = new_secret(iid)
            self.db.execute("UPDATE invites SET salt = ?, hash = ? WHERE id = ?", (*salted_hash(code), iid))
        return iid, code

    @_guarded
    def invites(self) -> list[Invite]:
        """Every invite code, oldest first (never the code itself)."""
        rows = self.db.execute("SELECT id, uses, used, expires, created, revoked FROM invites ORDER BY id")
        return [Invite(*row) for row in rows]

    @_guarded
    def revoke_invite(self, iid: int) -> None:
        """An invite code signs nobody up from now on; ConfigError if there is no such code in use."""
        cur = self.db.execute("UPDATE invites SET revoked = ?, hash = NULL WHERE id = ? AND revoked IS NULL",
                              (time.time(), iid))
        if cur.rowcount == 0:
            raise ConfigError(f"no invite {iid} to revoke; arena authors invites lists them")

    @_guarded
    def redeem_invite(self, code: str, name: str) -> tuple[Author, str] | None:
        """A new author NAME signed up by an invite code with a use left, not expired or revoked: (the author, their
        API token); None if the code is not such a code; ConfigError if the name is taken or not a name."""
        check_author_name(name)
        iid = author_id_of(code)
        row = None if iid is None else self.db.execute(
            "SELECT salt, hash FROM invites WHERE id = ? AND used < uses AND expires > ? AND revoked IS NULL",
            (iid, time.time())).fetchone()
        if row is None or not matches(code, row[0], row[1]):
            return None
        with self._transaction():
            taken = self.db.execute("UPDATE invites SET used = used + 1 WHERE id = ? AND used < uses AND revoked IS "
                                    "NULL", (iid,)).rowcount  # two sign-ups at once: only the uses left
            if not taken:
                return None
            author, token, _ = self._insert_author(name, False)
        return author, token

    @_guarded
    def authors(self) -> list[Author]:
        """Every author, oldest first (revoked ones included)."""
        rows = self.db.execute("SELECT id, name, organiser, created, revoked FROM authors ORDER BY id")
        return [Author(i, n, bool(o), c, r) for i, n, o, c, r in rows]

    @_guarded
    def author(self, aid: int) -> Author | None:
        """The author with that id, if they exist and are not revoked."""
        row = self.db.execute("SELECT id, name, organiser, created, revoked FROM authors WHERE id = ? AND revoked "
                              "IS NULL", (aid,)).fetchone()
        return None if row is None else Author(row[0], row[1], bool(row[2]), row[3], row[4])

    @_guarded
    def revoke_author(self, name: str) -> Author:
        """Revoke an author: their token, sign-in link and sessions stop working; ConfigError if there is none."""
        with self._transaction():
            cur = self.db.execute("UPDATE authors SET revoked = ?, token_hash = NULL, link_hash = NULL WHERE name = ? "
                                  "AND revoked IS NULL", (time.time(), name))
            if cur.rowcount == 0:
                raise ConfigError(f"no author {name!r} to revoke; arena authors list shows them")
            self.db.execute("DELETE FROM sessions WHERE author_id = (SELECT id FROM authors WHERE name = ?)", (name,))
        return next(a for a in self.authors() if a.name == name)

    @_guarded
    def new_link(self, name: str, restore: bool = False) -> tuple[Author, str]:
        """A fresh one-use sign-in code for an author (the one before it stops working); `restore` also takes back
        a revocation. ConfigError if there is no such author, or they are revoked and not restored."""
        return self._new_secret(name, "link", restore)

    @_guarded
    def new_token(self, name: str) -> tuple[Author, str]:
        """A fresh API token for an author (the one before it stops working); ConfigError if there is no such
        author or they are revoked."""
        return self._new_secret(name, "token", False)

    def _new_secret(self, name: str, kind: str, restore: bool) -> tuple[Author, str]:
        with self._transaction():
            row = self.db.execute("SELECT id, revoked FROM authors WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise ConfigError(f"no author {name!r}; arena authors list shows them")
            if row[1] is not None and not restore:
                raise ConfigError(f"author {name!r} was revoked: arena authors restore {name} brings them back")
            secret = new_secret(row[0])
            if kind == "link":
                self.db.execute("UPDATE authors SET link_salt = ?, link_hash = ?, link_expires = ?, revoked = NULL "
                                "WHERE id = ?", (*salted_hash(secret), time.time() + SIGN_IN_SECONDS, row[0]))
            else:
                self.db.execute("UPDATE authors SET token_salt = ?, token_hash = ? WHERE id = ?",
                                (*salted_hash(secret), row[0]))
        return self.author(row[0]), secret  # type: ignore[return-value]

    @_guarded
    def author_by_token(self, token: str) -> tuple[Author, bytes] | None:
        """The (not revoked) author whose API token this is, with the token's stored hash (to check again cheaply
        with author_holding), else None."""
        aid = author_id_of(token)
        row = None if aid is None else self.db.execute(
            "SELECT token_salt, token_hash FROM authors WHERE id = ? AND revoked IS NULL", (aid,)).fetchone()
        if row is None or aid is None or not matches(token, *row):
            return None
        author = self.author(aid)
        return None if author is None else (author, row[1])

    @_guarded
    def author_holding(self, aid: int, token_hash: bytes) -> Author | None:
        """The author, if not revoked and their token is still the one hashed as token_hash (not replaced)."""
        row = self.db.execute("SELECT id, name, organiser, created, revoked FROM authors WHERE id = ? AND revoked "
                              "IS NULL AND token_hash = ?", (aid, token_hash)).fetchone()
        return None if row is None else Author(row[0], row[1], bool(row[2]), row[3], row[4])

    @_guarded
    def sign_in(self, code: str) -> Author | None:
        """The author whose unused, unexpired sign-in code this is (it is then used up), else None."""
        aid = author_id_of(code)
        row = None if aid is None else self.db.execute(
            "SELECT link_salt, link_hash, link_expires FROM authors WHERE id = ? AND revoked IS NULL",
            (aid,)).fetchone()
        if row is None or (row[2] or 0) < time.time() or not matches(code, row[0], row[1]):
            return None
        # Used up only if it still is this code: of the same code sent at once, one signs in.
        used = self.db.execute("UPDATE authors SET link_hash = NULL WHERE id = ? AND link_hash = ?", (aid, row[1]))
        return self.author(aid) if used.rowcount == 1 else None  # type: ignore[arg-type]

    @_guarded
    def bot_owner(self, bot: str) -> str | None:
        """The name of the author who owns a bot name, or None if nobody does yet."""
        row = self.db.execute("SELECT a.name FROM owners o JOIN authors a ON a.id = o.author_id WHERE o.bot = ?",
                              (bot,)).fetchone()
        return None if row is None else row[0]

    @_guarded
    def add_submission(self, author: Author, bot: str, version: str, folder: str) -> Submission:
        """A new queued submission of `bot` by `author`, who owns the name from then on (checked by the caller)."""
        now = time.time()
        with self._transaction():
            self.db.execute("INSERT OR IGNORE INTO owners VALUES (?, ?)", (bot, author.id))
            sid = self.db.execute("INSERT INTO submissions (author_id, bot, version, folder, status, reason, created, "
                                  "updated) VALUES (?,?,?,?,?,?,?,?)",
                                  (author.id, bot, version, folder, Status.QUEUED.value, "", now, now)).lastrowid
        return self.submission(sid)  # type: ignore[return-value]

    @_guarded
    def set_status(self, sid: int, status: Status, reason: str = "", build_log: str | None = None) -> None:
        """Move a submission on (with the reason of a refusal, and the build's log once there is one); a refusal
        gives the bot's name back when no version of it is left that is not refused."""
        with self._transaction():
            self.db.execute("UPDATE submissions SET status = ?, reason = ?, updated = ?, build_log = COALESCE(?, "
                            "build_log) WHERE id = ?", (status.value, reason, time.time(), build_log, sid))
            if status == Status.REFUSED:
                self.db.execute("DELETE FROM owners WHERE bot = (SELECT bot FROM submissions WHERE id = ?) AND NOT "
                                "EXISTS (SELECT 1 FROM submissions WHERE bot = owners.bot AND status != ?)",
                                (sid, Status.REFUSED.value))

    @_guarded
    def version_in(self, bot: str, version: str) -> Submission | None:
        """The latest submission of this bot at this version that was not refused, or None."""
        row = self.db.execute(self._SUBMISSION + "WHERE s.bot = ? AND s.version = ? AND s.status != ? ORDER BY s.id "
                              "DESC LIMIT 1", (bot, version, Status.REFUSED.value)).fetchone()
        return None if row is None else _submission(row)

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
        return None if row is None else _submission(row)

    @_guarded
    def submissions(self, author: str | None = None, status: Status | None = None) -> list[Submission]:
        """Submissions, oldest first: an author's (None: everyone's), in one status (None: any)."""
        rows = self.db.execute(self._SUBMISSION + "WHERE (? IS NULL OR a.name = ?) AND (? IS NULL OR s.status = ?) "
                               "ORDER BY s.id", (author, author, status, status))
        return [_submission(row) for row in rows]

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
        if row is not None and tuple(row) == (folder, version):
            return None
        return self.add_submission(author, bot, version, folder)

    @_guarded
    def owned_bots(self, author: Author) -> list[str]:
        """The bot names an author owns."""
        return [r[0] for r in self.db.execute("SELECT bot FROM owners WHERE author_id = ? ORDER BY bot",
                                              (author.id,))]

    @_guarded
    def games_of(self, tid: int, bot: str, limit: int) -> list[StoredGameRow]:
        """A bot's latest `limit` games in a tournament (any of its versions, whose keys are NAME@VERSION), newest
        first."""
        rows = self.db.execute(
            "SELECT id, seq, table_no, seed, status, reason, cut_short, replay, seconds FROM games WHERE id IN "
            "(SELECT s.game_id FROM seats s JOIN games g ON g.id = s.game_id WHERE g.tournament_id = ? AND "
            "(s.name = ? OR substr(s.name, 1, ?) = ?)) ORDER BY seq DESC LIMIT ?",
            (tid, bot, len(bot) + 1, bot + "@", limit)).fetchall()
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
    def current_versions(self) -> list[Submission]:
        """Per bot name, its latest admitted submission: what plays in the ladder."""
        rows = self.db.execute(self._SUBMISSION + "WHERE s.id IN (SELECT MAX(id) FROM submissions WHERE status = "
                               "'admitted' GROUP BY bot) ORDER BY s.bot")
        return [_submission(row) for row in rows]


SHOWN = ("max_fault_rate",)  # settings of how a tournament is shown, not of what it plays: they may change


def _comparable(config: dict[str, Any], living: tuple[str, ...] = (), title: bool = False) -> dict[str, Any]:
    """A tournament's configuration as compared on resume: its title and SHOWN settings are shown, not played, and
    the living keys (a ladder's entrants and number of games) may change."""
    return {k: v for k, v in config.items() if k not in living and k not in SHOWN and (title or k != "title")}


def _changed(name: str, path: Path, fmt: str, stored: dict[str, Any], config: dict[str, Any]) -> str:
    """Why a tournament cannot resume with this configuration, and what to do."""
    if _comparable(stored, ("entrants",)) == _comparable(config, ("entrants",)):
        before = {e["name"]: e for e in stored.get("entrants", [])}
        after = {e["name"]: e for e in config.get("entrants", [])}
        both = sorted(before.keys() & after.keys())
        change = ", ".join([*(f"{n} added" for n in sorted(after.keys() - before.keys())),
                            *(f"{n} removed" for n in sorted(before.keys() - after.keys())),
                            *(f"{n} version {before[n].get('version')} now {after[n].get('version')}" for n in both
                              if before[n].get("version") != after[n].get("version"))]) or "their commands"
        return (f"the entrants of {fmt} {name!r} in {str(path)!r} changed ({change}); a {fmt}'s schedule is fixed "
                "by its entrants: start a new one with another --name (or name in the competition file), or run "
                "a ladder, which entrants may join and leave")
    return (f"tournament {name!r} already exists in {str(path)!r} with another configuration; choose another "
            "--name or the same settings")


def _submission(row: tuple[Any, ...]) -> Submission:
    sid, author, bot, version, folder, status, reason, created, updated, log = row
    return Submission(sid, author, bot, version, folder, Status(status), reason, created, updated, log)


def _damaged(path: Path, detail: str) -> str:
    where = shlex.quote(str(path))
    return (f"the results store {where} is damaged ({detail}); nothing was changed. Keep a copy, recover what is "
            f"readable with: sqlite3 {where} \".recover\" | sqlite3 recovered.sqlite, and use --db recovered.sqlite")


def _check_backup_dest(store: Path, dest: Path, overwrite: bool) -> None:
    """ConfigError for a backup's dest that is the store (or one of its files), a folder, or a file that exists
    while it may not be replaced."""
    where, there = shlex.quote(str(store)), shlex.quote(str(dest))
    real = store.resolve()
    if dest.resolve() in [real.with_name(real.name + end) for end in ("", "-wal", "-shm", "-journal")] or (
            dest.exists() and os.path.samefile(dest, real)):
        raise ConfigError(f"{there} is the results store {where} itself: back it up to another file")
    if dest.is_dir():
        raise ConfigError(f"{there} is a folder: give the backup's file, such as "
                          f"{shlex.quote(str(dest / DEFAULT_DB_NAME))}")
    if dest.exists() and not overwrite:
        raise ConfigError(f"{there} exists: give --force to replace it, or another file")


def _snapshot(store: Path, copy: Path, progress: Callable[[int, int], None] | None) -> tuple[int, int]:
    """Copy the store at path `store` into the empty file `copy` as it stands now, BACKUP_STEP pages at a time
    (progress told the pages copied and the total after each step), and check the copy; its pages and page size."""

    def step(status: int, remaining: int, total: int) -> None:
        if progress is not None:
            progress(total - remaining, total)

    source = _connect_readonly(store)
    target = sqlite3.connect(copy, isolation_level=None)
    try:
        # One read transaction for the whole copy: every step reads the same snapshot, which writers in WAL mode do
        # not wait for, where a copy would otherwise start again whenever another process commits (and, under a
        # busy ladder, never end).
        source.execute("BEGIN")
        source.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        source.backup(target, pages=BACKUP_STEP, progress=step)
        source.execute("COMMIT")
        pages, size = (target.execute(f"PRAGMA {pragma}").fetchone()[0] for pragma in ("page_count", "page_size"))
        # The copy holds the store's pages as they are: a damaged page in it is one in the store.
        problems = [str(row[0]) for row in target.execute("PRAGMA quick_check(3)")]
    finally:
        target.close()
        source.close()
    if problems != ["ok"]:
        raise StoreError(_damaged(store, "; ".join(problems)[:200]))
    return pages, size


def _linked(path: Path, name: Path) -> bool:
    """Give the file at path the further name `name`; True if a file already has that name (left as it is)."""
    try:
        os.link(path, name)
    except FileExistsError:
        return True
    return False


def _check_writable(path: Path) -> None:
    """OSError (read-only) if the store, or the folder where SQLite keeps its journal, cannot be written."""
    for place in (path, path.parent):
        if place.exists() and not os.access(place, os.W_OK):
            code = errno.EROFS if _read_only_mount(place) else errno.EACCES
            raise OSError(code, os.strerror(code), str(place))


def _read_only_mount(place: Path) -> bool:
    try:
        return bool(os.statvfs(place).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that only reads. Where the store may be written, an ordinary one (query_only), which removes
    the WAL files on closing as a read-only one cannot; else read-only, and `immutable` where the WAL's shared
    memory cannot be made (a read-only folder)."""
    if not path.is_file():
        raise OSError(errno.ENOENT, "no such file", str(path))
    uri = path.resolve().as_uri()
    if os.access(path, os.W_OK) and os.access(path.parent, os.W_OK):
        db = sqlite3.connect(f"{uri}?mode=rw", uri=True, timeout=30, isolation_level=None)
        db.execute("PRAGMA query_only=ON")
        return db
    for query in ("mode=ro", "mode=ro&immutable=1"):
        db = sqlite3.connect(f"{uri}?{query}", uri=True, timeout=30, isolation_level=None)
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.OperationalError as exc:
            db.close()
            if not getattr(exc, "sqlite_errorname", "").startswith("SQLITE_CANTOPEN") or "immutable" in query:
                raise
    raise AssertionError("unreachable")


class _TournamentLock:
    """An exclusive flock on `<db>.<tournament>.lock`, holding the holder's pid and command; the kernel releases
    it when the holder dies, however it dies."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self.fd = path, fd

    @classmethod
    def acquire(cls, db: Path, name: str) -> "_TournamentLock":
        path = db.with_name(f"{db.name}.{_file_safe(name)}.lock")
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise StoreBusy(f"tournament {name!r} is already being played from {shlex.quote(str(db))} by "
                                f"{holder}: wait for it to finish, or stop it, then run the same command "
                                "again") from None
            except BaseException:
                os.close(fd)
                raise
            if _same_file(fd, path):
                break
            os.close(fd)  # the last holder removed that file as we locked it: lock the new one
        command = " ".join(sys.orig_argv)[:_MAX_COMMAND]
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "command": command}).encode(), 0)
        return cls(path, fd)

    @classmethod
    def wait_for(cls, path: Path) -> "_TournamentLock":
        """An exclusive flock on path, waiting for it as long as another process holds it."""
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
            if _same_file(fd, path):
                return cls(path, fd)
            os.close(fd)  # the last holder removed that file as we locked it: lock the new one

    def release(self) -> None:
        """Remove the lock file while still holding it (so that no one locks a file about to vanish), then unlock."""
        try:
            self.path.unlink(missing_ok=True)
        finally:
            os.close(self.fd)


def _file_safe(name: str) -> str:
    """A file-name form of a tournament name, distinct for distinct names."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:64]
    if safe == name:
        return name
    return f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _holder(fd: int) -> str:
    """Who holds a lock, from what it wrote (waiting a moment for a holder that has only just locked)."""
    deadline = time.monotonic() + _LOCK_WAIT
    while True:
        try:
            info = json.loads(os.pread(fd, 4096, 0) or b"null")
            command = "".join(c if c.isprintable() else "?" for c in str(info["command"])[:_MAX_COMMAND])
            return f"another arena (pid {int(info['pid'])}: {command})"
        except (ValueError, TypeError, KeyError):
            if time.monotonic() > deadline:
                return "another arena"
            time.sleep(0.05)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error, so a game is stored whole or not at all."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: type | None, *rest: object) -> None:
        try:
            if exc_type is None:
                self.db.execute("COMMIT")
        finally:
            if self.db.in_transaction:  # not after some errors (a full disk, for one): SQLite rolled back already
                self.db.execute("ROLLBACK")


def _final_key(tid: int) -> str:
    """The meta key that marks a tournament's stored ratings as its final re-rating."""
    return f"final_ratings:{tid}"
