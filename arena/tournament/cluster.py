"""Tables and admissions played as tasks on a Dask cluster: submissions travel through the cluster, results and
replays come back.

Only the coordinating arena writes the results store and the results directory. A submission folder is packed once
on the coordinator and held in the cluster by a task of its own (keyed by the folder's digest); a worker fetches it
the first time a task of its needs it and keeps it, unpacked, in a cache of its own, bounded in size. A worker plays
a table in a temporary directory of its own (so a retry on another worker starts from nothing) and returns the
stored-game values and every file the match wrote; the coordinator writes those files under its results directory
and commits the table once. Dask is imported here only, and only when --cluster is given, so the arena works
without it.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import tarfile
import tempfile
import threading
import uuid
import warnings
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator

from arena.bots.entrants import Entrant
from arena.bots.sandbox import Sandbox, cpu_sets
from arena.bots.shown import shown_to_author
from arena.bots.submission import BUILD_TIMEOUT, ensure_built, folder_digest
from arena.errors import ArenaError, BuildFailed, ConfigError
from arena.storage import StoredGame
from arena.tournament.admission.game import Fault, first_game
from arena.tournament.admission.workers import Admitter, WorkerLost
from arena.tournament.cluster_tls import ROLES, ClusterAccess, private_credentials, security_for
from arena.tournament.run import TableJob, TableResult, failed_table, play_table

LOCAL = "local"
CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler before giving up
# Dask's workers profile themselves: every 10 ms they sample the stack of the thread that plays, and keep a tree of
# it for each of the last 1,000 seconds. That grew a worker by about 30 KiB a table for those 1,000 seconds
# (docs/cluster.md), and the arena has no use for it.
NO_PROFILER = {"distributed.worker.profile.enabled": False}
# A Dask scheduler and its workers answer HTTP (metrics, health, a proxy to the workers) even without a dashboard,
# and with no credentials: none of it for the arena's clusters.
NO_HTTP = {"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}
MAX_SUBMISSION_BYTES = 64 * 2**20  # a packed submission folder; beyond this, use shared storage
RETRIES = 2  # a task that raises is tried again this many times; a lost worker's tasks are rescheduled anyway
CACHE_BYTES = int(os.environ.get("ARENA_FOLDER_CACHE_MIB", "2048")) * 2**20  # a worker's unpacked folders, at most
CACHE_DIR = "arena-folders"  # under the worker's own local directory
HELD = "arena-folder-"  # the Dask key of the task that holds a packed folder in the cluster, before its digest
LOOK = 1.0  # seconds between two looks at a task under way (to count a build's time, to notice a stop)


@dataclass(frozen=True)
class Parcel:
    """A submission folder as the cluster holds it: its digest (the name of its copy in a worker's cache) and the
    key of the task that holds it packed."""

    digest: str
    key: str


@dataclass(frozen=True)
class ShippedTable:
    """What a worker gets: the table's job and where its bots' submission folders are (coordinator cwd -> parcel)."""

    job: TableJob
    folders: tuple[tuple[str, Parcel], ...]


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
    """On a worker: fetch the submissions this worker has not seen yet and play the table in a private temporary
    directory, each bot in its folder's cached copy.

    ConfigError if this worker cannot give the bots the tournament's sandbox (the coordinator checked only its own
    machine); the task then fails on this worker and is tried on others."""
    shipped.job.sandbox.check()
    with _cached([parcel for _, parcel in shipped.folders]) as paths, \
            tempfile.TemporaryDirectory(prefix="arena-table-") as tmp:
        places = {cwd: str(path) for (cwd, _), path in zip(shipped.folders, paths)}
        bots = tuple((argv, places.get(cwd, cwd) if cwd is not None else None) for argv, cwd in shipped.job.bots)
        results_dir = Path(tmp) / "results"
        result = play_table(replace(shipped.job, bots=bots, results_dir=results_dir))
        files = tuple((path.relative_to(results_dir).as_posix(), path.read_bytes())
                      for path in sorted(results_dir.rglob("*")) if path.is_file())
    return PlayedTable(result, files)


def _held(data: bytes) -> bytes:
    """The task that holds a packed folder in the cluster: its result is the archive. The archive is part of the
    task itself, which the scheduler keeps, so a worker lost with the result is no loss: it is computed again."""
    return data


class _Cache:
    """A worker's unpacked submission folders, by digest: each fetched from the cluster once, the least recently
    used removed beyond CACHE_BYTES (never one a table of this worker is using)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.using: Counter[str] = Counter()  # digest -> tables of this worker using it now

    def root(self, worker: Any = None) -> Path:
        """The cache's folder: in the Dask worker's own local directory (Dask removes a dead worker's)."""
        if worker is None:
            try:
                from distributed import get_worker
                worker = get_worker()
            except (ImportError, ValueError):  # not in a task (client.run gives the worker), nor in a worker
                worker = None
        base = Path(worker.local_directory) if worker is not None else \
            Path(tempfile.gettempdir()) / f"arena-worker-{os.getpid()}"
        return base / CACHE_DIR

    def take(self, parcel: Parcel) -> Path:
        """The folder's copy in this worker's cache, fetched and unpacked if it is not there yet."""
        root = self.root()
        place = root / parcel.digest
        with self.lock:
            self.using[parcel.digest] += 1
            if place.is_dir():
                os.utime(place)  # recently used
                return place
        try:
            data = _fetch(parcel.key)
            with self.lock:
                if not place.is_dir():
                    root.mkdir(parents=True, exist_ok=True)
                    partial = Path(tempfile.mkdtemp(prefix=f".{parcel.digest}-", dir=root))
                    try:
                        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
                            _extract(archive, partial)
                        partial.rename(place)  # whole or not at all: a killed worker leaves no half folder in use
                    except BaseException:
                        shutil.rmtree(partial, ignore_errors=True)
                        raise
                self._trim(root)
            return place
        except BaseException:
            self.give_back(parcel.digest)
            raise

    def give_back(self, digest: str) -> None:
        """A table is done with the folder."""
        with self.lock:
            self.using[digest] -= 1
            if self.using[digest] <= 0:  # in use no more: it may be removed
                del self.using[digest]

    def forget(self, digest: str, worker: Any = None) -> bool:
        """Remove the folder's copy (a retired version) unless a table is using it; True if it is gone."""
        with self.lock:
            if digest in self.using:
                return False
            shutil.rmtree(self.root(worker) / digest, ignore_errors=True)
            return True

    def digests(self, worker: Any = None) -> list[str]:
        """The folders this worker holds."""
        root = self.root(worker)
        return sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) if root.is_dir() else []

    def _trim(self, root: Path) -> None:
        folders = [(p.stat().st_mtime, p) for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]
        sizes = {p: _size(p) for _, p in folders}
        total = sum(sizes.values())
        for _, path in sorted(folders, key=lambda f: f[0]):
            if total <= CACHE_BYTES:
                break
            if path.name not in self.using:
                shutil.rmtree(path, ignore_errors=True)
                total -= sizes[path]


