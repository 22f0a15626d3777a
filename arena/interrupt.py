"""Termination signals for the commands that run bots: turned into KeyboardInterrupt so that clean-up runs; and
helper processes that die with the process that started them."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from contextlib import contextmanager
from types import FrameType
from typing import Any, Callable, Iterator

_PR_SET_PDEATHSIG = 1  # prctl option, from <linux/prctl.h>


def die_with(coordinator: int) -> None:
    """Be killed when the coordinator dies, even by SIGKILL (what this process started then dies with it)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != coordinator:  # it died before the request took effect
        os.kill(os.getpid(), signal.SIGKILL)


INTERRUPTED = 130  # the exit status of a command stopped by Ctrl-C or SIGTERM, as a shell reports SIGINT
INTERRUPTED_LINE = "interrupted: anything finished is kept; run the same command to resume"


_noted: list[int] = []  # the Ctrl-Cs this process has had


def _remembered(signum: int, frame: FrameType | None) -> None:
    _noted.append(signum)
    raise KeyboardInterrupt


def remember_interrupts() -> None:
    """From now on a Ctrl-C is also remembered: one that code outside the arena swallows (a bare `except` in a
    library as it imports) still stops the command at its next check_interrupted(); and one that lands in code whose
    exceptions Python can only report (a callback of the import machinery's locks, a finalizer) is not printed as
    a traceback, but remembered the same way."""
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _remembered)
        if sys.unraisablehook is not _unraisable:
            _reported.append(sys.unraisablehook)
            sys.unraisablehook = _unraisable


_reported: list[Callable[[Any], object]] = []  # the hook that reports what _unraisable does not take


def _unraisable(unraisable: "sys.UnraisableHookArgs") -> None:
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        _noted.append(signal.SIGINT)  # the next check_interrupted() stops the command, as after any Ctrl-C
        return
    (_reported[-1] if _reported else sys.__unraisablehook__)(unraisable)


def check_interrupted() -> None:
    """KeyboardInterrupt if this process has had a Ctrl-C (see remember_interrupts)."""
    if _noted:
        raise KeyboardInterrupt


def forget_interrupt() -> None:
    """Let an interrupted command exit with its own status. CPython notes a KeyboardInterrupt that unwinds through
    code run by exec() (dataclasses makes its methods so, at import) as unhandled, and then ends the process by
    SIGINT whatever status it exits with; the next exec() clears that note."""
    exec("None")


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
