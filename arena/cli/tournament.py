"""`arena tournament`: round-robin, gauntlet or ladder over many bots, stored, resumable, rated."""

from __future__ import annotations

import os
import sys
from contextlib import nullcontext
from pathlib import Path

import click

from arena.interrupt import cleanup_on_termination
from arena.cli.params import (GAME, announce_sandbox, db_option, parse_game_options, rating_options, results_option,
                              sandbox_options, store_errors, store_path, time_control, time_options)
from arena.entrants import Entrant, check_entrants, from_command, from_submissions
from arena.errors import ArenaError, ConfigError
from arena.cluster import ClusterPlayer
from arena.games import Game
from arena.leaderboard import build, render
from arena.progress import Display
from arena.ratings import RatingConfig
from arena.sandbox import Sandbox
from arena.submission import wants_tcp
from arena.schedule import Format
from arena.store import Store
from arena.tournament import DEFAULT_WAVE, Runner, TournamentSpec, check_spec, sample_opponents


@click.command()
@click.argument("game", type=GAME)
@click.argument("bots", nargs=-1)
@click.option("--submissions", type=click.Path(file_okay=False, path_type=Path),
              help="A directory with one folder per bot, each holding a manifest.toml (name, version, author, "
                   "command).")
@click.option("--format", "fmt", type=click.Choice([f.value for f in Format]), default=Format.ROUND_ROBIN.value,
              show_default=True, help="round-robin: every table of SEATS entrants; gauntlet: the first entrant "
              "against the others (or the sample bots); ladder: tables chosen by rating until --games or "
              "--time-limit.")
@click.option("--seats", type=click.IntRange(min=1), help="Seats per table (default: as many as the game and "
              "the entrants allow).")
@click.option("--rounds", type=click.IntRange(min=1), default=1, show_default=True,
              help="How many times the round-robin or gauntlet schedule is played.")
@click.option("--duplicate", is_flag=True, help="Deal every seat rotation of a table the same cards, so that "
              "card luck cancels out.")
@click.option("--games", "max_games", type=click.IntRange(min=1), help="Ladder: stop after this many games.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Start no new table after this many seconds (the same command resumes later).")
@click.option("--wave", type=click.IntRange(min=1), default=DEFAULT_WAVE, show_default=True,
              help="Ladder: tables chosen at a time from the ratings so far.")
@click.option("--seed", "-s", type=int, default=0, show_default=True,
              help="Tournament seed: every deal and bot seed derives from it.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Matches played at once, each in its own worker process.")
@click.option("--cluster", metavar="ADDRESS", help="Play the tables on a Dask cluster: a scheduler's address "
              "(tcp://HOST:8786), or 'local' for a local cluster of --jobs worker processes. Needs the cluster "
              "extra (pip install 'bali-arena[cluster]').")
@time_options
@sandbox_options
@click.option("--fresh-processes", is_flag=True, help="Start every bot afresh for every game.")
@click.option("--name", help="Tournament name in the store (default: derived from the settings, so that the "
              "same command resumes the same tournament).")
@click.option("--option", "-o", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="A game option, VALUE as JSON; repeatable.")
@click.option("--variant", "variants", multiple=True, metavar="NAME", help="Switch on a game variant; repeatable.")
@rating_options
@click.option("--max-fault-rate", type=click.FloatRange(0, 1), help="Leave bots whose share of faulty games is "
              "above this off the printed ranking.")
@results_option
@db_option
@store_errors
def tournament(game: Game, bots: tuple[str, ...], submissions: Path | None, fmt: str, seats: int | None,
               rounds: int, duplicate: bool, max_games: int | None, time_limit: float | None, wave: int,
               seed: int, jobs: int, cluster: str | None, timeout: float, init_timeout: float, time_bank: float, increment: float,
               fresh_processes: bool, name: str | None, option_pairs: tuple[str, ...], variants: tuple[str, ...],
               mu: float | None, sigma: float | None, beta: float | None, tau: float | None,
               draw_probability: float | None, max_fault_rate: float | None, results_dir: Path,
               db: Path | None, sandbox: Sandbox) -> None:
    """Play a tournament of GAME between BOTS (command lines, optionally NAME=COMMAND) and print the leaderboard.

    Killed or stopped, the same command resumes it: finished games are kept, unfinished ones played again.

    Example: arena tournament bali-2001 "python -m sample_bots.random_bot" "my=python mybot.py" --format gauntlet
    """
    fmt_ = Format(fmt)
    try:
        entrants = _entrants(game, bots, submissions, fmt_)
        seats = seats or min(game.max_players, len(entrants))
        if fmt_ == Format.GAUNTLET and len(entrants) < seats:
            entrants += sample_opponents(game.name, seats - len(entrants), taken={e.name for e in entrants})
        if fmt_ == Format.LADDER and max_games is None and time_limit is None:
            raise click.UsageError("a ladder needs --games or --time-limit")
        spec = TournamentSpec(
            game=game.name, fmt=fmt_, entrants=tuple(entrants), seats=seats,
            options=parse_game_options(option_pairs, variants), rounds=rounds, duplicate=duplicate,
            max_games=max_games, wave=wave, seed=seed, fresh_processes=fresh_processes,
            time=time_control(timeout, init_timeout, time_bank, increment),
            rating=RatingConfig.for_game(game.name, mu=mu, sigma=sigma, beta=beta, tau=tau,
                                         draw_probability=draw_probability),
            sandbox=sandbox.resolved(any(wants_tcp(e.cwd) for e in entrants)))
        check_spec(spec)
    except (ArenaError, ValueError) as exc:
        raise click.UsageError(str(exc)) from None
    announce_sandbox(spec.sandbox)
    player = None if cluster is None else _cluster_player(cluster, jobs, results_dir)
    with _open_store(store_path(results_dir, db)) as store, player or nullcontext():
        runner = Runner(spec, store, results_dir, jobs=jobs, name=name, time_limit=time_limit,
                        on_progress=Display(sys.stderr, sys.stderr.isatty()), player=player)
        try:
            with cleanup_on_termination():
                ratings = runner.run()
        except KeyboardInterrupt:
            click.echo("\ninterrupted: finished games are stored; run the same command to resume", err=True)
            raise SystemExit(130) from None
        except ConfigError as exc:
            raise click.UsageError(str(exc)) from None
        except ArenaError as exc:
            raise click.ClickException(str(exc)) from None
        t = runner.tournament
        board = build(f"{t.name} ({game.name}, {fmt}, sandbox {spec.sandbox.level.value})", ratings, store.bot_stats(t.id), max_fault_rate)
        click.echo(render(board, "table"))
        if not runner.complete():
            click.echo("\nthe tournament is not complete: run the same command to go on", err=True)


def _entrants(game: Game, bots: tuple[str, ...], submissions: Path | None, fmt: Format) -> list[Entrant]:
    entrants = [from_command(b) for b in bots]
    if submissions is not None:
        entrants += from_submissions(submissions)
    if not entrants:
        raise click.UsageError("give at least one bot command or --submissions DIR")
    return check_entrants(entrants, 1 if fmt == Format.GAUNTLET else game.min_players)


def _cluster_player(address: str, jobs: int, results_dir: Path) -> ClusterPlayer:
    try:
        return ClusterPlayer(address, jobs, results_dir)
    except ArenaError as exc:
        raise click.UsageError(str(exc)) from None


def _open_store(path: Path) -> Store:
    try:
        return Store(path)
    except ArenaError as exc:
        raise click.ClickException(str(exc)) from None
