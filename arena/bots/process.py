"""Bot processes: start one from a command line in its confinement, talk to it over its channel (arena/bots/channel.py),
capture its logs (arena/bots/logs.py), and end it for good."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO, cast

import zmq

from arena.bots import relay
from arena.bots.cgroups import new_cgroup
from arena.bots.channel import Channel, Charge, Reply, ipc_path
from arena.bots.logs import DEFAULT_LOG_CAP, DecisionLog, LogDrain
from arena.bots.meter import WaitMeter
from arena.bots.sandbox import NO_SANDBOX, Sandbox
from arena.bots.sandbox.hostuser import Lease, open_directory
from arena.bots.sandbox.limits import limit_fault
from arena.bots.sandbox.paths import SCRIPT_SUFFIXES, missing_hint, which
from arena.bots.sandbox.watchdog import Watchdog, kill_all, processes, reap_pids, tree_cpu, verdict
from arena.errors import BotCrashed, BotFault, ConfigError, FaultKind
from protocol import ARENA_PID_ENV, DEFAULT_MAX_MESSAGE, ENDPOINT_ENV, LIFELINE_ENV, Hello, Message, Ready, Shutdown

_LAST_WORDS = 0.5  # seconds to wait for a dead bot's stderr to drain before judging why it died
_REAP_WAIT = 2.0  # seconds to wait for a killed bot's processes to die, to reap them
_INTERPRETERS = ("python", "pypy", "node", "deno", "bun", "ruby", "perl", "java", "php", "sh", "bash", "julia")
# The interpreter that runs a script of each kind, offered when a script is given as the program itself.
RUN_WITH = {".py": "python3", ".js": "node", ".mjs": "node", ".rb": "ruby", ".pl": "perl", ".php": "php",
            ".jl": "julia", ".lua": "lua", ".sh": "sh", ".jar": "java -jar"}


class Transport(StrEnum):
    """How the arena reaches its bots."""

    IPC = "ipc"
    TCP = "tcp"


@dataclass(frozen=True)
class BotCommand:
    """The command line that starts a bot (in cwd, if given); the arena appends the endpoint as the last argument."""

    argv: tuple[str, ...]
    cwd: str | None = None

    @classmethod
    def parse(cls, text: str) -> "BotCommand":
        """Split a shell-like command line; ValueError if it is empty or its quotes do not close."""
        try:
            argv = tuple(shlex.split(text))
        except ValueError as exc:
            raise ValueError(f"cannot split bot command {text!r}: {exc}") from None
        if not argv:
            raise ValueError("a bot command must not be empty")
        return cls(argv)

    def __str__(self) -> str:
        return shlex.join(self.argv)

    def check(self) -> None:
        """ConfigError if the program cannot be found, or a script it is given does not exist."""
        base = Path(self.cwd or ".")
        program = self.argv[0]
        if os.sep in program:
            if not (base / program).is_file():
                raise ConfigError(f"bot command {self}: {program!r} does not exist")
            if not os.access(base / program, os.X_OK):
                raise ConfigError(f"bot command {self}: {program!r} is not executable{_run_with(program)}")
        elif which(program) is None:
            raise ConfigError(f"bot command {self}: {program!r} is not found on PATH")
        for arg in self.argv[1:]:
            # A missing script is the commonest broken command; the interpreter would only say so at run time.
            if arg.endswith(SCRIPT_SUFFIXES) and not (base / arg).is_file():
                raise ConfigError(f"bot command {self}: the script {arg!r} does not exist")

    @property
    def label(self) -> str:
        """A short name for the command: its script or module after an interpreter, else the program."""
        program = Path(self.argv[0]).name
        words = [w for w in self.argv[1:] if not w.startswith("-")] if program.startswith(_INTERPRETERS) else []
        path = Path(Path(words[0] if words else program).name)
        # bot.py -> bot, but sample_bots.random_bot (a module) -> random_bot
        return path.stem if len(path.suffix) <= 5 else path.suffix[1:]


def sample_bot(module: str) -> BotCommand:
    """The command of a bot shipped in the sample_bots package, run with this Python."""
    return BotCommand((sys.executable, "-m", f"sample_bots.{module}"))


def _cores() -> int:
    """The cores this process (and so a bot it starts unpinned) may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@dataclass(frozen=True)
