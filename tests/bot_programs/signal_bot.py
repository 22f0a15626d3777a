"""A bot that signals the arena: `python tests/bot_programs/signal_bot.py SIGNAL [WORD...] ENDPOINT` (the words are
ignored: a test can mark the bot's command line with them).

It plays option 0 with the SDK, and at its first decision sends SIGNAL (TERM, INT, HUP, KILL or STOP) to the
process named in $ARENA_PID and to its own parent, then answers. Every process started signals once: a bot
started afresh (after a crash, or for another try of its table) does it again. It writes what it did to stderr.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from protocol import run_bot

SIGNALS = ("TERM", "INT", "HUP", "KILL", "STOP")


def attack(name: str) -> None:
    """Send SIGname to $ARENA_PID and to the parent process (the same process, or not, depending on the arena)."""
    sig = signal.Signals[f"SIG{name}"]
    targets = {int(os.environ.get("ARENA_PID", "0") or 0), os.getppid()} - {0, 1}
    for target in sorted(targets):
        try:
            os.kill(target, sig)
            print(f"signal_bot: sent {sig.name} to {target}", file=sys.stderr, flush=True)
        except OSError as exc:
            print(f"signal_bot: cannot signal {target}: {exc}", file=sys.stderr, flush=True)


def main(name: str) -> None:
    """Play, signalling once."""
    done = []

    def decide(view: Any, options: list[Any], decision: Any) -> int:
        if not done:
            done.append(True)
            attack(name)
        return 0

    run_bot(decide, name=f"signal-{name.lower()}", version="1")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in SIGNALS:
        sys.stderr.write(f"usage: signal_bot.py SIGNAL [WORD...] ENDPOINT, SIGNAL one of {', '.join(SIGNALS)}\n")
        sys.exit(2)
    main(sys.argv[1])
