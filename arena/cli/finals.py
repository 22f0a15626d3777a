"""`arena finals`: a tournament's top K played against each other until each step of their order is decided."""

from __future__ import annotations

import os
from pathlib import Path

import click
from click.core import ParameterSource

from arena.bots.sandbox import Sandbox
from arena.cli.params import SANDBOX_PARAMS, announce_crowding, announce_sandbox, sandbox_options
from arena.cli.store_options import db_option, results_option, store_path
from arena.storage import Store
from arena.tournament import finals as finals_lib
from arena.tournament.formats.finals import DEFAULT_MAX_GAMES
from arena.tournament.leaderboard import TEXT_FORMATS, tournament_board
from arena.tournament.run import Runner


@click.command()
@click.option("--tournament", "-t", "source", required=True, help="The tournament whose top bots play the finals.")
@click.option("--top", "top", type=int, required=True, help="How many of its leading bots play the finals (K >= 2).")
@click.option("--confidence", type=float, required=True,
              help="The confidence at which each adjacent pair's order is decided, between 0 and 1 (0.95, say): "
                   "the chance that any step of the final table is in the wrong order stays below 1 - C.")
@click.option("--max-games", type=int, default=DEFAULT_MAX_GAMES, show_default=True,
              help="The budget: pairs still undecided when it is spent share a rank.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True,
              help="Tables played at once, each in its own worker process.")
@click.option("--name", help="The finals' tournament name in the store (default: NAME-finals); the same command "
              "resumes it.")
@sandbox_options
@results_option
@db_option
def finals(source: str, top: int, confidence: float, max_games: int, jobs: int, name: str | None, sandbox: Sandbox,
           results_dir: Path, db: Path | None) -> None:
    """Play the top K bots of a tournament against each other, duplicate deals in every seat rotation with its
    clocks and sandbox, until the order of every adjacent pair is decided at the confidence asked for (a sequential
    test valid however often it is looked at) or the budget is spent; games go to the pairs still open. Print the
    final table: bots not decided apart share a rank. The sandbox is the tournament's own unless a sandbox
    option is given."""
    ctx = click.get_current_context()
    given = any(ctx.get_parameter_source(p) not in (ParameterSource.DEFAULT, None) for p in SANDBOX_PARAMS)
    with Store(store_path(results_dir, db)) as store:
        t = store.tournament(source)
        finals_name = finals_lib.finals_name(t, name)
        spec = finals_lib.finals_spec(store, t, top, confidence, max_games,
                                      sandbox.resolved() if given else None)
        runner = Runner(spec, store, results_dir, jobs=jobs, name=finals_name,
                        on_start=lambda _: (announce_sandbox(spec.sandbox), announce_crowding(jobs, spec.seats)))
        try:
            runner.run()
        except KeyboardInterrupt:
            click.echo("\ninterrupted: finished games are stored; run the same command to resume", err=True)
            raise SystemExit(130) from None
        click.echo(TEXT_FORMATS["table"].render(tournament_board(store, runner.tournament)))
