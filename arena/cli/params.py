"""Parameter types and option parsing shared by the commands."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Callable

import click

from arena.bots.entrants import bot_command
from arena.bots.meter import wait_accounting
from arena.bots.process import BotCommand
from arena.bots.sandbox import MIB, WALL_CEILING, Isolation, Limits, Sandbox, crowding
from arena.bots.sandbox.hostuser import DEFAULT_UIDS, HostUids
from arena.cli.store_options import db_option, results_option, store_path  # noqa: F401 (re-exported)
from arena.errors import ConfigError
from arena.games import Game, GameError, available, check_variants, get_game
from arena.match.wire import NEW_GAME_ALLOWANCE, with_game_clock
from arena.ratings.trueskill import RatingConfig
from arena.tournament import competition_file
from protocol import TimeControl
from protocol.messages import NEW_GAME_TIMEOUT


class GameType(click.ParamType):
    """A registered game name, converted to its game object."""

    name = "game"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Game:
        if not isinstance(value, str):
            return value
        try:
            return get_game(value)
        except GameError as exc:
            self.fail(str(exc), param, ctx)

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
        from click.shell_completion import CompletionItem
        return [CompletionItem(name) for name in available() if name.startswith(incomplete)]


GAME = GameType()


def parse_game_options(pairs: tuple[str, ...], variants: tuple[str, ...]) -> dict[str, Any] | None:
    """Game options from KEY=VALUE pairs (VALUE as JSON, else as text) and variant names (set to true)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="'--option'")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    for variant in variants:
        options[variant] = True
    return options or None


def game_options(command: Callable[..., Any] | None = None, *, short: bool = True) -> Any:
    """--option (also -o unless `short` is false, for a command whose -o means something else) and --variant,
    gathered into the game's options (a dict, or None) passed as `options`."""
    if command is None:
        return functools.partial(game_options, short=short)

    @functools.wraps(command)
    def gathered(*args: Any, option_pairs: tuple[str, ...], variants: tuple[str, ...], **kwargs: Any) -> Any:
        if kwargs.get("game") is not None:  # every command with game options names its game `game`
            try:
                check_variants(kwargs["game"], variants)
            except GameError as exc:
                raise click.BadParameter(str(exc), param_hint="'--variant'") from None
        return command(*args, options=parse_game_options(option_pairs, variants), **kwargs)

    return _with_options(gathered, [
        click.option("--option", *(("-o",) if short else ()), "option_pairs", multiple=True, metavar="KEY=VALUE",
                     help="A game option, VALUE as JSON (e.g. max_turns=50 in bali-2001, oracle=true in bali-2017; "
                          "each game's README lists its own); repeatable."),
        click.option("--variant", "variants", multiple=True, metavar="NAME",
                     help="Switch on a variant of the game (the option NAME=true); repeatable."),
    ])


def _with_options(command: Callable[..., Any], options: list[Callable[..., Any]]) -> Callable[..., Any]:
    """The command with the options, listed in --help in the order given."""
    for option in reversed(options):
        command = option(command)
    return command


class BotCommandType(click.ParamType):
    """A bot's command line, split like a shell would, whose program (and script) must exist."""

    name = "bot"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> BotCommand:
        if isinstance(value, BotCommand):
            return value
        try:
            return bot_command(value)
        except ConfigError as exc:
            self.fail(str(exc), param, ctx)


DEFAULT_PORT = 8000  # where arena serve listens by default, and arena authors's links point before it has served
BOT = BotCommandType()
SECONDS = click.FloatRange(min=0.0, min_open=True)


