"""`arena match`: bots against each other over the protocol, seats rotating, with a results table."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click
from tabulate import tabulate

from arena.bots.process import BotCommand, Transport
from arena.bots.sandbox import Sandbox
from arena.cli.params import (
    BOT,
    GAME,
    announce_sandbox,
    game_options,
    results_option,
    sandbox_options,
    store_path,
    time_options,
)
from arena.cli.progress import BuildDisplay
from arena.errors import ArenaError
from arena.games import Game
from arena.interrupt import INTERRUPTED, cleanup_on_termination
from arena.match.play import MatchConfig, MatchInterrupted, MatchResult, run_match
from arena.match.record import GameRecord, record_file
from arena.match.seeds import PUBLIC_SEED_HELP, chosen
from arena.tournament.run import store_match as keep_in_store
from protocol import DEFAULT_MAX_MESSAGE, TimeControl

DEFAULT_RESULTS = Path("results")  # the --results default: commands given it need no --results option


@click.command()
@click.argument("game", type=GAME)
@click.argument("bots", type=BOT, nargs=-1, required=True)
@click.option("--games", "-n", type=click.IntRange(min=1), default=1, show_default=True,
              help="Games to play; seats rotate from one game to the next.")
@click.option("--seed", "-s", type=int, default=None, help=PUBLIC_SEED_HELP)
@time_options
@sandbox_options
@click.option("--fresh-processes", is_flag=True, help="Start every bot afresh for every game.")
@click.option("--duplicate", is_flag=True, help="Deal each game once per seat rotation, so every bot plays "
              "every seat of the same deal.")
@click.option("--tcp", is_flag=True, help="Give the bots tcp://127.0.0.1 endpoints instead of ipc sockets (under "
              "bubblewrap each in the bot's own network namespace, relayed to its private ipc socket).")
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
    config = MatchConfig(
        game=game, bots=bots, games=games, seed=chosen(seed), options=options, time=time,
        fresh_processes=fresh_processes, duplicate=duplicate, transport=Transport.TCP if tcp else Transport.IPC,
        max_message=max_message, results_dir=results_dir, sandbox=sandbox.resolved(),
        build_watch=None if quiet else BuildDisplay(sys.stderr, sys.stderr.isatty()))
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
    click.echo("\n" + where_to_look(result, store_match(result, config), results_dir))


def store_match(result: MatchResult, config: MatchConfig) -> list[int]:
    """Store the match's games for `arena matches` and `arena show`; on a store problem, say so and go on (the
    game records stay on disk)."""
    try:
        return keep_in_store(config, result, store_path(config.results_dir, None))
    except ArenaError as exc:
        click.echo(f"the games were not added to the results store: {exc}", err=True)
        return []


def where_to_look(result: MatchResult, stored: list[int], results_dir: Path) -> str:
    """Where the logs and records are, and the commands that browse them, each path as the command takes it."""
    folder = result.directory
    first = f" (arena replay {shlex.quote(str(folder / record_file(0)))})" if result.records else ""
    option = "" if results_dir == DEFAULT_RESULTS else f" --results {shlex.quote(str(results_dir))}"
    entry = shlex.quote(result.match_id)
    browse = (f"\nstored as games 1 to {len(stored)} of {entry}: arena matches{option} -t {entry}; "
              f"arena show{option} 1 -t {entry}") if stored else ""
    return (f"logs: {shlex.quote(str(folder / 'logs'))}\n"
            f"game records: {shlex.quote(str(folder))}{first}{browse}")


def report_interrupted(stop: MatchInterrupted, total: int) -> None:
    """On stderr: why the match stopped, and the records of the games it kept."""
    result = stop.result
    click.echo(f"\ninterrupted ({stop.cause}): every bot is stopped; {len(result.records)} of {total} games were "
               f"played and are kept in {result.directory}", err=True)
    for record in result.records:
        click.echo(f"  {record_file(record.game_index)}", err=True)


def game_line(record: GameRecord, total: int) -> str:
    """One line per finished game: each seat's bot and rank, and the faults if there were any."""
    seats = ", ".join(f"seat {s.seat} {s.label} rank {record.ranks[s.seat]}" for s in record.seats)
    faults = f"; {len(record.faults)} faults" if record.faults else ""
    dq = f", disqualified seats {list(record.disqualified)}" if record.disqualified else ""
    return f"game {record.game_index + 1}/{total}: {seats}{faults}{dq}"


def results_table(result: MatchResult) -> str:
    """The standings as a table, ranked by mean rank (then wins); the first column is that rank."""
    rows = sorted(result.standings, key=lambda s: (s.mean_rank, -s.wins, s.participant))
    ranks = [1 + sum(1 for o in rows if (o.mean_rank, -o.wins) < (s.mean_rank, -s.wins)) for s in rows]
    return tabulate(
        [(rank, s.label, s.version, s.command, s.games, s.wins, f"{100 * s.wins / max(1, s.games):.0f}%",
          f"{s.mean_rank:.2f}", f"{s.mean_score:.1f}", s.faults, s.disqualified)
         for rank, s in zip(ranks, rows)],
        headers=("rank", "bot", "version", "command", "games", "wins", "win%", "mean rank", "mean score", "faults",
                 "disq."), disable_numparse=[2])  # a version is text: "1.10" is not 1.1
