"""Parameter types and option parsing shared by the commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import click

from arena.bots import BotCommand
from arena.errors import ConfigError
from arena.games import Game, available, get_game
from protocol import TimeControl


class GameType(click.ParamType):
    """A registered game name, converted to its game object."""

    name = "game"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Game:
        if not isinstance(value, str):
            return value
        try:
            return get_game(value)
        except ValueError as exc:
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


class BotCommandType(click.ParamType):
    """A bot's command line, split like a shell would, whose program (and script) must exist."""

    name = "bot"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> BotCommand:
        if isinstance(value, BotCommand):
            return value
        try:
            command = BotCommand.parse(value)
            command.check()
        except (ValueError, ConfigError) as exc:
            self.fail(str(exc), param, ctx)
        return command


BOT = BotCommandType()
SECONDS = click.FloatRange(min=0.0, min_open=True)


def results_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """--results DIR, for every command that writes."""
    return click.option("--results", "results_dir", type=click.Path(file_okay=False, path_type=Path),
                        default=Path("results"), show_default=True,
                        help="Directory for game records, match summaries and bot logs.")(command)


def time_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--timeout, --init-timeout, --time-bank and --increment, gathered into a TimeControl named `time`."""
    options = [
        click.option("--timeout", type=SECONDS, default=1.0, show_default=True,
                     help="Seconds a bot may take per decision."),
        click.option("--init-timeout", type=SECONDS, default=10.0, show_default=True,
                     help="Seconds a bot may take to start and answer the handshake or a new game."),
        click.option("--time-bank", type=click.FloatRange(min=0.0), default=0.0, show_default=True,
                     help="Extra seconds per game a bot may spend beyond the per-decision timeout."),
        click.option("--increment", type=click.FloatRange(min=0.0), default=0.0, show_default=True,
                     help="Seconds added to the time bank after every decision."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def time_control(timeout: float, init_timeout: float, time_bank: float, increment: float) -> TimeControl:
    """The TimeControl the time options describe."""
    return TimeControl(timeout=timeout, init=init_timeout, bank=time_bank, increment=increment)


def db_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """--db PATH: the results store (default: arena.sqlite in the results directory)."""
    return click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help="The results database (default: RESULTS/arena.sqlite).")(command)


def store_path(results_dir: Path, db: Path | None) -> Path:
    """The results database the --results and --db options name."""
    from arena.store import DEFAULT_DB_NAME
    return db if db is not None else results_dir / DEFAULT_DB_NAME


def rating_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--mu, --sigma, --beta, --tau and --draw-probability: the TrueSkill environment (defaults documented)."""
    options = [
        click.option("--mu", type=float, help="Rating prior mean (TrueSkill default 25)."),
        click.option("--sigma", type=click.FloatRange(min=0, min_open=True),
                     help="Rating prior deviation (default mu/3)."),
        click.option("--beta", type=click.FloatRange(min=0, min_open=True),
                     help="Performance deviation: the skill gap that wins 76% of the time (default sigma/2)."),
        click.option("--tau", type=click.FloatRange(min=0), help="Dynamics: added uncertainty per game "
                     "(default sigma/100)."),
        click.option("--draw-probability", type=click.FloatRange(0, 1, max_open=True),
                     help="Chance of a tie between equal bots (default chosen per game)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command
