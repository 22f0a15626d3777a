"""Protocol figures for `arena bench --protocol`: the raw ZeroMQ floor, the arena's round trip, and games/s.

(a) a raw pyzmq REQ/REP round trip between two processes, msgpack-encoding a typical decide message
    and decoding a reply, as lean as Python gets;
(b) the arena's own round trip for the same message with a trivial SDK bot (encode, lazy-pirate poll,
    checked decode on both sides, and the meter's looks at the bot's threads, as every decision of a game has),
    and the same with the meter off, and with a bare bot that answers without the SDK (its messages unchecked, as
    the raw echo server's), in the same rounds: the meter's share of (b), and the SDK's (the bot's side);
(c) whole games per second with subprocess random bots, reusing processes and with fresh ones, against
    in-process random play and against the socket-bound rate (the engine's own time plus one raw round trip (a)
    per decision), with the share of it that subprocess play reaches;
(d) per sandbox level, a bot's start-up (spawn to ready) and the round trip of (b); under bubblewrap also for a
    bot over tcp, through the relay inside its sandbox; and at each limited level without the seccomp filter (and,
    as root under bubblewrap, as nobody rather than a uid of its own), for what those cost.

Run as a module it is the raw echo server of (a), `python -m arena.bench.protocol ENDPOINT`, or with `--bare` the
bare bot (the endpoint from $ARENA_ENDPOINT, as the arena gives it).
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import msgpack
import zmq

from arena.bots.process import BotCommand, BotProcess, Confinement, Transport, sample_bot
from arena.bots.sandbox import NO_SANDBOX, WALL_CEILING, Sandbox, supported_levels
from arena.bots.sandbox.watchdog import Watchdog
from arena.games import Game, State
from arena.match.local import bench_engine
from arena.match.play import ARENA_NAME, MatchConfig, run_match
from arena.match.wire import decide_request
from protocol import Clock, Decide, NewGame, TimeControl, encode
from protocol.sdk import ENDPOINT_ENV

TRIVIAL_BOT = sample_bot("default_bot")
RANDOM_BOT = sample_bot("random_bot")
BARE_BOT = BotCommand((sys.executable, "-m", "arena.bench.protocol", "--bare"))
_WARM_UP = 200
_ROUNDS = 25
RELAYED = "bwrap, tcp (relay)"  # the bench's label of a bot over tcp through its relay under bubblewrap
# The labels of a level without the seccomp filter and its session keyring, and (as root under bubblewrap) with
# every bot nobody instead of a leased uid of its own: the sandbox as it was before either.
UNSEALED = "without the filter"
UNSEALED_NOBODY = "without the filter, as nobody"


@dataclass(frozen=True)
class ProtocolBench:
    """The protocol figures for one game and table size."""

    game: str
    players: int
    message_bytes: int
    round_trips: int
    raw_us: float
    arena_us: float
    games: int
    in_process_gps: float
    reused_gps: float
    fresh_gps: float
    decisions_per_game: float
    unmetered_us: float = 0.0  # (b) with the meter off: the wall clock alone times each decision
    bare_us: float = 0.0  # (b) with the bare bot: the arena's side of the round trip and the raw bot's

    @property
    def meter_share(self) -> float:
        """The share of (b) that metering the decision costs."""
        return 1.0 - self.unmetered_us / self.arena_us

    @property
    def sdk_share(self) -> float:
        """The share of (b) that the SDK costs the bot: (b) against the bare bot's."""
        return 1.0 - self.bare_us / self.arena_us

    @property
    def ratio(self) -> float:
        """The arena's round trip over the raw floor (the aim is at most 1.5)."""
        return self.arena_us / self.raw_us

    @property
    def socket_bound_gps(self) -> float:
        """Games per second if each decision cost only the engine's own time and one raw round trip (a)."""
        return 1.0 / (1.0 / self.in_process_gps + self.decisions_per_game * self.raw_us * 1e-6)

    @property
    def share(self) -> float:
        """The share of the socket-bound games per second that play with subprocess bots reaches."""
        return self.reused_gps / self.socket_bound_gps


