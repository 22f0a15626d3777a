"""`arena match`: bots against each other over the protocol, seats rotating, with a results table."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import click
from tabulate import tabulate

from arena.bots import BotCommand, Transport
from arena.interrupt import cleanup_on_termination
from arena.cli.params import BOT, GAME, announce_sandbox, game_options, results_option, sandbox_options, time_options
from arena.games import Game
from arena.match import MatchConfig, MatchInterrupted, MatchResult, run_match
from arena.record import GameRecord
from arena.sandbox import Sandbox
from protocol import DEFAULT_MAX_MESSAGE, TimeControl

INTERRUPTED = 130  # the exit status of a command stopped by Ctrl-C or SIGTERM, as a shell reports SIGINT


@click.command()
@click.argument("game", type=GAME)
@click.argument("bots", type=BOT, nargs=-1, required=True)
@click.option("--games", "-n", type=click.IntRange(min=1), default=1, show_default=True,
              help="Games to play; seats rotate from one game to the next.")
@click.option("--seed", "-s", type=int, default=None, help="Match seed: deals and bot seeds derive from it "
              "(default: a random one, printed).")
@time_options
@sandbox_options
@click.option("--fresh-processes", is_flag=True, help="Start every bot afresh for every game.")
@click.option("--duplicate", is_flag=True, help="Deal each game once per seat rotation, so every bot plays "
              "every seat of the same deal.")
@click.option("--tcp", is_flag=True, help="Reach the bots over tcp://127.0.0.1 instead of private ipc sockets.")
@click.option("--max-message", type=click.IntRange(min=64), default=DEFAULT_MAX_MESSAGE, show_default=True,
              help="Largest reply a bot may send, in bytes.")
@game_options
@results_option
@click.option("--quiet", "-q", is_flag=True, help="Print only the results table, not a line per game.")
def match(game: Game, bots: tuple[BotCommand, ...], games: int, seed: int | None, time: TimeControl,
          fresh_processes: bool, duplicate: bool, tcp: bool, max_message: int, options: dict[str, Any] | None,
          results_dir: Path, quiet: bool, sandbox: Sandbox) -> None:
    """Play GAME between the BOTs (one command line each, quoted), rotating seats, and print the results.

    Example: arena match bali-2001 "python sample_bots/random_bot.py" "python sample_bots/heuristic_bot.py"
    "python sample_bots/random_bot.py" --games 8
    """
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
        click.echo(f"match seed: {seed}", err=True)
    config = MatchConfig(
        game=game, bots=bots, games=games, seed=seed, options=options, time=time, fresh_processes=fresh_processes,
        duplicate=duplicate, transport=Transport.TCP if tcp else Transport.IPC, max_message=max_message,
        results_dir=results_dir, sandbox=sandbox.resolved(tcp))
    config.check()
    announce_sandbox(config.sandbox)
    progress = None if quiet else lambda record: click.echo(game_line(record, games), err=True)
    try:
        with cleanup_on_termination():
            result = run_match(config, on_game=progress)
    except MatchInterrupted as stop:
        report_interrupted(stop, games)
        if stop.result.records:
            click.echo(results_table(stop.result))
        raise SystemExit(INTERRUPTED) from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted before the match started", err=True)
        raise SystemExit(INTERRUPTED) from None
    click.echo(results_table(result))
    click.echo(f"\nrecords and logs: {result.directory}")


def report_interrupted(stop: MatchInterrupted, total: int) -> None:
    """On stderr: why the match stopped, and the records of the games it kept."""
    result = stop.result
    click.echo(f"\ninterrupted ({stop.cause}): every bot is stopped; {len(result.records)} of {total} games were "
               f"played and are kept in {result.directory}", err=True)
    for record in result.records:
        click.echo(f"  game-{record.game_index + 1:04d}.json", err=True)


def game_line(record: GameRecord, total: int) -> str:
    """One line per finished game: ranks by seat, and the faults if there were any."""
    seats = ", ".join(f"{s.name}#{s.participant} rank {record.ranks[s.seat]}" for s in record.seats)
    faults = f"; {len(record.faults)} faults" if record.faults else ""
    dq = f", disqualified seats {list(record.disqualified)}" if record.disqualified else ""
    return f"game {record.game_index + 1}/{total}: {seats}{faults}{dq}"


def results_table(result: MatchResult) -> str:
    """The standings as a table, best mean rank first."""
    rows = sorted(result.standings, key=lambda s: (s.mean_rank, -s.wins, s.participant))
    return tabulate(
        [(s.participant, f"{s.name} {s.version}".strip(), s.command, s.games, s.wins,
          f"{100 * s.wins / s.games:.0f}%", f"{s.mean_rank:.2f}", f"{s.mean_score:.1f}", s.faults, s.disqualified)
         for s in rows],
        headers=("#", "bot", "command", "games", "wins", "win%", "mean rank", "mean score", "faults", "disq."))
