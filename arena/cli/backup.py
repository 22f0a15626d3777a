"""`arena backup DEST`: a consistent copy of the results store, taken while a server or a tournament writes it."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from arena.cli.store_options import db_option, results_option, store_path
from arena.errors import ConfigError
from arena.storage import Store, StoreError


class _Progress:
    """The pages copied so far, on one line of a terminal; nothing where stderr is a file or a pipe."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, copied: int, total: int) -> None:
        if sys.stderr.isatty():
            click.echo(f"\rcopying the store: {copied} of {total} pages", err=True, nl=False)
            self.shown = True

    def end(self) -> None:
        """End the progress line, if one was shown."""
        if self.shown:
            click.echo("", err=True)
            self.shown = False


@click.command()
@click.argument("dest", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace DEST if it exists.")
@results_option
@db_option
def backup(dest: Path, force: bool, results_dir: Path, db: Path | None) -> None:
    """Copy the results store to the file DEST, readable by you alone, as it stood when the copy began, while
    `arena serve` or a tournament goes on writing it.

    To restore it, stop the server and copy DEST back as the store (results/arena.sqlite).
    """
    progress = _Progress()
    try:
        with Store.existing(store_path(results_dir, db)) as store:
            pages, size = store.backup(dest, progress, overwrite=force)
    except StoreError as exc:
        # The store to copy is what the command is given: one missing, damaged or unreachable is a bad argument.
        raise ConfigError(str(exc)) from None
    finally:
        progress.end()
    click.echo(f"backed up {shlex.quote(str(store.path))} to {shlex.quote(str(dest))}: {pages} pages, "
               f"{size} bytes", err=True)
