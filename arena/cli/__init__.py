"""The `arena` command line: a thin click group; each command lives in its own module."""

from __future__ import annotations

import importlib
import os
from typing import Any

import click

from arena import __version__
from arena.errors import ArenaError, ConfigError
from arena.interrupt import (
    INTERRUPTED,
    INTERRUPTED_LINE,
    check_interrupted,
    forget_interrupt,
    remember_interrupts,
)


class ArenaUsageError(click.UsageError):
    """Settings the arena cannot work with (options, bot commands, manifests): one line, exit 2."""


class ArenaFailure(click.ClickException):
    """Anything else the arena can name (a damaged store, a bad replay, a lost cluster): one line, exit 1."""


# Each command's module, imported only when that command runs or help lists it: `arena match` does not pay for
# the benchmarks, the site or SciPy at every start.
COMMANDS = {
    "play": "arena.cli.play:play", "bench": "arena.cli.bench:bench", "match": "arena.cli.match:match",
    "validate": "arena.cli.validate:validate", "replay": "arena.cli.replay:replay",
    "tournament": "arena.cli.tournament:tournament", "tournaments": "arena.cli.tournaments:tournaments",
    "leaderboard": "arena.cli.results:leaderboard", "matches": "arena.cli.results:matches",
    "show": "arena.cli.results:show", "rerate": "arena.cli.results:rerate", "publish": "arena.cli.publish:publish",
    "compare": "arena.cli.compare:compare", "finals": "arena.cli.finals:finals", "new": "arena.cli.new:new",
    "authors": "arena.cli.authors:authors", "serve": "arena.cli.serve:serve", "backup": "arena.cli.backup:backup",
    "cluster": "arena.cli.cluster:cluster",
    "export": "arena.cli.export:export",
}


PRIVATE_UMASK = 0o077  # what every command but those below creates: readable by the arena's user alone
SHARED_OUTPUT = {"new", "publish", "export"}  # a bot author's new folder; pages for a web server; data to share


class ArenaGroup(click.Group):
    """A click group that reports the arena's errors, whichever command raised them, once and the same way, and
    imports a command's module only when it is needed."""

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.commands or name not in self.lazy:
            return super().get_command(ctx, name)
        module, attribute = self.lazy[name].split(":")
        command = getattr(importlib.import_module(module), attribute)
        self.add_command(command, name)
        return command

    def main(self, *args: Any, **kwargs: Any) -> Any:
        remember_interrupts()
        return super().main(*args, **kwargs)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        found = super().resolve_command(ctx, args)
        check_interrupted()  # a Ctrl-C while the command's modules were imported
        if found[0] not in SHARED_OUTPUT:
            # The store (authors' hashes, secret seeds), game records and bots' logs: the arena's user's alone.
            os.umask(PRIVATE_UMASK)
        return found

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            # A command that runs games says what it kept; this is a Ctrl-C anywhere else (starting up, finishing).
            click.echo(f"\n{INTERRUPTED_LINE}", err=True)
            forget_interrupt()
            raise SystemExit(INTERRUPTED) from None
        except SystemExit as exc:
            if exc.code == INTERRUPTED:
                forget_interrupt()
            raise
        except ConfigError as exc:
            raise ArenaUsageError(str(exc)) from None
        except ArenaError as exc:
            raise ArenaFailure(str(exc)) from None


@click.group(cls=ArenaGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Run games, matches and tournaments of bots that play Bali."""
