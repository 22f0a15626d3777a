"""A bot that plays option 0, but holds every decision while a given file exists (at most HOLD_LIMIT seconds).

Usage: held_bot.py HOLD_FILE ENDPOINT. While it holds, HOLD_FILE.<its pid> exists. Tests use it to keep a match
running, without a fault, for as long as they need it to run."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from protocol import run_bot

HOLD_LIMIT = 300.0


def decide(view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
    """Option 0, once the hold file is gone."""
    hold, holding = sys.argv[1], f"{sys.argv[1]}.{os.getpid()}"
    deadline = time.monotonic() + HOLD_LIMIT
    if os.path.exists(hold):
        open(holding, "w").close()
        while os.path.exists(hold) and time.monotonic() < deadline:
            time.sleep(0.02)
        os.unlink(holding)
    return 0


if __name__ == "__main__":
    run_bot(decide, name="held", version="1")
