"""A legal bot that answers just before its time runs out, every decision: the slowest a bot can be.

Usage: last_ms_bot.py [spin|sleep] [blind] [MARGIN] ENDPOINT. It plays option 0 `MARGIN` seconds (default 0.05)
before its time has passed since the request arrived, spinning on the CPU (spin, the default) or asleep (sleep).
Its time is `time.remaining` of each decision, which the game clock shortens once it runs low; a blind one takes
the per-decision timeout of `new_game` instead, and so runs its game clock out. Tests and measurements use it to
find the longest a game can last."""

from __future__ import annotations

import sys
import time
from typing import Any

from protocol import Bot, run_bot

DEFAULT_MARGIN = 0.05
MODES = ("spin", "sleep", "blind")


class LastMillisecond(Bot):
    """Option 0, as late as it may (or, blind, as late as the per-decision timeout alone would let it)."""

    name = "last-ms"
    version = "1"

    def __init__(self, sleep: bool, blind: bool, margin: float) -> None:
        super().__init__()
        self.sleep, self.blind, self.margin = sleep, blind, margin

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        assert self.clock is not None and self.game is not None
        allowed = self.game.time.timeout + self.clock.bank if self.blind else self.clock.remaining
        until = time.monotonic() + max(0.0, allowed - self.margin)
        if self.sleep:
            time.sleep(max(0.0, until - time.monotonic()))
        while time.monotonic() < until:
            pass
        return 0


if __name__ == "__main__":
    words = sys.argv[1:-1]
    margins = [float(w) for w in words if w not in MODES]
    run_bot(LastMillisecond("sleep" in words, "blind" in words, margins[0] if margins else DEFAULT_MARGIN))
