"""The `arena` command line: a thin click group; each command lives in its own module."""

from __future__ import annotations

import click

from arena import __version__
from arena.cli.bench import bench
from arena.cli.match import match
from arena.cli.new import new
from arena.cli.play import play
from arena.cli.replay import replay
from arena.cli.results import leaderboard, matches, rerate, show
from arena.cli.tournament import tournament
from arena.cli.validate import validate


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Run games, matches and tournaments of bots that play Bali."""


main.add_command(play)
main.add_command(bench)
main.add_command(match)
main.add_command(validate)
main.add_command(replay)
main.add_command(tournament)
main.add_command(leaderboard)
main.add_command(matches)
main.add_command(show)
main.add_command(rerate)
main.add_command(new)
