"""A submission folder's build step: run once before the bot's first game, and again when its files change.

The digest of the folder's files (build outputs and logs left out) after a successful build is kept in a stamp
file in the folder; a folder whose files still match it is not built again. A lock file keeps two arena
processes (tournament workers) from building the same folder at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shlex
import signal
import subprocess
import threading
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Callable, ContextManager, Iterator

from arena.bots import Transport
from arena.entrants import MANIFEST, build_step, install_hint, transport
from arena.errors import BuildFailed, ConfigError

STAMP = ".arena-build"
LOCK = ".arena-build.lock"
BUILD_TIMEOUT = 900.0  # seconds a build may take: a first Rust or npm build on a slow machine takes minutes
# Top-level folders that builds and runs write into; their files are not the submission's sources.
BUILD_OUTPUTS = frozenset({"target", "node_modules", "build", "results", "logs", "__pycache__", ".git"})
TAIL_LINES = 20  # lines of a failed build's output shown with its fault
_TAIL_BYTES = 1 << 16  # how much of the end of a build log is read for those lines

_lock = threading.Lock()
_built: set[str] = set()  # folders checked (and built if need be) by this process
_failed: dict[str, tuple[str, BuildFailed]] = {}  # folder -> (digest, fault) of a build that failed here


BuildWatch = Callable[[Path, tuple[str, ...]], ContextManager[None]]  # wraps a build that runs: says it is under way


def ensure_built(cwd: str | None, log: Path, watch: BuildWatch | None = None) -> None:
    """Build the submission folder cwd if its manifest names a build and its files changed since the last one;
    BuildFailed (with the build's last lines) if the build fails. Once per folder and process: a failed build is
    not tried again for the same files. A build that runs does so inside watch(folder, build), if given."""
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
        if build is not None:
            _build_if_changed(folder, build, log, watch)
        _built.add(cwd)


def _build_if_changed(folder: Path, build: tuple[str, ...], log: Path, watch: BuildWatch | None) -> None:
    digest = folder_digest(folder)
    failed = _failed.get(str(folder))
    if failed is not None and failed[0] == digest:
        raise failed[1]
    with _folder_lock(folder):
        if read_stamp(folder) == digest:
            return  # built already, by an earlier run or by another worker while this one waited
        try:
            with watch(folder, build) if watch is not None else nullcontext():
                run_build(folder, build, log)
        except BuildFailed as fault:
            _failed[str(folder)] = (digest, fault)
            raise
        _write_stamp(folder, folder_digest(folder), build)


def run_build(folder: Path, build: tuple[str, ...], log: Path) -> None:
    """Run build in folder, its output (stdout and stderr) to the file log; BuildFailed if it does not succeed."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        out.write(f"$ {shlex.join(build)}   (in {folder})\n".encode())
        out.flush()
        try:
            process = subprocess.Popen(build, cwd=folder, stdin=subprocess.DEVNULL, stdout=out,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            raise BuildFailed(f"cannot run the build step {shlex.join(build)!r}: {exc.strerror or exc}"
                              f"{install_hint(build[0])}") from None
        try:
            status = process.wait(BUILD_TIMEOUT)
        except BaseException as exc:
            _kill_group(process)
            if not isinstance(exc, subprocess.TimeoutExpired):
                raise
            raise BuildFailed(f"the build step {shlex.join(build)!r} took more than {BUILD_TIMEOUT:g} s and was "
                              f"stopped; its output: {log}", _tail(log)) from None
    if status != 0:
        raise BuildFailed(f"the build step {shlex.join(build)!r} failed with status {status}; its output: {log}",
                          _tail(log))


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


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
    """A digest of the submission's files: their paths and contents, without build outputs, logs and stamps."""
    digest = hashlib.sha256()
    for path in sorted(_sources(folder)):
        relative = path.relative_to(folder).as_posix()
        digest.update(relative.encode() + b"\0")
        try:
            with path.open("rb") as f:
                for block in iter(lambda: f.read(1 << 16), b""):
                    digest.update(block)
        except OSError:
            digest.update(b"\1unreadable")
        digest.update(b"\0")
    return digest.hexdigest()


def _sources(folder: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        if Path(root) == folder:
            dirs[:] = [d for d in dirs if d not in BUILD_OUTPUTS]
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name in (STAMP, LOCK) or name.endswith(".log"):
                continue
            path = Path(root) / name
            if path.is_file():
                yield path


def read_stamp(folder: Path) -> str | None:
    """The digest of the folder's files after its last successful build, or None."""
    try:
        data = json.loads((folder / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    digest = data.get("digest") if isinstance(data, dict) else None
    return digest if isinstance(digest, str) else None


def _write_stamp(folder: Path, digest: str, build: tuple[str, ...]) -> None:
    try:
        (folder / STAMP).write_text(json.dumps({"digest": digest, "build": list(build)}) + "\n", encoding="utf-8")
    except OSError:
        pass  # a read-only folder is built again next time, nothing worse


@contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on the folder's lock file while building; no lock where the folder is read-only."""
    try:
        handle = (folder / LOCK).open("a")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
