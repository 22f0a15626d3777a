"""The `arena` command line: a thin click group; each command lives in its own module."""

from __future__ import annotations

from typing import Any

import click

from arena import __version__
from arena.cli.bench import bench
from arena.cli.compare import compare
from arena.cli.match import match
from arena.cli.new import new
from arena.cli.play import play
from arena.cli.publish import publish
from arena.cli.replay import replay
from arena.cli.results import leaderboard, matches, rerate, show
from arena.cli.tournament import tournament
from arena.cli.tournaments import tournaments
from arena.cli.validate import validate
from arena.errors import ArenaError, ConfigError


class ArenaUsageError(click.UsageError):
    """Settings the arena cannot work with (options, bot commands, manifests): one line, exit 2."""


class ArenaFailure(click.ClickException):
    """Anything else the arena can name (a damaged store, a bad replay, a lost cluster): one line, exit 1."""


class ArenaGroup(click.Group):
    """A click group that reports the arena's errors, whichever command raised them, once and the same way."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ConfigError as exc:
            raise ArenaUsageError(str(exc)) from None
        except ArenaError as exc:
            raise ArenaFailure(str(exc)) from None


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Run games, matches and tournaments of bots that play Bali."""


main.add_command(play)
main.add_command(bench)
main.add_command(match)
main.add_command(validate)
main.add_command(replay)
main.add_command(tournament)
main.add_command(tournaments)
main.add_command(leaderboard)
main.add_command(matches)
main.add_command(show)
main.add_command(rerate)
main.add_command(publish)
main.add_command(compare)
main.add_command(new)
