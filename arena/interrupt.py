"""Termination signals for the commands that run bots: turned into KeyboardInterrupt so that clean-up runs."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from types import FrameType
from typing import Iterator

INTERRUPTED = 130  # the exit status of a command stopped by Ctrl-C or SIGTERM, as a shell reports SIGINT
INTERRUPTED_LINE = "interrupted: anything finished is kept; run the same command to resume"


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


@contextmanager
def cleanup_on_termination() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP unwind like Ctrl-C, so that every bot process group is killed."""
    if threading.current_thread() is not threading.main_thread():
        # Only the main thread may set handlers (a Dask worker plays tables in its threads; it stops them itself).
        yield
        return
    previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
