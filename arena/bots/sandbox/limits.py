"""What a bot and a build may use, and a limit gone over in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.errors import LIMIT_FAULTS, BotCrashed, FaultKind

MIB = 1 << 20
DEFAULT_DISK = 256 * MIB  # a bot's private home, /tmp and /dev/shm together, under bubblewrap


@dataclass(frozen=True)
class Limits:
    """What one bot may use: memory, file size and disk (its private home and /tmp, under bwrap) in bytes, CPU
    seconds per game, tasks, fds."""

    memory: int = 1024 * MIB
    cpu: float = 60.0
    processes: int = 64
    file_size: int = 64 * MIB
    open_files: int = 256
    disk: int = DEFAULT_DISK

    def to_dict(self) -> dict[str, Any]:
        """The limits as plain data (the disk limit only where it is not the default, so that tournaments stored
        before it existed resume)."""
        found = {"memory": self.memory, "cpu": self.cpu, "processes": self.processes, "file_size": self.file_size,
                 "open_files": self.open_files}
        return found if self.disk == DEFAULT_DISK else {**found, "disk": self.disk}


# What a build may use: memory (its cgroup, all its processes), tasks, file size, fds, its /tmp under bwrap, and how
# much its folder may grow; its time is submission.BUILD_TIMEOUT. Compilers need more than a bot: javac and cargo
# start dozens of threads, rustc takes hundreds of MiB.
BUILD_LIMITS = Limits(memory=2048 * MIB, cpu=float("inf"), processes=512, file_size=1024 * MIB, open_files=4096,
                      disk=512 * MIB)
BUILD_GROWTH = 2048 * MIB


def limit_fault(kind: FaultKind, detail: str, limits: Limits) -> BotCrashed:
    """The fault of a bot stopped for going over the limit of the given kind."""
    return LIMIT_FAULTS[kind](f"the bot went over its limit of {limit_text(kind, limits)} and was stopped ({detail})")


def limit_text(kind: FaultKind, limits: Limits) -> str:
    """The limit of the given kind, in words: '1024 MiB of memory'."""
    return {FaultKind.MEMORY: f"{limits.memory // MIB} MiB of memory",
            FaultKind.CPU: f"{limits.cpu:g} CPU seconds in a game",
            FaultKind.PROCESSES: f"{limits.processes} processes and threads",
            FaultKind.FILE_SIZE: f"files of {limits.file_size // MIB} MiB",
            FaultKind.OPEN_FILES: f"{limits.open_files} open files",
            FaultKind.DISK: f"{limits.disk // MIB} MiB of disk (its home and /tmp)"}[kind]
