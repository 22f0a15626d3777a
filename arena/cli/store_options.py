"""The options that name the results folder and store, apart from arena.cli.params so that the commands which only
read the store (`arena leaderboard`, `arena matches`) start without importing the bots' processes and sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import click


def results_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """--results DIR, for every command that writes."""
    return click.option("--results", "results_dir", type=click.Path(file_okay=False, path_type=Path),
                        default=Path("results"), show_default=True,
                        help="Directory for game records, match summaries and bot logs.")(command)


def db_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """--db PATH: the results store (default: arena.sqlite in the results directory)."""
    return click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help="The results database (default: RESULTS/arena.sqlite).")(command)


def store_path(results_dir: Path, db: Path | None) -> Path:
    """The results database the --results and --db options name."""
    from arena.storage import DEFAULT_DB_NAME
    return db if db is not None else results_dir / DEFAULT_DB_NAME
