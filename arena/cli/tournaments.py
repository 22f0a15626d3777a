"""`arena tournaments`: every tournament in the results store, one line each."""

from __future__ import annotations

import time
from pathlib import Path

import click
from tabulate import tabulate

from arena.cli.params import db_option, results_option, store_path
from arena.match.seeds import PUBLIC_NOTE
from arena.storage import Store

HEADERS = ("name", "title", "game", "format", "entrants", "games", "first game", "last game", "seeds", "complete")


def _when(stamp: float | None) -> str:
    return "" if stamp is None else time.strftime("%Y-%m-%d %H:%M", time.gmtime(stamp))


@click.command()
@results_option
@db_option
def tournaments(results_dir: Path, db: Path | None) -> None:
    """List every tournament in the store: name, title, game, format, entrants, games, first and last game (UTC),
    its seeds (secret, or public: a run given --seed, whose deals anyone who knows the seed can compute) and whether
    it is complete."""
    with Store.existing(store_path(results_dir, db)) as store:
        rows = [(s.name, s.title, s.game, s.format, s.entrants, s.games, _when(s.first), _when(s.last), s.seeding,
                 "yes" if s.complete else "no") for s in store.summaries()]
    if not rows:
        click.echo(f"no tournament in {store.path} yet")
        return
    click.echo(tabulate(rows, headers=HEADERS))
    if any(row[-2] != "secret" for row in rows):
        click.echo(f"public-seeded: {PUBLIC_NOTE}", err=True)
