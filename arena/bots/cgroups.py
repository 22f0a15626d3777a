"""A cgroup per bot, where this machine lets the arena make one: every process of the bot, escaped or not, counted
and killed together.

cgroup v1 (a writable `memory`, `pids` or `cpuacct` hierarchy, as on a root machine) and cgroup v2 (a writable
subtree, as systemd delegates to a user) are both used; each limit the hierarchy cannot enforce is left to the
watchdog, which then sums over the bot's process tree. ARENA_NO_CGROUPS=1 in the arena's environment turns cgroups
off (to see the fallback at work).
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
DISABLE_ENV = "ARENA_NO_CGROUPS"
PREFIX = "bali-arena-"  # names of the arena's cgroups: bali-arena-<arena pid>-<n>
_V1 = ("memory", "pids", "cpuacct")
_KILL_ROUNDS = 50  # a fork bomb refills a cgroup between two reads of its member list
_serial = itertools.count(1)


@dataclass(frozen=True)
class Hierarchy:
    """Where this machine lets the arena make cgroups: per resource (memory, pids, cpu), the parent directory
    and the cgroup version."""

    version: int
    parents: dict[str, Path]  # resource -> parent directory (v2: one directory for all of them)
    membership: tuple[Path, ...]  # the parents whose cgroup.procs a bot's launcher joins

    def describe(self) -> str:
        """For the one-line summary of a sandbox: which limits a cgroup enforces."""
        return f"cgroup v{self.version} ({', '.join(sorted(self.parents))})"


def _own_paths() -> dict[str, str]:
    """Controller (v1) or '' (v2) -> this process's cgroup path, from /proc/self/cgroup."""
    found: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            found[controller] = path
    return found


def _usable(parent: Path) -> bool:
    """True if a child cgroup can be made under parent (and stale empty ones of dead arenas are removed)."""
    if not (parent / "cgroup.procs").is_file() or not os.access(parent, os.W_OK):
        return False
    for stale in parent.glob(f"{PREFIX}*"):
        if not _alive(stale.name[len(PREFIX):].split("-")[0]):
            try:
                stale.rmdir()  # a dead arena's cgroup; fails while anything is still inside
            except OSError:
                pass
    probe = parent / f"{PREFIX}{os.getpid()}-probe"
    try:
        probe.mkdir()
        probe.rmdir()
        return True
    except OSError:
        return False


def _alive(pid: str) -> bool:
    if not pid.isdigit():
        return True  # not named by an arena: leave it
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _v2_root() -> Path | None:
    for candidate in (ROOT, ROOT / "unified"):
        if (candidate / "cgroup.controllers").is_file():
            return candidate
    return None


@functools.cache
def hierarchy() -> Hierarchy | None:
    """The cgroups this arena can use, found once; None where none is writable (or they are turned off)."""
    if os.environ.get(DISABLE_ENV) or not ROOT.is_dir():
        return None
    own = _own_paths()
    parents: dict[str, Path] = {}
    for controller, resource in zip(_V1, ("memory", "pids", "cpu")):
        parent = ROOT / controller / own.get(controller, "/").lstrip("/")
        if controller in own and _usable(parent):
            parents[resource] = parent
    if parents:
        return Hierarchy(1, parents, tuple(sorted(set(parents.values()))))
    return _v2(own)


def _v2(own: dict[str, str]) -> Hierarchy | None:
    root = _v2_root()
    if root is None or "" not in own:
        return None
    parent = root / own[""].lstrip("/")
    if not _usable(parent):
        return None
    wanted = set((parent / "cgroup.controllers").read_text().split()) & {"memory", "pids"}
    try:
        enabled = set((parent / "cgroup.subtree_control").read_text().split())
        missing = wanted - enabled
        if missing:
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in sorted(missing)))
        enabled |= missing
    except OSError:
        # A cgroup with processes of its own cannot hand controllers to its children: those limits stay the
        # watchdog's; membership and CPU time (cpu.stat is always there) still work.
        enabled = set((parent / "cgroup.subtree_control").read_text().split()) if \
            (parent / "cgroup.subtree_control").is_file() else set()
    resources = {"cpu"} | (enabled & {"memory", "pids"})
    return Hierarchy(2, dict.fromkeys(resources, parent), (parent,))


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return None if text in ("", "max") else int(text)


