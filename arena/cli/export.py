"""`arena export`: a tournament's games as tables (games, seats, decisions) for training bots."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from arena.cli.page_progress import PageProgress
from arena.cli.store_options import db_option, results_option, store_path
from arena.site.export import ExportFormat
from arena.site.export import export as export_tables
from arena.storage import Store


@click.command()
@click.option("--tournament", "-t", "name", required=True, help="The tournament (or served season) to export.")
@click.option("--out", "out", type=click.Path(path_type=Path), required=True,
              help="The folder of the tables (made if missing); exporting into it again adds only the new games.")
@click.option("--format", "fmt", type=click.Choice([f.value for f in ExportFormat]), default=ExportFormat.PARQUET.value,
              show_default=True, help="Parquet files, or JSON Lines (a JSON object a line).")
@results_option
@db_option
def export(name: str, out: Path, fmt: str, results_dir: Path, db: Path | None) -> None:
    """Write a tournament's finished games as games, seats and decisions tables: every decision with the view, the
    options and the choice of the seat that made it, exactly as that seat was sent them."""
    with Store.existing(store_path(results_dir, db)) as store:
        report = export_tables(store, results_dir, name, out, ExportFormat(fmt),
                               progress=PageProgress(sys.stderr, sys.stderr.isatty(), "games exported", "games"))
    added = ", ".join(f"{report.added[t]:,} {t}" for t in report.added)
    click.echo(f"{out}: {added} added; " + ", ".join(f"{p.name} {report.rows[t]:,} rows"
                                                     for t, p in report.paths.items()))