class Confinement:
    """Where one bot runs and what it is kept from: its sandbox; its own directory (made by the caller, holding the
    ipc socket if any; None: its log's folder); the other bots' directories (hidden) and the arena's (masked); the
    watchdog that finds its processes and enforces the per-game limits; how many games the process may play; and
    whether (with an ipc endpoint) it is given a tcp endpoint of its own sandbox, which a relay joins to the
    arena's (relayed)."""

    sandbox: Sandbox = NO_SANDBOX
    private: Path | None = None
    hidden: tuple[str, ...] = ()
    masked: tuple[Path, ...] = ()
    watchdog: Watchdog | None = field(default=None, compare=False)
    games: int = 1
    relayed: bool = False


class BotProcess:
    """One running bot: its process group, its channel and its two log files."""

    def __init__(self, command: BotCommand, context: zmq.Context, endpoint: str, log_stem: Path,
                 log_cap: int = DEFAULT_LOG_CAP, max_message: int = DEFAULT_MAX_MESSAGE,
                 confinement: Confinement = Confinement()) -> None:
        """Start command as confinement says, at endpoint (replies of up to max_message bytes), its stdout and
        stderr logged beside log_stem (up to log_cap bytes each)."""
        self.command = command
        self.log_stem = log_stem
        self.ready: Ready | None = None
        self._pidfd: int | None = None
        self._lifeline: int | None = None
        self._killed = False
        sandbox = confinement.sandbox.resolved()
        self.limits = sandbox.limits
        self.limited = sandbox.limited
        self.cpu_base: float | None = None
        self.cpu_peak = 0.0
        self.vm_peak = 0
        self.limit_hit: FaultKind | None = None
        self.adopted: set[int] = set()
        self.seen: set[int] = set()
        self._sandbox = sandbox
        self._watchdog = confinement.watchdog
        self._relayed = confinement.relayed and ipc_path(endpoint) is not None
        self._meter: WaitMeter | None = None
        self._lease: Lease | None = None
        try:
            command.check()
        except ConfigError as exc:
            raise BotCrashed(f"cannot start the bot: {exc}") from None
        log_stem.parent.mkdir(parents=True, exist_ok=True)
        # Bind before the bot starts, so that it can connect at once.
        self.channel = Channel(context, endpoint, max_message, self._exit_fault, shared=sandbox.drops)
        self.endpoint = self.channel.endpoint
        self.cgroup = new_cgroup()
        self.process = self._start(command, sandbox, confinement, confinement.private or log_stem.parent)
        self.started = time.monotonic()
        if self._watchdog is not None:
            self._watchdog.watch(self)
        self._drains = self._drain(log_stem, log_cap)
        self._watch_exit()

    def _start(self, command: BotCommand, sandbox: Sandbox, confinement: Confinement,
               private: Path) -> subprocess.Popen[bytes]:
        """The bot's process, started in sandbox (the confinement's, resolved); BotCrashed (its channel and cgroup
        released) if it cannot be."""
        try:
            return self._spawn(command, sandbox, private, confinement.hidden, confinement.games, confinement.masked)
        except (OSError, ValueError) as exc:
            if self._lease is not None:
                self._lease.release()
            self.channel.close()
            if self.cgroup is not None:
                self.cgroup.remove()
            raise BotCrashed(f"cannot start {command}: {getattr(exc, 'strerror', None) or exc}") from None

    def _drain(self, log_stem: Path, log_cap: int) -> tuple[LogDrain, LogDrain]:
        """The drains of the bot's stdout and stderr into their log files, started."""
        pipes = cast(tuple[IO[bytes], IO[bytes]], (self.process.stdout, self.process.stderr))
        drains = (LogDrain(pipes[0], log_stem.with_suffix(".stdout.log"), log_cap),
                  LogDrain(pipes[1], log_stem.with_suffix(".stderr.log"), log_cap))
        for drain in drains:
            drain.start()
        return drains

    def _watch_exit(self) -> None:
        """Let the channel wake up the moment the bot exits (a pidfd), where the kernel offers one."""
        try:
            self._pidfd = os.pidfd_open(self.process.pid)
            self.channel.watch(self._pidfd)
        except (AttributeError, OSError):
            pass  # no pidfd here (not Linux, or an old kernel): the channel checks the process every 50 ms

    def _spawn(self, command: BotCommand, sandbox: Sandbox, private: Path, hidden: tuple[str, ...], games: int,
               masked: tuple[Path, ...]) -> subprocess.Popen[bytes]:
        """Start the bot: in its cgroup (limited), with a lifeline (a pipe whose far end only the arena holds, so
        that it reads end-of-file once the arena is gone, whatever pid the bot can see)."""
        if self.cgroup is not None and sandbox.limited:
            # The sandbox's own processes (bubblewrap outside and as init, unshare's, the relay) are in the bot's
            # cgroup too.
            self.cgroup.limit(self.limits.memory, self.limits.processes + sandbox.helpers + int(self._relayed))
        lifeline, self._lifeline = os.pipe()
        # In bwrap's PID namespace the arena cannot be seen; its pid 1 lives exactly as long as the arena.
        arena_pid = "1" if sandbox.confined else str(os.getpid())
        env = sandbox.environment({ENDPOINT_ENV: self.endpoint, ARENA_PID_ENV: arena_pid,
                                   LIFELINE_ENV: str(lifeline)}, private)
        # The relay appends the bot's own endpoint, and puts it in the environment in place of the arena's.
        wrapped = (*relay.command(str(ipc_path(self.endpoint)), ENDPOINT_ENV), *command.argv) if self._relayed \
            else (*command.argv, self.endpoint)
        self._lease = sandbox.lease()
        if self._lease is not None:
            open_directory(private)
        try:
            with sandbox.sealing() as seccomp_fd:
                argv = sandbox.command(wrapped, command.cwd, private, hidden, games, masked,
                                       self.cgroup.join if self.cgroup else (),
                                       self._lease.uid if self._lease else None, seccomp_fd)
                passed = (lifeline,) if seccomp_fd is None else (lifeline, seccomp_fd)
                return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=env, start_new_session=True, close_fds=True,
                                        pass_fds=passed, cwd=command.cwd)
        finally:
            os.close(lifeline)

    @property
    def pid(self) -> int:
        """The process id, which is also the id of the bot's process group."""
        return self.process.pid

    def alive(self) -> bool:
        """True while the bot process runs."""
        return self.process.poll() is None

    def _exit_fault(self) -> BotFault | None:
        code = self.process.poll()
        if code is None:
            return None
        if code >= 0:
            detail = f"the bot exited with status {code}"
        else:
            try:
                detail = f"the bot was killed by {signal.Signals(-code).name}"
            except ValueError:
                detail = f"the bot was killed by signal {-code}"
        kind = verdict(self, code, self.stderr_tail(_LAST_WORDS)) if self.limited else None
        hint = missing_hint(self.stderr_tail(), self.command.cwd is None) \
            if self._sandbox.confined and code > 0 else None
        detail += f"; {hint}" if kind is None and hint else ""
        return BotCrashed(detail) if kind is None else limit_fault(kind, detail, self.limits)

    def new_game(self) -> None:
        """A game begins: the CPU limit counts afresh from the next look of the watchdog, and the bot's budget of
        kept stderr is full again."""
        self.cpu_base = None
        self._drains[1].new_game()

    def handshake(self, arena: str, init_timeout: float, turn: float = 0.0) -> Ready:
        """Hello and ready, within init_timeout of the start or of `turn` (the monotonic time its handshake's turn
        came), whichever is later: a table-mate's slow handshake costs this bot nothing; a BotFault if it fails."""
        remaining = max(self.started, turn) + init_timeout - time.monotonic()
        reply = self.channel.ask(Hello(id=0, arena=arena, max_message=self.channel.max_message), max(remaining, 0))
        self.ready = cast(Ready, reply.message)  # the channel only returns the reply type the request asks for
        return self.ready

    def ask(self, request: Message, timeout: float, ceiling: float | None = None) -> Reply:
        """One request and its checked reply; a BotFault if there is none. With a ceiling, the bot is charged the
        wall time less its wait for a core, has `timeout` seconds of that and `ceiling` seconds on the wall clock
        (see Channel.ask)."""
        if ceiling is None:
            return self.channel.ask(request, timeout)
        if self._meter is None:
            self._meter = WaitMeter(self._pids, self.cpu_now, len(self._sandbox.cpus) or _cores(),
                                    self.cgroup.tasks_now if self.cgroup is not None else lambda: None)
        return self.channel.ask(request, timeout, Charge(self._meter, ceiling))

    def _pids(self) -> list[int]:
        """The bot's processes now: its cgroup's, else its process tree's."""
        if self.cgroup is not None:
            return self.cgroup.pids()
        return [t.pid for t in processes(self)]

    def cpu_now(self) -> float | None:
        """CPU seconds the bot's processes have used so far: its cgroup's, else its process tree's; None where
        neither can be read."""
        if self.cgroup is not None and "cpu" in self.cgroup.counts:
            return self.cgroup.cpu_now()
        return tree_cpu(self)

    def capture_log(self) -> None:
        """Keep what the bot writes to stderr from now on, for one decision."""
        self._drains[1].capture()

    def captured_log(self) -> DecisionLog:
        """What the bot wrote to stderr since capture_log(), within the caps."""
        return self._drains[1].captured()

    def stderr_tail(self, wait: float = 0.0) -> str:
        """The end of what the bot wrote to stderr; wait up to `wait` s for a dying bot's last words."""
        if wait and not self.alive():
            self._drains[1].join(wait)
        return self._drains[1].tail()

    def stop(self, grace: float) -> None:
        """Ask the bot to shut down, give it `grace` seconds, then kill its whole process group.

        A bot still busy with a request that timed out is not asked: it would not answer.
        """
        try:
            if self.alive() and self.ready is not None and not self.channel.stuck:
                self.channel.ask(Shutdown(id=0, reason="match over"), grace)
                self.process.wait(grace)
        except (BotFault, subprocess.TimeoutExpired):
            pass  # it is killed below either way
        finally:
            self.kill()

    def kill(self) -> None:
        """Kill every process of the bot at once, reap them, and release its socket, pipes, pidfd and cgroup
        (once)."""
        if self._killed:
            return
        self._killed = True
        if self._watchdog is not None:
            self._watchdog.forget(self)
        killed = set(kill_all(self)) - {self.process.pid}
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # the group is already gone
        self.process.wait()
        # With the bot reaped, its own children were handed to the arena (a subreaper): reap them as well.
        reap_pids(killed | self.adopted, _REAP_WAIT)
        for drain in self._drains:
            drain.join(1.0)
        self.channel.close()
        for fd in (self._pidfd, self._lifeline):
            if fd is not None:
                os.close(fd)
        self._pidfd = self._lifeline = None
        if self._meter is not None:
            self._meter.close()
        if self.cgroup is not None:
            self.cgroup.remove()
        if self._lease is not None:
            self._lease.release()  # its processes are all gone: the uid may serve another bot


def _run_with(program: str) -> str:
    """A hint to run a script that is not executable through its interpreter ('' where its kind is not known)."""
    interpreter = RUN_WITH.get(Path(program).suffix)
    return f" (run it with its interpreter: {interpreter} {shlex.quote(program)})" if interpreter else ""
