"""`arena new`: a submission folder from a starter kit, ready to build and validate."""

from __future__ import annotations

from pathlib import Path

import click

from arena.errors import ConfigError
from arena.interrupt import INTERRUPTED, forget_interrupt
from arena.kits import Language, create, install_hint, missing, prepare, prepare_advice


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--lang", "-l", "language", type=click.Choice([lang.value for lang in Language]), required=True,
              help="The kit's language.")
def new(folder: Path, language: str) -> None:
    """Create FOLDER, a bot of your own from the starter kit of a language: a manifest, a bot that plays both
    games with a strategy function to fill in, its build files and a README. The bot is named after FOLDER.

    Example: arena new mybot --lang rust && arena validate mybot --game bali-2001
    """
    lang = Language(language)
    try:
        create(folder, lang)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    except KeyboardInterrupt:  # create() removed what it had made
        click.echo("\ninterrupted: nothing was made; run the same command again", err=True)
        forget_interrupt()
        raise SystemExit(INTERRUPTED) from None
    click.echo(f"created {folder}/ from the {lang.value} kit: write your logic in its strategy function, "
               f"then: arena validate {folder} --game bali-2001 (see {folder}/README.md)")
    lacking = missing(lang)
    if lacking:
        click.echo(f"warning: this machine cannot build or run it yet; install what it needs with: "
                   f"{install_hint(lacking)}", err=True)
        return
    try:
        problem = prepare(folder, lang)
    except KeyboardInterrupt:
        # The folder is made: the same command would refuse it. Say what is left to do instead.
        click.echo(f"\ninterrupted while fetching the packages: {folder}/ is made without them; "
                   f"{prepare_advice(folder, lang)}", err=True)
        forget_interrupt()
        raise SystemExit(INTERRUPTED) from None
    if problem is not None:
        click.echo(f"warning: {problem}", err=True)
