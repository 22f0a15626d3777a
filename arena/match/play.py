"""The match runner: games between bot processes in rotating seats, with clocks, faults and a record per game.

Seating: participant p (its place on the command line) sits at seat (p + g) mod n in game g. With
`duplicate`, each block of n consecutive games shares one deal, so every participant plays every seat of it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, cast

import zmq

from arena import __version__
from arena.bots import leftovers
from arena.bots.entrants import numbered
from arena.bots.logs import DEFAULT_LOG_CAP
from arena.bots.process import BotCommand, BotProcess, Confinement, Transport
from arena.bots.sandbox import WALL_CEILING, Sandbox
from arena.bots.sandbox.paths import hidden_script, other_scripts
from arena.bots.sandbox.watchdog import Watchdog
from arena.bots.submission import BuildWatch, ensure_built, wants_tcp
from arena.errors import (
    STOPPED_KINDS,
    BotCrashed,
    BotFault,
    BotTimeout,
    BuildFailed,
    ClockExpired,
    ConfigError,
    FaultKind,
    IllegalAction,
)
from arena.games import Game, GameError
from arena.match.record import (
    DecisionRecord,
    FaultRecord,
    GameRecord,
    Phase,
    SeatRecord,
    entrant_label,
    record_file,
    save_record,
)
from arena.match.seeds import SecretSeed, Seed, derive_seed, public_seed, seed_label
from arena.match.wire import (
    NEW_GAME_ALLOWANCE,
    SeatClock,
    decide_request,
    game_over_request,
    new_game_request,
    outcome,
)
from protocol import DEFAULT_MAX_MESSAGE, Action, NewGame, Ready, TimeControl

ARENA_NAME = f"bali-arena {__version__}"
DEFAULT_MAX_FAULTS = 3
_EXIT_GRACE = 1.0  # seconds a bot gets to exit after acknowledging shutdown
_LAST_WORDS = 0.5  # seconds to wait for a crashed bot's stderr to drain


@dataclass(frozen=True)
class Seating:
    """One game of a match with a plan: the participant at each seat, and the deal it is played with.

    Games with the same deal get the same cards, and each seat's bot the same seed.
    """

    participants: tuple[int, ...]
    deal: int


@dataclass(frozen=True)
class MatchConfig:
    """Everything that defines a match."""

    game: Game
    bots: tuple[BotCommand, ...]
    games: int = 1
    seed: Seed = field(default_factory=SecretSeed.draw)  # a secret unless a public seed is given (arena.match.seeds)
    options: dict[str, Any] | None = None
    time: TimeControl = field(default_factory=TimeControl)
    fresh_processes: bool = False
    duplicate: bool = False
    transport: Transport = Transport.IPC
    max_message: int = DEFAULT_MAX_MESSAGE
    log_cap: int = DEFAULT_LOG_CAP
    max_faults: int = DEFAULT_MAX_FAULTS
    results_dir: Path = Path("results")
    sandbox: Sandbox = field(default_factory=Sandbox)
    mark_folder: bool = False  # a tournament table: its folder is marked as this process's until it is stored
    # A plan instead of rotation: game g seats seatings[g] (then `games` is their number and `duplicate` unused).
    seatings: tuple[Seating, ...] | None = None
    # The participants' names (a tournament's entrant names); default: entrant_names() of the commands.
    names: tuple[str, ...] | None = None
    build_watch: BuildWatch | None = None  # told of each submission build that runs (a progress display)
    store: Path | None = None  # the results store, if outside results_dir: the sandbox covers it too

    def entrant_names(self) -> tuple[str, ...]:
        """Each participant's name: the given ones, else its command's label, numbered when two are alike."""
        return self.names if self.names is not None else numbered([b.label for b in self.bots])

    @property
    def seats(self) -> int:
        """How many seats each game has."""
        return len(self.seatings[0].participants) if self.seatings else len(self.bots)

    def seating(self, game_index: int) -> Seating:
        """Who sits where in game game_index, and its deal: the plan's, else participant p at seat (p + g) mod n."""
        if self.seatings:
            return self.seatings[game_index]
        n = len(self.bots)
        return Seating(tuple((seat - game_index) % n for seat in range(n)),
                       game_index // n if self.duplicate else game_index)

    def check(self) -> None:
        """ConfigError naming the problem if this match cannot be played."""
        game, n = self.game, self.seats
        if not game.min_players <= n <= game.max_players:
            raise ConfigError(f"{game.name} takes {game.min_players} to {game.max_players} bots, got {n}")
        if self.games < 1:
            raise ConfigError(f"the number of games must be at least 1, got {self.games}")
        if self.seatings is not None:
            self._check_plan()
        if self.names is not None and (len(self.names) != len(self.bots) or len(set(self.names)) != len(self.names)):
            raise ConfigError(f"{len(self.bots)} bots need as many distinct names, got {list(self.names)}")
        if self.time.timeout <= 0 or self.time.init <= 0:
            raise ConfigError("the decision and init timeouts must be positive")
        self.sandbox.check()
        self._check_folders()
        try:
            game.new_state(n, 0, self.options)
        except GameError as exc:
            raise ConfigError(f"bad options for {game.name}: {exc}") from None

    def _check_folders(self) -> None:
        check_folders(self.bots, self.results_dir, self.sandbox)

    def _check_plan(self) -> None:
        seatings = self.seatings or ()
        if len(seatings) != self.games:
            raise ConfigError(f"a plan of {len(seatings)} games for a match of {self.games}")
        for g, seating in enumerate(seatings):
            if len(seating.participants) != self.seats or len(set(seating.participants)) != self.seats or \
                    not all(0 <= p < len(self.bots) for p in seating.participants):
                raise ConfigError(f"game {g + 1} of the plan does not seat {self.seats} distinct participants")


def check_folders(bots: tuple[BotCommand, ...], results_dir: Path, sandbox: Sandbox) -> None:
    """ConfigError if the sandbox would hide a command line's own script from it (it lies in the results or
    another entrant's folder)."""
    if not sandbox.resolved().confined:
        return
    others = tuple(Path(b.cwd) for b in bots if b.cwd)
    for bot in (b for b in bots if b.cwd is None):
        script = hidden_script(Path.cwd(), bot.argv, (results_dir,))
        if script is not None:
            raise ConfigError(f"bot command {bot}: {script} lies in the results folder "
                              f"{results_dir.resolve()}, which the sandbox hides from every bot: give "
                              f"--results another folder, or move the bot to a folder of its own")
        script = hidden_script(Path.cwd(), bot.argv, others)
        if script is not None:
            raise ConfigError(f"bot command {bot}: {script} lies in another entrant's folder, which the "
                              f"sandbox hides from every other bot: move the bot to a folder of its own")


def file_safe(name: str) -> str:
    """The name as a file name part: letters, digits, '.', '_' and '-' kept, anything else '_'; at most 60."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in name)[:60]
    return safe.lstrip(".") or "bot"


@dataclass(frozen=True)
class Standing:
    """How one participant did over the match."""

    participant: int
    command: str
    name: str  # the entrant's name
    version: str
    games: int
    wins: int
    mean_rank: float
    mean_score: float
    faults: int
    disqualified: int
    handshake: str = ""  # the name the bot gave in its handshake

    @property
    def label(self) -> str:
        """The entrant's name, with the handshake name beside it when that differs."""
        return entrant_label(self.name, self.handshake)


@dataclass(frozen=True)
class MatchResult:
    """A finished match: where its files are, every game record, and the standings."""

    match_id: str
    directory: Path
    seed: Seed
    records: tuple[GameRecord, ...]
    standings: tuple[Standing, ...]


@dataclass(frozen=True)
class StartFailure:
    """A bot that could not be started or did not complete the handshake."""

    fault: BotFault
    stderr: str


class BotPool:
    """The bot processes of a match, one per participant, started on demand and ended for good on close."""

    def __init__(self, config: MatchConfig, log_dir: Path) -> None:
        self.config = config
        self.log_dir = log_dir
        self.context = zmq.Context()
        self.sandbox = config.sandbox.resolved()
        # A private directory keeps the ipc endpoints and the bots' own directories out of reach of other users
        # and other matches.
        self.ipc_dir = leftovers.private_dir() if config.transport == Transport.IPC else None
        self.private_dir = self.ipc_dir or (leftovers.private_dir() if self.sandbox.limited else None)
        # What bubblewrap covers: where every match keeps its bots' sockets and homes, and the results.
        self.masked = (Path(tempfile.gettempdir()), config.results_dir, *([config.store] if config.store else []))
        self.watchdog = Watchdog()
        self.identities: dict[int, Ready] = {}
        self.names = config.entrant_names()
        self._bots: dict[int, BotProcess] = {}
        self._runs: dict[int, int] = defaultdict(int)

    def __enter__(self) -> "BotPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _private(self, participant: int, run: int) -> Path | None:
        """A fresh directory of the bot's own (its socket and home), one per process."""
        if self.private_dir is None:
            return None
        folder = self.private_dir / f"p{participant}-{run}"
        (folder / "home").mkdir(parents=True, mode=0o700)
        return folder

    def _endpoint(self, private: Path | None, command: BotCommand) -> tuple[str, bool]:
        """The endpoint the arena binds for a bot, and whether a relay gives the bot a tcp endpoint in its sandbox.

        A bot that wants tcp (--tcp, or its manifest) is reached over tcp directly where the bots share the
        network; under bubblewrap, which gives each bot a network namespace of its own, the arena binds the bot's
        private ipc socket as for any bot and a relay inside the sandbox gives the bot tcp there."""
        tcp = self.config.transport == Transport.TCP or wants_tcp(command.cwd)
        if private is not None and (not tcp or self.sandbox.confined):
            return f"ipc://{private}/bot.sock", tcp
        return "tcp://127.0.0.1:*", False

    def ready(self, participants: list[int]) -> dict[int, BotProcess | StartFailure]:
        """A handshaken bot for each participant, starting (in parallel) those that do not run."""
        bots: dict[int, BotProcess | StartFailure] = {}
        started = []
        for p in participants:
            bot = self._bots.get(p)
            if bot is not None and bot.alive():
                bots[p] = bot
                continue
            self.discard(p)
            self._runs[p] += 1
            command = self.config.bots[p]
            stem = self.log_dir / f"p{p}-{file_safe(self.names[p])}"
            try:
                ensure_built(command.cwd, Path(f"{stem}-build.log"), self.sandbox, self.config.build_watch)
            except BuildFailed as fault:
                bots[p] = StartFailure(fault, fault.output)
                continue
            private = self._private(p, self._runs[p])
            hidden = tuple(b.cwd for b in self.config.bots if b.cwd and b.cwd != command.cwd)
            hidden += other_scripts(command.argv, [b.argv for b in self.config.bots if b.cwd is None]) \
                if command.cwd is None else ()
            endpoint, relayed = self._endpoint(private, command)
            try:
                confinement = Confinement(self.sandbox, private, hidden, self.masked, self.watchdog,
                                          self.config.games, relayed)
                self._bots[p] = BotProcess(command, self.context, endpoint, Path(f"{stem}-run{self._runs[p]}"),
                                           self.config.log_cap, self.config.max_message, confinement)
                started.append(p)
            except BotCrashed as fault:
                bots[p] = StartFailure(fault, "")
        for p in started:
            bot = self._bots[p]
            try:
                self.identities[p] = bot.handshake(ARENA_NAME, self.config.time.init, time.monotonic())
                bots[p] = bot
            except BotFault as fault:
                bots[p] = StartFailure(fault, bot.stderr_tail(_LAST_WORDS))
                self.discard(p)
        return bots

    def name(self, participant: int) -> tuple[str, str]:
        """The name and version the bot gave in its last handshake ('' before any)."""
        ready = self.identities.get(participant)
        return (ready.name, ready.bot_version) if ready else ("", "")

    def discard(self, participant: int) -> None:
        """Kill a participant's bot at once; the next ready() starts it afresh."""
        bot = self._bots.pop(participant, None)
        if bot is not None:
            bot.kill()
            if self.private_dir is not None:
                shutil.rmtree(self.private_dir / f"p{participant}-{self._runs[participant]}", ignore_errors=True)

    def stop_all(self) -> None:
        """Shut every bot down, politely first, all at once: a bot's exit (its interpreter's teardown, its
        sandbox's) takes tens of milliseconds that one after another would add up to a match's fixed cost."""
        stopping = list(self._bots)
        grace = min(self.config.time.timeout, _EXIT_GRACE)
        if len(stopping) > 1:
            with ThreadPoolExecutor(len(stopping), thread_name_prefix="stop") as pool:
                for done in [pool.submit(self._bots[p].stop, grace) for p in stopping]:
                    done.result()
        for p in stopping:
            self._bots[p].stop(grace)  # at once for a bot stopped above (its kill() is done once)
            del self._bots[p]  # only now: if stopping is interrupted, close() still finds the bot
            if self.private_dir is not None:
                shutil.rmtree(self.private_dir / f"p{p}-{self._runs[p]}", ignore_errors=True)

    def close(self) -> None:
        """Stop every bot, release the sockets, and remove the ipc directory."""
        try:
            self.stop_all()
        finally:
            for p in list(self._bots):
                self.discard(p)
            self.watchdog.close()
            self.context.destroy(linger=0)
            if self.private_dir is not None:
                shutil.rmtree(self.private_dir, ignore_errors=True)


class GamePlay:
    """One game of a match: seats bound to bots, their clocks and faults, and the decisions played."""

    def __init__(self, config: MatchConfig, pool: BotPool, match_id: str, game_index: int) -> None:
        seating = config.seating(game_index)
        n = len(seating.participants)
        self.config, self.pool, self.match_id, self.game_index = config, pool, match_id, game_index
        self.participants = list(seating.participants)
        self.seed = derive_seed(config.seed, "deal", seating.deal)
        # Without a plan every game seeds its bots afresh; with one, the games of a deal seed them alike, so
        # that two games of a deal differ only in who sits where.
        key = game_index if config.seatings is None else seating.deal
        self.bot_seeds = [derive_seed(config.seed, "bot", key, seat) for seat in range(n)]
        self.state = config.game.new_state(n, self.seed, config.options)
        self.bots: list[BotProcess | None] = [None] * n
        self.clocks = [SeatClock(config.time) for _ in range(n)]
        self.since = [0] * n
        self.fault_counts = [0] * n
        self.disqualified: set[int] = set()
        self.decisions: list[DecisionRecord] = []
        self.faults: list[FaultRecord] = []
        self.first_request: list[int | None] = [None] * n
        self.asked = [0] * n  # decide requests sent to each seat in this game: the bot's own numbering
        self.game_over_sent = [False] * n
        self.new_game_time: list[float | None] = [None] * n  # wall seconds each seat's new_game took
        self.new_game_charged = [0.0] * n  # seconds of each seat's game clock its new_game cost
        self.out_at_new_game: set[int] = set()  # seats whose new_game timed out or ran their clock out

    def play(self) -> GameRecord:
        """Deal, seat the bots, play to the end, tell everyone the outcome, and return the record."""
        self._seat_bots()
        while (seat := self.state.current_player()) is not None:
            self.state.apply(self._decide(seat))
        return self._finish()

    def _seat_bots(self) -> None:
        ready = self.pool.ready(self.participants)
        n = len(self.participants)
        for seat, p in enumerate(self.participants):
            bot = ready[p]
            if isinstance(bot, StartFailure):
                self._record(seat, Phase.HANDSHAKE, bot.fault, None, bot.stderr,
                             None if isinstance(bot.fault, BuildFailed) else self.config.time.init)
                self.disqualified.add(seat)  # a bot that never said ready cannot be asked anything
                continue
            self.bots[seat] = bot
            bot.new_game()
            self.first_request[seat] = bot.channel.next_id
            self._new_game(seat, bot, new_game_request(self.config.game, self.config.options, self.game_index,
                                                       seat, n, self.bot_seeds[seat], self.config.time))

    def _new_game(self, seat: int, bot: BotProcess, request: NewGame) -> None:
        """Ask the seat's new_game within its limit and charge its time beyond the allowance to its game clock: a
        clock fault where that runs the clock out."""
        clock = self.clocks[seat]
        limit = clock.new_game_limit()
        fault: BotFault | None = None
        try:
            # Charged as a decision is (its wait for a core is not its own), within WALL_CEILING times the limit.
            elapsed: float | None = bot.ask(request, limit, WALL_CEILING * limit).elapsed
        except BotFault as exc:
            fault, elapsed = exc, exc.elapsed
        charged = 0.0 if elapsed is None else clock.new_game_charge(elapsed)
        # A seat out of clock is asked nothing that game, which its record must show as a clock fault (replays
        # check it), whatever else the answer did wrong; a bot that is gone is disqualified for it instead.
        stopped = fault is not None and fault.kind in STOPPED_KINDS
        if elapsed is not None and not stopped and clock.runs_out(charged, None):
            fault = _new_game_clock_fault(clock, elapsed, charged)
        self.new_game_time[seat], self.new_game_charged[seat] = elapsed, charged
        clock.spend(charged)
        if fault is not None:
            self._fault(seat, Phase.NEW_GAME, fault, None,
                        clock.control.game_clock if fault.kind == FaultKind.CLOCK else limit)
        if fault is not None and fault.kind in (FaultKind.CLOCK, FaultKind.TIMEOUT):
            # Asked nothing more this game: a bot still busy with its new_game would only hold its table up again.
            self.out_at_new_game.add(seat)

    def _decide(self, seat: int) -> int:
        """The index played for seat: its bot's answer, or the default when it faults, is disqualified or is out
        of game clock."""
        number = len(self.decisions)
        bot = self.bots[seat]
        clock = self.clocks[seat]
        if seat in self.disqualified or bot is None or clock.out_of_time() or seat in self.out_at_new_game:
            self.decisions.append(DecisionRecord(seat, 0, None))
            return 0
        request = decide_request(self.state, seat, self.since[seat], self.game_index, clock.clock())
        self.since[seat] = self.state.num_events()
        self.asked[seat] += 1
        allowance, charged, wait = clock.allowance(), None, None
        bot.capture_log()
        try:
            reply = bot.ask(request, allowance, clock.wall_limit())
            index, elapsed = cast(Action, reply.message).index, reply.elapsed
            if reply.timing is not None:
                charged, wait = reply.timing.charged, reply.timing.wait
            if not 0 <= index < len(request.options):
                raise IllegalAction(f"index {index} is not an option; this decision has options 0 to "
                                    f"{len(request.options) - 1}", elapsed)
            fault = None
        except BotFault as exc:
            fault = _clock_fault(exc, clock) if isinstance(exc, BotTimeout) else exc
            index, elapsed = 0, fault.elapsed
            if fault.charged is not None:
                charged, wait = fault.charged, fault.wait
            self._fault(seat, Phase.DECIDE, fault, number, clock.left if fault.kind == FaultKind.CLOCK else allowance)
        log = bot.captured_log()
        clock.charge(elapsed, isinstance(fault, BotTimeout), charged)
        self.decisions.append(DecisionRecord(seat, index, elapsed, fault.kind if fault else None,
                                             log=log.text, log_dropped=log.dropped, charged=charged, wait=wait))
        return index

    def _fault(self, seat: int, phase: Phase, fault: BotFault, decision: int | None, limit: float) -> None:
        crashed = isinstance(fault, BotCrashed)
        bot = self.bots[seat]
        self._record(seat, phase, fault, decision, bot.stderr_tail(_LAST_WORDS if crashed else 0) if bot else "",
                     limit)
        if phase != Phase.GAME_OVER:
            self.fault_counts[seat] += 1
            if crashed or self.fault_counts[seat] >= self.config.max_faults:
                self.disqualified.add(seat)
        if crashed:
            self.bots[seat] = None
            self.pool.discard(self.participants[seat])  # started afresh for the next game

    def _record(self, seat: int, phase: Phase, fault: BotFault, decision: int | None, stderr: str,
                limit: float | None) -> None:
        p = self.participants[seat]
        self.faults.append(FaultRecord(
            self.game_index, seat, p, self.pool.names[p], decision, phase, fault.kind, fault.detail, stderr,
            asked=self.asked[seat] if phase == Phase.DECIDE else None, elapsed=fault.elapsed, limit=limit,
            charged=fault.charged))

    def _finish(self) -> GameRecord:
        result = self.state.result()
        disqualified = frozenset(self.disqualified)
        told = outcome(result, disqualified)
        for seat, bot in enumerate(self.bots):
            if bot is None or not bot.alive():
                continue
            if (self.clocks[seat].out_of_time() or seat in self.out_at_new_game) and bot.channel.stuck:
                # Still busy with the decision its clock ran out on: it would only hold the game up again.
                self.pool.discard(self.participants[seat])
                continue
            request = game_over_request(self.state, seat, self.since[seat], self.game_index, told)
            self.game_over_sent[seat] = True
            try:
                bot.ask(request, self.config.time.timeout)
            except BotFault as fault:
                self._fault(seat, Phase.GAME_OVER, fault, None, self.config.time.timeout)
            if bot.channel.stuck:
                # Still busy with an old request: waiting for it at the next game would only cost time.
                self.pool.discard(self.participants[seat])
        return GameRecord(
            match_id=self.match_id, game_index=self.game_index, game=self.config.game.name,
            options=self.config.options, num_players=len(self.participants), seed=self.seed, time=self.config.time,
            seats=tuple(self._seat_record(seat) for seat in range(len(self.participants))),
            decisions=tuple(self.decisions), faults=tuple(self.faults), disqualified=tuple(sorted(disqualified)),
            result=result, ranks=told.ranks, max_faults=self.config.max_faults,
        )

    def _seat_record(self, seat: int) -> SeatRecord:
        p = self.participants[seat]
        name, version = self.pool.name(p)
        return SeatRecord(seat, p, name, version, str(self.config.bots[p]), self.bot_seeds[seat],
                          self.first_request[seat], self.game_over_sent[seat], entrant=self.pool.names[p],
                          new_game_time=self.new_game_time[seat], new_game_charged=self.new_game_charged[seat])


def _clock_fault(fault: BotTimeout, clock: SeatClock) -> BotFault:
    """A timeout that ran the seat's game clock out is a clock fault; any other stays a timeout."""
    if fault.elapsed is None or not clock.runs_out(fault.elapsed, fault.charged):
        return fault
    figures = f"charged {fault.elapsed if fault.charged is None else fault.charged:.3g} s"
    if fault.wait is not None:
        figures += f" (wall {fault.elapsed:.3g} s less {fault.wait:.3f} s waiting for a core)"
    expired = ClockExpired(f"the game clock of {clock.control.game_clock:g} s ran out: this decision was {figures} "
                           f"with {clock.left or 0:.3g} s left (and {clock.wall_left or 0:.3g} s on the wall clock, "
                           "the guard): the default is played for this seat for the rest of the game", fault.elapsed)
    expired.charged, expired.wait = fault.charged, fault.wait
    return expired


def _new_game_clock_fault(clock: SeatClock, elapsed: float, charged: float) -> BotFault:
    """The clock fault of a new_game whose time beyond the allowance ran the seat's game clock out."""
    expired = ClockExpired(f"the game clock of {clock.control.game_clock:g} s ran out before the first decision: "
                           f"new_game took {elapsed:.3g} s on the wall clock, {charged:.3g} s beyond its "
                           f"{NEW_GAME_ALLOWANCE:g} s allowance, with {clock.left or 0:.3g} s left: the default is "
                           "played for this seat for the whole game", elapsed)
    expired.charged = charged
    return expired


class MatchInterrupted(KeyboardInterrupt):
    """A match stopped by Ctrl-C or a termination signal; `result` holds the games finished before it (their
    records are kept on disk, and every bot is stopped)."""

    def __init__(self, result: MatchResult, cause: str) -> None:
        super().__init__(cause)
        self.result = result
        self.cause = cause


def run_match(config: MatchConfig, on_game: Callable[[GameRecord], None] | None = None) -> MatchResult:
    """Play the match, writing a record per game and a summary under the results directory.

    Interrupted (KeyboardInterrupt, which arena.interrupt makes of SIGTERM too), it stops every bot, writes the
    summary of the games finished so far and raises MatchInterrupted with them."""
    config.check()
    leftovers.sweep()
    match_id, directory = match_directory(config)
    records: list[GameRecord] = []
    pool: BotPool | None = None
    try:
        with BotPool(config, directory / "logs") as pool:
            for g in range(config.games):
                record = GamePlay(config, pool, match_id, g).play()
                save_record(record, directory / record_file(g))
                records.append(record)
                if on_game is not None:
                    on_game(record)
                if config.fresh_processes:
                    pool.stop_all()
    except KeyboardInterrupt as exc:
        partial = MatchResult(match_id, directory, config.seed, tuple(records),
                              standings(config, pool, records) if pool is not None else ())
        _write_summary(config, partial, interrupted=True)
        raise MatchInterrupted(partial, str(exc) or "SIGINT") from None
    result = MatchResult(match_id, directory, config.seed, tuple(records), standings(config, pool, records))
    _write_summary(config, result)
    return result


def standings(config: MatchConfig, pool: BotPool, records: list[GameRecord]) -> tuple[Standing, ...]:
    """Per participant: games, wins (rank 1), mean rank and score, faults and disqualifications."""
    rows = []
    for p, command in enumerate(config.bots):
        seats = [(r, s.seat) for r in records for s in r.seats if s.participant == p]
        ranks = [r.ranks[seat] for r, seat in seats]
        scores = [r.result.scores[seat] for r, seat in seats]
        handshake, version = pool.name(p)
        rows.append(Standing(
            participant=p, command=str(command), name=pool.names[p], version=version, handshake=handshake,
            games=len(seats),
            wins=ranks.count(1), mean_rank=sum(ranks) / max(1, len(ranks)),
            mean_score=sum(scores) / max(1, len(scores)),
            faults=sum(1 for r in records for f in r.faults if f.participant == p),
            disqualified=sum(1 for r, seat in seats if seat in r.disqualified),
        ))
    return tuple(rows)


def match_directory(config: MatchConfig) -> tuple[str, Path]:
    """A new match's id and its folder under the results directory (created, never one that exists)."""
    base = config.results_dir / "matches"
    stem = f"{time.strftime('%Y%m%d-%H%M%S')}-{config.game.name}-{seed_label(config.seed)}"
    for attempt in range(1000):
        match_id = stem if attempt == 0 else f"{stem}-{attempt}"
        try:
            (base / match_id).mkdir(parents=True)
            if config.mark_folder:
                leftovers.mark(base / match_id)
            return match_id, base / match_id
        except FileExistsError:
            continue
        except OSError as exc:
            raise ConfigError(f"cannot create a match directory under {base}: {exc.strerror or exc}") from None
    raise ConfigError(f"too many matches named {stem} under {base}")


def _write_summary(config: MatchConfig, result: MatchResult, interrupted: bool = False) -> None:
    summary = {
        "match": result.match_id, "game": config.game.name, "seed": public_seed(config.seed), "games": config.games,
        "bots": [str(b) for b in config.bots], "options": config.options, "time": config.time.to_wire(),
        "fresh_processes": config.fresh_processes, "duplicate": config.duplicate, "transport": config.transport.value,
        "records": [record_file(r.game_index) for r in result.records],
        "standings": [vars(s) for s in result.standings], "interrupted": interrupted,
    }
    (result.directory / "match.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
