"""A submission folder as the arena reads it: walked without following a link, within bounds, and checked for the
files a host must never meet there (links out of it, FIFOs, sockets, devices, setuid and setgid programs).

The arena runs as whoever starts it (root in a typical organiser's container), and a folder is a stranger's: every
file it reads or writes there is opened relative to the folder's own descriptor, with no-follow and non-blocking
semantics, and must turn out a regular file with a single link.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from arena.bots.sandbox import MIB
from arena.bots.sandbox.hostuser import NOGROUP
from arena.bots.sandbox.paths import in_runtime
from arena.errors import ConfigError

DEPTH_LIMIT = 64  # directories deep: more than any toolchain's output needs
FILE_LIMIT = 200_000  # entries of every kind in the whole folder (node_modules included)
SIZE_LIMIT = 1024 * MIB  # apparent bytes of the files the digest reads (a sparse file counts by its size)
TIME_LIMIT = 120.0  # seconds one walk of a folder may take
SHOWN = 200  # characters of a name from a folder quoted in a message
_OPEN = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | _OPEN
_SPECIAL = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


class FolderRefused(ConfigError):
    """A submission folder holds what the arena will not touch, or more than it reads."""


@dataclass(frozen=True)
class Entry:
    """One thing in a folder: its path from the folder, its lstat, and the descriptor of the directory it is in
    (valid only while the walk is at it)."""

    relative: str
    info: os.stat_result
    parent: int
    name: str


def _refuse(folder: Path, what: str) -> FolderRefused:
    return FolderRefused(f"{folder}: {what}; the submission is refused")


def open_folder(folder: Path) -> int:
    """A descriptor of the folder itself (FolderRefused if it is no directory). Its own path is the organiser's
    (a link there is followed); nothing below it is."""
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise _refuse(folder, f"cannot be opened as a folder ({exc.strerror or exc})") from None


def walk(folder: Path, skip: Callable[[str, bool], bool] = lambda _path, _dir: False) -> Iterator[Entry]:
    """Every entry of the folder, depth first in name order, never following a link, within DEPTH_LIMIT,
    FILE_LIMIT and TIME_LIMIT (FolderRefused naming the limit); skip(relative, is_dir) leaves an entry out (and,
    for a directory, all it holds). At most DEPTH_LIMIT directories are open at a time."""
    clock = _Budget(folder)
    stack: list[tuple[int, str, Iterator[str]]] = []
    try:
        root = open_folder(folder)
        stack.append((root, "", iter(clock.names(root))))
        while stack:
            fd, prefix, names = stack[-1]
            name = next(names, None)
            if name is None:
                os.close(stack.pop()[0])
                continue
            clock.tick()
            relative = f"{prefix}{name}"
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue  # gone since the directory was listed (a running build's temporary file): nothing to check
            is_dir = stat.S_ISDIR(info.st_mode)
            if skip(relative, is_dir):
                continue
            yield Entry(relative, info, fd, name)
            if is_dir:
                if len(stack) >= DEPTH_LIMIT:
                    raise _refuse(folder, f"has folders more than {DEPTH_LIMIT} deep (the limit)")
                try:
                    child = os.open(name, _DIRECTORY, dir_fd=fd)
                except (FileNotFoundError, NotADirectoryError):
                    continue  # gone or replaced since it was looked at: the walk after the build sees what stays
                stack.append((child, relative + "/", iter(clock.names(child))))
    finally:
        for fd, _, _ in stack:
            os.close(fd)


class _Budget:
    """The file count and time one walk of a folder has used, refused past FILE_LIMIT or TIME_LIMIT."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.count, self.started = folder, 0, time.monotonic()

    def tick(self) -> None:
        """One more entry: FolderRefused past a limit."""
        self.count += 1
        if self.count > FILE_LIMIT:
            raise _refuse(self.folder, f"holds more than {FILE_LIMIT} files and folders (the limit)")
        if time.monotonic() - self.started > TIME_LIMIT:
            raise _refuse(self.folder, f"took more than {TIME_LIMIT:g} s to read (the limit)")

    def names(self, fd: int) -> list[str]:
        """The names in the directory fd, sorted, read no further than FILE_LIMIT entries."""
        found = []
        with os.scandir(fd) as entries:
            for entry in entries:
                found.append(entry.name)
                if self.count + len(found) > FILE_LIMIT:
                    raise _refuse(self.folder, f"holds more than {FILE_LIMIT} files and folders (the limit)")
        return sorted(found)


def shown(name: str) -> str:
    """A name from a folder as a message quotes it: escaped, and cut to SHOWN characters."""
    text = repr(name)
    return text if len(text) <= SHOWN else text[:SHOWN] + "...'"


