"""Where an admission's steps (the build, the first game) run: the `Admitter` contract, this process
(`LocalAdmitter`, the command line's) and a worker process of its own (`AdmissionWorker`, the server's); a Dask
cluster implements the same contract (arena/tournament/cluster.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Protocol

from arena.bots import folders
from arena.bots.channel import expect_progress_within
from arena.bots.entrants import Entrant
from arena.bots.sandbox import Sandbox
from arena.bots.submission import BUILD_TIMEOUT, BuildWatch, ensure_built
from arena.errors import ArenaError, BuildFailed
from arena.tournament.admission.game import Fault, first_game
from arena.tournament.worker import Failure, WorkerPool
from protocol import TimeControl

BUILD_WALKS = 4  # walks of a submission's folder around its build (digests and checks), each within its time limit
BUILDING = "building this submission"  # an admission's steps, as a failure of the worker names them
FIRST_GAME = "playing this submission's first game"


class WorkerLost(ArenaError):
    """Where the steps run was lost (a cluster's scheduler): the admission under way is to be tried again later."""


class Admitter(Protocol):
    """Where an admission's steps run: each says why it failed, or None."""

    def build(self, folder: str, log: Path, sandbox: Sandbox, time_left: float,
              meanwhile: Callable[[], None], max_size: int | None = None) -> str | None:
        """Build the submission's folder in the sandbox within time_left seconds (calling meanwhile() as it runs),
        to at most max_size bytes, its output to log; why it failed, or None."""

    def first_game(self, entrant: Entrant, game: str, options: dict[str, Any] | None, clock: TimeControl,
                   sandbox: Sandbox, record_to: Path | None = None) -> Fault | None:
        """The entrant's first game against the sample bots; why it failed, or None (the record of a failed game
        kept at `record_to`)."""


class LocalAdmitter:
    """The steps run in this process, as the command line runs them: `watch` is told of each build that runs, and
    the stderr log of a bot refused in its first game is kept in `logs`."""

    def __init__(self, watch: BuildWatch | None = None, logs: Path | None = None) -> None:
        self.watch, self.logs = watch, logs

    def build(self, folder: str, log: Path, sandbox: Sandbox, time_left: float = BUILD_TIMEOUT,
              meanwhile: Callable[[], None] = lambda: None, max_size: int | None = None) -> str | None:
        """Build the submission's folder here; why it failed, or None."""
        return build_step((folder, log, sandbox, self.watch, time_left, max_size)) or None

    def first_game(self, entrant: Entrant, game: str, options: dict[str, Any] | None, clock: TimeControl,
                   sandbox: Sandbox, record_to: Path | None = None) -> Fault | None:
        """The entrant's first game against the sample bots, played here."""
        return game_step((entrant, game, options, clock, sandbox, None, self.logs, record_to)) or None


class AdmissionWorker:
    """One worker process that runs an admission's steps one after the other, as the ladder's tables are run: the
    server itself then starts no bot and never becomes the subreaper that a bot's sandbox processes would be
    handed to, which it would keep as zombies."""

    def __init__(self) -> None:
        self.pool: WorkerPool[tuple[Step, tuple[Any, ...]], Any] = WorkerPool(1, _run_step)

    def __enter__(self) -> AdmissionWorker:
        return self

    def __exit__(self, *_: object) -> None:
        self.pool.close()

    def build(self, folder: str, log: Path, sandbox: Sandbox, time_left: float = BUILD_TIMEOUT,
              meanwhile: Callable[[], None] = lambda: None, max_size: int | None = None) -> str | None:
        """Build the submission's folder in the worker; why it failed, or None."""
        return self.run(build_step, (folder, log, sandbox, None, time_left, max_size), BUILDING, meanwhile)

    def first_game(self, entrant: Entrant, game: str, options: dict[str, Any] | None, clock: TimeControl,
                   sandbox: Sandbox, record_to: Path | None = None) -> Fault | None:
        """The entrant's first game against the sample bots, in the worker."""
        outcome = self.run(game_step, (entrant, game, options, clock, sandbox, None, None, record_to), FIRST_GAME)
        return Fault(outcome) if isinstance(outcome, str) else outcome

    def run(self, step: Step, job: tuple[Any, ...], doing: str, meanwhile: Callable[[], None] = lambda: None) -> Any:
        """Run step on job in the worker (calling meanwhile() at every look until it ends): what it says went wrong
        (or what became of the worker, which is said to be `doing` the step), or None."""
        self.pool.doing = doing
        self.pool.submit(0, (step, job))
        while True:
            meanwhile()
            for _, _, outcome in self.pool.finished():
                return (outcome.reason if isinstance(outcome, Failure) else outcome) or None


Step = Callable[[Any], Any]  # one step of an admission, run where the Admitter runs it


def _run_step(order: tuple[Step, tuple[Any, ...]]) -> Any:
    step, job = order
    return step(job)


def build_step(job: tuple[str, Path, Sandbox, BuildWatch | None, float, int | None]) -> str:
    """Build a submission's folder; why the build failed, or "" (a worker's result is never None)."""
    # A build asks no bot anything: without word, the pool would take its worker for stuck after STALL_SLACK.
    expect_progress_within(BUILD_TIMEOUT + BUILD_WALKS * folders.TIME_LIMIT)
    try:
        ensure_built(*job)
    except BuildFailed as exc:
        return str(exc) or "no reason given"
    return ""


def game_step(job: tuple[Entrant, str, dict[str, Any] | None, TimeControl, Sandbox, BuildWatch | None,
                         Path | None, Path | None]) -> Fault | str:
    """A submission's first game against the sample bots; why it failed, or "" (a worker's result is never
    None)."""
    try:
        failed = first_game(*job)
    except ArenaError as exc:  # a Fault as any other refusal, wherever the step runs (cluster.py's does the same)
        return Fault(str(exc) or "no reason given")
    return "" if failed is None else failed
