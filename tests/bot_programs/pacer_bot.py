"""A legal bot that takes a set time at its first decisions, asleep or thinking, then plays at once.

Usage: pacer_bot.py MODE SECONDS DECISIONS ENDPOINT. At each of its first DECISIONS decisions of a game (0: all of
them) it takes SECONDS, then plays option 0:
  sleep    asleep for SECONDS of wall time
  spin     computing on one thread until that thread has used SECONDS of CPU time
  threads  computing on two threads at once, until each has used SECONDS of CPU time (hashing, which lets go of
           Python's lock: the two run side by side wherever there are two cores)
Thinking is counted in the thread's own CPU time, so a bot that waits for a core needs the same whatever else the
machine runs."""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from typing import Any

from protocol import Bot, NewGame, run_bot

MODES = ("sleep", "spin", "threads")
_BLOCK = bytes(1 << 23)  # hashing a block this large lets go of Python's lock for ten milliseconds or so


def spin(seconds: float) -> None:
    """Compute on the calling thread until it has used `seconds` of CPU time."""
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        hashlib.sha256(_BLOCK).digest()


class Pacer(Bot):
    """Option 0, after `seconds` taken the given way at each of its first `decisions` decisions."""

    name = "pacer"
    version = "1"

    def __init__(self, mode: str, seconds: float, decisions: int) -> None:
        super().__init__()
        self.mode, self.seconds, self.decisions = mode, seconds, decisions
        self.asked = 0

    def new_game(self, game: NewGame) -> None:
        """Each game paces its own first decisions."""
        self.asked = 0

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        self.asked += 1
        if self.decisions and self.asked > self.decisions:
            return 0
        if self.mode == "sleep":
            time.sleep(self.seconds)
        elif self.mode == "spin":
            spin(self.seconds)
        else:
            workers = [threading.Thread(target=spin, args=(self.seconds,)) for _ in range(2)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
        return 0


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in MODES:
        sys.exit(f"usage: pacer_bot.py {{{'|'.join(MODES)}}} SECONDS DECISIONS ENDPOINT")
    run_bot(Pacer(sys.argv[1], float(sys.argv[2]), int(sys.argv[3])), endpoint=sys.argv[4])