def _read_key(path: Path, key: str) -> int | None:
    """The value of `key N` in a flat-keyed cgroup file."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        return None
    return None


class BotCgroup:
    """One bot's cgroup (a directory per v1 hierarchy, or one v2 directory)."""

    def __init__(self, where: Hierarchy) -> None:
        self.where = where
        name = f"{PREFIX}{os.getpid()}-{next(_serial)}"
        self._dirs: dict[Path, Path] = {}
        self._cpu_fd: int | None = None
        self._tasks_fd: int | None = None
        for parent in where.membership:
            folder = parent / name
            folder.mkdir()
            self._dirs[parent] = folder

    def _dir(self, resource: str) -> Path | None:
        parent = self.where.parents.get(resource)
        return None if parent is None else self._dirs[parent]

    @property
    def join(self) -> tuple[Path, ...]:
        """The cgroup.procs files a process writes its pid into to become part of the bot."""
        return tuple(folder / "cgroup.procs" for folder in self._dirs.values())

    @property
    def counts(self) -> frozenset[str]:
        """The resources this cgroup measures and limits: some of memory, pids, cpu."""
        return frozenset(self.where.parents)

    def limit(self, memory: int, tasks: int) -> None:
        """Cap the bot's resident memory (bytes, no swap on top) and its tasks (processes and threads)."""
        v1 = self.where.version == 1
        if (folder := self._dir("memory")) is not None:
            (folder / ("memory.limit_in_bytes" if v1 else "memory.max")).write_text(str(memory))
            swap = folder / ("memory.memsw.limit_in_bytes" if v1 else "memory.swap.max")
            if swap.exists():
                try:
                    swap.write_text(str(memory) if v1 else "0")
                except OSError:
                    pass  # no swap accounting here: nothing to cap
        if (folder := self._dir("pids")) is not None:
            (folder / "pids.max").write_text(str(tasks))

    def pids(self) -> list[int]:
        """Every process in the cgroup now."""
        found: set[int] = set()
        for folder in self._dirs.values():
            try:
                found.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
            except OSError:
                continue
        return sorted(found)

    def cpu_seconds(self) -> float | None:
        """CPU time of every process that ever ran in the cgroup, the dead included."""
        folder = self._dir("cpu")
        if folder is None:
            return None
        if self.where.version == 1:
            ns = _read_int(folder / "cpuacct.usage")
            return None if ns is None else ns / 1e9
        us = _read_key(folder / "cpu.stat", "usage_usec")
        return None if us is None else us / 1e6

    def cpu_now(self) -> float | None:
        """cpu_seconds(), read through a file kept open: cheap enough for every decision (a microsecond)."""
        folder = self._dir("cpu")
        if folder is None:
            return None
        v1 = self.where.version == 1
        try:
            if self._cpu_fd is None:
                self._cpu_fd = os.open(folder / ("cpuacct.usage" if v1 else "cpu.stat"), os.O_RDONLY)
            text = os.pread(self._cpu_fd, 4096, 0)
        except OSError:
            return None
        if v1:
            return int(text) / 1e9
        first, _, value = text.split(b"\n", 1)[0].partition(b" ")
        return int(value) / 1e6 if first == b"usage_usec" else self.cpu_seconds()

    def out_of_memory(self) -> bool:
        """True once the kernel killed a process of the bot for going over its memory."""
        folder = self._dir("memory")
        if folder is None:
            return False
        if self.where.version == 1:
            return bool(_read_key(folder / "memory.oom_control", "oom_kill"))
        return bool(_read_key(folder / "memory.events", "oom_kill"))

    def tasks(self) -> int | None:
        """Processes and threads of the bot now."""
        folder = self._dir("pids")
        return None if folder is None else _read_int(folder / "pids.current")

    def tasks_now(self) -> int | None:
        """tasks(), read through a file kept open: cheap enough for every look at a deciding bot's threads."""
        folder = self._dir("pids")
        if folder is None:
            return None
        try:
            if self._tasks_fd is None:
                self._tasks_fd = os.open(folder / "pids.current", os.O_RDONLY)
            return int(os.pread(self._tasks_fd, 64, 0))
        except (OSError, ValueError):
            return None

    def refused_tasks(self) -> bool:
        """True once the bot tried to start more processes or threads than it may."""
        folder = self._dir("pids")
        return folder is not None and bool(_read_key(folder / "pids.events", "max"))

    def kill(self) -> None:
        """SIGKILL every process in the cgroup, again until none is left (or a bounded number of rounds)."""
        folder = next(iter(self._dirs.values()))
        if self.where.version == 2 and (folder / "cgroup.kill").exists():
            try:
                (folder / "cgroup.kill").write_text("1")
                return
            except OSError:
                pass
        for _ in range(_KILL_ROUNDS):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass

    def remove(self) -> None:
        """Remove the cgroup's directories (once its processes are gone and reaped)."""
        for fd in (self._cpu_fd, self._tasks_fd):
            if fd is not None:
                os.close(fd)
        self._cpu_fd = self._tasks_fd = None
        for folder in self._dirs.values():
            try:
                folder.rmdir()
            except OSError:
                pass  # still busy: a later arena removes it (see _usable)


def new_cgroup() -> BotCgroup | None:
    """A fresh cgroup for one bot, or None where the arena cannot make one."""
    where = hierarchy()
    if where is None:
        return None
    try:
        return BotCgroup(where)
    except OSError:
        return None