def time_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--timeout, --init-timeout, --new-game-timeout, --time-bank, --increment and --game-clock, gathered into the
    TimeControl of the command's `game` (its own game clock where --game-clock is not given), passed as `time`."""

    @functools.wraps(command)
    def gathered(*args: Any, timeout: float, init_timeout: float, new_game_timeout: float, time_bank: float,
                 increment: float, game_clock: float | None, **kwargs: Any) -> Any:
        time = TimeControl(timeout=timeout, init=init_timeout, bank=time_bank, increment=increment,
                           new_game=new_game_timeout)
        return command(*args, time=with_game_clock(time, kwargs["game"], game_clock), **kwargs)

    return _with_options(gathered, [
        click.option("--timeout", type=SECONDS, default=1.0, show_default=True,
                     help="Seconds a bot may take per decision: the wall time, less the time its threads waited "
                     f"for a core (and at most {WALL_CEILING:g} times as much on the wall clock beyond that wait, a "
                     "guard)."),
        click.option("--init-timeout", type=SECONDS, default=10.0, show_default=True,
                     help="Seconds a bot may take to start and answer the handshake."),
        click.option("--new-game-timeout", type=SECONDS, default=NEW_GAME_TIMEOUT, show_default=True,
                     help="Seconds a bot may take to answer each new game, charged as --timeout is (its time beyond "
                     f"{NEW_GAME_ALLOWANCE:g} s is charged to its game clock); past it the bot is at fault and "
                     "plays the default for that game."),
        click.option("--time-bank", type=click.FloatRange(min=0.0), default=0.0, show_default=True,
                     help="Extra seconds per game a bot may spend beyond the per-decision timeout."),
        click.option("--increment", type=click.FloatRange(min=0.0), default=0.0, show_default=True,
                     help="Seconds added to the time bank after every decision."),
        click.option("--game-clock", type=click.FloatRange(min=0.0), default=None, metavar="SECONDS",
                     show_default=_game_clocks(),
                     help="Seconds a bot may think in one game, all its decisions together (charged as --timeout "
                     f"is, and at most {WALL_CEILING:g} times as much on the wall clock beyond the waits); once "
                     "they run out, its seat plays the default for the rest of the game (a `clock` fault). A new "
                     f"game's time beyond {NEW_GAME_ALLOWANCE:g} s comes off it too. 0: no game clock."),
    ])


def _game_clocks() -> str:
    return ", ".join(f"{get_game(name).game_clock:g} for {name}" for name in available())


def rating_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--mu, --sigma, --beta, --tau and --draw-probability, gathered into the RatingConfig of the command's
    `game` (its defaults where an option is not given), passed as `rating`."""

    @functools.wraps(command)
    def gathered(*args: Any, mu: float | None, sigma: float | None, beta: float | None, tau: float | None,
                 draw_probability: float | None, **kwargs: Any) -> Any:
        rating = RatingConfig.for_game(kwargs["game"], mu=mu, sigma=sigma, beta=beta, tau=tau,
                                       draw_probability=draw_probability)
        return command(*args, rating=rating, **kwargs)

    return _with_options(gathered, [
        click.option("--mu", type=float, help="Rating prior mean (TrueSkill default 25)."),
        click.option("--sigma", type=click.FloatRange(min=0, min_open=True),
                     help="Rating prior deviation (default mu/3)."),
        click.option("--beta", type=click.FloatRange(min=0, min_open=True),
                     help="Performance deviation: the skill gap that wins 76% of the time (default sigma/2)."),
        click.option("--tau", type=click.FloatRange(min=0), help="Dynamics: added uncertainty per game "
                     "(default sigma/100)."),
        click.option("--draw-probability", type=click.FloatRange(0, 1, max_open=True),
                     help="Chance of a tie between equal bots (default chosen per game)."),
    ])


class UidRange(click.ParamType):
    """A range of host uids, FIRST-LAST, that belongs to no account of this machine."""

    name = "uids"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> HostUids:
        if isinstance(value, HostUids):
            return value
        try:
            return HostUids.parse(str(value))
        except ConfigError as exc:
            self.fail(str(exc), param, ctx)


SANDBOX_PARAMS = ("sandbox", "memory_limit", "cpu_limit", "max_processes", "max_file_size", "max_open_files",
                  "disk_limit", "build_network", "bot_uids")  # what sandbox_options gathers, as click names them


def sandbox_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--sandbox and the limits of each bot, gathered into a Sandbox passed as `sandbox`."""
    default = Limits()

    @functools.wraps(command)
    def gathered(*args: Any, sandbox: str, memory_limit: int, cpu_limit: float, max_processes: int,
                 max_file_size: int, max_open_files: int, disk_limit: int, build_network: bool,
                 bot_uids: HostUids | None, **kwargs: Any) -> Any:
        limits = Limits(memory=memory_limit * MIB, cpu=cpu_limit, processes=max_processes,
                        file_size=max_file_size * MIB, open_files=max_open_files, disk=disk_limit * MIB)
        return command(*args, sandbox=Sandbox(Isolation(sandbox), limits, build_network=build_network,
                                              uids=bot_uids or DEFAULT_UIDS), **kwargs)

    options = [
        click.option("--sandbox", type=click.Choice([i.value for i in Isolation]), default=Isolation.AUTO.value,
                     show_default=True, help="How bots are isolated: auto (the strongest level this machine "
                     "supports, printed at start), none (development: no limits, the arena's environment), rlimit "
                     "(the limits, a scrubbed environment, a private home; same user, same network), bwrap (also "
                     "own user, PID, IPC, UTS and network namespaces, a read-only filesystem; needs bubblewrap)."),
        click.option("--memory-limit", type=click.IntRange(min=16), default=default.memory // MIB,
                     show_default=True, metavar="MIB", help="Memory of a bot, all its processes together (and "
                     "address space per process), in MiB."),
        click.option("--cpu-limit", type=SECONDS, default=default.cpu, show_default=True, metavar="SECONDS",
                     help="CPU seconds a bot (with all its processes) may use per game."),
        click.option("--max-processes", type=click.IntRange(min=1), default=default.processes, show_default=True,
                     help="Processes and threads a bot may run at once."),
        click.option("--max-file-size", type=click.IntRange(min=1), default=default.file_size // MIB,
                     show_default=True, metavar="MIB", help="Largest file a bot may write, in MiB."),
        click.option("--max-open-files", type=click.IntRange(min=16), default=default.open_files,
                     show_default=True, help="Files (and sockets) a bot process may hold open."),
        click.option("--disk-limit", type=click.IntRange(min=1), default=default.disk // MIB, show_default=True,
                     metavar="MIB", help="Disk a bot may fill under bwrap: its private home, /tmp and /dev/shm "
                     "together, kept in memory (and counted against its memory too), never on the host's disk."),
        click.option("--build-network", is_flag=True, help="Let submissions' builds use the network (to fetch "
                     "packages). A build then shares this machine's network: it can reach the internet and every "
                     "service listening here, the arena's own tcp ports and your local databases included. "
                     "Without it a build under bwrap has no network at all."),
        click.option("--bot-uids", type=UidRange(), default=None, metavar="FIRST-LAST",
                     help="Host uids that belong to no account, for the bots and builds when the arena runs as "
                     f"root under bwrap: each running one takes a free uid of the range as its own, never one "
                     f"another holds (default {DEFAULT_UIDS}; when every one is in use, a start fails). Never root, "
                     "whatever the range."),
    ]
    for option in reversed(options):
        gathered = option(gathered)
    return gathered