CACHE = _Cache()


def _size(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            total += path.lstat().st_size
        except OSError:
            pass
    return total


def _fetch(key: str) -> bytes:
    """The packed folder the task `key` holds, from the cluster (from whichever worker has it)."""
    from distributed import worker_client

    # worker_client leaves this worker's thread while it waits, so that the holding task may run here if need be.
    # The coordinator published the holding task under its key: a future made from a bare key is never told of it.
    with worker_client() as client:
        return client.get_dataset(key).result()


class _Using:
    def __init__(self, parcels: list[Parcel]) -> None:
        self.parcels, self.taken = parcels, []  # type: list[Parcel], list[Parcel]

    def __enter__(self) -> list[Path]:
        paths = []
        try:
            for parcel in self.parcels:
                paths.append(CACHE.take(parcel))
                self.taken.append(parcel)
        except BaseException:
            self.__exit__()
            raise
        return paths

    def __exit__(self, *_: object) -> None:
        for parcel in self.taken:
            CACHE.give_back(parcel.digest)
        self.taken = []


def _cached(parcels: list[Parcel]) -> _Using:
    """The parcels' cached copies, held in use for the duration of the block."""
    return _Using(parcels)


def forget_folder(digest: str, dask_worker: Any = None) -> bool:
    """On a worker (client.run gives it as dask_worker): remove a retired folder's copy from its cache (True if it
    is gone)."""
    return CACHE.forget(digest, dask_worker)


def cached_folders(dask_worker: Any = None) -> list[str]:
    """On a worker (client.run gives it as dask_worker): the digests of the folders in its cache."""
    return CACHE.digests(dask_worker)


@dataclass(frozen=True)
class Built:
    """What a build on a worker gives back: why it failed (None: it did not), its log, and the built folder packed,
    to be held in the cluster for the tables that seat it."""

    failed: str | None
    log: str
    archive: bytes | None = None


def build_shipped(data: bytes, sandbox: Sandbox, time_left: float, max_size: int | None = None) -> Built:
    """On a worker: unpack a submission's folder, build it in the sandbox within time_left seconds (to at most
    max_size bytes), pack what it built. The log and the reason name no path of this worker: the folder is '.'."""
    sandbox.check()
    with tempfile.TemporaryDirectory(prefix="arena-build-") as tmp:
        folder, log = Path(tmp) / "submission", Path(tmp) / "build.log"
        folder.mkdir()
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            _extract(archive, folder)
        try:
            ensure_built(str(folder), log, sandbox, None, time_left, max_size)
        except BuildFailed as exc:
            return Built(shown_to_author(str(exc) or "no reason given", folder), shown_to_author(_read(log), folder))
        try:
            archive_bytes = pack_folder(folder)
        except ConfigError as exc:
            return Built(shown_to_author(str(exc), folder), shown_to_author(_read(log), folder))
        return Built(None, shown_to_author(_read(log), folder), archive_bytes)


def first_game_shipped(entrant: Entrant, parcel: Parcel, game: str, options: dict[str, Any] | None,
                       clock: Any, sandbox: Sandbox) -> tuple[str, bytes | None]:
    """On a worker: the entrant's first game against the sample bots, in its folder's cached copy; why it failed
    (no path of this worker in it: the folder is '.'), or "", and the record of a failed game (likewise)."""
    sandbox.check()
    with _cached([parcel]) as (path,), tempfile.TemporaryDirectory(prefix="arena-first-game-") as scratch:
        record = Path(scratch) / "game.json"
        try:
            failed = first_game(replace(entrant, cwd=str(path)), game, options, clock, sandbox, record_to=record)
        except ArenaError as exc:
            failed = Fault(str(exc) or "no reason given")
        if failed is None:
            return "", None
        # The record's stderr (a traceback) names this worker's copy of the folder.
        kept = shown_to_author(record.read_text(encoding="utf-8"), path).encode() if record.is_file() else None
        return shown_to_author(failed.reason, path), kept


def _read(path: Path, limit: int = 1 << 20) -> str:
    try:
        with path.open("rb") as f:
            f.seek(max(0, path.stat().st_size - limit))
            return f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


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


class ClusterLost(WorkerLost):
    """The scheduler cannot be reached (or it lost the task): what was under way is tried again later."""


class ClusterPlayer(Admitter):
    """Plays tables (and admits submissions) on a Dask cluster: a scheduler's address, or a LocalCluster of
    `workers` processes. A built folder kept under `built_dir` (by its source's digest) is what travels for it."""

    def __init__(self, address: str, workers: int, results_dir: Path, built_dir: Path | None = None,
                 access: ClusterAccess = ClusterAccess()) -> None:
        self.address = address
        self.results_dir = results_dir
        self.built_dir = built_dir
        self._lock = threading.Lock()
        self._parcels: dict[str, tuple[Parcel, Any]] = {}  # coordinator cwd -> (parcel, the future holding it)
        self._client, self._cluster, self._after = _connect(address, workers, access)

    def __enter__(self) -> ClusterPlayer:
        return self

    def connected(self) -> bool:
        """False once the client has given the scheduler up (it reconnects by itself for a while before)."""
        return self._client.status not in ("closing", "closed", "failed")

    def _live(self) -> None:
        """ClusterLost if the client has given the scheduler up: the season then reaches it with a new one."""
        if not self.connected():
            raise ClusterLost(f"the Dask scheduler at {self.address} was lost (the client gave it up); reaching it "
                              "again")

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Let go of the scheduler (and stop the LocalCluster if this player started one); the folders this
        player sent are removed from the workers' caches."""
        try:
            self.retire(set(), keep_built=True)  # the built copies serve the next start
        except Exception:  # noqa: BLE001 - the scheduler gone already: the workers' caches are bounded anyway
            pass
        self._client.close()
        _close(self._cluster, self._after)

    def results(self, jobs: list[TableJob], out_of_time: Callable[[], bool]) -> Iterator[TableResult]:
        """Results as tables finish; no more tables are submitted than the cluster has threads to play them,
        so none starts once the time limit has passed."""
        from distributed import as_completed

        self._live()
        queue = list(jobs)
        running: dict[Any, TableJob] = {}
        finished = as_completed()
        try:
            with _talking(self.address):
                yield from self._played(queue, running, finished, out_of_time)
        finally:
            if running:
                try:
                    self._client.cancel(list(running))
                except Exception:  # noqa: BLE001 - the scheduler gone: nothing is left to cancel
                    pass

    def _played(self, queue: list[TableJob], running: dict[Any, TableJob], finished: Any,
                out_of_time: Callable[[], bool]) -> Iterator[TableResult]:
        from distributed.scheduler import KilledWorker

        while queue or running:
            while queue and len(running) < self.capacity() and not out_of_time():
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
                if _lost(exc):
                    raise ClusterLost(f"the Dask scheduler at {self.address} was lost (its connection "
                                      "closed); the tables under way are played again") from None
                raise ArenaError(_task_failure(job, self.address, exc)) from None
            yield land(played, self.results_dir)

    def capacity(self) -> int:
        """The tables the cluster plays at once now: its workers' threads (workers come and go, and a table waits
        for one when none is left); ClusterLost if the scheduler is."""
        with _talking(self.address):
            return max(1, sum(self._client.nthreads().values()))

    def _shipped(self, job: TableJob) -> ShippedTable:
        # Bots with a working directory are submission folders: each travels once, as a parcel the cluster holds.
        folders = sorted({cwd for _, cwd in job.bots if cwd is not None})
        return ShippedTable(job, tuple((cwd, self.parcel(cwd)) for cwd in folders))

    def parcel(self, cwd: str) -> Parcel:
        """The folder as the cluster holds it: its built copy if one is kept under built_dir, else the folder as
        it is (built on each worker that plays it, before its first game there); packed and sent once."""
        cwd = _place(cwd)
        with self._lock:
            held = self._parcels.get(cwd)
            # A scheduler that was lost and came back (the client reconnects by itself) holds nothing of before.
            if held is not None and held[1].status not in ("cancelled", "lost", "error"):
                return held[0]
        digest = folder_digest(Path(cwd))
        kept = self._built(digest)
        data = kept.read_bytes() if kept is not None and kept.is_file() else pack_folder(Path(cwd))
        with _talking(self.address):
            return self._hold(cwd, digest, data)

    def _built(self, digest: str) -> Path | None:
        return None if self.built_dir is None else self.built_dir / f"{digest}.tar.gz"

    def _hold(self, cwd: str, digest: str, data: bytes) -> Parcel:
        parcel = Parcel(digest, HELD + digest)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Dask warns of a large task: holding the archive is its whole point
            future = self._client.submit(_held, data, key=parcel.key, pure=False)
        self._client.publish_dataset(future, name=parcel.key, override=True)
        with self._lock:
            self._parcels[cwd] = (parcel, future)
        return parcel

    def retire(self, keep: set[str], keep_built: bool = False) -> None:
        """Let go of every folder sent but those in keep (retired versions): the cluster no longer holds them and
        the workers remove their copies (a worker playing one removes it at its next retirement, or when its
        cache is full); their built copies under built_dir are removed too, unless keep_built."""
        keep = {_place(cwd) for cwd in keep}
        with self._lock:
            gone = {cwd: self._parcels.pop(cwd) for cwd in list(self._parcels) if cwd not in keep}
            kept = {parcel.digest for parcel, _ in self._parcels.values()}
        digests = {parcel.digest for parcel, _ in gone.values()} - kept
        with _talking(self.address):
            self._let_go(gone, digests, keep_built)

    def _let_go(self, gone: dict[str, tuple[Parcel, Any]], digests: set[str], keep_built: bool) -> None:
        for parcel, future in gone.values():
            if parcel.digest in digests:
                self._client.unpublish_dataset(parcel.key)
            future.release()
        for digest in digests:
            self._client.run(forget_folder, digest, on_error="return")
            built = self._built(digest)
            if built is not None and not keep_built:
                built.unlink(missing_ok=True)

    # --- admissions: the Admitter of arena/tournament/admission/workers.py, each step a task ----------------------
    def build(self, folder: str, log: Path, sandbox: Sandbox, time_left: float = BUILD_TIMEOUT,
              meanwhile: Callable[[], None] = lambda: None, max_size: int | None = None) -> str | None:
        """Build the submission folder on a worker (its log written to `log` here), to at most max_size bytes;
        why it failed, or None. The
        built folder is kept under built_dir and held in the cluster for the tables that seat it."""
        self._live()
        try:
            data = pack_folder(Path(folder))
        except ConfigError as exc:
            return str(exc)
        with _talking(self.address):
            built: Built = self._wait(self._client.submit(build_shipped, data, sandbox, time_left, max_size,
                                                          pure=False, retries=RETRIES,
                                                          key=f"arena-build-{uuid.uuid4().hex}"),
                                      meanwhile, "the build")
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(built.log, encoding="utf-8")
        if built.failed is not None or built.archive is None:
            return built.failed or "no reason given"
        folder = _place(folder)
        digest = folder_digest(Path(folder))
        kept = self._built(digest)
        if kept is not None:  # for the next start of the server, which then needs no build
            _write_whole(kept, built.archive)
        with self._lock:
            old = self._parcels.pop(folder, None)
        if old is not None:  # the unbuilt folder, sent for an earlier first game: the built one replaces it
            old[1].release()
        with _talking(self.address):
            self._hold(folder, digest, built.archive)
        return None

    def first_game(self, entrant: Entrant, game: str, options: dict[str, Any] | None, clock: Any,
                   sandbox: Sandbox, record_to: Path | None = None) -> Fault | None:
        """The entrant's first game against the sample bots, on a worker; why it failed, or None (the record of a
        failed game kept at `record_to`)."""
        self._live()
        parcel = self.parcel(entrant.cwd) if entrant.cwd else None
        if parcel is None:
            raise ArenaError(f"{entrant.name} has no folder to play from on the cluster")
        with _talking(self.address):
            outcome = self._wait(self._client.submit(first_game_shipped, entrant, parcel, game, options, clock,
                                                     sandbox, pure=False, retries=RETRIES,
                                                     key=f"arena-admission-{uuid.uuid4().hex}"),
                                 lambda: None, "the first game")
        if isinstance(outcome, str):  # the step's refusal: the worker running it was lost too often
            return Fault(outcome) if outcome else None
        reason, record = outcome
        if record is not None and record_to is not None:
            _write_whole(record_to, record)
        return Fault(reason) if reason else None

    def _wait(self, future: Any, meanwhile: Callable[[], None], doing: str) -> Any:
        """The task's result, calling meanwhile() at every LOOK; a worker lost meanwhile means the task runs
        again on another one (Dask's doing); ClusterLost if the scheduler is."""
        from distributed import wait
        from distributed.scheduler import KilledWorker

        try:
            while True:
                meanwhile()
                try:
                    wait(future, timeout=LOOK)
                except TimeoutError:
                    continue
                return future.result()
        except KilledWorker:
            return _refusal(doing)
        except Exception as exc:  # noqa: BLE001 - the task's own error, or the scheduler lost
            if _lost(exc):
                raise ClusterLost(f"the Dask scheduler at {self.address} was lost during {doing} (its connection "
                                  "closed); it is tried again") from None
            raise ArenaError(f"{doing} could not be run on the cluster ({self.address}) after {RETRIES + 1} tries: "
                             f"{type(exc).__name__}: {exc}") from None
        finally:
            future.release()


@contextlib.contextmanager
def _talking(address: str) -> Iterator[None]:
    """A lost connection to the scheduler (the client's calls raise OSError then: CommClosedError, a timeout) as
    ClusterLost, which the season logs before it tries again."""
    try:
        yield
    except OSError as exc:
        raise ClusterLost(f"the Dask scheduler at {address} was lost ({type(exc).__name__}); tried again in a "
                          "while") from None


def _place(cwd: str) -> str:
    """A folder's one name, however it was given (a submission's folder as stored, an entrant's resolved)."""
    return str(Path(cwd).resolve())


def _write_whole(path: Path, data: bytes) -> None:
    """Write data to path whole or not at all (a stop or SIGKILL halfway leaves no half-written file there)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_bytes(data)
    partial.replace(path)


def _refusal(doing: str) -> Any:
    # A submission whose step killed every worker that ran it (Dask's allowed failures) is refused with that.
    reason = f"{doing} ended every worker that ran it"
    return Built(reason, "") if doing == "the build" else reason


def _lost(exc: BaseException) -> bool:
    """True if exc says the scheduler went away (the client cancelled what it had), not the task's own error."""
    import asyncio
    import concurrent.futures

    from distributed.comm.core import CommClosedError

    return isinstance(exc, (concurrent.futures.CancelledError, asyncio.CancelledError, CommClosedError))


def _task_failure(job: TableJob, address: str, exc: Exception) -> str:
    hint = " (is bali-arena installed on every worker?)" if isinstance(exc, ImportError) else ""
    return (f"table {job.table.table} could not be played on the cluster ({address}) after {RETRIES + 1} tries: "
            f"{type(exc).__name__}: {exc}{hint}; the games stored so far are kept, the same command resumes")


def _pin_workers(client: Any, workers: int) -> None:
    # As the local pool does per slot: each worker (one table at a time) and its bots on CPUs of their own.
    for address, cpus in zip(sorted(client.scheduler_info()["workers"]), cpu_sets(workers)):
        client.run(os.sched_setaffinity, 0, cpus, workers=[address])


def check_scheduler(address: str, access: ClusterAccess = ClusterAccess()) -> None:
    """ConfigError if Dask is not installed, or (an address, not "local") the arena may not send submissions to
    its scheduler or cannot reach it now."""
    if address == LOCAL:
        try:
            import distributed  # noqa: F401
        except ImportError:
            _connect(address, 1)  # says how to install it
        with private_credentials():  # says how to install cryptography, if it is not
            return
    client, _, _ = _connect(address, 1, access)
    client.close()


def _connect(address: str, workers: int, access: ClusterAccess = ClusterAccess()) \
        -> tuple[Any, Any, contextlib.ExitStack]:
    """A client of the scheduler at address (of a LocalCluster started here for "local"), the cluster started, and
    what to close after both (the run's own credentials)."""
    try:
        from distributed import Client
    except ImportError:
        raise ConfigError("--cluster needs Dask: pip install 'bali-arena[cluster]' (or pip install -e \".[cluster]\" "
                          "in a checkout)") from None
    security = None if address == LOCAL else security_for(address, access)
    cluster = None
    after = contextlib.ExitStack()
    try:
        if address == LOCAL:
            cluster, client = _local_cluster(workers, after)
            return client, cluster, after
        # Dask tells of a closed connection at INFO with a traceback; the arena says it in one line (ClusterLost).
        logging.getLogger("distributed.batched").setLevel(logging.WARNING)
        return Client(address, timeout=CONNECT_TIMEOUT, security=security), None, after
    except (OSError, TimeoutError, ValueError) as exc:
        _close(cluster, after)
        raise ConfigError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    except TypeError as exc:  # what Dask raises for a tls:// address without its TLS settings
        _close(cluster, after)
        raise ConfigError(f"cannot reach the Dask scheduler at {address}: {exc}; a tls:// address needs Dask's TLS "
                          "settings (distributed.comm.tls in its configuration, docs/cluster.md)") from None
    except RuntimeError as exc:  # what LocalCluster raises when its workers cannot start
        _close(cluster, after)
        raise ConfigError(f"cannot start a local Dask cluster: {exc}") from None
    except BaseException:
        _close(cluster, after)
        raise


def _local_cluster(workers: int, after: contextlib.ExitStack) -> tuple[Any, Any]:
    """A LocalCluster that only holders of this run's credentials can reach, and its client."""
    import dask
    from distributed import Client, LocalCluster

    files = after.enter_context(private_credentials())
    # Processes, one thread each: a table's engine runs in Python, so threads would share one core. Every
    # listener (scheduler, nannies, workers) on the loopback only, on free ports, TLS with this run's CA required:
    # no other local user can connect, and none can make a certificate it signed (its folder is this user's
    # alone). No HTTP routes and no dashboard (NO_HTTP), no statistical profiler in the workers (NO_PROFILER, given
    # to each worker's nanny, which gives it to a worker that replaces a dead one too).
    with dask.config.set(NO_HTTP):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                               protocol="tls://", security=files.security(*ROLES),
                               dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False},
                               silence_logs=logging.ERROR, config={**NO_PROFILER, **NO_HTTP})
    try:
        client = Client(cluster, timeout=CONNECT_TIMEOUT, security=files.security("client"))
        _pin_workers(client, workers)
    except BaseException:
        cluster.close()
        raise
    return cluster, client


def _close(cluster: Any, after: contextlib.ExitStack) -> None:
    if cluster is not None:
        cluster.close()
    after.close()
