"""A bot that needs a given share of its time in CPU for every decision, then plays option 0.

Usage: busy_bot.py SHARE ENDPOINT (SHARE from 0 to 1, of `time.remaining`). It counts its own CPU time, not the
wall clock's, so it needs the same whatever else the machine runs: the bot of the busy-machine measurements."""

from __future__ import annotations

import sys
import time
from typing import Any

from protocol import Bot, run_bot


class Busy(Bot):
    """Option 0, after `share` of the decision's time spent computing."""

    name = "busy"
    version = "1"

    def __init__(self, share: float) -> None:
        super().__init__()
        self.share = share

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        assert self.clock is not None
        until = time.process_time() + self.share * self.clock.remaining
        while time.process_time() < until:
            pass
        return 0


if __name__ == "__main__":
    run_bot(Busy(float(sys.argv[1])))
