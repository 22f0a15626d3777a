"""`arena cluster certs`: the credentials of a Dask cluster that only their holders can join or send work to."""

from __future__ import annotations

from pathlib import Path

import click

from arena.tournament.cluster_tls import DAYS, instructions, make_certs


@click.group()
def cluster() -> None:
    """A Dask cluster for `arena tournament --cluster` and `arena serve --cluster` (docs/cluster.md)."""


@cluster.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--host", "hosts", multiple=True, metavar="ADDRESS", help="An address or name the scheduler and "
              "the workers are reached at, written into their certificates (repeat for each).")
@click.option("--days", type=click.IntRange(min=1, max=3650), default=DAYS, show_default=True,
              help="How long the certificates are valid.")
def certs(folder: Path, hosts: tuple[str, ...], days: int) -> None:
    """Make a private CA in FOLDER and the scheduler's, the workers' and the client's certificates signed by it,
    and print the Dask settings and the commands that use them: only holders of one can join the cluster or send
    it work."""
    files = make_certs(folder, hosts, days)
    click.echo(instructions(files, hosts[0] if hosts else "SCHEDULER_ADDRESS"))
