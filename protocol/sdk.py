"""The bot side: write a decide function (or a Bot subclass) and call run_bot; the SDK does the rest.

    from protocol import run_bot

    def decide(view, options, decision):
        return 0

    run_bot(decide, name="always-default")
"""

from __future__ import annotations

import operator
import os
import select
import sys
from typing import Any, Callable

import zmq

from protocol.codec import decode, encode
from protocol.errors import EndpointError
from protocol.messages import (
    Ack,
    Action,
    Clock,
    Decide,
    GameOver,
    Hello,
    Message,
    NewGame,
    Ready,
    Shutdown,
)

ENDPOINT_ENV = "ARENA_ENDPOINT"
ARENA_PID_ENV = "ARENA_PID"  # the arena's process id, so that a bot can tell when the arena is gone
LIFELINE_ENV = "ARENA_LIFELINE"  # a file descriptor that reads end-of-file once the arena is gone
# How often the loop looks up from a quiet socket to check that the arena still runs.
_PARENT_CHECK_MS = 1000
# The arena's own messages are not capped by the protocol; this only guards against nonsense.
_MAX_INCOMING = 1 << 30

DecideFunction = Callable[[dict[str, Any], list[dict[str, Any]], dict[str, Any]], int]


class Bot:
    """A bot with hooks: override decide, and new_game / game_over if the bot keeps state.

    While a game runs, `self.game` is its NewGame message (game, options, seat, seed, time),
    `self.events` every event this seat has been sent so far, and `self.clock` the clock of
    the current decision.
    """

    name = "bot"
    version = "0"

    def __init__(self) -> None:
        self.game: NewGame | None = None
        self.events: list[dict[str, Any]] = []
        self.clock: Clock | None = None

    def new_game(self, game: NewGame) -> None:
        """Called before every game, after self.game and self.events were reset."""

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        """The index of the chosen option."""
        raise NotImplementedError("a Bot subclass must define decide(view, options, decision)")

    def game_over(self, over: GameOver) -> None:
        """Called after every game with its outcome; self.events already holds the last events."""


class FunctionBot(Bot):
    """A bot made of one decide function."""

    def __init__(self, function: DecideFunction, name: str, version: str) -> None:
        super().__init__()
        self.function = function
        self.name = name
        self.version = version

    def decide(self, view: dict[str, Any], options: list[dict[str, Any]], decision: dict[str, Any]) -> int:
        return self.function(view, options, decision)


def resolve_endpoint(argv: list[str] | None = None, environ: dict[str, str] | None = None) -> str:
    """Where to connect: $ARENA_ENDPOINT, else the last command-line argument."""
    environ = os.environ if environ is None else environ
    argv = sys.argv if argv is None else argv
    if environ.get(ENDPOINT_ENV):
        return environ[ENDPOINT_ENV]
    if len(argv) > 1 and "://" in argv[-1]:
        return argv[-1]
    raise EndpointError(f"no endpoint: set ${ENDPOINT_ENV} or pass it as the last argument "
                        "(the arena does both when it starts a bot)")


def run_bot(bot: Bot | DecideFunction, name: str | None = None, version: str | None = None,
            endpoint: str | None = None) -> None:
    """Serve the arena until it sends shutdown (or goes away): handshake, new games, decisions."""
    if not isinstance(bot, Bot):
        bot = FunctionBot(bot, name or getattr(bot, "__name__", "bot"), version or "0")
    elif name or version:
        bot.name, bot.version = name or bot.name, version or bot.version
    context = zmq.Context()
    socket = context.socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    # The arena rebinds after a timeout (lazy pirate); reconnect quickly rather than after the default 100 ms.
    socket.setsockopt(zmq.RECONNECT_IVL, 10)
    socket.connect(endpoint or resolve_endpoint())
    try:
        _serve(bot, socket)
    finally:
        socket.close(linger=0)
        context.term()


def _serve(bot: Bot, socket: zmq.Socket) -> None:
    parent = os.getppid()
    # A receive timeout rather than a poll before every receive: one system call less per request.
    socket.setsockopt(zmq.RCVTIMEO, _PARENT_CHECK_MS)
    while True:
        try:
            data = socket.recv()
        except zmq.Again:
            if _arena_gone(parent):
                return  # the arena died without a shutdown; do not linger as an orphan
            continue
        # The arena is trusted: its messages are checked field by field, not map by map (see codec.unpack).
        request = decode(data, max_size=_MAX_INCOMING, limits=None)
        socket.send(encode(_answer(bot, request)))
        if isinstance(request, Shutdown):
            return


def _arena_gone(parent: int) -> bool:
    """True once the parent has changed (it died), the lifeline in $ARENA_LIFELINE reads end-of-file, or the
    arena named in $ARENA_PID no longer runs."""
    if os.getppid() != parent:
        return True
    lifeline = os.environ.get(LIFELINE_ENV, "")
    if lifeline.isdigit():
        try:
            # Nobody ever writes to it: readable means end-of-file, the arena's end is closed.
            if select.select([int(lifeline)], [], [], 0)[0]:
                return True
        except (OSError, ValueError):
            pass  # not open in this process (closed by the bot): fall back to the pid
    arena = os.environ.get(ARENA_PID_ENV, "")
    if not arena.isdigit():
        return False
    try:
        os.kill(int(arena), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # it runs, as another user
    return False


def _answer(bot: Bot, request: Message) -> Message:
    if isinstance(request, Decide):
        bot.events.extend(request.events)
        bot.clock = request.time
        index = operator.index(bot.decide(request.view, request.options, request.decision))
        return Action(id=request.id, index=index)
    if isinstance(request, Hello):
        return Ready(id=request.id, name=bot.name, bot_version=bot.version)
    if isinstance(request, NewGame):
        bot.game, bot.events, bot.clock = request, [], None
        bot.new_game(request)
    elif isinstance(request, GameOver):
        bot.events.extend(request.events)
        bot.game_over(request)
    return Ack(id=request.id)
