"""Progress of a long count (the game pages of a published site, the games of an export): a redrawn bar on a terminal,
a few plain lines elsewhere."""

from __future__ import annotations

import time
from typing import IO

from arena.cli.progress import bar, clock

PLAIN_EVERY = 10.0  # seconds between two plain lines (and one at the end)


def page_summary(done: int, total: int, elapsed: float, what: str = "game pages", unit: str = "pages") -> str:
    """Pages made (or other things done) of total, the rate and the time left, in one line."""
    rate = done / elapsed if elapsed > 0 and done else 0.0
    eta = clock((total - done) / rate) if rate else "?"
    share = 100 * done / total if total else 100.0
    return f"{what}: {done:,}/{total:,} ({share:.0f}%), {rate:.1f} {unit}/s, elapsed {clock(elapsed)}, ETA {eta}"


class PageProgress:
    """Shows how many game pages are made (or, named by `what` and `unit`, other things done): redrawn in place on
    a terminal, a line now and then elsewhere."""

    def __init__(self, stream: IO[str], tty: bool, what: str = "game pages", unit: str = "pages") -> None:
        self.stream = stream
        self.tty = tty
        self.what, self.unit = what, unit
        self.started = time.monotonic()
        self.shown = float("-inf")

    def __call__(self, done: int, total: int) -> None:
        if total == 0:
            return
        now = time.monotonic()
        if done == 0:
            self.started = now
        if self.tty:
            end = "\n" if done == total else ""
            line = page_summary(done, total, now - self.started, self.what, self.unit)
            self.stream.write(f"\r\x1b[2K{bar(done, total)} {line}{end}")
        elif done == total or now - self.shown >= PLAIN_EVERY:
            self.stream.write(page_summary(done, total, now - self.started, self.what, self.unit) + "\n")
            self.shown = now
        else:
            return
        self.stream.flush()
