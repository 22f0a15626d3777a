"""The store's file: one SQLite file in WAL mode, opened, checked and brought to this schema; its transactions and
locks (a lock file per tournament beside it); its backup; and every SQLite or file-system failure as a StoreError
whose one-line message names the file and what to do."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import logging
import os
import re
import shlex
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from arena.errors import ArenaError, ConfigError

if TYPE_CHECKING:  # not imported at run time: the bots' processes and the protocol cost the leaderboard's start
    pass
from typing import Self

from arena.storage.schema import (
    _ACCOUNTS,
    _BUILD_TIME,
    _CHALLENGES,
    _SCHEMA,
    _SERVING,
    _SESSIONS,
    _WEBHOOKS,
    DATA_MIGRATIONS,
    MIGRATIONS,
    SCHEMA_VERSION,
    session_sources,
)

log = logging.getLogger("arena.store")

DEFAULT_DB_NAME = "arena.sqlite"
_LOCK_WAIT = 2.0  # seconds to wait for a new lock holder to write who it is
SERVER_LOCK = "(server)"  # the lock `arena serve` holds, beside the tournaments' (no tournament name is a file name)
_MAX_COMMAND = 200  # characters of a lock holder's command line shown in a message
BACKUP_STEP = 1024  # pages a backup copies at a time (4 MiB at SQLite's default page size), its progress between



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
    def guarded(self: "Connection", *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(explain(self.path, exc)) from None

    return guarded  # type: ignore[return-value]

class Connection:
    """An open results database and what every part of the store shares: its opening (the file checked, its
    schema brought up to date), its transactions, its locks and its backup. `readonly` opens it for browsing only (it
    may then be on a read-only disk); `serving` takes `arena serve`'s lock of the store before anything is read or
    written (StoreBusy if another server holds it), so that a start refused changes nothing."""

    def __init__(self, path: Path, readonly: bool = False, serving: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.home = Path(os.path.abspath(self.path.parent))  # what the submissions' folders are kept relative to
        self._locks: dict[str, _TournamentLock] = {}  # by tournament: one held per name, however often opened
        if serving:
            self._locks[SERVER_LOCK] = hold_server_lock(self.path)
        try:
            self._open()
        except BaseException:
            for lock in self._locks.values():
                lock.release()
            raise

    @classmethod
    def existing(cls, path: Path, readonly: bool = True) -> Self:
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

    def __enter__(self) -> Self:
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
        kept = None if version is None else self.path.with_name(f"{self.path.name}.schema{version}.bak")
        made = kept is not None and self._keep_before(kept)
        try:
            with self._transaction():
                before = self._version()  # again, inside the write lock: another arena may have done it
                self._upgrade(before)
        except BaseException as exc:
            if made and kept is not None:  # the store is as it was: its copy is not needed
                kept.unlink(missing_ok=True)
            if not isinstance(exc, sqlite3.OperationalError) or version is None or \
                    getattr(exc, "sqlite_errorname", "") != "SQLITE_ERROR":
                raise  # busy, read-only, full: said as such
            raise StoreError(f"cannot bring the results store {shlex.quote(str(self.path))} from schema {version} "
                             f"to {SCHEMA_VERSION} ({exc}); it is left as it was: an arena of its schema reads "
                             "it") from None
        if kept is not None and before != SCHEMA_VERSION:
            log.warning("brought the results store %s from schema %d to %d; the store as it was is kept in %s (the "
                        "release before reads it)", shlex.quote(str(self.path)), version, SCHEMA_VERSION,
                        shlex.quote(str(kept)))

    def _keep_before(self, kept: Path) -> bool:
        """Copy a store of an older schema, before it is brought to this one, to kept (NAME.schemaN.bak beside it);
        False if a copy is there already (left as it is: a copy of the same store before any change)."""
        if kept.exists():
            return False
        self.backup(kept)
        return True

    def _upgrade(self, version: int | None) -> None:
        if version == SCHEMA_VERSION:
            return
        if version is None:
            for statement in [*filter(str.strip, _SCHEMA.split(";")), *_ACCOUNTS, *_SERVING, *_SESSIONS, *_BUILD_TIME,
                              *_CHALLENGES, *_WEBHOOKS]:
                self.db.execute(statement)
            session_sources(self.db)
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            return
        for step in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[step]:
                self.db.execute(statement)
            if step in DATA_MIGRATIONS:
                DATA_MIGRATIONS[step](self.db, self.home)
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


def hold_server_lock(path: Path) -> "_TournamentLock":
    """`arena serve`'s lock of the store at path, held until released: StoreBusy if another server holds it."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        return _TournamentLock.acquire(Path(path), SERVER_LOCK)
    except StoreBusy:
        raise StoreBusy(f"the results store {shlex.quote(str(path))} is already served by another arena serve: stop "
                        "it first, or give this one another --results or --db") from None


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

