"""What a killed arena leaves behind, and its removal by the next run.

An arena marks what it creates and may leave behind if it is killed: its private temporary directories (the bots'
sockets and homes) and, until the store commits it, the results folder of each tournament table. The mark names
the owner process by pid, process start time and boot, so that a reused pid is not taken for a live owner. A sweep
removes what is marked by an owner that is gone, and nothing else: unmarked folders, folders of live arenas and
folders of other machines are left alone.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

MARK = ".arena-owner"  # the file, inside a marked directory, naming its owner
PRIVATE_PREFIX = "arena-"
MATCHES = "matches"  # the results subfolder holding one folder per match or tournament table
_MAX_MARK = 4096  # bytes of a mark that are read


@dataclass(frozen=True)
class Owner:
    """A process, told apart from any later process given the same pid."""

    pid: int
    start: int | None  # clock ticks after boot, from /proc (None where there is no /proc)
    boot: str
    host: str

    @classmethod
    def current(cls) -> "Owner":
        """This process."""
        now = _stat(os.getpid())
        return cls(os.getpid(), None if now is None else now[0], _boot_id(), socket.gethostname())

    def gone(self) -> bool:
        """True if this process has certainly ended (one on another machine is never known to be gone)."""
        if self.host != socket.gethostname():
            return False
        if self.boot != _boot_id():
            return True
        now = _stat(self.pid)
        if self.start is None or now is None:  # no /proc, or it hides this process: only a missing pid is gone
            return not _exists(self.pid)
        start, zombie = now
        return zombie or start != self.start


@dataclass(frozen=True)
class Swept:
    """What a sweep removed."""

    private: tuple[Path, ...] = ()
    tables: tuple[Path, ...] = ()


def private_dir() -> Path:
    """A new private temporary directory (mode 0700), marked as this process's."""
    path = Path(tempfile.mkdtemp(prefix=PRIVATE_PREFIX))
    mark(path)
    return path


def mark(folder: Path) -> None:
    """Mark a folder as this process's until it is released."""
    (folder / MARK).write_text(json.dumps(asdict(Owner.current())), encoding="utf-8")


def release(folder: Path) -> None:
    """Unmark a folder: it is no longer removed when its owner is gone."""
    try:
        (folder / MARK).unlink(missing_ok=True)
    except OSError:
        pass  # a mark left on a stored table is harmless: the sweep keeps every folder the store refers to


def release_replays(results_dir: Path, replays: Iterable[str | None]) -> None:
    """Unmark the table folders of stored games (after the store committed them), given their replay paths."""
    for folder in {Path(r).parent for r in replays if r}:
        release(folder if folder.is_absolute() else results_dir / folder)


def mark_beside(path: Path) -> None:
    """Mark a folder as this process's with a file beside it (its name + MARK), leaving the folder's own contents
    as they are (an upload's folder holds only what its author sent)."""
    _beside(path).write_text(json.dumps(asdict(Owner.current())), encoding="utf-8")


def release_beside(path: Path) -> None:
    """Remove the mark beside a folder: it is no longer removed when its owner is gone."""
    try:
        _beside(path).unlink(missing_ok=True)
    except OSError:
        pass


def abandoned_beside(path: Path) -> bool:
    """True if the folder is marked beside it by an owner that is gone."""
    mark_owner = _owner_in(_beside(path))
    return mark_owner is not None and mark_owner.gone()


def _beside(path: Path) -> Path:
    return path.with_name(path.name + MARK)


def owner(folder: Path) -> Owner | None:
    """The owner a folder is marked with; None if it is unmarked (or the mark is unreadable)."""
    return _owner_in(folder / MARK)


def _owner_in(mark_file: Path) -> Owner | None:
    try:
        with open(mark_file, "rb") as handle:
            data = json.loads(handle.read(_MAX_MARK))
        return Owner(int(data["pid"]), None if data["start"] is None else int(data["start"]), str(data["boot"]),
                     str(data["host"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def abandoned(folder: Path) -> bool:
    """True if the folder is marked by an owner that is gone."""
    mark_owner = owner(folder)
    return mark_owner is not None and mark_owner.gone()


def sweep(results_dir: Path | None = None, replays: Iterable[str] = ()) -> Swept:
    """Remove the private directories of arenas that are gone and, under results_dir, the marked table folders of
    arenas that are gone which hold no stored game (replays: the stored replay paths)."""
    private = tuple(p for p in _children(Path(tempfile.gettempdir()), PRIVATE_PREFIX) if abandoned(p))
    tables: tuple[Path, ...] = ()
    if results_dir is not None:
        stored = {_resolved(results_dir, Path(r).parent) for r in replays}
        tables = tuple(p for p in _children(results_dir / MATCHES)
                       if abandoned(p) and _resolved(results_dir, p) not in stored)
    for folder in private + tables:
        _remove(folder)
    return Swept(private, tables)


def _children(parent: Path, prefix: str = "") -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(parent)
                if e.name.startswith(prefix) and e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _resolved(results_dir: Path, folder: Path) -> Path:
    return (folder if folder.is_absolute() else results_dir / folder).resolve()


def _remove(folder: Path) -> None:
    """Remove a folder tree, even where a bot took away the permissions of folders inside its own."""
    try:
        shutil.rmtree(folder)
    except OSError:
        for root, dirs, _ in os.walk(folder):
            for name in dirs:
                try:
                    os.chmod(os.path.join(root, name), stat.S_IRWXU, follow_symlinks=False)
                except OSError:
                    continue
        shutil.rmtree(folder, ignore_errors=True)


def _stat(pid: int) -> tuple[int, bool] | None:
    """The process's start time (clock ticks after boot) and whether it is a zombie; None if /proc has no such
    process (or hides it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return int(fields[19]), fields[0] == b"Z"
    except (OSError, IndexError, ValueError):
        return None


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    except OSError:
        return ""


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
