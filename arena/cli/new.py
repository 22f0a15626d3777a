"""`arena new`: a submission folder from a starter kit, ready to build and validate."""

from __future__ import annotations

from pathlib import Path

import click

from arena.errors import ConfigError
from arena.kits import Language, create, install_hint, missing, prepare


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
    click.echo(f"created {folder}/ from the {lang.value} kit: write your logic in its strategy function, "
               f"then: arena validate {folder} --game bali-2001 (see {folder}/README.md)")
    lacking = missing(lang)
    if lacking:
        click.echo(f"warning: this machine cannot build or run it yet; install what it needs with: "
                   f"{install_hint(lacking)}", err=True)
        return
    problem = prepare(folder, lang)
    if problem is not None:
        click.echo(f"warning: {problem}", err=True)
