"""Admission, the one pipeline of the command line and the served season alike: a submission is built, then plays
a first game against the sample bots, where an `Admitter` runs those steps (this process, a worker process, a Dask
cluster); each status on its way is told to a callback (the season records it in its store, the command line
prints the refusals), and a refusal is told as its author is shown it, whichever drives the pipeline."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from arena.bots.entrants import Entrant, Refusal
from arena.bots.sandbox import Sandbox
from arena.bots.shown import shown, shown_to_author
from arena.bots.submission import BUILD_TIMEOUT, BuildWatch
from arena.errors import ArenaError
from arena.storage.authors import Status
from arena.tournament.admission.game import Fault
from arena.tournament.admission.workers import Admitter, LocalAdmitter, WorkerLost
from protocol import TimeControl

ADMISSION_LOGS = "admission"  # the folder of the results where the logs of a refused submission are kept
BUILD_LOG = 20_000  # characters of a build's log told with its status

# A status on the way in, the refusal as its author is shown it ('' but for REFUSED), and the build's log as its
# author is shown it (None: unchanged since the last status).
Told = Callable[[Status, str, str | None], None]


@dataclass(frozen=True)
class FirstGame:
    """What a submission's first game is played at: the game, its options, the clocks and the sandbox."""

    game: str
    options: dict[str, Any] | None
    clock: TimeControl
    sandbox: Sandbox


def build_log_of(folder: Path, logs: Path | None = None) -> Path:
    """Where a submission's build log is written: in `logs`, else beside its folder, named after the folder (so
    that its author is told the same name whoever admits it)."""
    return (logs or folder.parent) / f"{folder.name}-build.log"


def admit_submission(folder: Path, entrant: Callable[[], Entrant], play: FirstGame, worker: Admitter, told: Told,
                     *, build_log: Path, record_to: Path | None = None, time_left: float = BUILD_TIMEOUT,
                     meanwhile: Callable[[], None] = lambda: None, max_size: int | None = None) -> Fault | None:
    """Build the submission's folder (within time_left seconds, to at most max_size bytes; meanwhile() called as
    it runs), then play its first game with the entrant() it then is: None if it is admitted, else why not, as
    its author is shown it. WorkerLost passes through: the admission is to be tried again."""
    told(Status.BUILDING, "", None)
    if time_left <= 0:
        failed: str | None = f"the build went over its {BUILD_TIMEOUT:g} s (counted across stops of the arena)"
    else:
        failed = worker.build(str(folder), build_log, play.sandbox, time_left, meanwhile, max_size)
    log = shown_to_author(_tail(build_log), folder, build_log.parent)
    if failed is not None:
        return _refused(Fault(f"the build failed: {failed}"), folder, build_log, told, log)
    told(Status.VALIDATING, "", log)
    try:
        fault = worker.first_game(entrant(), play.game, play.options, play.clock, play.sandbox, record_to)
    except WorkerLost:
        raise
    except ArenaError as exc:
        fault = Fault(str(exc) or "no reason given")
    if fault is None:
        told(Status.ADMITTED, "", None)
        return None
    return _refused(fault, folder, build_log, told, None)


def _refused(fault: Fault, folder: Path, build_log: Path, told: Told, log: str | None) -> Fault:
    shown_fault = Fault(shown_to_author(fault.reason, folder, build_log.parent), fault.said, fault.log)
    told(Status.REFUSED, shown_fault.reason, log)
    return shown_fault


def admit(entrants: list[Entrant], play: FirstGame, only: Callable[[Entrant], bool] = lambda _: True,
          watch: BuildWatch | None = None, logs: Path | None = None) -> tuple[list[Entrant], list[Refusal]]:
    """The entrants that the pipeline admits, in this process (those `only` leaves out, or that have no folder, are
    not checked), and a refusal for each other one, named by its folder as the competition knows it; watch is
    told of each build that runs, and the logs of a refused one are kept in `logs`."""
    admitted, refused = [], []
    worker = LocalAdmitter(watch, logs)
    with tempfile.TemporaryDirectory(prefix="arena-builds-") as scratch:
        for entrant in entrants:
            if entrant.cwd is None or not only(entrant):
                admitted.append(entrant)
                continue
            folder = Path(entrant.cwd)
            log = build_log_of(folder, Path(scratch))
            fault = admit_submission(folder, lambda e=entrant: e, play, worker, lambda *_: None, build_log=log)
            if fault is None:
                admitted.append(entrant)
            else:
                kept = fault.log or _keep(log, logs)
                refused.append(Refusal(shown(folder), entrant.name, f"{shown(folder)}: {fault.reason}", fault.said,
                                       kept))
    return admitted, refused


def _keep(log: Path, logs: Path | None) -> str:
    """A refused build's log copied into logs (the organiser's): its new path, or '' where it is not kept."""
    if logs is None or not log.is_file():
        return ""
    try:
        logs.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(log, logs / log.name)
    except OSError:
        return ""
    return str(logs / log.name)


def _tail(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-BUILD_LOG:]
    except OSError:
        return ""
