"""A tcp endpoint that exists only inside one bot's sandbox: `python -I -S relay.py SOCKET ENV PROGRAM [ARG...]`.

Under bubblewrap every bot has a network namespace of its own, so a bot whose ZeroMQ library has no ipc cannot be
reached over the machine's tcp. This relay runs inside the sandbox, in front of the bot: it listens on 127.0.0.1
of the bot's own namespace, starts PROGRAM with that endpoint (appended as its last argument and put in the
environment variable ENV, as the arena gives endpoints), and joins each tcp connection the bot makes to the
arena's unix socket SOCKET (its private ipc endpoint), copying bytes both ways: ZMTP is the same byte stream over
tcp and ipc. It exits with the bot's status when the bot exits, and passes termination signals on to it.

Standard library only, one thread, at most CHUNK bytes held per direction of a connection: it counts against the
bot's limits like any of the bot's processes, and a bot that kills or confuses it only cuts itself off.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import sys
import time

CHUNK = 1 << 16  # bytes read from one side at a time; all a direction ever holds, so a slow reader slows the writer
MAX_LINKS = 16  # connections at once; a further one is closed as soon as it is accepted
DRAIN = 0.5  # seconds to pass on what the bot sent just before it exited
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
# Python ignores these; a bot must start with the kernel's defaults (SIGXFSZ is how a file size overrun shows).
RESET = (signal.SIGPIPE, signal.SIGXFSZ)
USAGE = 2
NOT_STARTED = 127  # as a shell says of a command it cannot run


class Link:
    """A connection of the bot joined to a connection to the arena's socket; the bytes waiting for each side."""

    def __init__(self, bot: socket.socket, arena: socket.socket) -> None:
        self.peer = {bot: arena, arena: bot}
        self.pending = {bot: b"", arena: b""}


class Relay:
    """The listening socket, the links, and the loop that moves bytes until the bot is gone."""

    def __init__(self, listener: socket.socket, path: str, wakeup: int) -> None:
        self.listener = listener
        self.path = path
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ)
        self.selector.register(wakeup, selectors.EVENT_READ)
        self.wakeup = wakeup
        self.links: dict[socket.socket, Link] = {}
        self.watched: dict[socket.socket, int] = {}  # the events each link's socket is registered for

    def run(self, child: int) -> int:
        """Relay until the bot has exited and what it sent is passed on (DRAIN seconds at most); its wait status."""
        status: int | None = None
        deadline = None
        while True:
            if status is None:
                status = _exited(child)
            if status is not None:
                if deadline is None:
                    deadline = time.monotonic() + DRAIN
                    self.selector.unregister(self.listener)
                    self.listener.close()
                if not self.links or time.monotonic() >= deadline:
                    return status
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            for key, mask in self.selector.select(timeout):
                if key.fileobj is self.listener:
                    self.accept()
                elif key.fileobj == self.wakeup:
                    _drain(self.wakeup)  # a signal came: the loop looks at the bot again
                else:
                    self.pump(key.fileobj, mask)  # type: ignore[arg-type]

    def accept(self) -> None:
        """Take the waiting connections, each joined to a new connection to the arena's socket."""
        while True:
            try:
                bot, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                _say(f"cannot accept a connection: {exc.strerror or exc}")
                return
            bot.setblocking(False)
            if len(self.links) >= 2 * MAX_LINKS:  # two sockets a link
                bot.close()
                continue
            bot.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # ZeroMQ's own messages are small
            arena = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            arena.setblocking(False)
            try:
                arena.connect(self.path)
            except OSError:
                # The arena is rebinding its socket (or gone): the bot's ZeroMQ connects again shortly.
                arena.close()
                bot.close()
                continue
            link = Link(bot, arena)
            self.links[bot] = self.links[arena] = link
            self._watch(bot)
            self._watch(arena)

    def pump(self, sock: socket.socket, mask: int) -> None:
        """Write what waits for sock, then read from it what its peer can take; a link with a closed or broken
        side is closed whole."""
        link = self.links.get(sock)
        if link is None:
            return
        peer = link.peer[sock]
        try:
            if mask & selectors.EVENT_WRITE and link.pending[sock]:
                link.pending[sock] = link.pending[sock][sock.send(link.pending[sock]):]
            if mask & selectors.EVENT_READ and not link.pending[peer]:
                data = sock.recv(CHUNK)
                if not data:
                    self.close(link)
                    return
                link.pending[peer] = data[_send(peer, data):]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self.close(link)
            return
        self._watch(sock)
        self._watch(peer)

    def _watch(self, sock: socket.socket) -> None:
        """Wait for sock to be readable while its peer has room, and writable while something waits for it."""
        link = self.links[sock]
        events = (0 if link.pending[link.peer[sock]] else selectors.EVENT_READ) | \
            (selectors.EVENT_WRITE if link.pending[sock] else 0)
        watched = self.watched.get(sock, 0)
        if events == watched:
            return  # the usual case, a message passed straight through: no system call
        if events and watched:
            self.selector.modify(sock, events)
        elif events:
            self.selector.register(sock, events)
        else:
            self.selector.unregister(sock)
        self.watched[sock] = events

    def close(self, link: Link) -> None:
        """Close both sides of a link."""
        for sock in link.peer:
            if self.watched.pop(sock, 0):
                self.selector.unregister(sock)
            self.links.pop(sock, None)
            sock.close()


