"""Progress on a terminal (redrawn) or elsewhere (plain lines): a tournament's bar with a live top five, a build's
elapsed time."""

from __future__ import annotations

import shlex
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from arena.tournament.run import Progress

TOP = 5
BAR_WIDTH = 30


def clock(seconds: float) -> str:
    """A duration as h:mm:ss."""
    seconds = int(max(0, seconds))
    return f"{seconds // 3600:d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def summary(p: Progress, now: float | None = None) -> str:
    """Games done of total, rate per minute and ETA, in one line."""
    elapsed = max(1e-9, (now if now is not None else time.monotonic()) - p.started)
    rate = p.done_now / elapsed * 60 if p.done_now else 0.0
    if p.total:
        left = max(0, p.total - p.done)
        eta = clock(left / (rate / 60)) if rate else "?"
        head = f"{p.done}/{p.total} games ({100 * p.done / p.total:.0f}%)"
    else:
        head, eta = f"{p.done} games", "-"
    failed = f", {p.failed} failed" if p.failed else ""
    return f"{head}{failed}, {rate:.1f} games/min, elapsed {clock(elapsed)}, ETA {eta}"


def top_five(p: Progress) -> list[str]:
    """The current top five by conservative estimate."""
    ranked = sorted(p.ratings.table.items(), key=lambda kv: (-kv[1].conservative, kv[0]))[:TOP]
    return [f"{i}. {name:<24} {r.conservative:7.2f}  (mu {r.mu:.2f}, sigma {r.sigma:.2f})"
            for i, (name, r) in enumerate(ranked, start=1)]


def bar(done: int, total: int) -> str:
    """A bar of BAR_WIDTH characters filled in the share done of total ('' when the total is unknown)."""
    if not total:
        return ""
    filled = int(BAR_WIDTH * min(1.0, done / total))
    return "[" + "#" * filled + "." * (BAR_WIDTH - filled) + "]"


class Display:
    """Shows progress on a stream: redrawn in place on a terminal, a line per update elsewhere."""

    def __init__(self, stream: IO[str], tty: bool) -> None:
        self.stream = stream
        self.tty = tty
        self._lines = 0

    def __call__(self, p: Progress) -> None:
        if not self.tty:
            self.stream.write(summary(p) + "\n")
            self.stream.flush()
            return
        lines = [bar(p.done, p.total) + "  " + summary(p), *top_five(p)]
        # Move up over the previous block and redraw it, clearing each line.
        self.stream.write("\x1b[F" * self._lines + "".join(f"\x1b[2K{line}\n" for line in lines))
        self.stream.flush()
        self._lines = len(lines)


class BuildDisplay:
    """Says that a submission is building and for how long: a line redrawn every second on a terminal, a line when
    it starts and one when it ends elsewhere. Used as the build watch of a match (arena/bots/submission.py)."""

    def __init__(self, stream: IO[str], tty: bool, interval: float = 1.0) -> None:
        self.stream, self.tty, self.interval = stream, tty, interval

    @contextmanager
    def __call__(self, folder: Path, build: tuple[str, ...]) -> Iterator[None]:
        head = f"building {_from_here(folder)} ({shlex.join(build)})"
        start, stop = time.monotonic(), threading.Event()
        self._write(f"{head} ...", end="" if self.tty else "\n")
        ticker = threading.Thread(target=self._tick, args=(head, start, stop), daemon=True) if self.tty else None
        if ticker is not None:
            ticker.start()
        outcome = "failed after"
        try:
            yield
            outcome = "built in"
        finally:
            stop.set()
            if ticker is not None:
                ticker.join()
            self._write(f"{head}: {outcome} {clock(time.monotonic() - start)}")

    def _tick(self, head: str, start: float, stop: threading.Event) -> None:
        while not stop.wait(self.interval):
            self._write(f"{head}: {clock(time.monotonic() - start)} so far", end="")

    def _write(self, line: str, end: str = "\n") -> None:
        self.stream.write(("\r\x1b[2K" if self.tty else "") + line + end)
        self.stream.flush()


def _from_here(folder: Path) -> Path:
    """A folder as a path from the current directory where it is inside it (as the user named it), else as is."""
    try:
        return folder.resolve().relative_to(Path.cwd())
    except (ValueError, OSError):
        return folder