def typical_decide(game: Game, players: int) -> Decide:
    """A decide message from the middle of a random game, with the events since that seat was last asked."""
    length = _random_playout(game, players, None)
    state, since = game.new_state(players, 1), [0] * players
    _random_playout(game, players, length // 2, state, since)
    seat = state.current_player()
    if seat is None:
        raise ValueError(f"{game.name} has no decision to take a message from")
    return decide_request(state, seat, since[seat], 0, Clock(remaining=1.0, bank=0.0))


def _random_playout(game: Game, players: int, steps: int | None, state: State | None = None,
                    since: list[int] | None = None) -> int:
    """Play seed 1 at random for `steps` decisions (None: to the end), noting when each seat was last asked."""
    state = state or game.new_state(players, 1)
    rng = random.Random(1)
    done = 0
    while (seat := state.current_player()) is not None and (steps is None or done < steps):
        if since is not None:
            since[seat] = state.num_events()
        state.apply(rng.randrange(len(state.options())))
        done += 1
    return done


class RawPeer:
    """(a): a plain REQ socket and the raw echo server in another process."""

    def __init__(self, context: zmq.Context, workdir: Path) -> None:
        self.socket = context.socket(zmq.REQ)
        self.socket.setsockopt(zmq.LINGER, 0)
        endpoint = f"ipc://{workdir}/raw.sock"
        self.socket.bind(endpoint)
        self.server = subprocess.Popen([sys.executable, "-m", "arena.bench.protocol", endpoint],
                                       start_new_session=True)

    def round_trips(self, message: Decide, count: int) -> float:
        """Seconds for count round trips: pack, send, receive, unpack."""
        wire = message.to_wire()
        start = time.perf_counter()
        for i in range(count):
            self.socket.send(msgpack.packb({**wire, "id": i}))
            msgpack.unpackb(self.socket.recv())
        return time.perf_counter() - start

    def close(self) -> None:
        """Stop the server and close the socket."""
        self.server.kill()
        self.server.wait()
        self.socket.close(linger=0)


class ArenaPeer:
    """(b): the arena's channel and the trivial SDK bot, in a sandbox (none by default)."""

    def __init__(self, context: zmq.Context, workdir: Path, sandbox: Sandbox = NO_SANDBOX,
                 watchdog: Watchdog | None = None, relayed: bool = False, command: BotCommand = TRIVIAL_BOT) -> None:
        private = Path(tempfile.mkdtemp(prefix="bot-", dir=workdir))
        (private / "home").mkdir()
        start = time.perf_counter()
        self.bot = BotProcess(command, context, f"ipc://{private}/bot.sock", workdir / "trivial",
                              confinement=Confinement(sandbox, private, masked=(workdir.parent,), watchdog=watchdog,
                                                      relayed=relayed))
        self.bot.handshake(ARENA_NAME, 10.0)
        self.startup = time.perf_counter() - start  # from spawn to ready

    def round_trips(self, message: Decide, count: int, metered: bool = True) -> float:
        """Seconds for count asks of the decide message, in a new game (so the bot's event log starts empty);
        metered as a game's decisions are, or (metered False) timed by the wall clock alone."""
        self.bot.ask(NewGame(id=0, game="bench", game_index=0, options={}, seat=0, num_players=1, seed=0,
                             time=TimeControl()), 10.0)
        start = time.perf_counter()
        for _ in range(count):
            self.bot.ask(message, 1.0, WALL_CEILING * 1.0 if metered else None)
        return time.perf_counter() - start

    def close(self) -> None:
        """Shut the bot down."""
        self.bot.stop(1.0)


def round_trip_pair(message: Decide, count: int, workdir: Path,
                    rounds: int = _ROUNDS) -> tuple[float, float, float, float]:
    """Mean microseconds per round trip of (a), (b), (b) with the meter off and (b) with the bare bot: the best of
    several alternating rounds, so that other load on the machine disturbs all alike and as little as possible."""
    context = zmq.Context()
    raw, arena = RawPeer(context, workdir), ArenaPeer(context, workdir)
    bare = ArenaPeer(context, workdir, command=BARE_BOT)
    try:
        per_round = max(1, count // rounds)
        raw.round_trips(message, _WARM_UP)
        arena.round_trips(message, _WARM_UP)
        bare.round_trips(message, _WARM_UP)
        measures = (lambda: raw.round_trips(message, per_round), lambda: arena.round_trips(message, per_round),
                    lambda: arena.round_trips(message, per_round, metered=False),
                    lambda: bare.round_trips(message, per_round))
        times: tuple[list[float], ...] = ([], [], [], [])
        for turn in range(rounds):
            # Every other round in reverse: a figure measured right after the other one of the same bot finds the bot
            # warm, and one measured after another bot's round finds it cold, so the meter on and off take turns.
            for k in range(4) if turn % 2 == 0 else range(3, -1, -1):
                times[k].append(measures[k]())
        return tuple(min(each) / per_round * 1e6 for each in times)  # type: ignore[return-value]
    finally:
        raw.close()
        arena.close()
        bare.close()
        context.term()


@dataclass(frozen=True)
class SandboxBench:
    """What a sandbox level costs: a bot's start-up (spawn to ready) and the per-decision round trip."""

    level: str
    startup_ms: float
    round_trip_us: float


def bench_sandboxes(game: Game, players: int, round_trips: int, starts: int = 10) -> list[SandboxBench]:
    """Start-up and round trip of the trivial bot at every level this machine supports (and auto's choice), and
    at each limited level also without the seccomp filter and its session keyring (and, where bots drop to host
    uids of their own, as nobody): what those cost. Measured in alternating rounds so that load on the machine
    touches every run alike."""
    message = typical_decide(game, players)
    levels = supported_levels()
    # (label, sandbox, relayed): every level over ipc, and where a level confines a bot (its own network), a bot over
    # tcp through its relay too.
    runs = [(level.value, Sandbox(level), False) for level in levels]
    runs += [(RELAYED, Sandbox(level), True) for level in levels if Sandbox(level).confined]
    runs += [(f"{level.value}, {UNSEALED if not Sandbox(level).drops else UNSEALED_NOBODY}",
              replace(Sandbox(level), sealed=False, uids=None), False) for level in levels if Sandbox(level).limited]
    workdir = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    context = zmq.Context()
    watchdog = Watchdog()
    startups: dict[str, list[float]] = {label: [] for label, _, _ in runs}
    times: dict[str, list[float]] = {label: [] for label, _, _ in runs}
    per_round = max(1, round_trips // _ROUNDS)
    try:
        for _ in range(starts):
            for label, sandbox, relayed in runs:
                peer = ArenaPeer(context, workdir, sandbox, watchdog, relayed)
                startups[label].append(peer.startup)
                peer.close()
        peers = {label: ArenaPeer(context, workdir, sandbox, watchdog, relayed) for label, sandbox, relayed in runs}
        try:
            for peer in peers.values():
                peer.round_trips(message, _WARM_UP)
            for _ in range(_ROUNDS):
                for label, peer in peers.items():
                    times[label].append(peer.round_trips(message, per_round))
        finally:
            for peer in peers.values():
                peer.close()
    finally:
        watchdog.close()
        context.term()
        shutil.rmtree(workdir, ignore_errors=True)
    found = [SandboxBench(label, statistics.median(startups[label]) * 1e3,
                          min(times[label]) / per_round * 1e6) for label, _, _ in runs]
    chosen = Sandbox().resolved().level.value
    return found + [SandboxBench(f"auto ({chosen})", *next((b.startup_ms, b.round_trip_us) for b in found
                                                            if b.level == chosen))]


def games_per_second(game: Game, players: int, games: int, workdir: Path, fresh: bool) -> float:
    """Whole games per second with subprocess random bots, bot start-up and shutdown included."""
    config = MatchConfig(game=game, bots=(RANDOM_BOT,) * players, games=games, seed=1,
                         time=TimeControl(timeout=5.0), fresh_processes=fresh, transport=Transport.IPC,
                         results_dir=workdir / "results")
    start = time.perf_counter()
    run_match(config)
    return games / (time.perf_counter() - start)


def bench_protocol(game: Game, players: int, round_trips: int, games: int) -> ProtocolBench:
    """All protocol figures for one game and table size."""
    message = typical_decide(game, players)
    workdir = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    try:
        raw, arena, unmetered, bare = round_trip_pair(message, round_trips, workdir)
        engine = bench_engine(game, players, games)
        reused = games_per_second(game, players, games, workdir, fresh=False)
        fresh = games_per_second(game, players, games, workdir, fresh=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return ProtocolBench(game.name, players, len(encode(message)), round_trips, raw, arena, games,
                         engine.games_per_second, reused, fresh, engine.decisions / engine.games, unmetered, bare)


def _replier(endpoint: str) -> zmq.Socket:
    """A REP socket connected to endpoint, for the raw echo server and the bare bot."""
    socket = zmq.Context().socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)
    return socket


def _echo_server(endpoint: str) -> None:
    """The other end of (a): unpack each request, answer a packed action, until shutdown."""
    socket = _replier(endpoint)
    while True:
        request = msgpack.unpackb(socket.recv())
        socket.send(msgpack.packb({"type": "action", "version": 1, "id": request["id"], "index": 0}))


def _bare_bot() -> None:
    """The bare bot of (b): the protocol without the SDK, each request unpacked unchecked and answered with a packed
    reply (ready, the default action, or ack), until shutdown."""
    socket = _replier(os.environ[ENDPOINT_ENV])
    while True:
        request = msgpack.unpackb(socket.recv())
        header = {"version": request["version"], "id": request["id"]}
        kind = request["type"]
        if kind == "decide":
            socket.send(msgpack.packb({"type": "action", **header, "index": 0}))
        elif kind == "hello":
            socket.send(msgpack.packb({"type": "ready", **header, "name": "bare", "bot_version": "1"}))
        else:
            socket.send(msgpack.packb({"type": "ack", **header}))
            if kind == "shutdown":
                return


if __name__ == "__main__":
    _bare_bot() if sys.argv[1] == "--bare" else _echo_server(sys.argv[1])