def _send(sock: socket.socket, data: bytes) -> int:
    """Bytes of data written to sock now (0 if it cannot take any yet)."""
    try:
        return sock.send(data)
    except (BlockingIOError, InterruptedError):
        return 0


def _exited(child: int) -> int | None:
    """The bot's wait status once it has exited, else None."""
    try:
        pid, status = os.waitpid(child, os.WNOHANG)
    except ChildProcessError:
        return 0  # reaped already: cannot happen, as the relay reaps nothing else
    return status if pid else None


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except (BlockingIOError, InterruptedError):
        pass


def _say(text: str) -> None:
    print(f"arena relay: {text}", file=sys.stderr, flush=True)


def _exit_like(status: int) -> None:
    """Exit as the bot did: with its exit code, or killed by the same signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        os._exit(128 + number)  # a signal whose default is not to end a process
    os._exit(os.waitstatus_to_exitcode(status))


def command(path: str, variable: str) -> list[str]:
    """What runs the relay in front of a bot's command line: this Python isolated (-I: neither the bot's folder nor
    the PYTHON* variables on its path) and without site (-S), so that it starts in a few milliseconds."""
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), path, variable]


def main(argv: list[str]) -> None:
    """Listen, start the bot with the endpoint, relay until it exits, and exit as it did."""
    if len(argv) < 3:
        _say("usage: relay.py SOCKET ENV PROGRAM [ARG...]")
        os._exit(USAGE)
    path, variable, command = argv[0], argv[1], argv[2:]
    try:
        listener = socket.create_server(("127.0.0.1", 0), backlog=MAX_LINKS)
    except OSError as exc:
        _say(f"cannot listen on 127.0.0.1: {exc.strerror or exc}")
        os._exit(1)
    listener.setblocking(False)
    endpoint = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    wakeup, alarm = os.pipe()
    os.set_blocking(wakeup, False)
    os.set_blocking(alarm, False)
    # Before the bot starts, so that its exit cannot go unnoticed: a signal with a handler writes to the pipe.
    signal.set_wakeup_fd(alarm, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    try:
        child = os.posix_spawnp(command[0], [*command, endpoint], {**os.environ, variable: endpoint},
                                setsigdef=RESET)
    except OSError as exc:
        _say(f"cannot start {command[0]}: {exc.strerror or exc}")
        os._exit(NOT_STARTED)

    def forward(number: int, _frame: object) -> None:
        try:
            os.kill(child, number)
        except ProcessLookupError:
            pass  # exited already: the loop is about to notice

    for number in FORWARDED:
        signal.signal(number, forward)
    _exit_like(Relay(listener, path, wakeup).run(child))


if __name__ == "__main__":
    main(sys.argv[1:])
