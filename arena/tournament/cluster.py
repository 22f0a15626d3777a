"""Tables played as tasks on a Dask cluster: submissions travel with the task, results and replays come back.

Only the coordinating arena writes the results store and the results directory. A worker plays a table in a
temporary directory of its own (so a retry on another worker starts from nothing) and returns the stored-game
values and every file the match wrote; the coordinator writes those files under its results directory and commits
the table once. Dask is imported here only, and only when --cluster is given, so the arena works without it.
"""

from __future__ import annotations

import io
import logging
import os
import tarfile
import tempfile
import uuid
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator

from arena.bots.sandbox import cpu_sets
from arena.errors import ArenaError, ConfigError
from arena.storage import StoredGame
from arena.tournament.run import TableJob, TableResult, failed_table, play_table

LOCAL = "local"
CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler before giving up
# Dask's workers profile themselves: every 10 ms they sample the stack of the thread that plays, and keep a tree of
# it for each of the last 1,000 seconds. That grew a worker by about 30 KiB a table for those 1,000 seconds
# (docs/cluster.md), and the arena has no use for it.
NO_PROFILER = {"distributed.worker.profile.enabled": False}
MAX_SUBMISSION_BYTES = 64 * 2**20  # a packed submission folder; beyond this, use shared storage
RETRIES = 2  # a task that raises is tried again this many times; a lost worker's tasks are rescheduled anyway


@dataclass(frozen=True)
class ShippedTable:
    """What a worker gets: the table's job and its bots' submission folders, packed (coordinator cwd -> tar)."""

    job: TableJob
    folders: tuple[tuple[str, bytes], ...]


@dataclass(frozen=True)
class PlayedTable:
    """What a worker returns: the table's result, replay paths relative to the results directory, and the files
    the match wrote there (relative POSIX path -> content)."""

    result: TableResult
    files: tuple[tuple[str, bytes], ...]


def pack_folder(folder: Path) -> bytes:
    """A submission folder as a gzipped tar archive; ConfigError if it cannot be read or is too large to ship."""
    buffer = io.BytesIO()
    try:
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            archive.add(folder, arcname=".")
    except OSError as exc:
        raise ConfigError(f"cannot pack the submission folder {str(folder)!r}: {exc}") from None
    data = buffer.getvalue()
    if len(data) > MAX_SUBMISSION_BYTES:
        raise ConfigError(f"the submission folder {str(folder)!r} packs to {len(data) // 2**20} MiB, more than the "
                          f"{MAX_SUBMISSION_BYTES // 2**20} MiB a cluster task carries; put it on shared storage")
    return data


def play_shipped(shipped: ShippedTable) -> PlayedTable:
    """On a worker: unpack the submissions and play the table in a private temporary directory.

    ConfigError if this worker cannot give the bots the tournament's sandbox (the coordinator checked only its own
    machine); the task then fails on this worker and is tried on others."""
    shipped.job.sandbox.check()
    with tempfile.TemporaryDirectory(prefix="arena-table-") as tmp:
        root = Path(tmp)
        places: dict[str, str] = {}
        for number, (cwd, data) in enumerate(shipped.folders):
            place = root / "bots" / str(number)
            place.mkdir(parents=True)
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
                _extract(archive, place)
            places[cwd] = str(place)
        bots = tuple((argv, places.get(cwd, cwd) if cwd is not None else None) for argv, cwd in shipped.job.bots)
        results_dir = root / "results"
        result = play_table(replace(shipped.job, bots=bots, results_dir=results_dir))
        files = tuple((path.relative_to(results_dir).as_posix(), path.read_bytes())
                      for path in sorted(results_dir.rglob("*")) if path.is_file())
    return PlayedTable(result, files)


def _extract(archive: tarfile.TarFile, place: Path) -> None:
    if hasattr(tarfile, "tar_filter"):  # Python 3.11.4 and later: refuse links and paths out of the folder
        archive.extractall(place, filter="tar")
    else:
        archive.extractall(place)


def land(played: PlayedTable, results_dir: Path) -> TableResult:
    """On the coordinator: write the worker's files under results_dir (a match directory that already exists
    here gets a new name) and point the stored games' replays at them."""
    renamed: dict[str, str] = {}
    try:
        for name, data in played.files:
            parts = PurePosixPath(name).parts
            if ".." in parts or PurePosixPath(name).is_absolute():
                raise ArenaError(f"a worker returned a file outside the results directory: {name!r}")
            top = "/".join(parts[:2])  # matches/<match id>
            if top not in renamed:
                renamed[top] = _new_directory(results_dir, top)
            target = results_dir / renamed[top] / PurePosixPath(*parts[2:])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    except OSError as exc:
        raise ArenaError(f"cannot write a table's replays under {results_dir}: {exc}") from None
    games = tuple(_moved(game, renamed) for game in played.result.games)
    return TableResult(played.result.table, games)


