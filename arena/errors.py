"""The arena's errors: a small tree under ArenaError. A BotFault is what a bot did wrong, with its kind."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar


class FaultKind(StrEnum):
    """The kinds of fault a bot can commit; the value is what records and reports show."""

    TIMEOUT = "timeout"
    CRASH = "crash"
    MALFORMED = "malformed"
    WRONG_ID = "wrong_id"
    ILLEGAL = "illegal"
    OVERSIZED = "oversized"
    MEMORY = "memory"
    CPU = "cpu"
    PROCESSES = "processes"
    FILE_SIZE = "file_size"
    OPEN_FILES = "open_files"
    DISK = "disk"
    BUILD = "build"
    CLOCK = "clock"


# The kinds that mean the bot process is gone (it crashed, or went over a limit and was stopped).
STOPPED_KINDS = frozenset({FaultKind.CRASH, FaultKind.MEMORY, FaultKind.CPU, FaultKind.PROCESSES,
                           FaultKind.FILE_SIZE, FaultKind.OPEN_FILES, FaultKind.DISK})


class ArenaError(Exception):
    """Anything the arena reports as a clear message instead of a traceback."""


class ConfigError(ArenaError):
    """Match settings that cannot work (player count, options, time controls)."""


class ReplayError(ArenaError):
    """A replay file that cannot be read or is not a replay."""


# The longest fault detail kept: a detail may quote what a bot sent, and it goes into every record and report.
MAX_DETAIL = 400


def bounded(detail: str, limit: int = MAX_DETAIL) -> str:
    """detail, cut to at most limit characters with a note of how many were cut."""
    if len(detail) <= limit:
        return detail
    note = f"... [{len(detail)} characters in all]"
    return detail[: limit - len(note)] + note


class BotFault(ArenaError):
    """A bot broke the protocol or the rules; `kind` says how, the message says what exactly.

    `elapsed` is how long the arena waited for the faulty answer, when it waited at all, `charged` the seconds it
    is charged for it and `wait` the seconds of `elapsed` it spent waiting for a core (None: not measured). The
    detail is cut to MAX_DETAIL characters here, so that no path can store or print more of what a bot sent.
    """

    kind: ClassVar[FaultKind]

    def __init__(self, detail: str, elapsed: float | None = None) -> None:
        detail = bounded(str(detail))
        super().__init__(detail)
        self.detail = detail
        self.elapsed = elapsed
        self.charged: float | None = None
        self.wait: float | None = None


class BotTimeout(BotFault):
    """The bot did not answer within its time."""

    kind = FaultKind.TIMEOUT


class ClockExpired(BotFault):
    """The seat's game clock ran out while it decided: the default is played for it for the rest of the game."""

    kind = FaultKind.CLOCK


class BotCrashed(BotFault):
    """The bot process exited, or could not be started."""

    kind = FaultKind.CRASH


class LimitExceeded(BotCrashed):
    """The bot went over one of its resource limits and was stopped; the subclass says which."""


class MemoryExceeded(LimitExceeded):
    """The bot ran out of its address space."""

    kind = FaultKind.MEMORY


class CpuExceeded(LimitExceeded):
    """The bot used more CPU time in a game than it may."""

    kind = FaultKind.CPU


class ProcessesExceeded(LimitExceeded):
    """The bot ran more processes and threads at once than it may."""

    kind = FaultKind.PROCESSES


class FileSizeExceeded(LimitExceeded):
    """The bot wrote a file larger than it may."""

    kind = FaultKind.FILE_SIZE


class OpenFilesExceeded(LimitExceeded):
    """The bot opened more files than it may."""

    kind = FaultKind.OPEN_FILES


class DiskExceeded(LimitExceeded):
    """The bot filled its private home and /tmp."""

    kind = FaultKind.DISK


LIMIT_FAULTS: dict[FaultKind, type[LimitExceeded]] = {
    c.kind: c for c in (MemoryExceeded, CpuExceeded, ProcessesExceeded, FileSizeExceeded, OpenFilesExceeded,
                        DiskExceeded)}


class BuildFailed(BotFault):
    """The build step of the bot's submission folder failed; `output` holds the build's last lines."""

    kind = FaultKind.BUILD

    def __init__(self, detail: str, output: str = "") -> None:
        super().__init__(detail)
        self.output = output


class ProtocolError(BotFault):
    """The bot's reply is not a valid message of the expected type."""

    kind = FaultKind.MALFORMED


class OversizedMessage(ProtocolError):
    """The bot's reply is larger than the message cap."""

    kind = FaultKind.OVERSIZED


class WrongRequestId(ProtocolError):
    """The bot's reply carries another request's id (a stale or late reply)."""

    kind = FaultKind.WRONG_ID


class IllegalAction(BotFault):
    """The bot chose an index that is not one of the options."""

    kind = FaultKind.ILLEGAL
