"""Isolation of bot processes: resource limits, a scrubbed environment, a private directory, bubblewrap.

The threat model (what each level prevents and what it does not) is in SANDBOX.md beside this file.
Everything here works without preexec_fn (unsafe in the arena, which has ZeroMQ threads): the limits and
the sandbox are wrapper commands (prlimit, taskset, bwrap) put in front of the bot's command line.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import math
import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from arena.bots.cgroups import BotCgroup, hierarchy
from arena.bots.meter import wait_accounting
from arena.errors import LIMIT_FAULTS, BotCrashed, ConfigError, FaultKind

MIB = 1 << 20
# Environment variables a bot keeps under rlimit and bwrap; everything else of the arena's is dropped.
PASSED_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "VIRTUAL_ENV")
_TICK = 0.1  # seconds between two looks of the watchdog
_REAP_WAIT = 2.0  # seconds to wait for killed orphans to die before leaving them for a later look
_MEMORY_NEAR = 0.9  # a bot that died with this share of its address space in use ran out of memory
DEFAULT_DISK = 256 * MIB  # a bot's private home, /tmp and /dev/shm together, under bubblewrap
SHM_SIZE = 8 * MIB  # the part of that quota that is /dev/shm (POSIX shared memory, semaphores)
HOME_IN_SANDBOX = "/tmp/home"  # a bot's HOME inside bubblewrap, on its private /tmp
NOBODY = 65534  # the user and group a bot and a build are inside bubblewrap
# The runtime's top-level directories; where one is a symbolic link (a merged /usr), the sandbox has the same link.
SYSTEM_DIRS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Files and folders of /etc that hold secrets: out of sight in every sandbox.
HIDDEN_SYSTEM = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
                 "/etc/ssh")
OWNER_ONLY_SCAN = 20_000  # entries of /etc looked at for files only their owner may read
# What a bot given as a command line may import from the arena: the SDK, the sample bots, and the rules engines
# (pure code, no seed and no state in them) that the search bot simulates with.
ARENA_PACKAGES = ("protocol", "sample_bots", "arena.games")
# What marks the root of a script's project where its runtime looks for packages in the folders above the
# script's own (Node.js: node_modules): a command line's bot is shown that folder.
PROJECT_MARKERS = ("package.json", "node_modules")
# What runtimes print when a file or module they look for is not there.
_MISSING_SIGNS = ("ModuleNotFoundError", "No module named", "Cannot find module", "can't open file",
                  "No such file or directory", "ClassNotFoundException", "cannot open shared object file",
                  "cannot load such file", "ERR_MODULE_NOT_FOUND")
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".ts", ".rb", ".pl", ".php", ".jl", ".lua", ".sh", ".jar")
# What runtimes print when a limit refuses them; stderr is the only trace the kernel leaves of some limits.
_STDERR_SIGNS = (
    (FaultKind.MEMORY, ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory",
                        "OutOfMemoryError", "heap out of memory")),
    (FaultKind.FILE_SIZE, ("File too large", "[Errno 27]")),
    (FaultKind.OPEN_FILES, ("Too many open files", "[Errno 24]")),
    (FaultKind.DISK, ("No space left on device", "[Errno 28]", "ENOSPC")),
)

# The guard: a metered decision (charged its wall time less its wait for a core, arena/bots/meter.py) times out on
# the wall clock at this many times its allowance plus the time the bot waited for a core, whatever the meter
# charged. A sleeping bot is charged its sleep, so it never reaches the guard.
WALL_CEILING = 2.0


class Isolation(StrEnum):
    """How far a bot is kept from the machine; AUTO is resolved at start to the strongest level that works here."""

    AUTO = "auto"
    NONE = "none"
    RLIMIT = "rlimit"
    BWRAP = "bwrap"


@dataclass(frozen=True)
class Limits:
    """What one bot may use: memory, file size and disk (its private home and /tmp, under bwrap) in bytes, CPU
    seconds per game, tasks, fds."""

    memory: int = 1024 * MIB
    cpu: float = 60.0
    processes: int = 64
    file_size: int = 64 * MIB
    open_files: int = 256
    disk: int = DEFAULT_DISK

    def to_dict(self) -> dict[str, Any]:
        """The limits as plain data (the disk limit only where it is not the default, so that tournaments stored
        before it existed resume)."""
        found = {"memory": self.memory, "cpu": self.cpu, "processes": self.processes, "file_size": self.file_size,
                 "open_files": self.open_files}
        return found if self.disk == DEFAULT_DISK else {**found, "disk": self.disk}


@dataclass(frozen=True)
class Sandbox:
    """The isolation level, the limits it enforces (not under none), and the CPUs the bots are pinned to."""

    level: Isolation = Isolation.AUTO
    limits: Limits = field(default_factory=Limits)
    cpus: tuple[int, ...] = ()  # empty: not pinned
    build_network: bool = False  # builds share the machine's network (else they have none under bwrap)

    def to_dict(self) -> dict[str, Any]:
        """The level and limits as plain data (the pinning is not part of what defines a tournament)."""
        return {"level": self.level.value, "limits": self.limits.to_dict()}

    @property
    def limited(self) -> bool:
        """True at every level but none: the limits apply, the environment is scrubbed."""
        return self.level != Isolation.NONE

    @property
    def confined(self) -> bool:
        """True where a bot runs in a namespace of its own (bubblewrap): its own processes (the arena is pid 1's
        parent, out of sight), its own network, and only the files the sandbox shows it."""
        return self.level == Isolation.BWRAP

    @property
    def helpers(self) -> int:
        """The sandbox's own processes that run in a bot's cgroup beside it (bubblewrap outside and as init, and
        unshare's where the arena itself runs in a user namespace), counted on top of the bot's task limit."""
        return 2 + (1 if outer_namespace() else 0) if self.confined else 0

    def resolved(self) -> "Sandbox":
        """This sandbox with auto replaced by the strongest level this machine supports."""
        if self.level != Isolation.AUTO:
            return self
        return replace(self, level=Isolation.BWRAP if bwrap_problem() is None else Isolation.RLIMIT)

    def describe(self) -> str:
        """The level in effect and what enforces the limits, in a few words."""
        if self.level == Isolation.AUTO:
            return self.resolved().describe()
        where = hierarchy()
        counted = f"limits by {where.describe()} and the watchdog" if where else "limits by the watchdog"
        if self.level == Isolation.NONE:
            return "none (no limits; processes contained" + (f" by {where.describe()})" if where else ")")
        if self.level == Isolation.RLIMIT:
            return f"rlimit ({counted})"
        return f"bwrap (own user, PID, IPC, UTS, network namespaces; {counted})"

    def warning(self) -> str | None:
        """One line saying what this level does not protect, or None where a bot is fully kept apart."""
        if self.level == Isolation.AUTO:
            return self.resolved().warning()
        if self.level == Isolation.BWRAP:
            return None
        why = "" if self.level == Isolation.NONE else f" (bubblewrap: {bwrap_problem()})" if bwrap_problem() else ""
        return (f"sandbox warning: at {self.level.value}{why} the bots are contained and"
                f"{' limited' if self.limited else ' not limited'}, but run as your user: a bot can read your "
                "files and the other bots', answer for another bot at its endpoint, use the network and signal "
                "the arena")

    def check_strangers(self) -> None:
        """ConfigError where auto would run submission folders (strangers' code) at a level that does not keep
        files apart: below bwrap, the level must be named."""
        if self.level == Isolation.AUTO and self.resolved().level != Isolation.BWRAP:
            raise ConfigError(f"submission folders are strangers' code, and bubblewrap cannot keep their files apart "
                              f"here ({bwrap_problem()}): install it, or name --sandbox rlimit (or none) to run them "
                              "with every file of your user in their reach")

    def check(self) -> None:
        """ConfigError naming the problem if this sandbox cannot work here."""
        if self.level == Isolation.AUTO:
            self.resolved().check()
            return
        limits = self.limits
        if min(limits.memory, limits.processes, limits.file_size, limits.open_files) < 1 or limits.cpu <= 0 or \
                limits.disk < MIB:
            raise ConfigError("every limit must be positive")
        if self.limited and shutil.which("prlimit") is None:
            raise ConfigError(f"--sandbox {self.level.value} needs prlimit (Debian package util-linux)")
        if self.cpus and shutil.which("taskset") is None:
            raise ConfigError("pinning bots to CPUs needs taskset (Debian package util-linux)")
        if self.level == Isolation.BWRAP:
            problem = bwrap_problem()
            if problem is not None:
                raise ConfigError(f"--sandbox bwrap cannot be used: {problem}")

    def command(self, argv: tuple[str, ...], cwd: str | None, private: Path, hidden: tuple[str, ...],
                games: int = 1, masked: tuple[Path, ...] = (), join: tuple[Path, ...] = ()) -> list[str]:
        """The command line that runs argv in this sandbox for up to `games` games; private is the bot's own
        directory (socket, home), hidden the directories of the other bots and masked those of the arena (its
        temporary and results directories), which bwrap covers; join the cgroup.procs files the bot enters."""
        prefix: list[str] = []
        if self.cpus:
            prefix += ["taskset", "--cpu-list", ",".join(map(str, self.cpus))]
        prefix += launcher(join)
        if self.limited:
            prefix += _prlimit(self.limits, games)
        if self.level == Isolation.BWRAP:
            prefix += [*outer_namespace(), *_bwrap(cwd, private, hidden, argv, masked, self.limits)]
        return [*prefix, *argv]

    def environment(self, endpoint_env: dict[str, str], private: Path) -> dict[str, str]:
        """The bot's environment: the arena's under none, else only PASSED_ENV, a private HOME and TMPDIR (under
        bwrap on the bot's own /tmp)."""
        if not self.limited:
            return {**os.environ, **endpoint_env}
        kept = {k: v for k, v in os.environ.items() if k in PASSED_ENV}
        if self.level == Isolation.BWRAP:
            return {**kept, "HOME": HOME_IN_SANDBOX, "TMPDIR": "/tmp", **endpoint_env}
        home = str(private / "home")
        return {**kept, "HOME": home, "TMPDIR": home, **endpoint_env}


    def build_command(self, argv: tuple[str, ...], folder: Path, join: tuple[Path, ...]) -> list[str]:
        """The command line that runs a submission's build step in its folder: under bwrap as nobody, the folder
        writable and nothing else of the machine's data, without network unless build_network; joining the
        cgroup.procs files join."""
        prefix = [*launcher(join)]
        if self.limited:
            limits = BUILD_LIMITS
            prefix += ["prlimit", f"--fsize={limits.file_size}", f"--nofile={limits.open_files}", "--core=0", "--"]
        if self.level == Isolation.BWRAP:
            prefix += [*outer_namespace(), *filesystem(BUILD_LIMITS.disk, [], ()), "--bind", str(folder),
                       str(folder), "--chdir", str(folder), *_isolation(network=self.build_network), "--"]
        return [*prefix, *argv]

    def build_environment(self, home: Path) -> dict[str, str]:
        """A build's environment: the arena's under none; else PASSED_ENV, a private HOME and TMPDIR (home, or
        under bwrap its own /tmp), and where rustup keeps its toolchains."""
        if not self.limited:
            return dict(os.environ)
        kept = {k: v for k, v in os.environ.items() if k in PASSED_ENV}
        rustup = _rustup_home()
        if rustup is not None:
            kept["RUSTUP_HOME"] = str(rustup)
        if self.level == Isolation.BWRAP:
            return {**kept, "HOME": HOME_IN_SANDBOX, "TMPDIR": "/tmp"}
        return {**kept, "HOME": str(home), "TMPDIR": str(home)}


NO_SANDBOX = Sandbox(Isolation.NONE)
# What a build may use: memory (its cgroup, all its processes), tasks, file size, fds, its /tmp under bwrap, and how
# much its folder may grow; its time is submission.BUILD_TIMEOUT. Compilers need more than a bot: javac and cargo
# start dozens of threads, rustc takes hundreds of MiB.
BUILD_LIMITS = Limits(memory=2048 * MIB, cpu=float("inf"), processes=512, file_size=1024 * MIB, open_files=4096,
                      disk=512 * MIB)
BUILD_GROWTH = 2048 * MIB


def launcher(join: tuple[Path, ...]) -> list[str]:
    """What starts every bot: the kernel kills it when the arena dies (setpriv --pdeathsig, where it works), it
    gives up if the arena died before that took effect, and it enters its cgroup before the bot's code runs."""
    script = f'[ "$PPID" = {os.getpid()} ] || exit 125'
    for procs in join:
        script += f"; echo $$ > {shlex.quote(str(procs))} || exit 126"
    return [*_death_signal_prefix(), "sh", "-c", script + '; exec "$@"', "arena-bot"]


@functools.cache
def _death_signal_prefix() -> tuple[str, ...]:
    """`setpriv --pdeathsig KILL --` where it works (the arena's thread that started the bot must live as long as
    the bot: the kernel ties the signal to it)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return ()
    prefix = (setpriv, "--pdeathsig", "KILL", "--")
    try:
        works = subprocess.run([*prefix, "true"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        works = False
    return prefix if works else ()


@functools.cache
def outer_namespace() -> tuple[str, ...]:
    """As root: `unshare --pid --fork --kill-child`, a PID namespace around bubblewrap whose init dies with the
    arena, so that a bubblewrap killed while it sets its sandbox up (before its own die-with-parent holds) takes the
    sandbox with it. Elsewhere nothing (bubblewrap then runs unprivileged, in a user namespace of its own)."""
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        return ()
    prefix = (unshare, "--pid", "--fork", "--kill-child", "--")
    try:
        works = subprocess.run([*prefix, "true"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        works = False
    return prefix if works else ()


def _prlimit(limits: Limits, games: int) -> list[str]:
    # CPU: the kernel's limit is a backstop over the process's life (the watchdog enforces the limit per game, over
    # all the bot's processes, and must see an overrun first: hence the extra second), soft below hard so that the
    # bot first gets SIGXCPU, which tells the cause.
    cpu = max(1, math.ceil(limits.cpu * games)) + 1
    return ["prlimit", f"--as={limits.memory}", f"--fsize={limits.file_size}", f"--nofile={limits.open_files}",
            f"--cpu={cpu}:{cpu + 1}", "--core=0", "--"]


def _bwrap(cwd: str | None, private: Path, hidden: tuple[str, ...], argv: tuple[str, ...],
           masked: tuple[Path, ...], limits: Limits) -> list[str]:
    """bubblewrap's part of a bot's command line: a filesystem of the runtime, the bot's own folder (or the
    folders of what its command line names, own_folders), its socket and a private home and /tmp of its own,
    within its disk limit."""
    folder = Path(cwd or os.getcwd()).resolve()
    covered = tuple(p.resolve() for p in (*masked, *map(Path, hidden)) if p.exists())
    named = own_folders(folder, argv) if cwd is None else \
        [p.resolve() for p in (Path(a) for a in argv if a.startswith("/")) if p.exists()]
    # The folders of what a command line names are shown (the results and other entrants' folders in them
    # covered), unless they lie in the arena's results or another entrant's folder. The
    # temporary directory is covered only where a shown path holds it: the arena's sockets there are in
    # directories of their own, which no command names.
    temporary = Path(tempfile.gettempdir()).resolve()
    named = [p for p in named if not any(p.is_relative_to(c) for c in covered if c != temporary)]
    shown = [*arena_packages(), *([folder] if cwd is not None else []), *named]
    args = [*filesystem(limits.disk, shown, covered, folder)]
    if cwd is None:
        args += ["--dir", str(folder)]  # a command line's bot runs where the arena runs, which it cannot see
    return [*args, "--ro-bind", str(private), str(private), "--chdir", str(folder), *_isolation(), "--"]


def _isolation(network: bool = False) -> list[str]:
    # The in-memory root and /dev go read-only once every mount is made: only the sized /tmp (and /dev/shm) and
    # what is bound writable can be written, not the directories bubblewrap made on the root for the binds.
    return ["--remount-ro", "/dev", "--remount-ro", "/",
            "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--unshare-pid", "--unshare-ipc",
            "--unshare-uts", *([] if network else ["--unshare-net"]), "--unshare-cgroup-try", "--cap-drop", "ALL",
            "--new-session", "--die-with-parent"]


def filesystem(disk: int, shown: list[Path], covered: tuple[Path, ...], own: Path | None = None) -> list[str]:
    """bubblewrap's options for a filesystem of the runtime (read-only), a private /tmp of `disk` bytes (with the
    home, HOME_IN_SANDBOX, and a small /dev/shm inside that quota), and the paths `shown`, read-only; the paths
    `covered` (other entrants' folders, the arena's files) stay out of sight even below a shown path, unless they
    hold `own`."""
    shm = min(SHM_SIZE, disk // 8)
    args = ["bwrap", "--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--size", str(disk - shm), "--tmpfs",
            "/tmp", "--dir", HOME_IN_SANDBOX, "--perms", "1777", "--size", str(max(shm, 4096)), "--tmpfs", "/dev/shm"]
    for link, target in system_links():
        args += ["--symlink", target, link]
    hidden = {c.resolve() for c in covered if c.exists()}
    bound = _outermost(sorted({*runtime_roots(), *(p.resolve() for p in shown)}))
    for path in bound:
        args += ["--ro-bind", str(path), str(path)]
    for secret in (*HIDDEN_SYSTEM, *owner_only()):
        if Path(secret).is_dir():
            args += ["--tmpfs", secret, "--remount-ro", secret]  # empty, and nothing to write to
        elif Path(secret).exists():
            args += ["--ro-bind", "/dev/null", secret]
    # A directory that holds the bot's own cannot be covered (the bot would lose its own too); one inside a covered
    # one is covered with it (its read-only mount has no room for another).
    kept = [path for path in sorted(hidden) if not (own is not None and own.is_relative_to(path))
            and any(path.is_relative_to(b) for b in bound)]
    for path in _outermost(kept):
        # Read-only, so that a covered folder is not a writable place outside the bot's disk quota.
        args += ["--tmpfs", str(path), "--remount-ro", str(path)] if path.is_dir() else \
            ["--ro-bind", "/dev/null", str(path)]
    return args


@functools.cache
def owner_only() -> tuple[str, ...]:
    """The files and folders under /etc that not everyone may read on the host (beside HIDDEN_SYSTEM): hidden in
    every sandbox, since root's files are the bot's own inside its user namespace. At most OWNER_ONLY_SCAN entries
    are looked at."""
    found: list[str] = []
    looked = 0
    for root, dirs, files in os.walk("/etc"):
        for name in [*dirs, *files]:
            looked += 1
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISLNK(info.st_mode) and not info.st_mode & stat.S_IROTH and path not in HIDDEN_SYSTEM:
                found.append(path)
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in found]
        if looked > OWNER_ONLY_SCAN:
            break
    return tuple(found)


def _outermost(paths: list[Path]) -> list[Path]:
    """The paths that lie inside no other one of them: a path inside one already bound needs no binding of its
    own."""
    return [p for p in paths if not any(p != q and p.is_relative_to(q) for q in paths)]


@functools.cache
def system_links() -> tuple[tuple[str, str], ...]:
    """(link, target) for each top-level directory of the runtime that is a symbolic link (/bin -> usr/bin on a
    merged /usr)."""
    return tuple((d, os.readlink(d)) for d in SYSTEM_DIRS if os.path.islink(d))


@functools.cache
def runtime_roots() -> tuple[Path, ...]:
    """What interpreters and compilers need, shown read-only to every bot and build: /usr and /etc (and /bin,
    /lib... where they are directories), this Python (its prefix and base prefix: a virtual environment, pyenv's
    installation), each directory on PATH outside them (with its parent for a version manager's `shims`), and
    rustup's toolchains where rustup is on PATH."""
    roots = [Path(d) for d in SYSTEM_DIRS if os.path.isdir(d) and not os.path.islink(d)]
    roots += [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        where = Path(entry)
        if where.is_absolute() and where.is_dir() and where.resolve() != Path("/"):
            where = where.resolve()
            roots.append(where.parent if where.name == "shims" and where.parent not in _homes() else where)
    rustup = _rustup_home()
    roots += [rustup] if rustup is not None else []
    return tuple(_outermost(sorted(set(roots))))


def _rustup_home() -> Path | None:
    """Where rustup keeps its toolchains, if rustup is on PATH (its cargo and rustc need them)."""
    if shutil.which("rustup") is None:
        return None
    home = Path(os.environ.get("RUSTUP_HOME") or Path.home() / ".rustup")
    return home.resolve() if home.is_dir() else None


def _homes() -> set[Path]:
    """Where the users' home directories are: never shown whole."""
    homes = {Path("/"), Path("/root"), Path("/home"), Path.home().resolve()}
    return homes | (set(Path("/home").iterdir()) if Path("/home").is_dir() else set())


def in_runtime(path: Path) -> bool:
    """True if path (resolved) lies in what every sandbox shows read-only: the system and its toolchains."""
    resolved = path.resolve()
    return any(resolved.is_relative_to(root) for root in runtime_roots()) or any(
        resolved.is_relative_to(Path(link).resolve()) for link, _ in system_links())


@functools.cache
def arena_packages() -> tuple[Path, ...]:
    """The folders of the packages every bot may import from the arena's installation: the protocol SDK, the
    sample bots and the rules engines (never the rest of the checkout)."""
    found = []
    for name in ARENA_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found.append(Path(next(iter(spec.submodule_search_locations))).resolve())
        # A subpackage imports through its parents: `arena/__init__.py` is shown too (alone, not the rest of the
        # arena), wherever the installation is (an editable one finds a package by its __init__.py).
        parent = importlib.util.find_spec(name.rpartition(".")[0]) if "." in name else None
        if parent is not None and parent.origin and parent.origin.endswith("__init__.py"):
            found.append(Path(parent.origin).resolve())
    return tuple(found)


def named_paths(cwd: Path, argv: tuple[str, ...]) -> list[Path]:
    """The files and folders in cwd that a command line names: its scripts and paths, and the package of a
    `-m PACKAGE.MODULE`."""
    found = []
    for before, word in zip(("", *argv), argv):
        if before == "-m":
            top = word.split(".")[0]
            found += [cwd / top, cwd / f"{top}.py"]
        elif not word.startswith("-") and ("/" in word or word.endswith(SCRIPT_SUFFIXES)):
            found.append(cwd / word)
    return [p for p in found if p.exists()]


def own_folders(cwd: Path, argv: tuple[str, ...]) -> list[Path]:
    """What a bot given as a command line is shown besides the runtime: the folder each script or package its
    command names lives in (its project's root where a marker file says so: a node_modules beside package.json),
    and the virtual environment its interpreter belongs to. A folder too broad to show (the root, a top-level
    folder, a home directory, the temporary directory) is replaced by the named files alone."""
    named = [p.resolve() for p in named_paths(cwd, argv)]
    named += [p.resolve() for p in (Path(a) for a in argv if a.startswith("/")) if p.exists()]
    # The arena's own files (its packages, the relay it runs a bot over tcp with) are shown alone.
    shipped = (*arena_packages(), Path(__file__).resolve().parent.parent)
    found = [p if any(p.is_relative_to(a) for a in shipped) else _project(p) for p in named]
    environment = _interpreter_environment(cwd, argv[0]) if argv else None
    return found + ([environment] if environment is not None else [])


def _project(path: Path) -> Path:
    """The folder a named script or package lives in: the nearest enclosing folder with a project marker, else
    its own; path itself where that folder is too broad to show."""
    resolved = path.resolve()
    start = resolved.parent
    for folder in (start, *start.parents):
        if _too_broad(folder):
            break
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return resolved if _too_broad(start) else start


def _too_broad(folder: Path) -> bool:
    return folder == Path("/") or folder.parent == Path("/") or folder in _homes() or \
        folder == Path(tempfile.gettempdir()).resolve() or in_runtime(folder)


def _interpreter_environment(cwd: Path, program: str) -> Path | None:
    """The virtual environment (a folder with pyvenv.cfg) whose bin/ holds the program, if any and not broad."""
    where = cwd / program if os.sep in program else shutil.which(program)
    if where is None:
        return None
    home = Path(os.path.abspath(where)).parent.parent
    if not (home / "pyvenv.cfg").is_file() or _too_broad(home.resolve()):
        return None
    return home.resolve()


def other_scripts(mine: tuple[str, ...], others: list[tuple[str, ...]]) -> tuple[str, ...]:
    """The scripts other command-line bots name (their argv `others`) that this one's argv does not: covered, so
    that two bots whose scripts share a folder do not read each other's code."""
    cwd = Path.cwd()
    own = {p.resolve() for p in named_paths(cwd, mine)}
    shipped = arena_packages()
    # The program (an interpreter, its path in a virtual environment) is no script; nor is the runtime.
    return tuple(str(p.resolve()) for argv in others for p in named_paths(cwd, argv[1:]) if p.is_file()
                 and p.resolve() not in own and not in_runtime(p)
                 and not any(p.resolve().is_relative_to(a) for a in shipped))


def hidden_script(cwd: Path, argv: tuple[str, ...], covered: tuple[Path, ...]) -> Path | None:
    """A script or package a command line names that lies in one of the covered folders (the results, another
    entrant's folder), where the sandbox cannot show it; None if there is none."""
    places = [c.resolve() for c in covered if c.exists()]
    shipped = arena_packages()  # shown wherever they are: the sample bots run from the checkout, say
    for path in named_paths(cwd, argv):
        if any(path.resolve().is_relative_to(c) for c in places) and \
                not any(path.resolve().is_relative_to(a) for a in shipped):
            return path
    return None


def missing_hint(stderr: str, command_line: bool) -> str | None:
    """What to tell the author of a bot that died under bubblewrap of a missing file or module, or None."""
    if not any(sign in stderr for sign in _MISSING_SIGNS):
        return None
    if command_line:
        return ("the sandbox shows a bot given as a command line only the folder its script lives in, the "
                "runtime and the arena's SDK: keep what it needs in that folder (or the virtual environment it "
                "runs from), or make it a submission folder with a manifest")
    return ("the sandbox shows a submission only its own folder, the runtime and the arena's SDK: put what it "
            "needs in the folder, or install it there in its build")


def disk_full(tasks: list[Task]) -> bool:
    """True if the private /tmp of a bot in its own mount namespace (one of tasks) has no space left."""
    own = _mount_namespace("self")
    for task in tasks:
        if _mount_namespace(str(task.pid)) not in (own, None):
            try:
                return os.statvfs(f"/proc/{task.pid}/root/tmp").f_bavail == 0
            except OSError:
                continue
    return False


def _mount_namespace(pid: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/mnt")
    except OSError:
        return None


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot run a sandbox here, or None if it can."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    # The options the sandbox needs: a tmpfs of a given size (bubblewrap 0.8 or newer), another user inside.
    probe = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--size",
             str(MIB), "--tmpfs", "/tmp", *_isolation(), "--", "true"]
    try:
        run = subprocess.run(probe, capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap does not run: {exc}"
    if run.returncode != 0:
        why = run.stderr.decode(errors="replace").strip()[:200] or f"status {run.returncode}"
        return (f"bwrap cannot create a sandbox here ({why}); it needs version 0.8 or newer, and unprivileged user "
                "namespaces or root")
    return None


@dataclass(frozen=True)
class Task:
    """One process as /proc shows it: parent, session, threads, CPU ticks (its own and its reaped children's),
    address space and resident memory in bytes."""

    pid: int
    ppid: int
    sid: int
    threads: int
    ticks: int
    vsize: int
    rss: int = 0


_HZ = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_PR_SET_CHILD_SUBREAPER = 36  # prctl option, from <linux/prctl.h>


def read_task(pid: int) -> Task | None:
    """One running process from /proc; None if it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == b"Z":
        return None
    return Task(pid, int(fields[1]), int(fields[3]), int(fields[17]), sum(int(f) for f in fields[11:15]),
                int(fields[20]), int(fields[21]) * _PAGE)


def read_tasks() -> dict[int, Task]:
    """Every process now running, from /proc (empty where there is no /proc)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    tasks = (read_task(int(name)) for name in entries if name.isdigit())
    return {t.pid: t for t in tasks if t is not None}


def _children(pid: int) -> list[int] | None:
    """The children of a process from /proc (None where the kernel does not list them)."""
    found: list[int] = []
    try:
        for thread in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{thread}/children", "rb") as children:
                found.extend(int(c) for c in children.read().split())
    except FileNotFoundError:
        return None if os.path.isdir(f"/proc/{pid}") else []
    except OSError:
        return []
    return found


def tree(root: int) -> list[Task]:
    """A process and all its descendants. Walking down from the root costs a few reads per process of the bot,
    where a scan of /proc costs one per process of the machine."""
    found: list[Task] = []
    todo = [root]
    while todo:
        task = read_task(todo.pop())
        if task is None:
            continue
        found.append(task)
        children = _children(task.pid)
        if children is None:
            return members(root, read_tasks())  # no children lists here: scan everything
        todo.extend(children)
    return found


def members(root: int, tasks: dict[int, Task]) -> list[Task]:
    """The processes of a bot: its session and all descendants of its first process (even in a new session)."""
    found = {pid for pid, t in tasks.items() if t.sid == root or pid == root}
    grew = True
    while grew:
        more = {pid for pid, t in tasks.items() if t.ppid in found and pid not in found}
        found |= more
        grew = bool(more)
    return [tasks[pid] for pid in found]


@functools.cache
def become_subreaper() -> bool:
    """Make this process the one that inherits the orphans of its descendants (a bot's double-forked daemons
    included), so that the arena can still find and kill them; False where the kernel cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _environ_has(pid: int, entry: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return entry in environ.read().split(b"\0")
    except OSError:
        return False


class Watched(Protocol):
    """What the watchdog needs of a bot process."""

    pid: int
    endpoint: str
    limits: Limits
    limited: bool
    cgroup: BotCgroup | None
    adopted: set[int]  # orphans the bot left that the arena inherited
    seen: set[int]  # every process seen as part of the bot
    cpu_base: float | None  # CPU seconds used when the current game began (None: not yet measured)
    cpu_peak: float
    vm_peak: int
    limit_hit: FaultKind | None


def processes(bot: Watched) -> list[Task]:
    """Every live process of the bot: its tree, its cgroup, and the orphans it left to the arena (with theirs)."""
    roots = {bot.pid, *bot.adopted, *(bot.cgroup.pids() if bot.cgroup else ())}
    found: dict[int, Task] = {}
    for root in roots:
        if root not in found:
            found.update((t.pid, t) for t in tree(root))
    return list(found.values())


def tree_cpu(bot: Watched) -> float | None:
    """CPU seconds the bot's live processes (and the children they reaped) have used, from /proc; None if none
    is found."""
    group = processes(bot)
    return sum(t.ticks for t in group) / _HZ if group else None


class Watchdog:
    """Looks at a match's bots every 100 ms: adopts the orphans they leave, and stops any that uses more memory,
    tasks, or CPU in a game, than it may (summed over all its processes: from its cgroup where there is one).

    The kernel's rlimits stop the rest (address space, file size and open files per process).
    """

    def __init__(self) -> None:
        self._bots: list[Watched] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        become_subreaper()

    def watch(self, bot: Watched) -> None:
        """Start watching bot (and the watchdog, on the first)."""
        with self._lock:
            self._bots.append(bot)
        if self._thread is None:
            # Kept only once started: a Ctrl-C inside start() must not leave close() a thread it cannot join.
            thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
            thread.start()
            self._thread = thread

    def forget(self, bot: Watched) -> None:
        """Stop watching bot (it is being killed anyway)."""
        with self._lock:
            if bot in self._bots:
                self._bots.remove(bot)

    def close(self) -> None:
        """Stop the watchdog's thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(_TICK):
            with self._lock:
                bots = list(self._bots)
            adopt(bots)
            for bot in bots:
                self.check(bot)

    @staticmethod
    def check(bot: Watched) -> None:
        """Stop bot if its processes go over a limit; note its address space for the verdict on its death."""
        reap(bot, block=False)
        group = processes(bot)
        bot.seen.update(t.pid for t in group)
        if not group or bot.limit_hit is not None or not bot.limited:
            return
        limits, cgroup = bot.limits, bot.cgroup
        bot.vm_peak = max(bot.vm_peak, max(t.vsize for t in group))
        counted = cgroup.counts if cgroup else frozenset()
        cpu = cgroup.cpu_seconds() if "cpu" in counted else None
        bot.cpu_peak = max(bot.cpu_peak, cpu if cpu is not None else sum(t.ticks for t in group) / _HZ)
        # Read once: a new game (another thread) may reset the base to None at any moment.
        base = bot.cpu_base
        if base is None:
            base = bot.cpu_base = bot.cpu_peak
        if cgroup is not None and cgroup.out_of_memory():
            stop(bot, FaultKind.MEMORY, group)
        elif "memory" not in counted and sum(t.rss for t in group) > limits.memory:
            stop(bot, FaultKind.MEMORY, group)
        elif cgroup is not None and cgroup.refused_tasks():
            stop(bot, FaultKind.PROCESSES, group)
        elif "pids" not in counted and sum(t.threads for t in group) > limits.processes:
            stop(bot, FaultKind.PROCESSES, group)
        elif bot.cpu_peak - base > limits.cpu:
            stop(bot, FaultKind.CPU, group)
        elif disk_full(group):
            stop(bot, FaultKind.DISK, group)


def adopt(bots: list[Watched]) -> None:
    """Give each orphan the arena inherited to the bot it came from: one seen in the bot's tree before, or one
    whose environment names the bot's endpoint."""
    roots = {bot.pid for bot in bots}
    known = set().union(*(bot.adopted for bot in bots)) if bots else set()
    for pid in set(_children(os.getpid()) or ()) - roots - known:
        for bot in bots:
            if pid in bot.seen or _environ_has(pid, f"ARENA_ENDPOINT={bot.endpoint}".encode()):
                bot.adopted.add(pid)
                break


def stop(bot: Watched, kind: FaultKind, group: list[Task]) -> None:
    """Kill every process of bot for going over a limit of the given kind."""
    bot.limit_hit = kind
    kill_all(bot, group)


def kill_all(bot: Watched, group: list[Task] | None = None) -> list[int]:
    """SIGKILL every process of the bot (its cgroup, its tree, its adopted orphans); their pids."""
    group = processes(bot) if group is None else group
    if bot.cgroup is not None:
        bot.cgroup.kill()
    for task in group:
        try:
            os.kill(task.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # gone already
    return [t.pid for t in group]


def reap(bot: Watched, block: bool = True) -> None:
    """Collect the exit status of the bot's orphans the arena inherited, else they stay zombies; block: they were
    just killed, wait a moment for each."""
    reap_pids(bot.adopted, _REAP_WAIT if block else 0.0)


def reap_pids(pids: set[int], patience: float) -> None:
    """Reap those of pids that are (or become within patience seconds) dead children of the arena; the others
    are left out of pids."""
    deadline = time.monotonic() + patience
    while pids:
        for pid in list(pids):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid  # not the arena's child, or reaped already
            if done:
                pids.discard(pid)
        if not pids or time.monotonic() >= deadline:
            return
        time.sleep(0.005)


def verdict(bot: Watched, returncode: int, stderr: str) -> FaultKind | None:
    """The limit a dead bot went over, from what the watchdog saw, its cgroup, its exit signal and last words."""
    if bot.limit_hit is not None:
        return bot.limit_hit
    if bot.cgroup is not None and bot.cgroup.out_of_memory():
        return FaultKind.MEMORY
    if bot.cgroup is not None and bot.cgroup.refused_tasks():
        return FaultKind.PROCESSES
    if returncode == -signal.SIGXCPU:
        return FaultKind.CPU
    if returncode == -signal.SIGXFSZ:
        return FaultKind.FILE_SIZE
    for kind, signs in _STDERR_SIGNS:
        if any(sign in stderr for sign in signs):
            return kind
    if bot.vm_peak >= _MEMORY_NEAR * bot.limits.memory:
        return FaultKind.MEMORY
    return None


def limit_fault(kind: FaultKind, detail: str, limits: Limits) -> BotCrashed:
    """The fault of a bot stopped for going over the limit of the given kind."""
    return LIMIT_FAULTS[kind](f"the bot went over its limit of {limit_text(kind, limits)} and was stopped ({detail})")


def limit_text(kind: FaultKind, limits: Limits) -> str:
    """The limit of the given kind, in words: '1024 MiB of memory'."""
    return {FaultKind.MEMORY: f"{limits.memory // MIB} MiB of memory",
            FaultKind.CPU: f"{limits.cpu:g} CPU seconds in a game",
            FaultKind.PROCESSES: f"{limits.processes} processes and threads",
            FaultKind.FILE_SIZE: f"files of {limits.file_size // MIB} MiB",
            FaultKind.OPEN_FILES: f"{limits.open_files} open files",
            FaultKind.DISK: f"{limits.disk // MIB} MiB of disk (its home and /tmp)"}[kind]


def crowding(jobs: int, seats: int) -> str | None:
    """A warning when tables played at once put more bots on this machine than it has cores (a table's bots think
    one at a time, so one table never does), saying what that costs; None otherwise."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    if jobs < 2 or jobs * seats <= cores:
        return None
    fair = ("each decision is charged its wall time less the time the bot waited for a core, so waiting costs a "
            "bot nothing") if wait_accounting() else \
        "decisions are timed by the wall clock here, so a bot can time out while it waits for a core"
    return (f"warning: --jobs {jobs} x {seats} seats = {jobs * seats} bots on {cores} cores: bots wait for a core "
            f"and games take longer; {fair}")


def cpu_sets(jobs: int) -> list[tuple[int, ...]]:
    """Disjoint CPU sets, one per concurrent match, when there are at least as many CPUs as jobs (else none)."""
    try:
        available = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []
    if jobs < 2 or len(available) < jobs:
        return []
    share = len(available) // jobs
    return [tuple(available[i * share:(i + 1) * share]) for i in range(jobs)]