def _new_directory(results_dir: Path, top: str) -> str:
    for attempt in range(1000):
        name = top if attempt == 0 else f"{top}-c{attempt}"
        try:
            (results_dir / name).mkdir(parents=True)
            return name
        except FileExistsError:
            continue
    raise ArenaError(f"too many match directories named {top} under {results_dir}")


def _moved(game: StoredGame, renamed: dict[str, str]) -> StoredGame:
    if game.replay is None:
        return game
    parts = PurePosixPath(game.replay).parts
    top = "/".join(parts[:2])
    if top not in renamed:
        return game
    return replace(game, replay=str(PurePosixPath(renamed[top], *parts[2:])))


class ClusterPlayer:
    """Plays tables on a Dask cluster: a scheduler's address, or a LocalCluster of `workers` processes."""

    def __init__(self, address: str, workers: int, results_dir: Path) -> None:
        self.address = address
        self.results_dir = results_dir
        self._packed: dict[str, bytes] = {}
        self._client, self._cluster = _connect(address, workers)

    def __enter__(self) -> ClusterPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Let go of the scheduler (and stop the LocalCluster if this player started one)."""
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def results(self, jobs: list[TableJob], out_of_time: Callable[[], bool]) -> Iterator[TableResult]:
        """Results as tables finish; no more tables are submitted than the cluster has threads to play them,
        so none starts once the time limit has passed."""
        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        queue = list(jobs)
        running: dict[Any, TableJob] = {}
        finished = as_completed()
        try:
            while queue or running:
                while queue and len(running) < self._capacity() and not out_of_time():
                    job = queue.pop(0)
                    future = self._client.submit(play_shipped, self._shipped(job), pure=False, retries=RETRIES,
                                                 key=f"arena-table-{job.table.table}-{uuid.uuid4().hex}")
                    running[future] = job
                    finished.add(future)
                if not running:
                    return
                future = next(finished)
                job = running.pop(future)
                try:
                    played = future.result()
                except KilledWorker:
                    yield failed_table(job.table, "every worker that played this table died")
                    continue
                except Exception as exc:  # noqa: BLE001 - the task's own error, raised again on the coordinator
                    raise ArenaError(_task_failure(job, self.address, exc)) from None
                yield land(played, self.results_dir)
        finally:
            if running:
                self._client.cancel(list(running))

    def _capacity(self) -> int:
        # Worker threads now; workers come and go, and a table waits for one when none is left.
        return max(1, sum(self._client.nthreads().values()))

    def _shipped(self, job: TableJob) -> ShippedTable:
        # Bots with a working directory are submission folders: they travel with the task, packed once here.
        folders = sorted({cwd for _, cwd in job.bots if cwd is not None})
        for cwd in folders:
            if cwd not in self._packed:
                self._packed[cwd] = pack_folder(Path(cwd))
        return ShippedTable(job, tuple((cwd, self._packed[cwd]) for cwd in folders))


def _task_failure(job: TableJob, address: str, exc: Exception) -> str:
    hint = " (is bali-arena installed on every worker?)" if isinstance(exc, ImportError) else ""
    return (f"table {job.table.table} could not be played on the cluster ({address}) after {RETRIES + 1} tries: "
            f"{type(exc).__name__}: {exc}{hint}; the games stored so far are kept, the same command resumes")


def _pin_workers(client: Any, workers: int) -> None:
    # As the local pool does per slot: each worker (one table at a time) and its bots on CPUs of their own.
    for address, cpus in zip(sorted(client.scheduler_info()["workers"]), cpu_sets(workers)):
        client.run(os.sched_setaffinity, 0, cpus, workers=[address])


def _connect(address: str, workers: int) -> tuple[Any, Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError("--cluster needs Dask: pip install 'bali-arena[cluster]' (or pip install -e \".[cluster]\" "
                          "in a checkout)") from None
    cluster = None
    try:
        if address == LOCAL:
            # Processes, one thread each: a table's engine runs in Python, so threads would share one core.
            # Its scheduler and HTTP server on the loopback only, on free ports (8787 may be another cluster's).
            # No statistical profiler in its workers (NO_PROFILER, given to each worker's nanny, which gives it
            # to a worker that replaces a dead one too).
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR, config=NO_PROFILER)
            client = Client(cluster, timeout=CONNECT_TIMEOUT)
            _pin_workers(client, workers)
            return client, cluster
        return Client(address, timeout=CONNECT_TIMEOUT), None
    except (OSError, TimeoutError, ValueError) as exc:
        if cluster is not None:
            cluster.close()
        raise ConfigError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    except RuntimeError as exc:  # what LocalCluster raises when its workers cannot start
        raise ConfigError(f"cannot start a local Dask cluster: {exc}") from None
