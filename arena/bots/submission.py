"""A submission folder's build step: run once before the bot's first game, and again when its files change.

The digest of the folder's files (build outputs and logs left out) after a successful build is kept in a stamp
file in the folder; a folder whose files still match it is not built again. A lock file keeps two arena
processes (tournament workers) from building the same folder at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shlex
import signal
import stat
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import IO, Callable, ContextManager, Iterator

from arena.bots.cgroups import new_cgroup
from arena.bots.entrants import MANIFEST, build_step, install_hint, transport
from arena.bots.folders import (
    SIZE_LIMIT,
    Entry,
    FolderRefused,
    check_folder,
    clear_special_bits,
    hand_over,
    open_regular,
    problem,
    read_regular,
    shown,
    walk,
)
from arena.bots.process import Transport
from arena.bots.sandbox import BUILD_LIMITS, MIB, Sandbox
from arena.bots.sandbox.hostuser import Lease
from arena.bots.sandbox.limits import BUILD_GROWTH, limit_text
from arena.bots.sandbox.watchdog import Watchdog, kill_all, reap_pids
from arena.errors import BuildFailed, ConfigError, FaultKind

STAMP = ".arena-build"
LOCK = ".arena-build.lock"
BUILD_TIMEOUT = 900.0  # seconds a build may take: a first Rust or npm build on a slow machine takes minutes
BUILD_ENTRIES = 20_000  # new files and folders a build may leave (a cargo target or a JavaScript bundle: hundreds)
# Top-level folders that builds and runs write into; their files are not the submission's sources.
BUILD_OUTPUTS = frozenset({"target", "node_modules", "build", "results", "logs", "__pycache__", ".git"})
TAIL_LINES = 20  # lines of a failed build's output shown with its fault
_TAIL_BYTES = 1 << 16  # how much of the end of a build log is read for those lines
_STAMP_LIMIT = 1 << 16  # bytes of a build stamp read at most
_GROWTH_LOOK = 1.0  # seconds between two looks at how much a build's folder grew

_lock = threading.Lock()
_built: set[str] = set()  # folders checked (and built if need be) by this process
_failed: dict[str, tuple[str, BuildFailed]] = {}  # folder -> (digest, fault) of a build that failed here


BuildWatch = Callable[[Path, tuple[str, ...]], ContextManager[None]]  # wraps a build that runs: says it is under way


def ensure_built(cwd: str | None, log: Path, sandbox: Sandbox = Sandbox(), watch: BuildWatch | None = None,
                 time_left: float = BUILD_TIMEOUT, max_size: int | None = None) -> None:
    """Build the submission folder cwd (in sandbox) if its manifest names a build and its files changed since the
    last one; BuildFailed (with the build's last lines) if the build fails or takes more than time_left seconds,
    or (max_size given) leaves more than max_size bytes of files in the folder, each at its apparent size.
    Once per folder and process: a failed build is not tried again for the same files. A build that runs does so
    inside watch(folder, build), if given."""
    if cwd is None or not (Path(cwd) / MANIFEST).is_file():
        return
    folder = Path(cwd)
    with _lock:
        if cwd in _built:
            return
        try:
            build = build_step(folder)
        except ConfigError as exc:
            raise BuildFailed(f"cannot read the build step: {exc}") from None
        try:
            if build is not None:
                _build_if_changed(folder, build, log, sandbox.resolved(), watch, time_left, max_size)
            if sandbox.resolved().drops:
                hand_over(folder)  # its bots run as host uids of their own, which reach its files as nogroup
        except FolderRefused as exc:
            raise BuildFailed(str(exc)) from None
        except OSError as exc:
            raise BuildFailed(f"cannot hand the folder to its bots: {exc.strerror or exc}") from None
        _built.add(cwd)


def _build_if_changed(folder: Path, build: tuple[str, ...], log: Path, sandbox: Sandbox,
                      watch: BuildWatch | None, time_left: float, max_size: int | None = None) -> None:
    digest = folder_digest(folder)
    failed = _failed.get(str(folder))
    if failed is not None and failed[0] == digest:
        raise failed[1]
    with _folder_lock(folder):
        if read_stamp(folder) == digest:
            return  # built already, by an earlier run or by another worker while this one waited
        try:
            with watch(folder, build) if watch is not None else nullcontext():
                run_build(folder, build, log, sandbox, time_left)
                _within(folder, max_size)
        except BuildFailed as fault:
            _failed[str(folder)] = (digest, fault)
            raise
        _write_stamp(folder, folder_digest(folder), build)


def run_build(folder: Path, build: tuple[str, ...], log: Path, sandbox: Sandbox = Sandbox(),
              time_left: float = BUILD_TIMEOUT) -> None:
    """Run build in folder inside sandbox (resolved), its output (stdout and stderr) to the file log; BuildFailed
    if it does not succeed, goes over a limit or past time_left seconds (BUILD_TIMEOUT, less what earlier tries
    of the same admission used)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    folder = folder.resolve()
    with log.open("wb") as out, tempfile.TemporaryDirectory(prefix="arena-build-") as home, _closed_to_others(folder):
        out.write(f"$ {shlex.join(build)}   (in {folder})\n".encode())
        out.flush()
        run = BuildRun(folder, sandbox)
        try:
            run.start(build, out, Path(home))
        except OSError as exc:
            run.end()
            run.give_back()
            raise BuildFailed(f"cannot run the build step {shlex.join(build)!r}: {exc.strerror or exc}"
                              f"{install_hint(build[0])}") from None
        try:
            status, over = run.wait(min(time_left, BUILD_TIMEOUT))
        finally:
            run.end()
            last = run.look()  # a program or files it made in its last moments must not outlive it either
            run.give_back()
    over = over or last
    if over is not None:
        raise BuildFailed(f"the build step {shlex.join(build)!r} went over {over} and was stopped; its output: {log}",
                          _tail(log))
    if status != 0:
        raise BuildFailed(f"the build step {shlex.join(build)!r} failed with status {status}; its output: {log}",
                          _tail(log))


@contextmanager
def _closed_to_others(folder: Path) -> Iterator[None]:
    """The folder reachable by its owner alone while its build runs (its mode as it was afterwards): no other user
    of the machine can run a program the build makes before the arena has looked at it."""
    try:
        mode = stat.S_IMODE(folder.stat().st_mode)
        folder.chmod(mode & 0o700)
    except OSError:  # not the arena's to change: left as it is
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            folder.chmod(mode)


class BuildRun:
    """One build process in its sandbox: its cgroup, the watchdog over its limits, and its folder's growth."""

    def __init__(self, folder: Path, sandbox: Sandbox) -> None:
        self.folder, self.sandbox = folder, sandbox
        self.limits, self.limited, self.endpoint = BUILD_LIMITS, sandbox.limited, ""
        self.cgroup = new_cgroup() if sandbox.limited else None
        self.adopted: set[int] = set()
        self.seen: set[int] = set()
        self.cpu_base: float | None = None
        self.cpu_peak, self.vm_peak = 0.0, 0
        self.limit_hit: FaultKind | None = None
        self.watchdog = Watchdog() if sandbox.limited else None
        self.process: subprocess.Popen[bytes] | None = None
        self.pid = 0
        self.size, self.entries = _disk_use(folder)
        self.owner = folder.stat().st_uid
        self.lease: Lease | None = None

    def start(self, build: tuple[str, ...], out: IO[bytes], home: Path) -> None:
        """Start the build, its output to out: where it drops, as a host uid of its own that owns its folder
        meanwhile (so that what it makes there is never root's)."""
        if self.cgroup is not None:
            self.cgroup.limit(BUILD_LIMITS.memory, BUILD_LIMITS.processes + self.sandbox.helpers)
        self.lease = self.sandbox.lease()
        if self.lease is not None:
            hand_over(self.folder, self.lease.uid, writable=True)
        argv = self.sandbox.build_command(build, self.folder, self.cgroup.join if self.cgroup else (),
                                          self.lease.uid if self.lease else None)
        self.process = subprocess.Popen(argv, cwd=self.folder, stdin=subprocess.DEVNULL, stdout=out,
                                        stderr=subprocess.STDOUT, start_new_session=True,
                                        env=self.sandbox.build_environment(home))
        self.pid = self.process.pid
        if self.watchdog is not None:
            self.watchdog.watch(self)

    def wait(self, time_left: float = BUILD_TIMEOUT) -> tuple[int | None, str | None]:
        """The build's exit status, and what it went over (None: nothing), once it ends or is stopped."""
        assert self.process is not None
        deadline = time.monotonic() + time_left
        while True:
            try:
                status = self.process.wait(_GROWTH_LOOK)
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    return None, f"its {BUILD_TIMEOUT:g} s" + ("" if time_left >= BUILD_TIMEOUT else
                                                                 " (counted across stops of the arena)")
                over = self.look() if self.limited else None
                if over is not None:
                    return None, over
        if self.limit_hit is not None:
            return status, f"its limit of {limit_text(self.limit_hit, BUILD_LIMITS)}"
        return status, None

    def look(self) -> str | None:
        """What the build went over so far (None: nothing): BUILD_GROWTH, a limit of what the arena reads of a
        folder, or no setuid or setgid file (its bits are cleared at once: such a program lives a second at most)."""
        try:
            size, entries = _disk_use(self.folder, clear=True)
        except FolderRefused as exc:
            return f"what its folder may hold ({exc})"
        if size - self.size > BUILD_GROWTH:
            return f"its limit of {BUILD_GROWTH // MIB} MiB of new files in its folder"
        if entries - self.entries > BUILD_ENTRIES:
            # Every start of its bots reads the whole folder (its digest): a build may not make that slow.
            return f"its limit of {BUILD_ENTRIES} new files and folders in its folder"
        return None

    def end(self) -> None:
        """Kill whatever of the build is left (its daemons too), and release its cgroup and watchdog."""
        if self.watchdog is not None:
            self.watchdog.forget(self)
            self.watchdog.close()
        if self.process is not None:
            kill_all(self)
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.process.wait()
        reap_pids(self.adopted, 2.0)
        if self.cgroup is not None:
            self.cgroup.remove()

    def give_back(self) -> None:
        """Once its processes are gone and its folder looked at: the folder to its owner again, the uid it ran as
        to the next bot or build."""
        if self.lease is not None:
            with contextlib.suppress(OSError):
                hand_over(self.folder, self.owner)
            self.lease.release()
            self.lease = None


def _within(folder: Path, max_size: int | None) -> None:
    """BuildFailed if the built folder holds more than max_size bytes: a sparse file counts at its apparent size,
    which every copy of the folder (packed, sent, unpacked in a worker's cache) takes in full."""
    if max_size is None:
        return
    size = _disk_use(folder)[0]
    if size > max_size:
        raise BuildFailed(f"the build left {size / MIB:.1f} MiB of files in its folder (each counted at its full "
                          f"size, sparse or not), more than the {max_size / MIB:g} MiB a submission may hold")


def _disk_use(folder: Path, clear: bool = False) -> tuple[int, int]:
    """Bytes the folder's files take (on disk, or by their apparent size where that is more: a sparse file), and
    how many files and folders it holds; FolderRefused past a limit of arena.bots.folders, and with `clear` (its
    setuid and setgid bits cleared) for a setuid or setgid file."""
    used, count, special = 0, 0, None
    for entry in walk(folder):
        count += 1
        info = entry.info
        used += max(info.st_blocks * 512, info.st_size if stat.S_ISREG(info.st_mode) else 0)
        if clear and stat.S_ISREG(info.st_mode) and info.st_mode & (stat.S_ISUID | stat.S_ISGID):
            clear_special_bits(entry)  # every one of them, not only the first: the look goes on through the folder
            special = special or entry.relative
    if special is not None:
        raise FolderRefused(f"{folder}: {shown(special)} is a setuid or setgid program")
    return used, count


def _tail(log: Path) -> str:
    """The last lines of a build log, read from its end only (a build may print a lot)."""
    with log.open("rb") as f:
        f.seek(max(0, log.stat().st_size - _TAIL_BYTES))
        text = f.read().decode("utf-8", errors="replace")
    return "\n".join(text.rstrip().splitlines()[-TAIL_LINES:])


def wants_tcp(cwd: str | None) -> bool:
    """True if cwd is a submission folder whose manifest asks for tcp (its ZeroMQ library has no ipc)."""
    return cwd is not None and (Path(cwd) / MANIFEST).is_file() and transport(Path(cwd)) == Transport.TCP.value


def folder_digest(folder: Path) -> str:
    """A digest of the submission's files: their paths and contents (a link's target, never followed), without
    build outputs, logs and stamps; FolderRefused if the folder holds what the arena refuses (arena.bots.folders)
    anywhere, build outputs included, or goes over a limit."""
    digest = hashlib.sha256()
    found, size = None, 0
    for entry in walk(folder):
        found = found or problem(folder, entry)
        if found is not None or not _source(entry):
            continue
        digest.update(os.fsencode(entry.relative) + b"\0")
        if stat.S_ISLNK(entry.info.st_mode):
            digest.update(b"\2" + os.fsencode(os.readlink(entry.name, dir_fd=entry.parent)))
        elif stat.S_ISREG(entry.info.st_mode):
            size += entry.info.st_size
            if size > SIZE_LIMIT:
                raise FolderRefused(f"{folder}: its files hold more than {SIZE_LIMIT // MIB} MiB (the limit); the "
                                    "submission is refused")
            _digest_file(entry, digest)
        digest.update(b"\0")
    if found is not None:
        check_folder(folder)  # clears what setuid or setgid bits there are, and refuses the folder
        raise FolderRefused(f"{folder}: {found}; the submission is refused")
    return digest.hexdigest()


def _source(entry: Entry) -> bool:
    """True if the entry is one of the submission's own files (a regular file or a link): no build output, log
    or stamp."""
    parts = entry.relative.split("/")
    if (len(parts) > 1 and parts[0] in BUILD_OUTPUTS) or "__pycache__" in parts[:-1] or \
            stat.S_ISDIR(entry.info.st_mode):
        return False
    return entry.name not in (STAMP, LOCK) and not entry.name.endswith(".log") and entry.name != "__pycache__"


def _digest_file(entry: Entry, digest: "hashlib._Hash") -> None:
    try:
        fd = os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=entry.parent)
    except OSError:
        digest.update(b"\1unreadable")
        return
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            digest.update(b"\1unreadable")
            return
        for block in iter(lambda: f.read(1 << 16), b""):
            digest.update(block)


def read_stamp(folder: Path) -> str | None:
    """The digest of the folder's files after its last successful build, or None (FolderRefused if the stamp is
    no regular file)."""
    try:
        data = json.loads(read_regular(folder, STAMP, _STAMP_LIMIT) or b"")
    except (OSError, ValueError):
        return None
    digest = data.get("digest") if isinstance(data, dict) else None
    return digest if isinstance(digest, str) else None


def _write_stamp(folder: Path, digest: str, build: tuple[str, ...]) -> None:
    try:
        fd = open_regular(folder, STAMP, os.O_WRONLY | os.O_CREAT)
    except OSError:
        return  # a read-only folder is built again next time, nothing worse
    if fd is None:
        return
    with os.fdopen(fd, "wb") as f:
        f.truncate(0)
        f.write((json.dumps({"digest": digest, "build": list(build)}) + "\n").encode())


@contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on the folder's lock file while building; no lock where the folder is read-only."""
    try:
        fd = open_regular(folder, LOCK, os.O_WRONLY | os.O_CREAT)
    except OSError:
        fd = None
    if fd is None:
        yield
        return
    with os.fdopen(fd, "wb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
