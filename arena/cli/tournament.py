"""`arena tournament`: round-robin, gauntlet or ladder over many bots, stored, resumable, rated."""

from __future__ import annotations

import os
import sys
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from arena.bots.entrants import Refusal
from arena.bots.sandbox import Sandbox
from arena.cli.params import (
    GAME,
    announce_crowding,
    announce_sandbox,
    cluster_access_options,
    competition_defaults,
    db_option,
    game_options,
    rating_options,
    results_option,
    sandbox_options,
    store_path,
    time_options,
)
from arena.cli.progress import BuildDisplay, Display
from arena.games import SAMPLE_LEVELS, Game
from arena.interrupt import cleanup_on_termination
from arena.match.seeds import PUBLIC_SEED_HELP
from arena.ratings.trueskill import DEFAULT_SIGMA, RatingConfig, Ratings
from arena.storage import Store, Tournament, name_holders
from arena.tournament import competition_file
from arena.tournament.assembly import Intake, NoEntrants, assemble, check
from arena.tournament.cluster import ClusterPlayer
from arena.tournament.cluster_tls import ClusterAccess
from arena.tournament.formats import DEFAULT_FORMAT, FORMATS, get_format
from arena.tournament.formats.base import Play, TournamentSpec
from arena.tournament.formats.gauntlet import CHALLENGER_GAMES, SIGMA_TARGET
from arena.tournament.formats.ladder import DEFAULT_WAVE
from arena.tournament.ladder import Ladder
from arena.tournament.leaderboard import TEXT_FORMATS, tournament_board
from arena.tournament.opponents import DEFAULT_LEVEL, SAMPLE_VERSION, faulty_samples
from arena.tournament.run import Runner
from protocol import TimeControl


def _competition_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
    """Eager: the file's settings become the command's defaults, so that flags given on the command line win."""
    if value is None or ctx.resilient_parsing:
        return
    settings = competition_file.load(value)
    competition_defaults(ctx, value, settings, "tournament", skip=competition_file.SERVE_ONLY)


@click.command()
@click.option("--config", type=click.Path(dir_okay=False, path_type=Path), is_eager=True, expose_value=False,
              callback=_competition_file, help="A competition file (TOML) holding the settings; options given on "
              "the command line override it, and the same file resumes the same tournament.")
@click.argument("game", type=GAME)
@click.argument("bots", nargs=-1)
@click.option("--submissions", type=click.Path(file_okay=False, path_type=Path),
              help="A directory with one folder per bot, each holding a manifest.toml (name, version, author, "
                   "command).")
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default=DEFAULT_FORMAT, show_default=True,
              help="; ".join(f"{f.name}: {f.summary}" for f in FORMATS.values()) + ".")
@click.option("--seats", type=click.IntRange(min=1), help="Seats per table (default: as many as the game and "
              "the entrants allow; a gauntlet: the game's largest table, filled with sample bots if need be).")
@click.option("--samples", type=click.Choice(SAMPLE_LEVELS), default=DEFAULT_LEVEL, show_default=True,
              help="The strongest sample bot that fills a table, the rest random bots: 'search' seats the search "
                   "bot, then the heuristic bot; 'random' only random bots.")
@click.option("--rounds", type=click.IntRange(min=1),
              help="How many times the round-robin or gauntlet schedule is played (default: 1; a gauntlet: "
                   f"enough for the challenger to play {CHALLENGER_GAMES} games, e.g. 8 rounds of 4 games "
                   "alone at a table of 4: against the sample bots, that many games bring its TrueSkill sigma "
                   f"below {SIGMA_TARGET}, down from {DEFAULT_SIGMA:.2f}, in both games).")
@click.option("--duplicate", is_flag=True, help="Deal every seat rotation of a table the same cards, so that "
              "card luck cancels out.")
@click.option("--games", "max_games", type=click.IntRange(min=1), help="Ladder: stop after this many games.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Start no new table after this many seconds, once one has started (the same command resumes later).")
@click.option("--wave", type=click.IntRange(min=1), default=DEFAULT_WAVE, show_default=True,
              help="Ladder: tables (of one game each) chosen at a time from the ratings so far.")
@click.option("--seed", "-s", type=int, default=None,
              help=PUBLIC_SEED_HELP)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Matches played at once, each in its own worker process.")
@click.option("--cluster", metavar="ADDRESS", help="Play the tables on a Dask cluster: a scheduler's address "
              "(tls://HOST:8786 with --cluster-certs or Dask's own TLS settings; tcp:// only with "
              "--insecure-cluster), or 'local' for a local cluster of --jobs worker processes that only this run's "
              "credentials reach. Needs the cluster extra (pip install 'bali-arena[cluster]').")
@cluster_access_options
@time_options
@sandbox_options
@click.option("--fresh-processes", is_flag=True, help="Start every bot afresh for every game.")
@click.option("--title", help="A title shown with the tournament (leaderboard, tournaments, publish); a new "
              "tournament without --name is named after it.")
@click.option("--name", help="Tournament name in the store (default: the one the same settings started, else the "
              "title, else GAME-FORMAT-DATE).")
@game_options
@rating_options
@click.option("--strict", is_flag=True, help="Refuse to start if any submission is not admitted (a broken "
              "manifest, a missing command, a failed handshake or first game), instead of going on without it.")
