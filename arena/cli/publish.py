"""`arena publish`: the results store as a static site."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena.cli.page_progress import PageProgress
from arena.cli.params import db_option, results_option, store_path
from arena.errors import ArenaError
from arena.site import publish as publish_site
from arena.storage import Store


@click.command()
@click.option("--output", "-o", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The site's folder (created if missing); publishing again updates only what changed.")
@click.option("--tournament", "-t", "names", multiple=True,
              help="Publish only this tournament (repeatable; default: every tournament in the store).")
@click.option("--title", help="The site's title, shown on its index page.")
@click.option("--max-fault-rate", type=click.FloatRange(0, 1),
              help="List bots whose share of faulty games is above this apart from the ranking, with the reason.")
@click.option("--no-games", is_flag=True, help="Leave out the per-game replay pages (faster for huge stores).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes drawing the game pages (default: one per CPU).")
@click.option("--include-bot-output", is_flag=True,
              help="Also publish what the bots wrote: each decision's stderr log, fault details and stderr tails "
                   "(left out by default: a bot can write anything it read there).")
@results_option
@db_option
def publish(out: Path, names: tuple[str, ...], title: str | None, max_fault_rate: float | None, no_games: bool,
            jobs: int | None, include_bot_output: bool, results_dir: Path, db: Path | None) -> None:
    """Write a static site of the store's tournaments: leaderboards, charts, bot pages and game replays."""
    with Store.existing(store_path(results_dir, db)) as store:
        try:
            report = publish_site(store, results_dir, out, names, title, max_fault_rate, game_pages=not no_games,
                                  jobs=jobs, progress=lambda line: click.echo(line, err=True),
                                  on_page=PageProgress(sys.stderr, sys.stderr.isatty()),
                                  bot_output=include_bot_output)
        except OSError as exc:  # a folder that cannot be made or written: the pages written so far are kept
            raise ArenaError(f"cannot write the site into {str(out)!r}: {exc.strerror or exc}"
                             + (f" ({exc.filename})" if exc.filename else "")) from None
    for problem in report.problems:
        click.echo(f"warning: {problem}", err=True)
    click.echo(f"{out / 'index.html'}: {report.written} files written, {report.unchanged} already up to date")
