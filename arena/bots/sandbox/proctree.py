"""The processes of a bot as /proc shows them: one process, a tree of them, the arena as the reaper of their
orphans, and a look into a bot's private /tmp."""

from __future__ import annotations

import ctypes
import functools
import os
import subprocess
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    """One process as /proc shows it: parent, session, threads, CPU ticks (its own and its reaped children's),
    address space and resident memory in bytes."""

    pid: int
    ppid: int
    sid: int
    threads: int
    ticks: int
    vsize: int
    rss: int = 0


HZ = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_PR_SET_CHILD_SUBREAPER = 36  # prctl option, from <linux/prctl.h>


def read_task(pid: int) -> Task | None:
    """One running process from /proc; None if it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == b"Z":
        return None
    return Task(pid, int(fields[1]), int(fields[3]), int(fields[17]), sum(int(f) for f in fields[11:15]),
                int(fields[20]), int(fields[21]) * _PAGE)


def read_tasks() -> dict[int, Task]:
    """Every process now running, from /proc (empty where there is no /proc)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    tasks = (read_task(int(name)) for name in entries if name.isdigit())
    return {t.pid: t for t in tasks if t is not None}


def child_pids(pid: int) -> list[int] | None:
    """The children of a process from /proc (None where the kernel does not list them)."""
    found: list[int] = []
    try:
        for thread in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{thread}/children", "rb") as children:
                found.extend(int(c) for c in children.read().split())
    except FileNotFoundError:
        return None if os.path.isdir(f"/proc/{pid}") else []
    except OSError:
        return []
    return found


def tree(root: int) -> list[Task]:
    """A process and all its descendants. Walking down from the root costs a few reads per process of the bot,
    where a scan of /proc costs one per process of the machine."""
    found: list[Task] = []
    todo = [root]
    while todo:
        task = read_task(todo.pop())
        if task is None:
            continue
        found.append(task)
        children = child_pids(task.pid)
        if children is None:
            return members(root, read_tasks())  # no children lists here: scan everything
        todo.extend(children)
    return found


def members(root: int, tasks: dict[int, Task]) -> list[Task]:
    """The processes of a bot: its session and all descendants of its first process (even in a new session)."""
    found = {pid for pid, t in tasks.items() if t.sid == root or pid == root}
    grew = True
    while grew:
        more = {pid for pid, t in tasks.items() if t.ppid in found and pid not in found}
        found |= more
        grew = bool(more)
    return [tasks[pid] for pid in found]


@functools.cache
def become_subreaper() -> bool:
    """Make this process the one that inherits the orphans of its descendants (a bot's double-forked daemons
    included), so that the arena can still find and kill them; False where the kernel cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def environ_has(pid: int, entry: bytes) -> bool:
    """True if the process's environment (from /proc) holds entry, a NAME=VALUE line."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return entry in environ.read().split(b"\0")
    except OSError:
        return False


def disk_full(tasks: list[Task]) -> bool:
    """True if the private /tmp of a bot in its own mount namespace (one of tasks) has no space left."""
    own = _mount_namespace("self")
    for task in tasks:
        if _mount_namespace(str(task.pid)) not in (own, None):
            try:
                return os.statvfs(f"/proc/{task.pid}/root/tmp").f_bavail == 0
            except OSError:
                continue
    return False


def _mount_namespace(pid: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/mnt")
    except OSError:
        return None


def working_prefix(prefix: tuple[str, ...]) -> tuple[str, ...]:
    """prefix if a command run under it (`PREFIX true`) succeeds here, else ()."""
    try:
        works = subprocess.run([*prefix, "true"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        works = False
    return prefix if works else ()