def announce_sandbox(sandbox: Sandbox) -> None:
    """Print the level in effect, and the one-line warning of what it does not protect, on stderr."""
    click.echo(f"sandbox: {sandbox.describe()}", err=True)
    warning = sandbox.warning()
    if warning:
        click.echo(warning, err=True)
    if wait_accounting() is None:
        click.echo("time warning: the time a bot waits for a core cannot be read here (/proc schedstat): every "
                   "decision is charged its wall time, waiting for a busy machine included", err=True)


def announce_crowding(jobs: int, seats: int) -> None:
    """Print, on stderr, a warning if the tables played at once crowd the machine's cores."""
    warning = crowding(jobs, seats)
    if warning:
        click.echo(warning, err=True)


def competition_defaults(ctx: click.Context, path: Path, settings: dict[str, Any], command: str,
                         skip: frozenset[str] = frozenset()) -> None:
    """A competition file's settings as the command's defaults, so that options given on the command line win;
    ConfigError naming the file and the key `command` does not take (those in `skip` are left to another command)
    or whose value it refuses."""
    params = {p.name: p for p in ctx.command.params}
    for option, setting in settings.items():
        if option in skip:
            continue
        if option not in params:
            raise ConfigError(f"{path}: {competition_file.key_of(option)!r} is not a setting of arena {command}")
        try:
            params[option].type_cast_value(ctx, setting)
        except click.BadParameter as exc:
            raise ConfigError(f"{path}: bad value for {competition_file.key_of(option)!r}: {exc.message}") from None
    ctx.default_map = {**(ctx.default_map or {}), **settings}


def cluster_access_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--cluster-certs and --insecure-cluster, gathered into a ClusterAccess passed as `cluster_access`."""
    from arena.tournament.cluster_tls import ClusterAccess

    @functools.wraps(command)
    def gathered(*args: Any, cluster_certs: Path | None, insecure_cluster: bool, **kwargs: Any) -> Any:
        return command(*args, cluster_access=ClusterAccess(cluster_certs, insecure_cluster), **kwargs)

    options = [
        click.option("--cluster-certs", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
                     help="A folder made by `arena cluster certs`: the CA and the client's certificate that a "
                     "tls:// --cluster requires (else Dask's own TLS settings are used)."),
        click.option("--insecure-cluster", is_flag=True, help="Let a --cluster tcp:// scheduler in, without "
                     "credentials: whoever can reach it or its workers runs code on them as their user (root, "
                     "where bots get uids of their own) and reads every submission. Only on a network that no one "
                     "else reaches."),
    ]
    for option in reversed(options):
        gathered = option(gathered)
    return gathered