def problem(folder: Path, entry: Entry) -> str | None:
    """What makes the entry one the arena refuses, or None."""
    mode = entry.info.st_mode
    kind = _SPECIAL.get(stat.S_IFMT(mode))
    if kind is not None:
        return f"{shown(entry.relative)} is {kind}"
    if stat.S_ISREG(mode) and mode & (stat.S_ISUID | stat.S_ISGID):
        return f"{shown(entry.relative)} is a setuid or setgid program"
    if stat.S_ISLNK(mode):
        try:
            target = os.readlink(entry.name, dir_fd=entry.parent)
            where = Path(os.path.realpath(folder / entry.relative))
            inside = where.is_relative_to(os.path.realpath(folder)) or in_runtime(where)
        except (OSError, ValueError):
            target, inside = "?", False  # a path too long to resolve is as good as one that leaves
        if not inside:
            return f"{shown(entry.relative)} is a symbolic link that leaves the folder (to {shown(target)})"
    return None


def check_folder(folder: Path) -> None:
    """FolderRefused naming the first thing in the folder the arena will not touch, or a limit it goes over; the
    setuid and setgid bits found are cleared first, so that no such program outlives the refusal."""
    found = None
    for entry in walk(folder):
        why = problem(folder, entry)
        if why is not None and stat.S_ISREG(entry.info.st_mode):
            clear_special_bits(entry)
        found = found or why
    if found is not None:
        raise _refuse(folder, found)


def clear_special_bits(entry: Entry) -> None:
    """Clear the setuid and setgid bits of the entry (a regular file), without following a link."""
    try:
        fd = os.open(entry.name, os.O_RDONLY | _OPEN, dir_fd=entry.parent)
    except FileNotFoundError:
        return  # gone since it was looked at
    try:
        os.fchmod(fd, stat.S_IMODE(os.fstat(fd).st_mode) & ~(stat.S_ISUID | stat.S_ISGID))
    finally:
        os.close(fd)


def open_regular(folder: Path, name: str, flags: int = os.O_RDONLY, mode: int = 0o644) -> int | None:
    """A descriptor of the folder's file `name` (no path separator), opened without following a link or blocking:
    None if it does not exist (and flags do not create it); FolderRefused if it is no regular file of one link."""
    root = open_folder(folder)
    try:
        fd = os.open(name, flags | _OPEN, mode, dir_fd=root)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            raise _refuse(folder, f"{shown(name)} is no regular file") from None
        raise
    finally:
        os.close(root)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        raise _refuse(folder, f"{shown(name)} is no regular file of its own")
    return fd


def read_regular(folder: Path, name: str, limit: int) -> bytes | None:
    """The bytes of the folder's regular file `name` (see open_regular), None if it does not exist; FolderRefused
    if it holds more than limit bytes."""
    fd = open_regular(folder, name)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise _refuse(folder, f"{shown(name)} is larger than {limit} bytes (the limit)")
    return data


def hand_over(folder: Path, owner: int = -1, writable: bool = False) -> None:
    """Give a folder's files to the group nogroup, readable (directories and programs searchable) and not
    writable by it; with owner (-1: each file's own kept) their owner, and with writable every file writable by
    that owner (a build's folder). Every change is made through a descriptor of the thing looked at, never through
    a path a link could redirect, since another process of the same uid may still change the folder; chown clears
    any setuid and setgid bit on the way, and so does the new mode. FolderRefused past a limit of a folder walk."""
    fd = open_folder(folder)
    try:
        _adjust(fd, os.fstat(fd), owner, writable)
    finally:
        os.close(fd)
    for entry in walk(folder):
        if stat.S_ISLNK(entry.info.st_mode) or not (stat.S_ISREG(entry.info.st_mode) or
                                                    stat.S_ISDIR(entry.info.st_mode)):
            os.chown(entry.name, owner, NOGROUP, dir_fd=entry.parent, follow_symlinks=False)
            continue  # a link, or what the folder is refused for anyway: no mode of its own to give
        try:
            fd = os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=entry.parent)
        except FileNotFoundError:
            continue  # gone since it was looked at
        try:
            _adjust(fd, os.fstat(fd), owner, writable)
        finally:
            os.close(fd)


def _adjust(fd: int, info: os.stat_result, owner: int, writable: bool) -> None:
    """The owner, group and mode hand_over gives one file or folder, open at fd."""
    os.fchown(fd, owner, NOGROUP)
    searchable = stat.S_ISDIR(info.st_mode) or info.st_mode & stat.S_IXUSR
    mode = stat.S_IMODE(info.st_mode) & ~(stat.S_ISUID | stat.S_ISGID | stat.S_IWGRP)
    mode |= stat.S_IRGRP | (stat.S_IXGRP if searchable else 0)
    if writable:
        mode |= stat.S_IRUSR | stat.S_IWUSR | (stat.S_IXUSR if stat.S_ISDIR(info.st_mode) else 0)
    os.fchmod(fd, mode)