@click.option("--max-fault-rate", type=click.FloatRange(0, 1), help="Leave bots whose share of faulty games is "
              "above this off the printed ranking.")
@results_option
@db_option
def tournament(game: Game, bots: tuple[str, ...], submissions: Path | None, fmt: str, seats: int | None, samples: str,
               rounds: int | None, duplicate: bool, max_games: int | None, time_limit: float | None, wave: int,
               seed: int | None, jobs: int, cluster: str | None, cluster_access: ClusterAccess, time: TimeControl,
               sandbox: Sandbox,
               fresh_processes: bool, title: str | None, name: str | None, options: dict[str, Any] | None,
               rating: RatingConfig,
               strict: bool, max_fault_rate: float | None, results_dir: Path, db: Path | None) -> None:
    """Play a tournament of GAME between BOTS (command lines, optionally NAME=COMMAND) and print the leaderboard.

    Killed or stopped, the same command resumes it: finished games are kept, unfinished ones played again.

    A gauntlet of one bot seats it with sample bots and plays enough games to rate it:

    \b
    arena tournament bali-2001 "python3 my_bot.py" --format gauntlet

    Example: arena tournament bali-2001 "python -m sample_bots.random_bot" "my=python mybot.py" --format gauntlet
    """
    try:
        intake = Intake(strict=strict, watch=BuildDisplay(sys.stderr, sys.stderr.isatty()), on_refused=_tell_refused,
                        holders=name_holders(store_path(results_dir, db)), results_dir=results_dir)
        assembly = assemble(Play(game=game.name, options=options, time=time, sandbox=sandbox, rating=rating),
                            get_format(fmt), bots, submissions, seats=seats, rounds=rounds, samples=samples,
                            intake=intake)
    except NoEntrants as exc:
        raise click.UsageError(str(exc)) from None
    spec = check(replace(assembly.spec, duplicate=duplicate, max_games=max_games, wave=wave, seed=seed,
                         fresh_processes=fresh_processes, title=title, max_fault_rate=max_fault_rate),
                 time_limit, results_dir)
    refused = assembly.refused
    player = None if cluster is None else ClusterPlayer(cluster, jobs, results_dir, access=cluster_access)
    with Store(store_path(results_dir, db)) as store, player or nullcontext():
        try:
            with cleanup_on_termination():
                played = _play(spec, store, results_dir, jobs, name, time_limit, refused, player)
        except KeyboardInterrupt:
            click.echo("\ninterrupted: finished games are stored; run the same command to resume", err=True)
            raise SystemExit(130) from None
        tournament, ratings, complete = played
        click.echo(TEXT_FORMATS["table"].render(tournament_board(store, tournament, max_fault_rate,
                                                                  ratings=ratings, results_dir=results_dir)))
        _check_ending(store, tournament, complete, spec)


def _play(spec: TournamentSpec, store: Store, results_dir: Path, jobs: int, name: str | None,
          time_limit: float | None, refused: tuple[Refusal, ...],
          player: ClusterPlayer | None) -> tuple[Tournament, Ratings, bool]:
    """Play the tournament: a living format (the ladder) through a Ladder, any other schedule through a Runner;
    its tournament, ratings, and whether it is complete."""
    display = Display(sys.stderr, sys.stderr.isatty())

    def announce(_: object = None) -> None:
        announce_sandbox(spec.sandbox)
        announce_crowding(1 if player else jobs, spec.seats)

    if not spec.fmt.entrants_change:
        runner = Runner(spec, store, results_dir, jobs=jobs, name=name, time_limit=time_limit, refused=refused,
                        on_progress=display, player=player, on_start=announce)
        ratings = runner.run()
        assert runner.tournament is not None
        return runner.tournament, ratings, runner.complete()
    ladder = Ladder(store, spec, results_dir, name=name, jobs=jobs, player=player, refused=refused,
                    time_limit=time_limit, on_progress=display)
    try:
        announce()
        ratings = ladder.play(seconds=time_limit)
        return ladder.tournament, ratings, ladder.complete()
    finally:
        ladder.close()


def _tell_refused(refusal: Refusal) -> None:
    """Say on stderr that a submission was not admitted, how its stderr ended and where its log was kept."""
    click.echo(f"not admitted: {refusal.reason}" + (f"\n  its stderr ended: {refusal.said}" if refusal.said else "")
               + (f"\n  its log: {refusal.log}" if refusal.log else ""), err=True)


def _check_ending(store: Store, tournament: Tournament, complete: bool, spec: TournamentSpec) -> None:
    """Say on stderr if the tournament is not complete; an error if a sample bot of spec faulted in most of its
    games."""
    samples = {e.name for e in spec.entrants if e.version == SAMPLE_VERSION}
    broken = faulty_samples({name: (round(s["fault_rate"] * s["games"]), int(s["games"]))
                             for name, s in store.bot_stats(tournament.id).items() if name in samples})
    if not complete:
        click.echo("\nthe tournament is not complete: run the same command to go on", err=True)
    if broken:
        click.echo("\n".join(broken), err=True)
        raise click.ClickException("a sample bot faulted in most of its games: the ratings against it say "
                                   "nothing")

