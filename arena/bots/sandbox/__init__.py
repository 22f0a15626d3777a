"""Isolation of bot processes: resource limits, a scrubbed environment, a private directory, bubblewrap.

This module is the interface, the one place a level is asked about: what a level gives (`Sandbox.limited`,
`confined`, `helpers`) and the command lines and environments it wraps a bot and a build in. Beside it, each
mechanism in a module of its own: limits.py (the limits, and a limit gone over in words), bubblewrap.py
(bubblewrap's command line), paths.py (what a confined bot is shown of the machine), proctree.py (a bot's
processes from /proc), watchdog.py (the limits summed over a bot's processes, its orphans, the verdict on its
death), syscalls.py (the seccomp filter) and enter.py (a session keyring of its own and the filter, last before
the bot's code).

The threat model (what each level prevents and what it does not) is in SANDBOX.md beside this package.
Everything here works without preexec_fn (unsafe in the arena, which has ZeroMQ threads): the limits and
the sandbox are wrapper commands (prlimit, taskset, bwrap, enter.py) put in front of the bot's command line.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import math
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Iterator

from arena.bots.cgroups import hierarchy
from arena.bots.meter import wait_accounting
from arena.bots.sandbox.bubblewrap import (
    HOME_IN_SANDBOX,
    bwrap_options,
    bwrap_problem,
    entry,
    filesystem,
    isolation,
    outer_namespace,
)
from arena.bots.sandbox.hostuser import DEFAULT_UIDS, HostUids, Lease, dropping
from arena.bots.sandbox.limits import BUILD_LIMITS, MIB, Limits
from arena.bots.sandbox.paths import rustup_home, tool_path
from arena.bots.sandbox.proctree import working_prefix
from arena.bots.sandbox.syscalls import ENTER, compiled, filter_pipe, join_session_keyring, sealing_arguments
from arena.errors import ConfigError

# Environment variables a bot keeps under rlimit and bwrap; everything else of the arena's is dropped.
PASSED_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "VIRTUAL_ENV")

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
class Sandbox:
    """The isolation level, the limits it enforces (not under none), and the CPUs the bots are pinned to."""

    level: Isolation = Isolation.AUTO
    limits: Limits = field(default_factory=Limits)
    cpus: tuple[int, ...] = ()  # empty: not pinned
    build_network: bool = False  # builds share the machine's network (else they have none under bwrap)
    uids: HostUids | None = DEFAULT_UIDS  # host uids for bots and builds under bwrap as root (None: nobody, as
    # before they had uids of their own: only the bench's measure of what they cost)
    sealed: bool = True  # a session keyring of its own and the seccomp filter, wherever limited (False: only the
    # bench's measure of what they cost)

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

    @property
    def drops(self) -> bool:
        """True where a bot or build runs as a host uid of its own, not the arena's: bubblewrap, the arena root."""
        return self.confined and dropping()

    def lease(self) -> Lease | None:
        """A host uid for one bot or build to run as where it drops (None elsewhere: there the sandbox's user
        namespace maps it to the arena's own unprivileged user, or there is no sandbox)."""
        return Lease(self.uids) if self.drops else None

    @contextlib.contextmanager
    def sealing(self) -> Iterator[int | None]:
        """Around a bot's start (its command line and its Popen, on the thread that starts it): where bubblewrap
        confines a sealed bot, join this thread a new session keyring, which the bot inherits, and yield the read
        end of a pipe holding the seccomp filter, for command's seccomp_fd and Popen's pass_fds (closed after);
        elsewhere None (enter.py seals the bot, or nothing does). Either way no Python starts before the bot's own
        program under bubblewrap, where a launcher's start cost every bot about 15 ms of CPU."""
        if not (self.confined and self.sealed):
            yield None
            return
        try:
            join_session_keyring()
            fd = filter_pipe()
        except ConfigError as exc:  # checked at start where the arena runs; a cluster's worker may still lack it
            raise OSError(errno.ENOSYS, str(exc)) from None
        try:
            yield fd
        finally:
            os.close(fd)

    def seal(self, seccomp_fd: int | None = None) -> list[str]:
        """What runs last before a bot's or a build's own code wherever the level limits it: enter.py, which joins a
        session keyring of its own and loads the seccomp filter (syscalls.py); nothing where bubblewrap loads the
        filter from seccomp_fd (sealing)."""
        if not (self.limited and self.sealed) or seccomp_fd is not None:
            return []
        try:
            sealing = sealing_arguments()
        except ConfigError as exc:  # checked at start where the arena runs; a cluster's worker may still lack it
            raise OSError(errno.ENOSYS, str(exc)) from None
        return [sys.executable, "-I", "-S", str(ENTER), *sealing]

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
            return f"rlimit (a seccomp filter; {counted})"
        return f"bwrap (own user, PID, IPC, UTS, network namespaces; a seccomp filter; {counted})"

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
        if self.limited and self.sealed:
            compiled()  # libseccomp is there
        if self.drops and self.uids is not None:
            self.uids.check()

    def command(self, argv: tuple[str, ...], cwd: str | None, private: Path, hidden: tuple[str, ...],
                games: int = 1, masked: tuple[Path, ...] = (), join: tuple[Path, ...] = (),
                uid: int | None = None, seccomp_fd: int | None = None) -> list[str]:
        """The command line that runs argv in this sandbox for up to `games` games; private is the bot's own
        directory (socket, home), hidden the directories of the other bots and masked those of the arena (its
        temporary and results directories), which bwrap covers; join the cgroup.procs files the bot enters; uid
        the host user it becomes (its lease's) where the arena is root; seccomp_fd sealing's pipe, if any."""
        prefix: list[str] = []
        if self.cpus:
            prefix += ["taskset", "--cpu-list", ",".join(map(str, self.cpus))]
        prefix += launcher(join)
        if self.limited:
            prefix += _prlimit(self.limits, games)
        if self.level == Isolation.BWRAP:
            prefix += [*outer_namespace(),
                       *bwrap_options(cwd, private, hidden, argv, masked, self.limits, uid, seccomp_fd)]
        return [*prefix, *self.seal(seccomp_fd if self.confined else None), *argv]

    def environment(self, endpoint_env: dict[str, str], private: Path) -> dict[str, str]:
        """The bot's environment: the arena's under none, else only PASSED_ENV, a private HOME and TMPDIR (under
        bwrap on the bot's own /tmp); at every level PATH is tool_path()'s, the arena's interpreter first."""
        if not self.limited:
            return {**os.environ, "PATH": tool_path(), **endpoint_env}
        kept = {**{k: v for k, v in os.environ.items() if k in PASSED_ENV}, "PATH": tool_path()}
        if self.level == Isolation.BWRAP:
            return {**kept, "HOME": HOME_IN_SANDBOX, "TMPDIR": "/tmp", **endpoint_env}
        home = str(private / "home")
        return {**kept, "HOME": home, "TMPDIR": home, **endpoint_env}

    def build_command(self, argv: tuple[str, ...], folder: Path, join: tuple[Path, ...],
                      uid: int | None = None) -> list[str]:
        """The command line that runs a submission's build step in its folder: under bwrap as nobody (as root: as
        uid, its lease's), the folder writable and nothing else of the machine's data, without network unless
        build_network; joining the cgroup.procs files join."""
        prefix = [*launcher(join)]
        if self.limited:
            limits = BUILD_LIMITS
            prefix += ["prlimit", f"--fsize={limits.file_size}", f"--nofile={limits.open_files}", "--core=0", "--"]
        if self.level == Isolation.BWRAP:
            prefix += [*outer_namespace(), *filesystem(BUILD_LIMITS.disk, [ENTER], (), reached=(folder,)), "--bind",
                       str(folder), str(folder), "--chdir", str(folder), *isolation(self.build_network, uid),
                       *entry(uid)]
        return [*prefix, *self.seal(), *argv]

    def build_environment(self, home: Path) -> dict[str, str]:
        """A build's environment: the arena's under none; else PASSED_ENV, a private HOME and TMPDIR (home, or
        under bwrap its own /tmp), and where rustup keeps its toolchains; PATH tool_path()'s at every level."""
        if not self.limited:
            return {**os.environ, "PATH": tool_path()}
        kept = {**{k: v for k, v in os.environ.items() if k in PASSED_ENV}, "PATH": tool_path()}
        rustup = rustup_home()
        if rustup is not None:
            kept["RUSTUP_HOME"] = str(rustup)
        if self.level == Isolation.BWRAP:
            return {**kept, "HOME": HOME_IN_SANDBOX, "TMPDIR": "/tmp"}
        return {**kept, "HOME": str(home), "TMPDIR": str(home)}


NO_SANDBOX = Sandbox(Isolation.NONE)


def supported_levels() -> list[Isolation]:
    """The levels this machine can run a bot at, weakest first (auto, a choice among them, aside)."""
    return [Isolation.NONE, Isolation.RLIMIT] + ([Isolation.BWRAP] if bwrap_problem() is None else [])


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
    return working_prefix(prefix)


def _prlimit(limits: Limits, games: int) -> list[str]:
    # CPU: the kernel's limit is a backstop over the process's life (the watchdog enforces the limit per game, over
    # all the bot's processes, and must see an overrun first: hence the extra second), soft below hard so that the
    # bot first gets SIGXCPU, which tells the cause.
    cpu = max(1, math.ceil(limits.cpu * games)) + 1
    return ["prlimit", f"--as={limits.memory}", f"--fsize={limits.file_size}", f"--nofile={limits.open_files}",
            f"--cpu={cpu}:{cpu + 1}", "--core=0", "--"]


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
