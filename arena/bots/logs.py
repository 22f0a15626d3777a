"""The log capture of a bot: each of its pipes copied into a size-capped file, the last characters kept for a
fault's record, and what it wrote while it decided kept within per-decision and per-game caps."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import termios
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

DEFAULT_LOG_CAP = 1 << 20  # bytes per log file
# What a decision's record keeps of the bot's stderr while it decided (arena/match/record.py), per decision and
# per game.
DECISION_LOG_CAP = 4096
GAME_LOG_CAP = 64 << 10
STDERR_TAIL = 2000  # characters of stderr kept for fault records
_LOG_SETTLE = 1.0  # seconds at most to wait for the drain to read what the pipe held when the reply came


@dataclass(frozen=True)
class DecisionLog:
    """What a bot wrote while it decided: the text kept, and the bytes written beyond the caps (not kept)."""

    text: str = ""
    dropped: int = 0


class LogDrain(threading.Thread):
    """Copies one pipe of a bot into a size-capped log file, keeping the last characters in memory and, between
    capture() and captured(), what went through for one decision (within DECISION_LOG_CAP and the game's budget).

    Each chunk is read and counted under one lock, so that captured() knows that nothing is on its way between the
    pipe and the count: what the pipe does not hold has been counted."""

    def __init__(self, pipe: IO[bytes], path: Path, cap: int) -> None:
        super().__init__(name=f"drain {path.name}", daemon=True)
        self._pipe = pipe
        self._fd = pipe.fileno()
        os.set_blocking(self._fd, False)
        self._path = path
        self._cap = cap
        self._tail = b""
        self._took = threading.Condition()  # held to read and count a chunk; notified after each
        self._read = 0  # bytes read from the pipe so far
        self._capture: bytearray | None = None
        self._dropped = 0
        self._budget = GAME_LOG_CAP
        self._done = False

    def run(self) -> None:
        written = 0
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        try:
            with self._path.open("wb") as log:
                # Keep reading past the cap so that a chatty bot never blocks on a full pipe.
                while chunk := self._next(poller):
                    if written < self._cap:
                        part = chunk[: self._cap - written]
                        log.write(part)
                        written += len(part)
                        if written >= self._cap:
                            log.write(f"\n[log truncated at {self._cap} bytes]\n".encode())
                        log.flush()
        finally:
            with self._took:
                self._done = True
                self._pipe.close()
                self._took.notify_all()

    def _next(self, poller: select.poll) -> bytes:
        """The next chunk from the pipe, counted (b"" at its end)."""
        while True:
            poller.poll()
            with self._took:
                try:
                    chunk = os.read(self._fd, 1 << 16)
                except BlockingIOError:
                    continue
                self._take(chunk)
                return chunk

    def _take(self, chunk: bytes) -> None:
        self._read += len(chunk)
        self._tail = (self._tail + chunk)[-STDERR_TAIL:]
        if self._capture is not None:
            room = min(DECISION_LOG_CAP - len(self._capture), self._budget)
            kept = chunk[:max(room, 0)]
            self._capture += kept
            self._budget -= len(kept)
            self._dropped += len(chunk) - len(kept)
        self._took.notify_all()

    def tail(self) -> str:
        """The last characters that went through the pipe."""
        return self._tail.decode("utf-8", errors="replace")

    def new_game(self) -> None:
        """A game begins: its budget of kept bytes is full again."""
        with self._took:
            self._budget = GAME_LOG_CAP

    def capture(self) -> None:
        """Start keeping what comes through for one decision."""
        with self._took:
            self._capture = bytearray()
            self._dropped = 0

    def captured(self) -> DecisionLog:
        """Stop keeping, and return what came through since capture(). Output arrives on its own: what the bot
        wrote before its reply came in (what the pipe holds now) counts too, once the drain has read it (within
        _LOG_SETTLE seconds); what reaches the pipe after the reply counts for the bot's next decision."""
        deadline = time.monotonic() + _LOG_SETTLE
        with self._took:
            due = self._read + (0 if self._done else _pending(self._fd))
            while not self._done and self._read < due and (left := deadline - time.monotonic()) > 0:
                self._took.wait(left)
            kept, dropped = self._capture or b"", self._dropped
            self._capture, self._dropped = None, 0
        return DecisionLog(kept.decode("utf-8", errors="replace"), dropped)


def _pending(fd: int) -> int:
    """How many bytes the pipe fd holds, not yet read."""
    return int(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0])
